/**
 * Moving payment records, the steps every use case of this context is built from: a transaction through its
 * machine (saved, then its events emitted), bookkeeping without a state change, the quote of an outgoing payment
 * following it, a payment failing (and starting its refund), and a retry scheduled after a rail did not answer.
 * All run inside the caller's store transaction, as plain generators (`Steps`).
 */
import { Clock, Effect, Result } from "effect"
import { resolveSteps } from "../accounts/balance-updates.ts"
import type { UniqueViolation } from "../ports/store.ts"
import { type QuoteEvent, type QuoteState, quoteMachine } from "../quotes/machine.ts"
import type { QuoteRecord } from "../quotes/model.ts"
import type { StoreError } from "../shared/errors.ts"
import { allows, IllegalTransition, transition } from "../shared/machine.ts"
import { addSeconds, isoOf, pollBackoffSeconds } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { recordTransitionSteps } from "../timelines/transitions.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { refundReference } from "./legs.ts"
import {
  type IncomingEvent,
  type IncomingState,
  incomingPaymentMachine,
  incomingStatus,
  type OutgoingEvent,
  type OutgoingState,
  outgoingPaymentMachine,
  outgoingStatus
} from "./machine.ts"
import { countPaymentTransition } from "./metrics.ts"
import { type FailureReason, incomingFailureReason, type Transaction, type TransactionRecord } from "./model.ts"
import type { PaymentPorts } from "./ports.ts"

export type MoveError = StoreError | UniqueViolation | IllegalTransition

const isUniqueViolation = (e: unknown): e is UniqueViolation =>
  typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "UniqueViolation"

/**
 * A second row on a key the collection does not have is a bug, not a client error. Applied once
 * around a command's store transaction rather than to every write.
 */
export const dieOnUnique = <A, E, R>(
  effect: Effect.Effect<A, E | UniqueViolation, R>
): Effect.Effect<A, Exclude<E, UniqueViolation>, R> =>
  Effect.catchIf(effect, isUniqueViolation, (e) =>
    Effect.die(new Error(`unexpected unique violation on ${e.index}`))
  ) as Effect.Effect<A, Exclude<E, UniqueViolation>, R>

/**
 * The fiber's clock, read once per command (one run-loop step); the command then reads the time
 * from it without further steps (`nowOf`).
 */
export const currentClock: Effect.Effect<Clock.Clock> = Clock.clockWith(Effect.succeed)

/** The clock's instant as ISO text. */
export const nowOf = (clock: Clock.Clock): string => isoOf(clock.currentTimeMillisUnsafe())

/** The later of two ISO instants (UTC, same format: they compare as strings). */
export const laterOf = (a: string, b: string): string => (a > b ? a : b)

export const isOutgoing = (record: TransactionRecord): boolean => record.transaction.type === "OUTGOING"

/** Whether the machine of `record` (outgoing or incoming payment) allows `event` in its state. */
export const canMove = (record: TransactionRecord, event: OutgoingEvent | IncomingEvent): boolean =>
  isOutgoing(record)
    ? allows(outgoingPaymentMachine, record.state, event)
    : allows(incomingPaymentMachine, record.state, event)

type AnyMove = { readonly to: string; readonly emits: ReadonlyArray<string> }

const illegal = (machine: string, from: string, event: string): IllegalTransition =>
  new IllegalTransition({ machine, from, event })

/** The legal move of a transaction's machine for `event`, or the typed error. */
export const transactionMove = (
  record: Pick<TransactionRecord, "state" | "transaction">,
  event: OutgoingEvent | IncomingEvent
): Result.Result<AnyMove, IllegalTransition> => {
  if (record.transaction.type === "OUTGOING") {
    const m = outgoingPaymentMachine
    const state = (m.states as ReadonlyArray<string>).includes(record.state)
      ? (record.state as OutgoingState)
      : undefined
    if (state === undefined || !(m.events as ReadonlyArray<string>).includes(event)) {
      return Result.fail(illegal(m.name, record.state, event))
    }
    return transition(m, state, event as OutgoingEvent)
  }
  const m = incomingPaymentMachine
  const state = (m.states as ReadonlyArray<string>).includes(record.state) ? (record.state as IncomingState) : undefined
  if (state === undefined || !(m.events as ReadonlyArray<string>).includes(event)) {
    return Result.fail(illegal(m.name, record.state, event))
  }
  return transition(m, state, event as IncomingEvent)
}

const publicStatus = (record: Pick<TransactionRecord, "transaction">, state: string): Transaction["status"] =>
  record.transaction.type === "OUTGOING"
    ? (outgoingStatus[state as OutgoingState] ?? "PENDING")
    : (incomingStatus[state as IncomingState] ?? "PENDING")

export interface TransactionChange {
  readonly transaction?: Partial<Transaction>
  readonly record?: Partial<
    Pick<TransactionRecord, "railReference" | "dueAt" | "attempts" | "stalledAt" | "decisionReason">
  >
}

/** A transaction after a machine move (pure): new state and public status, `updatedAt` the command's time. */
const movedRecord = (
  record: TransactionRecord,
  to: string,
  change: TransactionChange,
  updatedAt: string
): TransactionRecord => ({
  ...record,
  ...change.record,
  state: to,
  transaction: { ...record.transaction, ...change.transaction, status: publicStatus(record, to), updatedAt }
})

/** A transaction with new bookkeeping and no state change (pure). */
export const savedRecord = (
  record: TransactionRecord,
  change: TransactionChange,
  updatedAt: string
): TransactionRecord => ({
  ...record,
  ...change.record,
  transaction:
    change.transaction === undefined ? record.transaction : { ...record.transaction, ...change.transaction, updatedAt }
})

/**
 * Stores a new transaction in its machine's first state (inside a store transaction): the first entry of its
 * timeline, and `emits` with the transaction as data.
 */
export function* insertTransactionSteps(
  { store, ids }: PaymentPorts,
  record: TransactionRecord,
  emits: ReadonlyArray<string>,
  now: string
): Steps<void, StoreError | UniqueViolation> {
  yield* store.transactions.insert(record)
  yield* recordTransitionSteps(store, ids, record.id, undefined, record.state, emits, now)
  yield* emitSteps(store, ids, emits, record.id, record.transaction, now)
  yield* countPaymentTransition(record)
}

/**
 * Moves a transaction through its machine (inside a store transaction): saves the new state and
 * public status, records the move in its timeline, then emits the move's events in order with the
 * updated transaction as data. Every move of a payment goes through here.
 */
export function* moveTransactionSteps(
  { store, ids }: PaymentPorts,
  record: TransactionRecord,
  event: OutgoingEvent | IncomingEvent,
  change: TransactionChange,
  now: string
): Steps<TransactionRecord, MoveError> {
  const move = transactionMove(record, event)
  if (Result.isFailure(move)) return yield* Effect.fail(move.failure)
  const next = movedRecord(record, move.success.to, change, now)
  yield* store.transactions.update(next)
  yield* recordTransitionSteps(store, ids, next.id, record.state, next.state, move.success.emits, now)
  yield* emitSteps(store, ids, move.success.emits, next.id, next.transaction, now)
  yield* countPaymentTransition(next)
  return next
}

/** Saves bookkeeping of a transaction without a state change (rail reference, next due time). */
export function* saveRecordSteps(
  { store }: PaymentPorts,
  record: TransactionRecord,
  change: TransactionChange,
  now: string
): Steps<TransactionRecord, StoreError | UniqueViolation> {
  const next = savedRecord(record, change, now)
  yield* store.transactions.update(next)
  return next
}

/** Moves a quote through the quote machine (inside a store transaction). */
export function* moveQuoteSteps(
  { store }: PaymentPorts,
  record: QuoteRecord,
  event: QuoteEvent
): Steps<QuoteRecord, MoveError> {
  const move = transition(quoteMachine, record.quote.status as QuoteState, event)
  if (Result.isFailure(move)) return yield* Effect.fail(move.failure)
  const next: QuoteRecord = { ...record, quote: { ...record.quote, status: move.success.to } }
  yield* store.quotes.setStatus(next.id, next.quote.status)
  return next
}

/**
 * Moves a quote through the quote machine and saves the whole record with `next` applied: the SCA moves, which
 * also set or drop the quote's `scaChallenge` (and a real-time-funded quote's payment instructions).
 */
export function* moveQuoteWithSteps(
  { store }: PaymentPorts,
  record: QuoteRecord,
  event: QuoteEvent,
  next: (record: QuoteRecord) => QuoteRecord
): Steps<QuoteRecord, MoveError> {
  const move = transition(quoteMachine, record.quote.status as QuoteState, event)
  if (Result.isFailure(move)) return yield* Effect.fail(move.failure)
  const changed = next(record)
  const moved: QuoteRecord = { ...changed, quote: { ...changed.quote, status: move.success.to } }
  yield* store.quotes.update(moved)
  return moved
}

/** Moves the quote of an outgoing payment if the move is legal from where it is (quotes follow transactions). */
export function* followQuoteSteps(
  ports: PaymentPorts,
  record: TransactionRecord,
  event: QuoteEvent
): Steps<void, MoveError> {
  const quoteId = record.transaction.quoteId
  if (quoteId === undefined) return
  const quote = yield* ports.store.quotes.getForUpdate(quoteId)
  if (quote === undefined) return
  if (Result.isFailure(transition(quoteMachine, quote.quote.status as QuoteState, event))) return
  yield* moveQuoteSteps(ports, quote, event)
}

/** Fails a payment at or before settlement (inside a store transaction); outgoing ones start their refund. */
export function* failPaymentSteps(
  ports: PaymentPorts,
  record: TransactionRecord,
  reason: FailureReason,
  now: string
): Steps<TransactionRecord, MoveError> {
  if (!isOutgoing(record)) {
    yield* resolveSteps(ports, record.id, "VOIDED", now)
    return yield* moveTransactionSteps(
      ports,
      record,
      "FAIL",
      { transaction: { failureReason: incomingFailureReason(reason) }, record: { dueAt: undefined } },
      now
    )
  }
  yield* followQuoteSteps(ports, record, "FAIL")
  return yield* moveTransactionSteps(
    ports,
    record,
    "FAIL",
    {
      transaction: {
        failureReason: reason,
        refund: {
          reference: refundReference(record.id),
          initiatedAt: now,
          status: "PENDING",
          reason: "TRANSACTION_FAILED"
        }
      },
      record: { dueAt: now }
    },
    now
  )
}

/**
 * Schedules the next try after a retryable rail error, or, at `max` attempts, stalls the row: same state, holds
 * untouched, no `dueAt`, `stalledAt` set (see `MAX_POLL_ATTEMPTS`). Inside the store transaction that re-read it.
 */
export function* retryLaterSteps(
  ports: PaymentPorts,
  current: TransactionRecord,
  attempts: number,
  max: number,
  now: string,
  what: string
): Steps<TransactionRecord, StoreError | UniqueViolation> {
  if (attempts < max) {
    return yield* saveRecordSteps(
      ports,
      current,
      { record: { attempts, dueAt: addSeconds(now, pollBackoffSeconds(attempts)) } },
      now
    )
  }
  yield* Effect.logWarning(
    `paycore worker: the rail did not answer for the ${what} of ${current.id} after ${attempts} attempts; left ${current.state} for an operator`
  )
  return yield* saveRecordSteps(ports, current, { record: { attempts, dueAt: undefined, stalledAt: now } }, now)
}
