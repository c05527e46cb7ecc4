/**
 * The settlement worker (`processDue`): expires quotes past `expiresAt`, then takes every transaction due by now,
 * one step each in its own store transaction: a (re-)submission, a poll of its rail (settles, fails, or keeps
 * watching a settled payout for a return) or a refund. Each step re-reads its row and re-checks its state
 * (compare-and-set), so a pass run twice or concurrently does nothing twice. Rail calls happen between store
 * transactions, never inside one.
 */
import { type Cause, type Clock, Effect, Result } from "effect"
import { resolveSteps } from "../accounts/balance-updates.ts"
import type { LedgerTransfer } from "../ledger/model.ts"
import type { PayoutStatus, RailError } from "../ports/rail.ts"
import { together } from "../ports/store.ts"
import { expirableQuoteStates, isQuoteDueToExpire } from "../quotes/expiry.ts"
import { walkDue } from "../shared/due-walk.ts"
import type { Refused } from "../shared/errors.ts"
import { statesAllowing } from "../shared/machine.ts"
import { addSeconds } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { AWAITING_APPROVAL, expireApprovalInStore } from "./approvals.ts"
import { failUnauthorizedSteps, quoteSlot } from "./authorization.ts"
import { expireQuoteAndTransactionSteps } from "./execute.ts"
import { refundReference } from "./legs.ts"
import { type IncomingEvent, incomingPaymentMachine, type OutgoingEvent, outgoingPaymentMachine } from "./machine.ts"
import type { Transaction, TransactionRecord } from "./model.ts"
import {
  canMove,
  dieOnUnique,
  failPaymentSteps,
  followQuoteSteps,
  isOutgoing,
  laterOf,
  type MoveError,
  moveTransactionSteps,
  nowOf,
  retryLaterSteps,
  saveRecordSteps
} from "./moves.ts"
import { settledFields } from "./on-chain.ts"
import type { PaymentPorts } from "./ports.ts"
import { refundDue, refundSteps } from "./refunds.ts"
import { awaitingSubmission, submitSteps } from "./submission.ts"

/** After settling, a payout is watched for a bank return this long (checks at growing intervals). */
export const RETURN_WATCH_SECONDS = 24 * 3600
const FIRST_RETURN_CHECK_SECONDS = 60
/**
 * Retryable rail errors while polling a submitted payment's status, or while asking the rail how a failed
 * payout's refund went: the worker retries with capped exponential backoff (5 s doubling to 1 h, about 11 h in
 * all for 20 attempts), then stops asking. It then leaves the row where it is so no money moves on a guess:
 * the state and the ledger holds are kept, `dueAt` is cleared (the worker no longer picks it up), `attempts`
 * stays at the bound and `stalledAt` records when it gave up (with a warning in the log). An operator finds
 * such rows by `stalledAt`; setting `dueAt` again with `attempts: 0` resumes them.
 */
export const MAX_POLL_ATTEMPTS = 20
/** Rows claimed per page by `processDue`. */
const WORKER_PAGE = 100
/**
 * Steps of one page run at once on a store that pipelines (PostgreSQL: their transactions then share group
 * commits, and a rail's answers are awaited side by side); one after the other elsewhere. Each step re-reads and
 * locks its own row, so steps at once never step one row twice, and rows of one account queue on its balance.
 */
const WORKER_CONCURRENCY = 16

/** The moves the worker makes: a rail's verdict, a return, a refund's end. */
const WORKER_EVENTS = ["SETTLE", "FAIL", "RETURN", "REFUND_SETTLE", "REFUND_FAIL"] as const satisfies ReadonlyArray<
  OutgoingEvent & IncomingEvent
>

/**
 * The states a transaction can be due for the worker in: those of either machine that allow one of its moves, and
 * an outgoing payment waiting for an SCA challenge (due when the challenge expires, S-11).
 */
const WORKER_STATES: ReadonlyArray<string> = [
  ...new Set<string>([
    ...statesAllowing(outgoingPaymentMachine, ...WORKER_EVENTS, "SCA_EXPIRE"),
    ...statesAllowing(incomingPaymentMachine, ...WORKER_EVENTS),
    // An incoming payment awaiting the platform's approval, due at its deadline (WH-21).
    ...statesAllowing(incomingPaymentMachine, "APPROVAL_FAIL")
  ])
]

export interface ProcessDueReport {
  /** Quotes (with their transactions) moved to EXPIRED. */
  readonly expired: number
  /** Transactions the worker looked at (submitted, polled, refunded). */
  readonly stepped: number
  /** Steps that failed unexpectedly (logged; retried next pass). */
  readonly errors: number
}

/** Whether a transaction waits for its rail's verdict (or, once completed, for a possible return). */
const awaitingRail = (record: TransactionRecord): boolean =>
  record.railReference !== undefined && (canMove(record, "SETTLE") || canMove(record, "RETURN"))

const nextReturnCheck = (now: string, settledAt: string | undefined): string | undefined => {
  const elapsed = Math.max(0, (Date.parse(now) - Date.parse(settledAt ?? now)) / 1000)
  if (elapsed >= RETURN_WATCH_SECONDS) return undefined
  return addSeconds(now, Math.min(Math.max(FIRST_RETURN_CHECK_SECONDS, elapsed), RETURN_WATCH_SECONDS - elapsed))
}

/**
 * Posts a payment's holds and completes its quote; `transfers`: its ledger transfers when the caller read them with
 * the payment's lock. The postings and the quote's lock go out together (one round trip on PostgreSQL).
 */
function* settleSteps(
  ports: PaymentPorts,
  record: TransactionRecord,
  settledAt: string,
  now: string,
  onChain: Partial<Transaction> = {},
  transfers?: ReadonlyArray<LedgerTransfer>
): Steps<TransactionRecord, MoveError> {
  yield* together(
    ports.store,
    () => resolveSteps(ports, record.id, "POSTED", now, transfers),
    () => (isOutgoing(record) ? followQuoteSteps(ports, record, "COMPLETE") : Effect.void)
  )
  return yield* moveTransactionSteps(
    ports,
    record,
    "SETTLE",
    { transaction: { ...onChain, settledAt }, record: { dueAt: nextReturnCheck(now, settledAt), attempts: 0 } },
    now
  )
}

function* startReturnSteps(
  ports: PaymentPorts,
  record: TransactionRecord,
  now: string
): Steps<TransactionRecord, MoveError> {
  const refund = {
    reference: refundReference(record.id),
    initiatedAt: now,
    status: "PENDING" as const,
    reason: "TRANSACTION_FAILED" as const
  }
  return yield* moveTransactionSteps(
    ports,
    record,
    "RETURN",
    {
      transaction: isOutgoing(record) ? { failureReason: "PAYOUT_RETURNED", refund } : { refund },
      record: { dueAt: now }
    },
    now
  )
}

/**
 * Applies what the rail said about a transaction (inside a store transaction). A payout that completed is
 * watched for a return until `RETURN_WATCH_SECONDS`; a rail cannot fail a payout it reported settled, so such
 * an answer stops the watch and leaves it to operations.
 */
function* applyStatusSteps(
  ports: PaymentPorts,
  record: TransactionRecord,
  status: PayoutStatus,
  now: string,
  transfers?: ReadonlyArray<LedgerTransfer>
): Steps<TransactionRecord, MoveError> {
  if (record.state === "COMPLETED") {
    switch (status._tag) {
      case "Pending":
      case "Settled":
        return yield* saveRecordSteps(
          ports,
          record,
          { record: { dueAt: nextReturnCheck(now, record.transaction.settledAt) } },
          now
        )
      case "Failed":
        return yield* saveRecordSteps(ports, record, { record: { dueAt: undefined } }, now)
      case "Returned":
        return yield* startReturnSteps(ports, record, now)
    }
  }
  switch (status._tag) {
    case "Pending":
      return yield* saveRecordSteps(
        ports,
        record,
        { record: { dueAt: laterOf(status.checkAgainAt, addSeconds(now, 1)), attempts: 0 } },
        now
      )
    case "Settled":
      return yield* settleSteps(ports, record, status.settledAt, now, settledFields(record, status), transfers)
    case "Failed":
      return yield* failPaymentSteps(ports, record, status.reason, now)
    case "Returned":
      return yield* startReturnSteps(ports, yield* settleSteps(ports, record, now, now, {}, transfers), now)
  }
}

/** The store transaction of a poll: applies the rail's answer if the row is still where it was. */
const applyPoll = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  record: TransactionRecord,
  reference: string,
  status: Result.Result<PayoutStatus, RailError>,
  clock: Clock.Clock
) {
  const { store } = ports
  // A payment the rail settled posts its holds: its transfers are read with its lock (one round trip).
  const settles =
    Result.isSuccess(status) && record.state !== "COMPLETED" && ["Settled", "Returned"].includes(status.success._tag)
  const [current, transfers] = yield* together(
    store,
    () => store.transactions.getForUpdate(record.id),
    () => (settles ? store.ledger.transfers(record.id) : Effect.succeed(undefined))
  )
  if (current === undefined || current.state !== record.state || current.railReference !== reference) {
    return current ?? record
  }
  const now = nowOf(clock)
  if (Result.isSuccess(status)) return yield* applyStatusSteps(ports, current, status.success, now, transfers)
  if (current.state === "COMPLETED")
    return yield* saveRecordSteps(ports, current, { record: { dueAt: undefined } }, now)
  // Money may be in flight: keep asking (capped backoff, bounded); a completed payment just stops being watched.
  if (status.failure.retryable) {
    return yield* retryLaterSteps(
      ports,
      current,
      (current.attempts ?? 0) + 1,
      MAX_POLL_ATTEMPTS,
      now,
      "settlement status"
    )
  }
  // The rail does not know the payout: it never left, so it fails and is refunded.
  return yield* failPaymentSteps(ports, current, status.failure.reason, now)
})

/** The worker's poll step for one transaction: asks the rail, then applies the answer in its own store transaction. */
const poll = (ports: PaymentPorts, record: TransactionRecord, clock: Clock.Clock) => {
  const reference = record.railReference!
  return Effect.flatMap(Effect.result(ports.rail.status(reference)), (status) =>
    Effect.flatMap(ports.store.transaction(applyPoll(ports, record, reference, status, clock)), (next) =>
      refundDue(next) ? Effect.gen(() => refundSteps(ports, next, clock)) : Effect.succeed(next)
    )
  )
}

/** The worker's expiry step: re-reads the quote and expires it if it is still due to (see quotes/expiry.ts). */
const expireInStore = Effect.fnUntraced(function* (ports: PaymentPorts, quoteId: string, clock: Clock.Clock) {
  const quote = yield* ports.store.quotes.getForUpdate(quoteId)
  if (quote === undefined) return false
  const now = nowOf(clock)
  if (!isQuoteDueToExpire(quote.quote, now)) return false
  yield* expireQuoteAndTransactionSteps(ports, quote, now)
  return true
})

const expireQuote = (ports: PaymentPorts, quoteId: string, clock: Clock.Clock) =>
  dieOnUnique(ports.store.transaction(expireInStore(ports, quoteId, clock)))

/**
 * The worker's SCA expiry step (S-11): re-reads the quote and its payment under lock; a payment still waiting for a
 * challenge that expired by now fails with `SCA_NOT_COMPLETED` (see `failUnauthorizedSteps`). A challenge still
 * open (a later step was issued) only moves `dueAt` to its expiry.
 */
const expireUnauthorizedInStore = Effect.fnUntraced(function* (
  ports: PaymentPorts,
  record: TransactionRecord,
  clock: Clock.Clock
) {
  const { store } = ports
  const quoteId = record.transaction.quoteId
  if (quoteId === undefined) return record
  const locked = yield* store.quotes.getForUpdateWithTransaction(quoteId)
  const current = locked?.transaction
  if (locked === undefined || current === undefined || !canMove(current, "SCA_EXPIRE")) return current ?? record
  const nowMs = clock.currentTimeMillisUnsafe()
  const open = yield* store.scaChallenges.findUnique("openSlot", quoteSlot(quoteId))
  if (open !== undefined && nowMs < Date.parse(open.expiresAt)) {
    return yield* saveRecordSteps(ports, current, { record: { dueAt: open.expiresAt } }, nowOf(clock))
  }
  return yield* failUnauthorizedSteps(ports, locked.quote, current, open, nowMs)
})

/**
 * One worker step for a due transaction (as listed), chosen by its state. A unique violation is
 * not converted to a defect here: the pass counts and logs any failure of a step alike.
 */
const stepTransaction = (
  ports: PaymentPorts,
  record: TransactionRecord,
  clock: Clock.Clock
): Effect.Effect<TransactionRecord, MoveError | Refused> =>
  canMove(record, "SCA_EXPIRE")
    ? ports.store.transaction(expireUnauthorizedInStore(ports, record, clock))
    : record.state === AWAITING_APPROVAL
      ? ports.store.transaction(expireApprovalInStore(ports, record, clock))
      : refundDue(record)
        ? Effect.gen(() => refundSteps(ports, record, clock))
        : awaitingSubmission(record)
          ? Effect.gen(() => submitSteps(ports, record, clock))
          : awaitingRail(record)
            ? poll(ports, record, clock)
            : Effect.succeed(record)

const logStepFailure = <E>(cause: Cause.Cause<E>) => Effect.logWarning("paycore worker step failed", cause)

/**
 * One pass of the background worker: expires quotes past `expiresAt`, then takes every
 * transaction due by now (re-submission, settlement polls, return watch, refunds). Each step is
 * its own store transaction that re-reads the row and re-checks its state, so a pass run twice or
 * concurrently does nothing twice. The server runs it on a schedule; tests call it after moving
 * the TestClock. Rows come earliest due first, and a page costs the store its own rows however many are due (see
 * `walkDue`).
 */
export const processDue = Effect.fnUntraced(function* (ports: PaymentPorts, clock: Clock.Clock) {
  const { store } = ports
  const now = nowOf(clock)
  const concurrency = store.pipelines ? WORKER_CONCURRENCY : 1
  let expired = 0
  let stepped = 0
  let errors = 0
  /** Runs `step` over a page's rows (see `WORKER_CONCURRENCY`); a failed step is counted and logged, never fatal. */
  const stepAll = <T, A, E>(rows: ReadonlyArray<T>, step: (row: T) => Effect.Effect<A, E>) =>
    Effect.forEach(
      rows,
      (row) =>
        Effect.flatMap(Effect.exit(step(row)), (exit) => {
          if (exit._tag === "Success") return Effect.succeed(exit.value)
          errors++
          return Effect.as(logStepFailure(exit.cause), undefined)
        }),
      { concurrency }
    )
  for (const status of expirableQuoteStates) {
    yield* walkDue(store.quotes, { status, expiresAtOrBefore: now }, WORKER_PAGE, (quotes) =>
      Effect.map(
        stepAll(quotes, (quote) => expireQuote(ports, quote.id, clock)),
        (outcomes) => {
          for (const done of outcomes) if (done === true) expired++
        }
      )
    )
  }
  yield* walkDue(store.transactions, { states: WORKER_STATES, dueBy: now }, WORKER_PAGE, (records) =>
    Effect.map(
      stepAll(records, (record) => stepTransaction(ports, record, clock)),
      (outcomes) => {
        for (const done of outcomes) if (done !== undefined) stepped++
      }
    )
  )
  return { expired, stepped, errors } satisfies ProcessDueReport
})
