/**
 * Compliance holds: a payout the `Screening` port held as it was executed (`reserveSteps`) waits in
 * COMPLIANCE_REVIEW: public `PROCESSING` with `pendingReason: COMPLIANCE_REVIEW`, its money held by its pending
 * transfers (as any executed payment's), nothing sent to its rail, no worker step due. A decision moves it on:
 *
 * - release (`RELEASE`): `PROCESSING` without `pendingReason` (`OUTGOING_PAYMENT.PROCESSING`), then, after the
 *   commit, handed to its rail as an executed payment is (the worker re-submits it should that not happen);
 * - reject (`REJECT`): `FAILED` with `COMPLIANCE_REJECTED`, its holds voided (nothing left the ledger, so the void is
 *   the refund) and the refund settled in the same store transaction: `OUTGOING_PAYMENT.FAILED`, `.REFUND_PENDING`,
 *   `.REFUND_COMPLETED`; the quote `FAILED`.
 *
 * Each locks the row and applies to a payment still held, so one decision wins: another is 409 `CONFLICT` with the
 * payment's `status`. The sandbox takes decisions at `POST /sandbox/transactions/{id}/compliance/release` and
 * `/reject`; a deployment's screening provider reports its own through the `Transactions` service.
 */
import { type Clock, Effect } from "effect"
import { addSeconds } from "../shared/time.ts"
import { transactionNotFound, transactionNotUnderReview } from "./errors.ts"
import type { TransactionReasonRequest, TransactionRecord } from "./model.ts"
import { canMove, dieOnUnique, isOutgoing, moveTransactionSteps, nowOf } from "./moves.ts"
import type { PaymentPorts } from "./ports.ts"
import { voidAndRefundSteps } from "./refunds.ts"
import { SUBMIT_GRACE_SECONDS, submitSteps } from "./submission.ts"

/** Whether a payment waits for a compliance decision (the machine's COMPLIANCE_REVIEW: it can be released). */
export const heldForReview = (record: TransactionRecord): boolean => isOutgoing(record) && canMove(record, "RELEASE")

/** The payment as the decision leaves it: no `pendingReason` (it waits for nothing any more). */
const decided = (record: TransactionRecord): TransactionRecord => {
  const { pendingReason: _, ...transaction } = record.transaction
  return { ...record, transaction }
}

/** The held payment `id`, locked (inside the caller's store transaction); 404, or 409 when it is not held. */
const lockHeld = Effect.fnUntraced(function* (ports: PaymentPorts, id: string) {
  const current = yield* ports.store.transactions.getForUpdate(id)
  if (current === undefined) return yield* Effect.fail(transactionNotFound(id))
  if (!heldForReview(current)) return yield* Effect.fail(transactionNotUnderReview(current))
  return current
})

const releaseInStore = Effect.fnUntraced(function* (ports: PaymentPorts, id: string, clock: Clock.Clock) {
  const current = yield* lockHeld(ports, id)
  const now = nowOf(clock)
  return yield* moveTransactionSteps(
    ports,
    decided(current),
    "RELEASE",
    { record: { dueAt: addSeconds(now, SUBMIT_GRACE_SECONDS) } },
    now
  )
})

/** Releases a held payout to its rail (see the module's comment); 404 `TRANSACTION_NOT_FOUND`, 409 `CONFLICT`. */
export const releaseComplianceHold = Effect.fnUntraced(function* (ports: PaymentPorts, id: string, clock: Clock.Clock) {
  const released = yield* ports.store.transaction(releaseInStore(ports, id, clock))
  return (yield* submitSteps(ports, released, clock)).transaction
}, dieOnUnique)

const rejectInStore = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  id: string,
  reason: string | undefined,
  clock: Clock.Clock
) {
  const current = yield* lockHeld(ports, id)
  const failure = { reason: "COMPLIANCE_REJECTED", refundReason: "TRANSACTION_FAILED" } as const
  return yield* voidAndRefundSteps(ports, decided(current), "REJECT", failure, reason, nowOf(clock))
})

/**
 * Rejects a held payout: `FAILED` `COMPLIANCE_REJECTED`, refunded at once (see the module's comment); `reason` is kept
 * with the row for the platform's records. 404 `TRANSACTION_NOT_FOUND`, 409 `CONFLICT`.
 */
export const rejectComplianceHold = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  id: string,
  request: TransactionReasonRequest | undefined,
  clock: Clock.Clock
) {
  const rejected = yield* ports.store.transaction(rejectInStore(ports, id, request?.reason, clock))
  return rejected.transaction
}, dieOnUnique)
