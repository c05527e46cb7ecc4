import { type Cause, Clock, Context, Effect, Layer, Result } from "effect"
import type { ExternalAccount } from "../accounts/model.ts"
import type { Customer } from "../customers/model.ts"
import {
  debitsOf,
  type Leg,
  recordSteps,
  resolveSteps,
  reversed,
  shortfallOf,
  systemAccount,
  writeTransfersSteps
} from "../ledger/service.ts"
import type { PlatformConfig } from "../platform/model.ts"
import { Ids } from "../ports/ids.ts"
import { type Payout, type PayoutStatus, Rail, type RailError } from "../ports/rail.ts"
import { Store, together, type UniqueViolation } from "../ports/store.ts"
import {
  accountNotActive,
  accountNotFound,
  customerDeleted,
  customerNotFound,
  dailyVolumeLimitExceeded,
  externalAccountNotUsable,
  quoteAlreadyExecuted,
  quoteExpired,
  quoteNotExecutable,
  quoteNotFound,
  transactionSizeLimitExceeded,
  umaNotFound
} from "../quotes/errors.ts"
import { type QuoteEvent, type QuoteState, quoteMachine } from "../quotes/machine.ts"
import type { QuoteRecord } from "../quotes/model.ts"
import type { StoreError } from "../shared/errors.ts"
import { type Conflict, InvalidInput, type LimitExceeded, type NotFound, type Refused } from "../shared/errors.ts"
import type { CustomerId } from "../shared/ids.ts"
import { IllegalTransition, transition } from "../shared/machine.ts"
import { amountOf } from "../shared/money.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { addSeconds, isoOf, nowIso, utcDay } from "../shared/time.ts"
import { command, traced } from "../shared/tracing.ts"
import { emitSteps } from "../webhooks/service.ts"
import { invalidCursor, invalidFundAmount, SANDBOX_FUND_MAX, transactionNotFound } from "./errors.ts"
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
import {
  type FailureReason,
  incomingFailureReason,
  type ListTransactionsQuery,
  type SandboxSendRequest,
  type SandboxUmaReceiveRequest,
  type Transaction,
  type TransactionRecord,
  type TransferInRequest
} from "./model.ts"

// ---------------------------------------------------------------------------------------------
// Engine constants
// ---------------------------------------------------------------------------------------------

/**
 * A PROCESSING payment without a rail reference is re-submitted by the worker after this long.
 * The executing call submits right after its commit; this only matters after a crash or a
 * retryable rail error. `Rail.submit` should be idempotent per `transactionId`.
 */
export const SUBMIT_GRACE_SECONDS = 60
/** Retryable rail errors: the worker retries with exponential backoff, then gives up on submission. */
export const MAX_SUBMIT_ATTEMPTS = 8
const MAX_BACKOFF_SECONDS = 3600
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
export const MAX_REFUND_ATTEMPTS = 20
/** Rows claimed per page by `processDue`. */
const WORKER_PAGE = 100

const backoffSeconds = (attempts: number): number => Math.min(5 * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_SECONDS)

/** The reference of the ledger transfers of a refund, and the `refund.reference` of the transaction. */
export const refundReference = (transactionId: string): string => `${transactionId}:refund`

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

const isUniqueViolation = (e: unknown): e is UniqueViolation =>
  typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "UniqueViolation"

/**
 * A second row on a key the collection does not have is a bug, not a client error. Applied once
 * around a command's store transaction rather than to every write.
 */
const dieOnUnique = <A, E, R>(
  effect: Effect.Effect<A, E | UniqueViolation, R>
): Effect.Effect<A, Exclude<E, UniqueViolation>, R> =>
  Effect.catchIf(effect, isUniqueViolation, (e) =>
    Effect.die(new Error(`unexpected unique violation on ${e.index}`))
  ) as Effect.Effect<A, Exclude<E, UniqueViolation>, R>

/** The later of two ISO instants (UTC, same format: they compare as strings). */
const laterOf = (a: string, b: string): string => (a > b ? a : b)

const isOutgoing = (record: TransactionRecord): boolean => record.transaction.type === "OUTGOING"

type AnyMove = { readonly to: string; readonly emits: ReadonlyArray<string> }

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

const illegal = (machine: string, from: string, event: string): IllegalTransition =>
  new IllegalTransition({ machine, from, event })

const publicStatus = (record: Pick<TransactionRecord, "transaction">, state: string): Transaction["status"] =>
  record.transaction.type === "OUTGOING"
    ? (outgoingStatus[state as OutgoingState] ?? "PENDING")
    : (incomingStatus[state as IncomingState] ?? "PENDING")

export interface TransactionChange {
  readonly transaction?: Partial<Transaction>
  readonly record?: Partial<Pick<TransactionRecord, "railReference" | "dueAt" | "attempts" | "stalledAt">>
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
const savedRecord = (record: TransactionRecord, change: TransactionChange, updatedAt: string): TransactionRecord => ({
  ...record,
  ...change.record,
  transaction:
    change.transaction === undefined ? record.transaction : { ...record.transaction, ...change.transaction, updatedAt }
})

// ---------------------------------------------------------------------------------------------
// Ledger legs of a payment
// ---------------------------------------------------------------------------------------------

/** The ledger account money leaves (an internal account, or the deposits of a quote funded by instructions). */
export const sourceLedgerAccount = (quote: QuoteRecord): string =>
  quote.quote.source.sourceType === "ACCOUNT"
    ? quote.quote.source.accountId
    : systemAccount("deposits", quote.quote.sendingCurrency.code)

/** Where the money goes: another internal account, or out through the payouts account. */
export const destinationLedgerAccount = (quote: QuoteRecord): string => {
  const d = quote.quote.destination
  return d.destinationType === "ACCOUNT" && d.accountId.startsWith("InternalAccount:")
    ? d.accountId
    : systemAccount("payouts", quote.quote.receivingCurrency.code)
}

export const isInternalTransfer = (quote: QuoteRecord): boolean =>
  quote.quote.destination.destinationType === "ACCOUNT" &&
  quote.quote.destination.accountId.startsWith("InternalAccount:")

/**
 * The legs of an outgoing payment: the principal (straight, or cross-currency as two linked
 * transfers through the fx liquidity accounts: the source pays `net` into `fx:<sending>`,
 * `fx:<receiving>` pays the receiving amount out; rounding leftovers stay with fx) and the
 * fees to `fees:<sending>` and `platform-fees:<sending>`.
 */
export const paymentLegs = (quote: QuoteRecord): ReadonlyArray<Leg> => {
  const source = sourceLedgerAccount(quote)
  const destination = destinationLedgerAccount(quote)
  const send = quote.quote.sendingCurrency.code
  const receive = quote.quote.receivingCurrency.code
  const { netSendingAmount, serviceFee, platformFee } = quote.pricing
  const legs: Array<Leg> = []
  if (send === receive) {
    legs.push({ debit: source, credit: destination, amount: netSendingAmount, currency: send })
  } else {
    legs.push({ debit: source, credit: systemAccount("fx", send), amount: netSendingAmount, currency: send })
    legs.push({
      debit: systemAccount("fx", receive),
      credit: destination,
      amount: quote.quote.totalReceivingAmount,
      currency: receive
    })
  }
  if (serviceFee > 0)
    legs.push({ debit: source, credit: systemAccount("fees", send), amount: serviceFee, currency: send })
  if (platformFee > 0) {
    legs.push({ debit: source, credit: systemAccount("platform-fees", send), amount: platformFee, currency: send })
  }
  return legs.filter((leg) => leg.amount > 0)
}

// ---------------------------------------------------------------------------------------------
// Limits, rail helpers
// ---------------------------------------------------------------------------------------------

const secondsToUtcMidnight = (iso: string): number => {
  const now = Date.parse(iso)
  const next = Date.parse(`${utcDay(iso)}T00:00:00.000Z`) + 86_400_000
  return Math.max(1, Math.ceil((next - now) / 1000))
}

/** The daily-volume counter key of a customer (or the platform) in one currency on one UTC day. */
export const dailyVolumeKey = (customerId: string | undefined, currencyCode: string, iso: string): string =>
  `daily-volume:${customerId ?? "platform"}:${currencyCode}:${utcDay(iso)}`

/** The state in which a transaction waits for (re-)submission to its rail. */
const awaitingSubmission = (record: TransactionRecord): boolean =>
  record.railReference === undefined &&
  (isOutgoing(record) ? record.state === "PROCESSING" : record.state === "PENDING")

/** Whether a transaction waits for its rail's verdict (or, once completed, for a possible return). */
const awaitingRail = (record: TransactionRecord): boolean =>
  record.railReference !== undefined &&
  (isOutgoing(record)
    ? record.state === "PROCESSING" || record.state === "COMPLETED"
    : record.state === "PENDING" || record.state === "COMPLETED")

const nextReturnCheck = (now: string, settledAt: string | undefined): string | undefined => {
  const elapsed = Math.max(0, (Date.parse(now) - Date.parse(settledAt ?? now)) / 1000)
  if (elapsed >= RETURN_WATCH_SECONDS) return undefined
  return addSeconds(now, Math.min(Math.max(FIRST_RETURN_CHECK_SECONDS, elapsed), RETURN_WATCH_SECONDS - elapsed))
}

/** An external account a transfer-in can pull from: US bank accounts (ACH debit) in this engine. */
export const isPullable = (account: ExternalAccount): boolean =>
  account.accountInfo.accountType === "US_ACCOUNT" || account.accountInfo.accountType === "USD_ACCOUNT"

const noPayout: RailError = {
  _tag: "RailError",
  retryable: false,
  reason: "ACCOUNT_INVALID",
  message: "the account no longer exists"
}

/** A rail's acceptance of a submission. */
type Submitted = { readonly reference: string; readonly expectedSettlementAt: string }

export interface ExecuteOptions {
  /** A deposit for a quote funded by payment instructions arrived (sandbox send). */
  readonly viaDeposit?: boolean
}

type ExecuteError = NotFound | Conflict | Refused | LimitExceeded | StoreError | IllegalTransition

export interface ProcessDueReport {
  /** Quotes (with their transactions) moved to EXPIRED. */
  readonly expired: number
  /** Transactions the worker looked at (submitted, polled, refunded). */
  readonly stepped: number
  /** Steps that failed unexpectedly (logged; retried next pass). */
  readonly errors: number
}

interface IncomingInput {
  readonly accountId: string
  readonly customerId?: string | undefined
  readonly platformCustomerId?: string | undefined
  readonly currency: string
  readonly amount: number
  readonly source: Transaction["source"]
  readonly description?: string
}

/**
 * A step of a command, as a plain generator: `yield*` it inside an `Effect.gen` and it costs no
 * run-loop step of its own, only the port calls it makes (the engine's hot paths are built from these).
 */
type Steps<A, E = never> = Generator<Effect.Effect<unknown, E>, A, any>

type MoveError = StoreError | UniqueViolation | IllegalTransition

/**
 * The fiber's clock, read once per command (one run-loop step); the command then reads the time
 * from it without further steps (`nowOf`).
 */
const currentClock: Effect.Effect<Clock.Clock> = Clock.clockWith(Effect.succeed)

/** The clock's instant as ISO text. */
const nowOf = (clock: Clock.Clock): string => isoOf(clock.currentTimeMillisUnsafe())

/** The ports the payment engine works with, resolved once (by a layer) instead of on every call. */
export interface PaymentPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly rail: Rail["Service"]
}

// ---------------------------------------------------------------------------------------------
// Steps over ports the caller holds (plain generators: see `Steps`)
// ---------------------------------------------------------------------------------------------

/**
 * Moves a transaction through its machine (inside a store transaction): saves the new state and
 * public status, then emits the move's events in order with the updated transaction as data.
 */
function* moveTransactionSteps(
  store: Store["Service"],
  ids: Ids["Service"],
  record: TransactionRecord,
  event: OutgoingEvent | IncomingEvent,
  change: TransactionChange,
  now: string
): Steps<TransactionRecord, MoveError> {
  const move = transactionMove(record, event)
  if (Result.isFailure(move)) return yield* Effect.fail(move.failure)
  const next = movedRecord(record, move.success.to, change, now)
  yield* store.transactions.update(next)
  yield* emitSteps(store, ids, move.success.emits, next.id, next.transaction, now)
  return next
}

/** Saves bookkeeping of a transaction without a state change (rail reference, next due time). */
function* saveRecordSteps(
  store: Store["Service"],
  record: TransactionRecord,
  change: TransactionChange,
  now: string
): Steps<TransactionRecord, StoreError | UniqueViolation> {
  const next = savedRecord(record, change, now)
  yield* store.transactions.update(next)
  return next
}

/** Moves a quote through the quote machine (inside a store transaction). */
function* moveQuoteSteps(
  store: Store["Service"],
  record: QuoteRecord,
  event: QuoteEvent
): Steps<QuoteRecord, MoveError> {
  const move = transition(quoteMachine, record.quote.status as QuoteState, event)
  if (Result.isFailure(move)) return yield* Effect.fail(move.failure)
  const next: QuoteRecord = { ...record, quote: { ...record.quote, status: move.success.to } }
  yield* store.quotes.setStatus(next.id, next.quote.status)
  return next
}

/** Moves the quote of an outgoing payment if the move is legal from where it is (quotes follow transactions). */
function* followQuoteSteps(
  store: Store["Service"],
  record: TransactionRecord,
  event: QuoteEvent
): Steps<void, MoveError> {
  const quoteId = record.transaction.quoteId
  if (quoteId === undefined) return
  const quote = yield* store.quotes.getForUpdate(quoteId)
  if (quote === undefined) return
  if (Result.isFailure(transition(quoteMachine, quote.quote.status as QuoteState, event))) return
  yield* moveQuoteSteps(store, quote, event)
}

/** What `reserveSteps` left: the quote and its transaction, both moved on. */
export interface Reserved {
  readonly quote: QuoteRecord
  readonly transaction: TransactionRecord
  /** What the rail will be asked for, when it was read alongside the reservation (see `submit`). */
  readonly payout?: PayoutRead
}

/** `payoutOf` read ahead: `payout` is undefined when there is nothing to pay out to. */
interface PayoutRead {
  readonly payout: Payout | undefined
}

/**
 * Executes a PENDING quote inside the caller's store transaction: the platform's limits for the sending
 * currency (`config`, read in this transaction), the amount counted into the day's volume, the holds on the
 * source (all-or-nothing; `INSUFFICIENT_FUNDS` leaves nothing behind), quote and transaction to PROCESSING.
 * An internal transfer settles at once (its holds are posted). A payout to a rail is submitted after commit
 * (`PaymentEngine.submit`).
 */
export function* reserveSteps(
  store: Store["Service"],
  ids: Ids["Service"],
  config: PlatformConfig | undefined,
  quote: QuoteRecord,
  record: TransactionRecord,
  now: string
): Steps<Reserved, MoveError | Refused | LimitExceeded> {
  const code = quote.quote.sendingCurrency.code
  const amount = quote.quote.totalSendingAmount
  const limit = config?.transactionLimits.find((l) => l.currency === code)
  if (limit?.maxTransactionAmount !== undefined && amount > limit.maxTransactionAmount) {
    return yield* Effect.fail(transactionSizeLimitExceeded(code, amount, limit.maxTransactionAmount))
  }
  const legs = paymentLegs(quote)
  const debits = debitsOf(legs)
  // Counted first, checked after: `add` is atomic, so two payments of one customer at once cannot both see
  // room for themselves (a read then an add could, on a database); a refusal rolls the count back. The count
  // and the locked balances are asked for together (one round trip on PostgreSQL), always in this order.
  const [total, balances] = yield* together(
    store,
    () => store.counters.add(dailyVolumeKey(quote.quote.customerId, code, now), amount),
    () => store.ledger.balances(debits)
  )
  if (limit?.maxDailyVolume !== undefined && total > limit.maxDailyVolume) {
    return yield* Effect.fail(
      dailyVolumeLimitExceeded(code, total - amount, amount, limit.maxDailyVolume, secondsToUtcMidnight(now))
    )
  }
  const refused = shortfallOf(debits, balances)
  if (refused !== undefined) return yield* Effect.fail(refused)
  // A PENDING transaction (re-read under lock) has no transfers yet: they are numbered from 1, so a racing
  // second reservation would collide on the transfer ids instead of holding the money twice.
  yield* writeTransfersSteps(store, record.id, legs, "PENDING", now, 0)
  let executing = yield* moveQuoteSteps(store, quote, "EXECUTE")
  let tx = yield* moveTransactionSteps(
    store,
    ids,
    record,
    "EXECUTE",
    { record: { dueAt: addSeconds(now, SUBMIT_GRACE_SECONDS) } },
    now
  )
  if (isInternalTransfer(executing)) {
    yield* resolveSteps(store, record.id, "POSTED")
    executing = yield* moveQuoteSteps(store, executing, "COMPLETE")
    tx = yield* moveTransactionSteps(
      store,
      ids,
      tx,
      "SETTLE",
      {
        transaction: { settledAt: now, expectedSettlementAt: now, settlementTimelineSeconds: 0 },
        record: { dueAt: undefined }
      },
      now
    )
  }
  return { quote: executing, transaction: tx }
}

/**
 * `reserveSteps` as an Effect over the `Store` and `Ids` in context (inside the caller's store
 * transaction); the engine itself uses the steps.
 */
export const reserveQuote = (quote: QuoteRecord, record: TransactionRecord) =>
  dieOnUnique(
    Effect.gen(function* () {
      const store = yield* Store
      const ids = yield* Ids
      const clock = yield* currentClock
      const config = yield* store.config.get()
      return yield* reserveSteps(store, ids, config, quote, record, isoOf(clock.currentTimeMillisUnsafe()))
    })
  )

// ---------------------------------------------------------------------------------------------
// The payment engine over its ports
// ---------------------------------------------------------------------------------------------

/**
 * The payment operations over ports resolved once. Every command is one or a few store
 * transactions; each re-reads the row it changes inside its transaction and re-checks its state
 * (compare-and-set), so the worker run twice or concurrently does nothing twice. Rail calls happen
 * between store transactions, never inside one.
 */
export const makePayments = ({ store, ids, rail }: PaymentPorts) => {
  const moveTransaction = (
    record: TransactionRecord,
    event: OutgoingEvent | IncomingEvent,
    change: TransactionChange,
    now: string
  ) => moveTransactionSteps(store, ids, record, event, change, now)
  const saveRecord = (record: TransactionRecord, change: TransactionChange, now: string) =>
    saveRecordSteps(store, record, change, now)

  /** A ledger `record` as an Effect (to catch the refusal of one call). */
  const recordLegs = Effect.fnUntraced(function* (
    reference: string,
    legs: ReadonlyArray<Leg>,
    state: "POSTED" | "PENDING",
    createdAt: string
  ) {
    return yield* recordSteps(store, reference, legs, state, createdAt)
  })

  // ---- execution ----

  /** Quote and its PENDING transaction to EXPIRED (inside a store transaction). */
  function* expireQuoteAndTransaction(quote: QuoteRecord, now: string): Steps<void, MoveError> {
    yield* moveQuoteSteps(store, quote, "EXPIRE")
    const record = yield* store.transactions.getForUpdate(quote.quote.transactionId)
    if (record !== undefined && record.state === "PENDING") yield* moveTransaction(record, "EXPIRE", {}, now)
  }

  /** The store transaction of `executeQuote`: the reserved quote and transaction, or the quote's `expiresAt` when it expired. */
  const executeInStore = Effect.fnUntraced(function* (quoteId: string, viaDeposit: boolean, clock: Clock.Clock) {
    // The locks and the limits asked for together (one round trip on PostgreSQL).
    const [locked, config] = yield* together(
      store,
      () => store.quotes.getForUpdateWithTransaction(quoteId),
      () => store.config.get()
    )
    if (locked === undefined) return yield* Effect.fail(quoteNotFound(quoteId))
    const { quote, transaction: record } = locked
    const status = quote.quote.status
    if (status === "EXPIRED") return yield* Effect.fail(quoteExpired(quoteId, quote.quote.expiresAt))
    if (status !== "PENDING") return yield* Effect.fail(quoteAlreadyExecuted(quoteId, status))
    if (quote.quote.source.sourceType === "REALTIME_FUNDING" && !viaDeposit) {
      return yield* Effect.fail(quoteNotExecutable(quoteId))
    }
    if (record === undefined) return yield* Effect.die(new Error(`quote ${quoteId} has no transaction`))
    const now = nowOf(clock)
    if (now >= quote.quote.expiresAt) {
      yield* expireQuoteAndTransaction(quote, now)
      return quote.quote.expiresAt
    }
    if (isInternalTransfer(quote)) return yield* reserveSteps(store, ids, config, quote, record, now)
    // The payout's external account is read alongside the reservation's first statements (one round trip).
    const [reserved, payout] = yield* together(
      store,
      () => reserveSteps(store, ids, config, quote, record, now),
      () => payoutOf(record)
    )
    return { ...reserved, payout: { payout } }
  })

  /**
   * Executes a quote: 409 `QUOTE_ALREADY_EXECUTED` unless PENDING; at or after `expiresAt` the quote
   * and its transaction are moved to EXPIRED (committed) and the call fails with 409 `QUOTE_EXPIRED`.
   * Then reserves (see `reserveSteps`) and submits the payout. Returns the quote and the transaction.
   */
  const executeQuoteGen = Effect.fnUntraced(function* (quoteId: string, clock: Clock.Clock, viaDeposit: boolean) {
    const outcome = yield* store.transaction(executeInStore(quoteId, viaDeposit, clock))
    if (typeof outcome === "string") return yield* Effect.fail(quoteExpired(quoteId, outcome))
    return yield* submitReserved(outcome, clock)
  })
  const executeQuote = (
    quoteId: string,
    clock: Clock.Clock,
    options: ExecuteOptions = {}
  ): Effect.Effect<Reserved, ExecuteError> => dieOnUnique(executeQuoteGen(quoteId, clock, options.viaDeposit === true))

  /** The worker's expiry step: re-reads the quote and expires it if it is still waiting and past `expiresAt`. */
  const expireInStore = Effect.fnUntraced(function* (quoteId: string, clock: Clock.Clock) {
    const quote = yield* store.quotes.getForUpdate(quoteId)
    if (quote === undefined) return false
    const status = quote.quote.status
    if (status !== "PENDING" && status !== "PENDING_AUTHORIZATION") return false
    const now = nowOf(clock)
    if (now < quote.quote.expiresAt) return false
    yield* expireQuoteAndTransaction(quote, now)
    return true
  })
  const expireQuote = (quoteId: string, clock: Clock.Clock) =>
    dieOnUnique(store.transaction(expireInStore(quoteId, clock)))

  /** What a rail is asked to do for a transaction (a payout; for a transfer-in, the pull from the account). */
  function* payoutOf(record: TransactionRecord): Steps<Payout | undefined, StoreError> {
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
        destination: { kind: "ACCOUNT", accountInfo: external.accountInfo }
      }
    }
    const base = {
      transactionId: record.id,
      rail,
      amount: tx.receivedAmount.amount,
      currency: tx.receivedAmount.currency.code,
      remittanceInformation: tx.remittanceInformation
    }
    if (tx.destination.umaAddress !== undefined) {
      return { ...base, destination: { kind: "UMA", umaAddress: tx.destination.umaAddress } }
    }
    const external =
      tx.destination.accountId === undefined ? undefined : yield* store.externalAccounts.get(tx.destination.accountId)
    if (external === undefined) return undefined
    return { ...base, destination: { kind: "ACCOUNT", accountInfo: external.accountInfo } }
  }

  /** Fails a payment at or before settlement (inside a store transaction); outgoing ones start their refund. */
  function* failPayment(
    record: TransactionRecord,
    reason: FailureReason,
    now: string
  ): Steps<TransactionRecord, MoveError> {
    if (!isOutgoing(record)) {
      yield* resolveSteps(store, record.id, "VOIDED")
      return yield* moveTransaction(
        record,
        "FAIL",
        { transaction: { failureReason: incomingFailureReason(reason) }, record: { dueAt: undefined } },
        now
      )
    }
    yield* followQuoteSteps(store, record, "FAIL")
    return yield* moveTransaction(
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

  /** What a rail's acceptance changes: its reference, when it expects to settle, and when to ask it. */
  const submittedChange = (record: TransactionRecord, submitted: Submitted, now: string): TransactionChange => ({
    transaction: {
      expectedSettlementAt: submitted.expectedSettlementAt,
      settlementTimelineSeconds: Math.round(rail.settlementSeconds(record.transaction.paymentRail ?? "ACH"))
    },
    record: { railReference: submitted.reference, dueAt: laterOf(submitted.expectedSettlementAt, now), attempts: 0 }
  })

  /** The store transaction after a submission: records the reference (or the retry, or the failure) unless someone else did. */
  const recordSubmission = Effect.fnUntraced(function* (
    record: TransactionRecord,
    submitted: Result.Result<Submitted, RailError>,
    clock: Clock.Clock
  ) {
    const current = yield* store.transactions.getForUpdate(record.id)
    if (current === undefined || !awaitingSubmission(current)) return current ?? record
    const now = nowOf(clock)
    if (Result.isSuccess(submitted))
      return yield* saveRecord(current, submittedChange(current, submitted.success, now), now)
    const error = submitted.failure
    const attempts = (current.attempts ?? 0) + 1
    if (error.retryable && attempts < MAX_SUBMIT_ATTEMPTS) {
      return yield* saveRecord(current, { record: { attempts, dueAt: addSeconds(now, backoffSeconds(attempts)) } }, now)
    }
    return yield* failPayment(current, error.retryable ? "QUOTE_EXECUTION_FAILED" : error.reason, now)
  })

  /**
   * Hands a transaction to its rail (after the commit that reserved it), then records the rail's
   * reference and timing, re-checking that nobody else did: with one compare-and-set write while the
   * row is as `record` (the usual case), else in a store transaction under lock. A refusal fails the
   * payment (and refunds it); a retryable error is retried by the worker with backoff. `read`: the
   * payout, when the caller read it already.
   */
  function* submit(
    record: TransactionRecord,
    clock: Clock.Clock,
    read?: PayoutRead
  ): Steps<TransactionRecord, MoveError | Refused> {
    if (!awaitingSubmission(record)) return record
    const payout = read === undefined ? yield* payoutOf(record) : read.payout
    const submitted = payout === undefined ? Result.fail(noPayout) : yield* Effect.result(rail.submit(payout))
    if (Result.isSuccess(submitted)) {
      // Usually the row is still as the caller read it: one compare-and-set write records the reference,
      // without a store transaction. Else the store transaction below re-reads it under lock.
      const now = nowOf(clock)
      const next = savedRecord(record, submittedChange(record, submitted.success, now), now)
      if (yield* store.transactions.updateIf(next, record)) return next
    }
    const next = yield* store.transaction(recordSubmission(record, submitted, clock))
    if (next.state === "REFUND_PENDING") return yield* refund(next, clock)
    return next
  }

  /**
   * `submit` after `reserveSteps` committed. The quote moves after its reservation only when its payment
   * fails (the quote follows it): only then is it read again.
   */
  function* submitReserved(reserved: Reserved, clock: Clock.Clock): Steps<Reserved, MoveError | Refused> {
    const transaction = yield* submit(reserved.transaction, clock, reserved.payout)
    if (transaction.state === reserved.transaction.state) return { quote: reserved.quote, transaction }
    const quote = yield* store.quotes.get(reserved.quote.id)
    return { quote: quote ?? reserved.quote, transaction }
  }

  // ---- settlement worker ----

  function* settle(record: TransactionRecord, settledAt: string, now: string): Steps<TransactionRecord, MoveError> {
    yield* resolveSteps(store, record.id, "POSTED")
    if (isOutgoing(record)) yield* followQuoteSteps(store, record, "COMPLETE")
    return yield* moveTransaction(
      record,
      "SETTLE",
      { transaction: { settledAt }, record: { dueAt: nextReturnCheck(now, settledAt), attempts: 0 } },
      now
    )
  }

  function* startReturn(record: TransactionRecord, now: string): Steps<TransactionRecord, MoveError> {
    const refund = {
      reference: refundReference(record.id),
      initiatedAt: now,
      status: "PENDING" as const,
      reason: "TRANSACTION_FAILED" as const
    }
    return yield* moveTransaction(
      record,
      "RETURN",
      {
        transaction: isOutgoing(record) ? { failureReason: "PAYOUT_RETURNED", refund } : { refund },
        record: { dueAt: now }
      },
      now
    )
  }

  /** Applies what the rail said about a transaction (inside a store transaction). */
  function* applyStatus(
    record: TransactionRecord,
    status: PayoutStatus,
    now: string
  ): Steps<TransactionRecord, MoveError> {
    const completed = record.state === "COMPLETED"
    switch (status._tag) {
      case "Pending":
        if (completed) {
          return yield* saveRecord(
            record,
            { record: { dueAt: nextReturnCheck(now, record.transaction.settledAt) } },
            now
          )
        }
        return yield* saveRecord(
          record,
          { record: { dueAt: laterOf(status.checkAgainAt, addSeconds(now, 1)), attempts: 0 } },
          now
        )
      case "Settled":
        if (completed) {
          return yield* saveRecord(
            record,
            { record: { dueAt: nextReturnCheck(now, record.transaction.settledAt) } },
            now
          )
        }
        return yield* settle(record, status.settledAt, now)
      case "Failed":
        // A rail cannot fail a payout it reported settled; stop watching and leave it to operations.
        if (completed) return yield* saveRecord(record, { record: { dueAt: undefined } }, now)
        return yield* failPayment(record, status.reason, now)
      case "Returned": {
        const settledRecord = completed ? record : yield* settle(record, now, now)
        return yield* startReturn(settledRecord, now)
      }
    }
  }

  /**
   * Schedules the next try after a retryable rail error, or, at `max` attempts, stalls the row: same state, holds
   * untouched, no `dueAt`, `stalledAt` set (see `MAX_POLL_ATTEMPTS`). Inside the store transaction that re-read it.
   */
  function* retryLater(
    current: TransactionRecord,
    attempts: number,
    max: number,
    now: string,
    what: string
  ): Steps<TransactionRecord, StoreError | UniqueViolation> {
    if (attempts < max) {
      return yield* saveRecord(current, { record: { attempts, dueAt: addSeconds(now, backoffSeconds(attempts)) } }, now)
    }
    yield* Effect.logWarning(
      `paycore worker: the rail did not answer for the ${what} of ${current.id} after ${attempts} attempts; left ${current.state} for an operator`
    )
    return yield* saveRecord(current, { record: { attempts, dueAt: undefined, stalledAt: now } }, now)
  }

  /** The store transaction of a poll: applies the rail's answer if the row is still where it was. */
  const applyPoll = Effect.fnUntraced(function* (
    record: TransactionRecord,
    reference: string,
    status: Result.Result<PayoutStatus, RailError>,
    clock: Clock.Clock
  ) {
    const current = yield* store.transactions.getForUpdate(record.id)
    if (current === undefined || current.state !== record.state || current.railReference !== reference) {
      return current ?? record
    }
    const now = nowOf(clock)
    if (Result.isSuccess(status)) return yield* applyStatus(current, status.success, now)
    if (current.state === "COMPLETED") return yield* saveRecord(current, { record: { dueAt: undefined } }, now)
    // Money may be in flight: keep asking (capped backoff, bounded); a completed payment just stops being watched.
    if (status.failure.retryable) {
      return yield* retryLater(current, (current.attempts ?? 0) + 1, MAX_POLL_ATTEMPTS, now, "settlement status")
    }
    // The rail does not know the payout: it never left, so it fails and is refunded.
    return yield* failPayment(current, status.failure.reason, now)
  })

  /** The worker's poll step for one transaction: asks the rail, then applies the answer in its own store transaction. */
  const poll = (record: TransactionRecord, clock: Clock.Clock) => {
    const reference = record.railReference!
    return Effect.flatMap(Effect.result(rail.status(reference)), (status) =>
      Effect.flatMap(store.transaction(applyPoll(record, reference, status, clock)), (next) =>
        next.state === "REFUND_PENDING" ? Effect.gen(() => refund(next, clock)) : Effect.succeed(next)
      )
    )
  }

  /** The store transaction of a refund whose rail did not answer: re-read, re-check, then retry later (or stall). */
  const refundRetryInStore = Effect.fnUntraced(function* (
    record: TransactionRecord,
    reference: string,
    clock: Clock.Clock
  ) {
    const current = yield* store.transactions.getForUpdate(record.id)
    // Another pass may have finished the refund while the rail was asked: never write over it.
    if (current === undefined || current.state !== "REFUND_PENDING" || current.railReference !== reference) {
      return current ?? record
    }
    const now = nowOf(clock)
    return yield* retryLater(current, (current.attempts ?? 0) + 1, MAX_REFUND_ATTEMPTS, now, "refund status")
  })

  /** The store transaction of a refund (see `refund`). */
  const refundInStore = Effect.fnUntraced(function* (
    record: TransactionRecord,
    refundSucceeds: boolean,
    clock: Clock.Clock
  ) {
    const current = yield* store.transactions.getForUpdate(record.id)
    if (current === undefined || current.state !== "REFUND_PENDING") return current ?? record
    const now = nowOf(clock)
    const refund = current.transaction.refund
    const finish = (event: "REFUND_SETTLE" | "REFUND_FAIL") => {
      const status = event === "REFUND_SETTLE" ? ("COMPLETED" as const) : ("FAILED" as const)
      const r =
        refund === undefined ? undefined : { ...refund, status, ...(status === "COMPLETED" ? { settledAt: now } : {}) }
      return moveTransaction(
        current,
        event,
        { ...(r === undefined ? {} : { transaction: { refund: r } }), record: { dueAt: undefined, attempts: 0 } },
        now
      )
    }
    const ref = refundReference(current.id)
    // The refund's own transfers are written once: a refund that already moved money is only finished.
    const refunded = (yield* store.ledger.transfers(ref)).length > 0
    if (!isOutgoing(current)) {
      if (refunded) return yield* finish("REFUND_SETTLE")
      const account = current.accountId
      if (account === undefined) return yield* finish("REFUND_FAIL")
      const code = current.transaction.receivedAmount.currency.code
      // Only the ledger's refusal (the money was spent meanwhile) fails the refund; a store error
      // propagates, the store transaction rolls back and the worker tries again.
      const moved = yield* recordLegs(
        ref,
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
      return yield* finish(moved ? "REFUND_SETTLE" : "REFUND_FAIL")
    }
    const quote =
      current.transaction.quoteId === undefined ? undefined : yield* store.quotes.get(current.transaction.quoteId)
    if (quote === undefined) return yield* Effect.die(new Error(`transaction ${current.id} has no quote`))
    const holds = yield* store.ledger.transfers(current.id)
    if (holds.some((t) => t.state === "PENDING")) {
      yield* resolveSteps(store, current.id, "VOIDED")
      if (refundSucceeds || refunded) return yield* finish("REFUND_SETTLE")
      const code = quote.quote.sendingCurrency.code
      yield* recordSteps(
        store,
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
      return yield* finish("REFUND_FAIL")
    }
    // Returned after settlement: reverse what was posted, once. Holds that were only voided moved no money,
    // so there is nothing to give back (reversing them would create money).
    const posted = holds.filter((t) => t.state === "POSTED")
    if (!refunded && posted.length > 0) yield* recordSteps(store, ref, reversed(posted), "POSTED", now)
    return yield* finish("REFUND_SETTLE")
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
  function* refund(record: TransactionRecord, clock: Clock.Clock): Steps<TransactionRecord, MoveError | Refused> {
    if (record.state !== "REFUND_PENDING") return record
    let refundSucceeds = true
    const reference = record.railReference
    if (isOutgoing(record) && reference !== undefined) {
      const holdsPending = (yield* store.ledger.transfers(record.id)).some((t) => t.state === "PENDING")
      if (holdsPending) {
        const status = yield* Effect.result(rail.status(reference))
        if (Result.isFailure(status) && status.failure.retryable) {
          return yield* store.transaction(refundRetryInStore(record, reference, clock))
        }
        if (Result.isSuccess(status) && status.success._tag === "Failed") refundSucceeds = status.success.refundSucceeds
      }
    }
    return yield* store.transaction(refundInStore(record, refundSucceeds, clock))
  }

  /**
   * One worker step for a due transaction (as listed), chosen by its state. A unique violation is
   * not converted to a defect here: the pass counts and logs any failure of a step alike.
   */
  const stepTransaction = (
    record: TransactionRecord,
    clock: Clock.Clock
  ): Effect.Effect<TransactionRecord, MoveError | Refused> =>
    record.state === "REFUND_PENDING"
      ? Effect.gen(() => refund(record, clock))
      : awaitingSubmission(record)
        ? Effect.gen(() => submit(record, clock))
        : awaitingRail(record)
          ? poll(record, clock)
          : Effect.succeed(record)

  const logStepFailure = <E>(cause: Cause.Cause<E>) => Effect.logWarning("paycore worker step failed", cause)

  /**
   * One pass of the background worker: expires PENDING quotes past `expiresAt`, then takes every
   * transaction due by now (re-submission, settlement polls, return watch, refunds). Each step is
   * its own store transaction that re-reads the row and re-checks its state, so a pass run twice or
   * concurrently does nothing twice. The server runs it on a schedule; tests call it after moving
   * the TestClock.
   */
  const processDue = Effect.fnUntraced(function* (clock: Clock.Clock) {
    const now = nowOf(clock)
    let expired = 0
    let stepped = 0
    let errors = 0
    for (const status of ["PENDING", "PENDING_AUTHORIZATION"]) {
      let after: string | undefined
      for (;;) {
        const page = yield* store.quotes.list(
          { status, expiresAtOrBefore: now },
          { limit: WORKER_PAGE, after, sortOrder: "asc" }
        )
        for (const quote of page.data) {
          const exit = yield* Effect.exit(expireQuote(quote.id, clock))
          if (exit._tag === "Failure") {
            errors++
            yield* logStepFailure(exit.cause)
          } else if (exit.value) expired++
        }
        const last = page.data[page.data.length - 1]
        if (!page.hasMore || last === undefined) break
        after = last.id
      }
    }
    let after: string | undefined
    for (;;) {
      const page = yield* store.transactions.list(
        { states: ["PENDING", "PROCESSING", "COMPLETED", "REFUND_PENDING"], dueBy: now },
        { limit: WORKER_PAGE, after, sortOrder: "asc" }
      )
      for (const record of page.data) {
        const exit = yield* Effect.exit(stepTransaction(record, clock))
        if (exit._tag === "Failure") {
          errors++
          yield* logStepFailure(exit.cause)
        } else stepped++
      }
      const last = page.data[page.data.length - 1]
      if (!page.hasMore || last === undefined) break
      after = last.id
    }
    return { expired, stepped, errors } satisfies ProcessDueReport
  })

  // ---- incoming payments ----

  /**
   * An incoming payment that arrived (inside a store transaction): a posted transfer from
   * `system:deposits:<ccy>` to the internal account, and an INCOMING / CREDIT transaction moved
   * PENDING → COMPLETED through its machine (emits `INCOMING_PAYMENT.COMPLETED`).
   */
  function* receivePayment(input: IncomingInput, now: string): Steps<TransactionRecord, MoveError | Refused> {
    const id = yield* ids.make("Transaction")
    const pending: TransactionRecord = {
      id,
      state: "PENDING",
      accountId: input.accountId,
      transaction: {
        id,
        status: "PENDING",
        type: "INCOMING",
        direction: "CREDIT",
        source: input.source,
        destination: { destinationType: "ACCOUNT", accountId: input.accountId, currency: input.currency },
        ...(input.customerId === undefined ? {} : { customerId: input.customerId as CustomerId }),
        ...(input.platformCustomerId === undefined ? {} : { platformCustomerId: input.platformCustomerId }),
        sentAmount: amountOf(input.amount, input.currency),
        receivedAmount: amountOf(input.amount, input.currency),
        exchangeRate: 1,
        ...(input.description === undefined ? {} : { description: input.description }),
        createdAt: now,
        updatedAt: now
      }
    }
    yield* store.transactions.insert(pending)
    yield* recordSteps(
      store,
      id,
      [
        {
          debit: systemAccount("deposits", input.currency),
          credit: input.accountId,
          amount: input.amount,
          currency: input.currency
        }
      ],
      "POSTED",
      now
    )
    return yield* moveTransaction(pending, "SETTLE", { transaction: { settledAt: now } }, now)
  }

  function* usableInternalAccount(accountId: string) {
    const account = yield* store.internalAccounts.get(accountId)
    if (account === undefined) return yield* Effect.fail(accountNotFound(accountId))
    if (account.status !== "ACTIVE" && account.status !== "PENDING") {
      return yield* Effect.fail(accountNotActive(accountId, account.status))
    }
    return account
  }

  const fundInStore = Effect.fnUntraced(function* (accountId: string, amount: number) {
    const now = yield* nowIso
    const account = yield* usableInternalAccount(accountId)
    const customer = account.customerId === undefined ? undefined : yield* store.customers.get(account.customerId)
    yield* receivePayment(
      {
        accountId,
        customerId: account.customerId,
        platformCustomerId: customer?.platformCustomerId,
        currency: account.currency,
        amount,
        source: { sourceType: "REALTIME_FUNDING", currency: account.currency },
        description: "Sandbox funding"
      },
      now
    )
    return account.id as string
  })

  /**
   * Sandbox funding: `amount` (1 to 100 000 000 000, smallest unit) arrives in the internal account
   * as a completed incoming payment (`INCOMING_PAYMENT.COMPLETED`). Returns the account id.
   */
  const fundSandbox = (accountId: string, amount: number): Effect.Effect<string, TransactionsError> =>
    !Number.isSafeInteger(amount) || amount < 1 || amount > SANDBOX_FUND_MAX
      ? Effect.fail(invalidFundAmount(amount))
      : dieOnUnique(store.transaction(fundInStore(accountId, amount)))

  const umaReceiveInStore = Effect.fnUntraced(function* (request: SandboxUmaReceiveRequest) {
    const now = yield* nowIso
    let customer: Customer | undefined
    if (request.customerId !== undefined) {
      customer = yield* store.customers.get(request.customerId)
      if (customer === undefined) return yield* Effect.fail(customerNotFound(request.customerId))
    } else if (request.receiverUmaAddress !== undefined) {
      customer = yield* store.customers.findUnique("umaAddress", request.receiverUmaAddress)
      if (customer === undefined) return yield* Effect.fail(umaNotFound(request.receiverUmaAddress))
    } else {
      return yield* Effect.fail(
        InvalidInput.one("receiverUmaAddress", { required: true }, "Provide receiverUmaAddress or customerId")
      )
    }
    if (customer.isDeleted) return yield* Effect.fail(customerDeleted(customer.id))
    const code = request.receivingCurrencyCode
    const accounts = yield* store.internalAccounts.list(
      { customerId: customer.id, currency: code },
      { limit: 1, sortOrder: "asc" }
    )
    const account = accounts.data[0]
    if (account === undefined) {
      return yield* Effect.fail(
        InvalidInput.one(
          "receivingCurrencyCode",
          { enum: customer.currencies },
          `Customer ${customer.id} has no internal account in ${code}`
        )
      )
    }
    return yield* receivePayment(
      {
        accountId: account.id,
        customerId: customer.id,
        platformCustomerId: customer.platformCustomerId,
        currency: code,
        amount: request.receivingCurrencyAmount,
        source: { sourceType: "UMA_ADDRESS", umaAddress: request.senderUmaAddress, currency: code },
        description: `UMA payment from ${request.senderUmaAddress}`
      },
      now
    )
  })

  /** Sandbox: an UMA payment arrives for a customer (found by UMA address or id) in their internal account of that currency. */
  const sandboxUmaReceive = (request: SandboxUmaReceiveRequest) =>
    Effect.map(dieOnUnique(store.transaction(umaReceiveInStore(request))), (record) => record.transaction)

  /** Sandbox: the deposit for a quote funded by payment instructions arrives, so the quote executes. */
  const sandboxSend = Effect.fnUntraced(function* (request: SandboxSendRequest) {
    const quote = yield* store.quotes.get(request.quoteId)
    if (quote === undefined) return yield* Effect.fail(quoteNotFound(request.quoteId))
    if (quote.quote.source.sourceType !== "REALTIME_FUNDING") {
      return yield* Effect.fail(
        InvalidInput.one(
          "quoteId",
          { sourceType: "REALTIME_FUNDING" },
          `Quote ${request.quoteId} is funded from an account; execute it with POST /quotes/{quoteId}/execute`
        )
      )
    }
    const code = quote.quote.sendingCurrency.code
    if (request.currencyCode !== code) {
      return yield* Effect.fail(InvalidInput.one("currencyCode", { enum: [code] }, `The quote is paid in ${code}`))
    }
    const amount = request.currencyAmount ?? quote.quote.totalSendingAmount
    if (amount !== quote.quote.totalSendingAmount) {
      return yield* Effect.fail(
        InvalidInput.one(
          "currencyAmount",
          { const: quote.quote.totalSendingAmount },
          `The quote expects exactly ${quote.quote.totalSendingAmount} ${code} (smallest unit)`
        )
      )
    }
    const executed = yield* executeQuote(request.quoteId, yield* currentClock, { viaDeposit: true })
    return executed.transaction.transaction
  })

  const transferInStore = Effect.fnUntraced(function* (request: TransferInRequest) {
    const external = yield* store.externalAccounts.get(request.source.accountId)
    if (external === undefined || external.status === "INACTIVE") {
      return yield* Effect.fail(accountNotFound(request.source.accountId))
    }
    if (external.status !== "ACTIVE" && external.status !== "PENDING_OWNERSHIP_VERIFICATION") {
      return yield* Effect.fail(externalAccountNotUsable(external.id, external.status))
    }
    if (!isPullable(external)) {
      return yield* Effect.fail(
        InvalidInput.one(
          "source.accountId",
          { accountType: ["US_ACCOUNT", "USD_ACCOUNT"] },
          "Only US bank accounts can be pulled from (ACH debit); fund other accounts through their payment instructions"
        )
      )
    }
    const account = yield* usableInternalAccount(request.destination.accountId)
    if (account.currency !== external.currency) {
      return yield* Effect.fail(
        InvalidInput.one(
          "destination.accountId",
          { currency: external.currency },
          `Transfer-in is same-currency: the internal account holds ${account.currency}, the external account ${external.currency}`
        )
      )
    }
    if (account.customerId !== undefined && account.customerId !== external.customerId) {
      return yield* Effect.fail(
        InvalidInput.one(
          "destination.accountId",
          { customerId: external.customerId },
          "The internal account belongs to another customer than the external account"
        )
      )
    }
    const customer = yield* store.customers.get(external.customerId)
    if (customer === undefined) return yield* Effect.fail(customerNotFound(external.customerId))
    if (customer.isDeleted) return yield* Effect.fail(customerDeleted(customer.id))
    const id = yield* ids.make("Transaction")
    const now = yield* nowIso
    const code = account.currency
    const rail = external.paymentRails.includes("ACH") ? "ACH" : (external.paymentRails[0] ?? "ACH")
    const record: TransactionRecord = {
      id,
      state: "PENDING",
      accountId: account.id,
      dueAt: addSeconds(now, SUBMIT_GRACE_SECONDS),
      transaction: {
        id,
        status: "PENDING",
        type: "INCOMING",
        direction: "CREDIT",
        source: { sourceType: "ACCOUNT", accountId: external.id, currency: code },
        destination: { destinationType: "ACCOUNT", accountId: account.id, currency: code },
        customerId: customer.id,
        platformCustomerId: customer.platformCustomerId,
        sentAmount: amountOf(request.amount, code),
        receivedAmount: amountOf(request.amount, code),
        exchangeRate: 1,
        paymentRail: rail,
        railSelectionMode: "AUTO",
        createdAt: now,
        updatedAt: now
      }
    }
    yield* store.transactions.insert(record)
    yield* recordSteps(
      store,
      id,
      [{ debit: systemAccount("deposits", code), credit: account.id, amount: request.amount, currency: code }],
      "PENDING",
      now
    )
    yield* emitSteps(store, ids, ["INCOMING_PAYMENT.PENDING"], id, record.transaction, now)
    return record
  })

  /**
   * Deprecated `POST /transfer-in`: pulls `amount` from a pull-capable external account into an
   * internal account of the same customer and currency. The transaction is INCOMING and PENDING
   * (a pending ledger transfer deposits → account, `INCOMING_PAYMENT.PENDING`) until the rail
   * settles the pull (COMPLETED, posted) or fails it (FAILED, voided).
   */
  const transferInGen = Effect.fnUntraced(function* (request: TransferInRequest) {
    const created = yield* store.transaction(transferInStore(request))
    const next = yield* submit(created, yield* currentClock)
    return next.transaction
  })
  const transferIn = (request: TransferInRequest) => dieOnUnique(transferInGen(request))

  // ---- reads ----

  const getTransaction = (id: string) =>
    Effect.flatMap(store.transactions.get(id), (record) =>
      record === undefined ? Effect.fail(transactionNotFound(id)) : Effect.succeed(record.transaction)
    )

  /** `GET /transactions`: filters of `ListTransactionsQuery`, newest first by default; a foreign cursor is 400. */
  const listTransactions = (
    query: ListTransactionsQuery
  ): Effect.Effect<Page<Transaction>, InvalidInput | StoreError> => {
    const page = pageRequest(query)
    if (page === undefined) return Effect.fail(invalidCursor())
    return Effect.map(
      store.transactions.list(
        {
          customerId: query.customerId,
          platformCustomerId: query.platformCustomerId,
          accountIdentifier: query.accountIdentifier,
          status: query.status,
          type: query.type,
          reference: query.reference,
          createdAfter: query.startDate,
          createdBefore: query.endDate
        },
        page
      ),
      (result): Page<Transaction> => {
        const data = result.data.map((r) => r.transaction)
        return result.nextCursor === undefined
          ? { data, hasMore: result.hasMore, totalCount: result.totalCount }
          : { data, hasMore: result.hasMore, totalCount: result.totalCount, nextCursor: result.nextCursor }
      }
    )
  }

  return {
    executeQuote,
    /** Submits a reserved payment (just committed) to its rail; see `submitReserved`. */
    submitReserved: (reserved: Reserved, clock: Clock.Clock) =>
      dieOnUnique(Effect.gen(() => submitReserved(reserved, clock))),
    expireQuote,
    processDue,
    fundSandbox,
    sandboxUmaReceive,
    sandboxSend,
    transferIn,
    getTransaction,
    listTransactions
  }
}

export type PaymentEngine = ReturnType<typeof makePayments>

// ---------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------

export type TransactionsError =
  | InvalidInput
  | NotFound
  | Refused
  | Conflict
  | LimitExceeded
  | StoreError
  | IllegalTransition

/** Transactions: reads, the settlement worker, incoming payments and the sandbox money helpers. */
export class Transactions extends Context.Service<
  Transactions,
  {
    /** `GET /transactions`. */
    readonly list: (query: ListTransactionsQuery) => Effect.Effect<Page<Transaction>, InvalidInput | StoreError>
    /** `GET /transactions/{transactionId}` (404 `TRANSACTION_NOT_FOUND`). */
    readonly get: (id: string) => Effect.Effect<Transaction, NotFound | StoreError>
    /** One pass of the background worker (see `processDue`). */
    readonly processDue: () => Effect.Effect<ProcessDueReport, StoreError>
    /** `POST /sandbox/internal-accounts/{accountId}/fund`; returns the account id. */
    readonly fundSandbox: (accountId: string, amount: number) => Effect.Effect<string, TransactionsError>
    /** `POST /sandbox/send`. */
    readonly sandboxSend: (request: SandboxSendRequest) => Effect.Effect<Transaction, TransactionsError>
    /** `POST /sandbox/uma/receive`. */
    readonly sandboxUmaReceive: (request: SandboxUmaReceiveRequest) => Effect.Effect<Transaction, TransactionsError>
    /** Deprecated `POST /transfer-in`. */
    readonly transferIn: (request: TransferInRequest) => Effect.Effect<Transaction, TransactionsError>
  }
>()("paycore/transactions/Transactions") {
  static readonly layer: Layer.Layer<Transactions, never, Store | Ids | Rail> = Layer.effect(
    Transactions,
    Effect.gen(function* () {
      const payments = makePayments({ store: yield* Store, ids: yield* Ids, rail: yield* Rail })
      return Transactions.of({
        list: (query) => traced("Transactions.list", payments.listTransactions(query)),
        get: (id) => traced("Transactions.get", payments.getTransaction(id)),
        processDue: () => command("Transactions.processDue", (env) => payments.processDue(env.clock)),
        fundSandbox: (accountId, amount) => traced("Transactions.fundSandbox", payments.fundSandbox(accountId, amount)),
        sandboxSend: (request) => traced("Transactions.sandboxSend", payments.sandboxSend(request)),
        sandboxUmaReceive: (request) => traced("Transactions.sandboxUmaReceive", payments.sandboxUmaReceive(request)),
        transferIn: (request) => traced("Transactions.transferIn", payments.transferIn(request))
      })
    })
  )
}
