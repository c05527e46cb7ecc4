/**
 * `POST /transactions/{transactionId}/cancel` (WH-07, design Q10): the platform stops a submitted ACH or WIRE payout
 * its rail has not settled. The rail is asked first, outside any store transaction; only a rail that says
 * `Cancelled` lets the payment move. Then, under the row's lock, the payment still `PROCESSING` with that reference
 * is `CANCEL`led: `FAILED` (`QUOTE_EXECUTION_FAILED`, the spec's only fit), its refund `USER_CANCELLATION`, its holds
 * voided (nothing left the ledger, so the void is the refund) and the refund settled at once: events
 * `OUTGOING_PAYMENT.FAILED`, `.REFUND_PENDING`, `.REFUND_COMPLETED` in that order, as a failed payout's refund.
 */
import { type Clock, Effect, Result } from "effect"
import { heldForReview } from "./compliance.ts"
import { railUnavailable, transactionNotCancellable, transactionNotFound } from "./errors.ts"
import type { TransactionReasonRequest, TransactionRecord } from "./model.ts"
import { dieOnUnique, isOutgoing, nowOf } from "./moves.ts"
import type { PaymentPorts } from "./ports.ts"
import { voidAndRefundSteps } from "./refunds.ts"

/** The rails whose payouts a bank can still stop before they settle (upstream: ACH pushes and wires). */
const CANCELLABLE_RAILS: ReadonlyArray<string> = ["ACH", "WIRE"]

/** Why a payment cannot be cancelled whatever the rail says, or `undefined` when the rail is to be asked. */
export const notCancellableReason = (record: TransactionRecord): string | undefined => {
  if (!isOutgoing(record)) return "only outgoing payments can be cancelled"
  const rail = record.transaction.paymentRail
  if (rail === undefined || !CANCELLABLE_RAILS.includes(rail)) {
    return `only ACH and WIRE payouts can be cancelled (this one is ${rail ?? "not a bank payout"})`
  }
  if (heldForReview(record)) return "it is held for compliance review (pendingReason COMPLIANCE_REVIEW)"
  if (record.state !== "PROCESSING") return `it is ${record.transaction.status}, not PROCESSING`
  if (record.railReference === undefined) return "it has not been handed to the rail yet; try again shortly"
  return undefined
}

const cancelInStore = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  record: TransactionRecord,
  reference: string,
  reason: string | undefined,
  clock: Clock.Clock
) {
  const current = yield* ports.store.transactions.getForUpdate(record.id)
  if (current === undefined) return yield* Effect.fail(transactionNotFound(record.id))
  if (current.state !== "PROCESSING" || current.railReference !== reference) {
    // The rail said cancelled, but the worker moved the payment meanwhile (settled or failed): the row stays as the
    // rail's earlier verdict left it, for an operator to reconcile.
    yield* Effect.logWarning(
      `paycore: the rail cancelled ${current.id} but the payment is ${current.state} already; left for an operator`
    )
    return yield* Effect.fail(transactionNotCancellable(current, `it is ${current.transaction.status} already`))
  }
  const failure = { reason: "QUOTE_EXECUTION_FAILED", refundReason: "USER_CANCELLATION" } as const
  return yield* voidAndRefundSteps(ports, current, "CANCEL", failure, reason, nowOf(clock))
})

/** Cancels a payout (see the module's comment); 404, 409 `TRANSACTION_NOT_CANCELLABLE`, 503 when the rail is down. */
export const cancelPayout = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  id: string,
  request: TransactionReasonRequest | undefined,
  clock: Clock.Clock
) {
  const record = yield* ports.store.transactions.get(id)
  if (record === undefined) return yield* Effect.fail(transactionNotFound(id))
  const why = notCancellableReason(record)
  if (why !== undefined) return yield* Effect.fail(transactionNotCancellable(record, why))
  const reference = record.railReference!
  const cancel = ports.rail.cancel
  if (cancel === undefined) {
    return yield* Effect.fail(transactionNotCancellable(record, "its rail takes no cancellations"))
  }
  const outcome = yield* Effect.result(cancel(reference))
  if (Result.isFailure(outcome)) {
    if (outcome.failure.retryable) return yield* Effect.fail(railUnavailable(outcome.failure.message))
    return yield* Effect.fail(transactionNotCancellable(record, `the rail refused: ${outcome.failure.message}`))
  }
  if (outcome.success._tag === "TooLate") {
    return yield* Effect.fail(transactionNotCancellable(record, "the rail has processed it already"))
  }
  const cancelled = yield* dieOnUnique(
    ports.store.transaction(cancelInStore(ports, record, reference, request?.reason, clock))
  )
  return cancelled.transaction
})
