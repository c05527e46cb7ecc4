/**
 * Handing a payment to its rail: what the rail is asked for (`payoutOfSteps`), the call, and recording its answer
 * (the reference and timing, a retry later, or the payment's failure). Used right after an execution commits, by
 * transfer-in, and by the worker for a payment whose submission did not happen or must be retried.
 */
import { type Clock, Effect, Result } from "effect"
import type { Payout, RailError } from "../ports/rail.ts"
import type { Refused, StoreError } from "../shared/errors.ts"
import type { Steps } from "../shared/tracing.ts"
import type { TransactionRecord } from "./model.ts"
import {
  canMove,
  failPaymentSteps,
  isOutgoing,
  laterOf,
  type MoveError,
  nowOf,
  retryLaterSteps,
  savedRecord,
  saveRecordSteps,
  type TransactionChange
} from "./moves.ts"
import type { PaymentPorts } from "./ports.ts"
import { refundDue, refundSteps } from "./refunds.ts"

/**
 * A PROCESSING payment without a rail reference is re-submitted by the worker after this long.
 * The executing call submits right after its commit; this only matters after a crash or a
 * retryable rail error. `Rail.submit` should be idempotent per `transactionId`.
 */
export const SUBMIT_GRACE_SECONDS = 60
/**
 * Retryable rail errors: the worker retries with exponential backoff, then stops (`stalledAt`): the payment stays
 * PROCESSING with its money held, since the rail may have taken the payout; an operator resolves it.
 */
export const MAX_SUBMIT_ATTEMPTS = 8

/**
 * Whether a transaction waits for (re-)submission to its rail: no rail reference yet, in the state where its
 * rail's verdict (`SETTLE`) is next (an outgoing payment PROCESSING, a transfer-in PENDING).
 */
export const awaitingSubmission = (record: TransactionRecord): boolean =>
  record.railReference === undefined && canMove(record, "SETTLE")

const noPayout: RailError = {
  _tag: "RailError",
  retryable: false,
  reason: "ACCOUNT_INVALID",
  message: "the account no longer exists"
}

/** A rail's acceptance of a submission. */
type Submitted = { readonly reference: string; readonly expectedSettlementAt: string }

/** `payoutOfSteps` read ahead: `payout` is undefined when there is nothing to pay out to. */
export interface PayoutRead {
  readonly payout: Payout | undefined
}

/** What a rail is asked to do for a transaction (a payout; for a transfer-in, the pull from the account). */
export function* payoutOfSteps(
  { store }: PaymentPorts,
  record: TransactionRecord
): Steps<Payout | undefined, StoreError> {
  const tx = record.transaction
  const rail = tx.paymentRail ?? "ACH"
  if (!isOutgoing(record)) {
    const external =
      tx.source.accountId === undefined ? undefined : yield* store.externalAccounts.get(tx.source.accountId)
    if (external === undefined) return undefined
    return {
      transactionId: record.id,
      rail,
      amount: tx.sentAmount.amount,
      currency: tx.sentAmount.currency.code,
      destination: { kind: "ACCOUNT", accountInfo: external.accountInfo },
      ...(record.transfer === undefined ? {} : { transfer: record.transfer })
    }
  }
  const base = {
    transactionId: record.id,
    rail,
    amount: tx.receivedAmount.amount,
    currency: tx.receivedAmount.currency.code,
    remittanceInformation: tx.remittanceInformation,
    ...(record.transfer === undefined ? {} : { transfer: record.transfer })
  }
  if (tx.destination.umaAddress !== undefined) {
    return { ...base, destination: { kind: "UMA", umaAddress: tx.destination.umaAddress } }
  }
  const external =
    tx.destination.accountId === undefined ? undefined : yield* store.externalAccounts.get(tx.destination.accountId)
  if (external === undefined) return undefined
  return { ...base, destination: { kind: "ACCOUNT", accountInfo: external.accountInfo } }
}

/** What a rail's acceptance changes: its reference, when it expects to settle, and when to ask it. */
const submittedChange = (
  ports: PaymentPorts,
  record: TransactionRecord,
  submitted: Submitted,
  now: string
): TransactionChange => ({
  transaction: {
    expectedSettlementAt: submitted.expectedSettlementAt,
    settlementTimelineSeconds: Math.round(ports.rail.settlementSeconds(record.transaction.paymentRail ?? "ACH"))
  },
  record: { railReference: submitted.reference, dueAt: laterOf(submitted.expectedSettlementAt, now), attempts: 0 }
})

/** The store transaction after a submission: records the reference (or the retry, or the failure) unless someone else did. */
const recordSubmission = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  record: TransactionRecord,
  submitted: Result.Result<Submitted, RailError>,
  clock: Clock.Clock
) {
  const current = yield* ports.store.transactions.getForUpdate(record.id)
  if (current === undefined || !awaitingSubmission(current)) return current ?? record
  const now = nowOf(clock)
  if (Result.isSuccess(submitted))
    return yield* saveRecordSteps(ports, current, submittedChange(ports, current, submitted.success, now), now)
  const error = submitted.failure
  // A retryable error may hide a payout the rail took (a timeout): failing and refunding it after the last attempt
  // would pay twice (the fault simulation did). The row stalls for an operator instead, its money held.
  if (error.retryable)
    return yield* retryLaterSteps(ports, current, (current.attempts ?? 0) + 1, MAX_SUBMIT_ATTEMPTS, now, "submission")
  return yield* failPaymentSteps(ports, current, error.reason, now)
})

/**
 * Hands a transaction to its rail (after the commit that reserved it), then records the rail's
 * reference and timing, re-checking that nobody else did: with one compare-and-set write while the
 * row is as `record` (the usual case), else in a store transaction under lock. A refusal fails the
 * payment (and refunds it); a retryable error is retried by the worker with backoff. `read`: the
 * payout, when the caller read it already.
 */
export function* submitSteps(
  ports: PaymentPorts,
  record: TransactionRecord,
  clock: Clock.Clock,
  read?: PayoutRead
): Steps<TransactionRecord, MoveError | Refused> {
  if (!awaitingSubmission(record)) return record
  const payout = read === undefined ? yield* payoutOfSteps(ports, record) : read.payout
  const submitted = payout === undefined ? Result.fail(noPayout) : yield* Effect.result(ports.rail.submit(payout))
  if (Result.isSuccess(submitted)) {
    // Usually the row is still as the caller read it: one compare-and-set write records the reference,
    // without a store transaction. Else the store transaction below re-reads it under lock.
    const now = nowOf(clock)
    const next = savedRecord(record, submittedChange(ports, record, submitted.success, now), now)
    if (yield* ports.store.transactions.updateIf(next, record)) return next
  }
  const next = yield* ports.store.transaction(recordSubmission(ports, record, submitted, clock))
  if (refundDue(next)) return yield* refundSteps(ports, next, clock)
  return next
}
