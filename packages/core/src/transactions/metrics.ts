/**
 * The payments' metrics (docs/operations.md, "Telemetry"): pure effect values, updated by the use cases and read by
 * whatever the host installs (the Prometheus endpoint, the OpenTelemetry bridge).
 */
import { Metric } from "effect"
import { updateOnCommit } from "../shared/telemetry.ts"
import type { TransactionRecord } from "./model.ts"

/** State changes of payments (and their first state), by the `status` and `type` they reached; counted once committed. */
export const paymentTransitions = Metric.counter("paycore_payment_transitions_total", {
  description: "Payments that reached a status (each state change, once committed), by status and type",
  incremental: true
})

/** Counts the payment `record` in its status now, once the caller's store transaction commits. */
export const countPaymentTransition = (record: TransactionRecord) =>
  updateOnCommit(
    Metric.withAttributes(paymentTransitions, {
      status: record.transaction.status,
      type: record.transaction.type
    }),
    1
  )
