/**
 * The outbox's metrics (docs/operations.md, "Telemetry"): pure effect values, updated by the dispatcher's passes.
 */
import { Metric } from "effect"
import { secondsBoundaries } from "../shared/telemetry.ts"

/** Delivery attempts, by `outcome`: `delivered` (2xx or 409), `rejected` (another status), `failed` (no answer). */
export const webhookAttempts = Metric.counter("paycore_webhook_attempts_total", {
  description: "Webhook delivery attempts, by outcome (delivered, rejected, failed)",
  incremental: true
})

/** Seconds from the POST to the receiver's answer (or the transport's failure), by `outcome`. */
export const webhookAttemptSeconds = Metric.histogram("paycore_webhook_attempt_seconds", {
  description: "Duration of a webhook delivery attempt in seconds, by outcome",
  boundaries: secondsBoundaries
})

/**
 * Seconds since the oldest event a dispatcher pass claimed became due (0 when none was due): how far the outbox runs
 * behind. Measured by each pass.
 */
export const outboxLagSeconds = Metric.gauge("paycore_outbox_lag_seconds", {
  description: "Age in seconds of the oldest due outbox event, measured by the last dispatcher pass"
})
