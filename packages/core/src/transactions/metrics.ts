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

// One attributed metric per status and type, made once: each `Metric.withAttributes` is a new series handle whose
// first update builds its registry key (a sorted JSON string), and every payment step counted a new one.
const transitionSeries = new Map<string, Metric.Metric<number, unknown>>()

const transitionsOf = (status: string, type: string): Metric.Metric<number, unknown> => {
  const key = `${status} ${type}`
  let series = transitionSeries.get(key)
  if (series === undefined) {
    series = Metric.withAttributes(paymentTransitions, { status, type })
    transitionSeries.set(key, series)
  }
  return series
}

/** Counts the payment `record` in its status now, once the caller's store transaction commits. */
export const countPaymentTransition = (record: TransactionRecord) =>
  updateOnCommit(transitionsOf(record.transaction.status, record.transaction.type), 1)
