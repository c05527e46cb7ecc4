/**
 * Refunds: the step that gives the money of a failed or returned payment back (or, when the rail says it cannot,
 * parks it in suspense), each in its own store transaction, in the state a refund is due in (`REFUND_PENDING`).
 */
import { type Clock, Effect, Result } from "effect"
import { recordSteps, resolveSteps } from "../accounts/balance-updates.ts"
import { systemAccount } from "../ledger/model.ts"
import { type Leg, reversed } from "../ledger/transfers.ts"
import type { Refused } from "../shared/errors.ts"
import type { Steps } from "../shared/tracing.ts"
import { refundReference, sourceLedgerAccount } from "./legs.ts"
import type { FailureReason, Refund, TransactionRecord } from "./model.ts"
import {
  canMove,
  followQuoteSteps,
  isOutgoing,
  type MoveError,
  moveTransactionSteps,
  nowOf,
  retryLaterSteps
} from "./moves.ts"
import type { PaymentPorts } from "./ports.ts"

/** Whether a refund is due: the payment's machine is where a refund ends (`REFUND_SETTLE` / `REFUND_FAIL`). */
export const refundDue = (record: TransactionRecord): boolean => canMove(record, "REFUND_SETTLE")

/** Retryable rail errors while asking how a failed payout's refund went: bounded like polls (see `MAX_POLL_ATTEMPTS`). */
export const MAX_REFUND_ATTEMPTS = 20

/** A ledger `record` as an Effect (to catch the refusal of one call). */
const recordLegs = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  reference: string,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING",
  createdAt: string
) {
  return yield* recordSteps(ports, reference, legs, state, createdAt)
})

/** The store transaction of a refund whose rail did not answer: re-read, re-check, then retry later (or stall). */
const refundRetryInStore = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  record: TransactionRecord,
  reference: string,
  clock: Clock.Clock
) {
  const current = yield* ports.store.transactions.getForUpdate(record.id)
  // Another pass may have finished the refund while the rail was asked: never write over it.
  if (current === undefined || !refundDue(current) || current.railReference !== reference) {
    return current ?? record
  }
  const now = nowOf(clock)
  return yield* retryLaterSteps(ports, current, (current.attempts ?? 0) + 1, MAX_REFUND_ATTEMPTS, now, "refund status")
})

/** Moves a refund to its end (`REFUND_SETTLE` or `REFUND_FAIL`), with `refund.status` and its settlement time. */
export function* finishRefundSteps(
  ports: PaymentPorts,
  current: TransactionRecord,
  event: "REFUND_SETTLE" | "REFUND_FAIL",
  now: string
): Steps<TransactionRecord, MoveError> {
  const refund = current.transaction.refund
  const status = event === "REFUND_SETTLE" ? ("COMPLETED" as const) : ("FAILED" as const)
  const r =
    refund === undefined ? undefined : { ...refund, status, ...(status === "COMPLETED" ? { settledAt: now } : {}) }
  return yield* moveTransactionSteps(
    ports,
    current,
    event,
    { ...(r === undefined ? {} : { transaction: { refund: r } }), record: { dueAt: undefined, attempts: 0 } },
    now
  )
}

/**
 * Fails an outgoing payment whose money never left the ledger (its holds still pending) and refunds it in the same
 * store transaction: the holds voided (nothing left, so the void is the refund), the quote `FAILED`, `event` with
 * `failureReason` and a `refund` of `refundReason` (`decisionReason` kept with the row), then `REFUND_SETTLE`. A
 * cancelled payout (WH-07) and a rejected compliance hold end so.
 */
export function* voidAndRefundSteps(
  ports: PaymentPorts,
  current: TransactionRecord,
  event: "CANCEL" | "REJECT",
  failure: { readonly reason: FailureReason; readonly refundReason: NonNullable<Refund["reason"]> },
  decisionReason: string | undefined,
  now: string
): Steps<TransactionRecord, MoveError> {
  yield* resolveSteps(ports, current.id, "VOIDED", now)
  yield* followQuoteSteps(ports, current, "FAIL")
  const failed = yield* moveTransactionSteps(
    ports,
    current,
    event,
    {
      transaction: {
        failureReason: failure.reason,
        refund: {
          reference: refundReference(current.id),
          initiatedAt: now,
          status: "PENDING",
          reason: failure.refundReason
        }
      },
      record: { dueAt: undefined, ...(decisionReason === undefined ? {} : { decisionReason }) }
    },
    now
  )
  return yield* finishRefundSteps(ports, failed, "REFUND_SETTLE", now)
}

/**
 * An incoming payment returned after it completed: the amount goes back out of the internal account, once; if it
 * was spent meanwhile (the ledger refuses), the refund fails and nothing moves.
 */
function* refundIncomingSteps(
  ports: PaymentPorts,
  current: TransactionRecord,
  refunded: boolean,
  now: string
): Steps<TransactionRecord, MoveError | Refused> {
  if (refunded) {
    // A returned deposit held its amount when it was returned (deposit-returns.ts): the hold is posted now.
    yield* resolveSteps(ports, refundReference(current.id), "POSTED", now)
    return yield* finishRefundSteps(ports, current, "REFUND_SETTLE", now)
  }
  const account = current.accountId
  if (account === undefined) return yield* finishRefundSteps(ports, current, "REFUND_FAIL", now)
  const code = current.transaction.receivedAmount.currency.code
  // Only the ledger's refusal (the money was spent meanwhile) fails the refund; a store error
  // propagates, the store transaction rolls back and the worker tries again.
  const moved = yield* recordLegs(
    ports,
    refundReference(current.id),
    [
      {
        debit: account,
        credit: systemAccount("deposits", code),
        amount: current.transaction.receivedAmount.amount,
        currency: code
      }
    ],
    "POSTED",
    now
  ).pipe(
    Effect.as(true),
    Effect.catchIf(
      (e): e is Refused => e._tag === "Refused" && e.code === "INSUFFICIENT_FUNDS",
      () => Effect.succeed(false)
    )
  )
  return yield* finishRefundSteps(ports, current, moved ? "REFUND_SETTLE" : "REFUND_FAIL", now)
}

/** The store transaction of a refund (see `refundSteps`). */
const refundInStore = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  record: TransactionRecord,
  refundSucceeds: boolean,
  clock: Clock.Clock
) {
  const { store } = ports
  const current = yield* store.transactions.getForUpdate(record.id)
  if (current === undefined || !refundDue(current)) return current ?? record
  const now = nowOf(clock)
  const ref = refundReference(current.id)
  // The refund's own transfers are written once: a refund that already moved money is only finished.
  const refunded = (yield* store.ledger.transfers(ref)).length > 0
  if (!isOutgoing(current)) return yield* refundIncomingSteps(ports, current, refunded, now)
  const quote =
    current.transaction.quoteId === undefined ? undefined : yield* store.quotes.get(current.transaction.quoteId)
  if (quote === undefined) return yield* Effect.die(new Error(`transaction ${current.id} has no quote`))
  const holds = yield* store.ledger.transfers(current.id)
  if (holds.some((t) => t.state === "PENDING")) {
    yield* resolveSteps(ports, current.id, "VOIDED", now)
    if (refundSucceeds || refunded) return yield* finishRefundSteps(ports, current, "REFUND_SETTLE", now)
    const code = quote.quote.sendingCurrency.code
    yield* recordSteps(
      ports,
      ref,
      [
        {
          debit: sourceLedgerAccount(quote),
          credit: systemAccount("suspense", code),
          amount: quote.quote.totalSendingAmount,
          currency: code
        }
      ],
      "POSTED",
      now
    )
    return yield* finishRefundSteps(ports, current, "REFUND_FAIL", now)
  }
  // Returned after settlement: reverse what was posted, once. Holds that were only voided moved no money,
  // so there is nothing to give back (reversing them would create money).
  const posted = holds.filter((t) => t.state === "POSTED")
  if (!refunded && posted.length > 0) yield* recordSteps(ports, ref, reversed(posted), "POSTED", now)
  return yield* finishRefundSteps(ports, current, "REFUND_SETTLE", now)
})

/**
 * The refund step of a failed or returned payment, in its own store transaction:
 * - failed before settlement (holds still pending): the holds are voided (REFUND_COMPLETED); when
 *   the rail reports `refundSucceeds: false` the held money goes to `system:suspense:<ccy>`
 *   instead (holds voided, one posted transfer source → suspense; REFUND_FAILED);
 * - returned after settlement (holds posted): one posted reversal of every posted leg, so payouts,
 *   fx and fee accounts give the whole sending amount back to the source (REFUND_COMPLETED);
 * - an incoming payment returned after it completed: the amount goes back out of the internal
 *   account; if it was spent meanwhile, REFUND_FAILED and nothing moves.
 * A retryable rail error is retried later (bounded, see `MAX_REFUND_ATTEMPTS`).
 */
export function* refundSteps(
  ports: PaymentPorts,
  record: TransactionRecord,
  clock: Clock.Clock
): Steps<TransactionRecord, MoveError | Refused> {
  if (!refundDue(record)) return record
  let refundSucceeds = true
  const reference = record.railReference
  if (isOutgoing(record) && reference !== undefined) {
    const holdsPending = (yield* ports.store.ledger.transfers(record.id)).some((t) => t.state === "PENDING")
    if (holdsPending) {
      const status = yield* Effect.result(ports.rail.status(reference))
      if (Result.isFailure(status) && status.failure.retryable) {
        return yield* ports.store.transaction(refundRetryInStore(ports, record, reference, clock))
      }
      if (Result.isSuccess(status) && status.success._tag === "Failed") refundSucceeds = status.success.refundSucceeds
    }
  }
  return yield* ports.store.transaction(refundInStore(ports, record, refundSucceeds, clock))
}
