/**
 * The card network's metrics (docs/operations.md, "Telemetry"): pure effect values, updated by `CardNetwork.authorize`.
 */
import { Metric } from "effect"
import type { AuthorizationDecision, AuthorizationRequest } from "./model.ts"

/**
 * Authorization answers, by `outcome` (`approved`, `declined`), `reason` (the decline reason; `none` when approved) and
 * `kind` (`AUTHORIZATION`, `FINANCIAL`, `BALANCE_INQUIRY`, …). A network retry of a token is answered, and counted, again.
 */
export const cardAuthorizations = Metric.counter("paycore_card_authorizations_total", {
  description: "Card authorization answers, by outcome, decline reason and kind",
  incremental: true
})

/** Counts one authorization answer. */
export const countAuthorization = (request: AuthorizationRequest, decision: AuthorizationDecision) =>
  Metric.update(
    Metric.withAttributes(cardAuthorizations, {
      outcome: decision._tag === "Approved" ? "approved" : "declined",
      reason: decision._tag === "Approved" ? "none" : decision.reason,
      kind: request.kind
    }),
    1
  )
