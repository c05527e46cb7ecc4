import { Context, Effect, Layer, Result } from "effect"
import type { ExternalAccount } from "../accounts/model.ts"
import type { Customer } from "../customers/model.ts"
import { Ledger, type Leg, systemAccount } from "../ledger/service.ts"
import { Ids } from "../ports/ids.ts"
import { type Payout, type PayoutStatus, Rail, type RailError } from "../ports/rail.ts"
import { Store, type UniqueViolation } from "../ports/store.ts"
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
import { addSeconds, nowIso, utcDay } from "../shared/time.ts"
import { emit } from "../webhooks/service.ts"
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
import type {
  FailureReason,
  ListTransactionsQuery,
  SandboxSendRequest,
  SandboxUmaReceiveRequest,
  Transaction,
  TransactionRecord,
  TransferInRequest
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
/** Rows claimed per page by `processDue`. */
const WORKER_PAGE = 100

const backoffSeconds = (attempts: number): number => Math.min(5 * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_SECONDS)

/** The reference of the ledger transfers of a refund, and the `refund.reference` of the transaction. */
export const refundReference = (transactionId: string): string => `${transactionId}:refund`

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** A second row on a key the collection does not have is a bug, not a client error. */
const dieOnUnique = <A, E, R>(
  effect: Effect.Effect<A, E | UniqueViolation, R>
): Effect.Effect<A, Exclude<E, UniqueViolation>, R> =>
  Effect.catchIf(
    effect,
    (e): e is UniqueViolation =>
      typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "UniqueViolation",
    (e) => Effect.die(new Error(`unexpected unique violation on ${e.index}`))
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
  readonly record?: Partial<Pick<TransactionRecord, "railReference" | "dueAt" | "attempts">>
}

/**
 * Moves a transaction through its machine (inside a store transaction): saves the new state and
 * public status, then emits the move's events in order with the updated transaction as data.
 */
export const moveTransaction = Effect.fnUntraced(function* (
  record: TransactionRecord,
  event: OutgoingEvent | IncomingEvent,
  change: TransactionChange = {}
) {
  const store = yield* Store
  const move = yield* Effect.fromResult(transactionMove(record, event))
  const updatedAt = yield* nowIso
  const transaction: Transaction = {
    ...record.transaction,
    ...change.transaction,
    status: publicStatus(record, move.to),
    updatedAt
  }
  const next: TransactionRecord = { ...record, ...change.record, state: move.to, transaction }
  yield* dieOnUnique(store.transactions.update(next))
  for (const type of move.emits) yield* emit(type, next.id, transaction)
  return next
})

/** Saves bookkeeping of a transaction without a state change (rail reference, next due time). */
const saveRecord = Effect.fnUntraced(function* (record: TransactionRecord, change: TransactionChange) {
  const store = yield* Store
  const updatedAt = yield* nowIso
  const next: TransactionRecord = {
    ...record,
    ...change.record,
    transaction:
      change.transaction === undefined
        ? record.transaction
        : { ...record.transaction, ...change.transaction, updatedAt }
  }
  yield* dieOnUnique(store.transactions.update(next))
  return next
})

/** A transaction the engine refers to; a missing one is a bug (rows are never deleted). */
const loadTransaction = Effect.fnUntraced(function* (transactionId: string) {
  const store = yield* Store
  const record = yield* store.transactions.get(transactionId)
  if (record === undefined) return yield* Effect.die(new Error(`transaction ${transactionId} vanished`))
  return record
})

/** Moves a quote through the quote machine (inside a store transaction). */
export const moveQuote = Effect.fnUntraced(function* (record: QuoteRecord, event: QuoteEvent) {
  const store = yield* Store
  const move = yield* Effect.fromResult(transition(quoteMachine, record.quote.status as QuoteState, event))
  const next: QuoteRecord = { ...record, quote: { ...record.quote, status: move.to } }
  yield* dieOnUnique(store.quotes.update(next))
  return next
})

/** Moves the quote of an outgoing payment if the move is legal from where it is (quotes follow transactions). */
const followQuote = Effect.fnUntraced(function* (record: TransactionRecord, event: QuoteEvent) {
  const store = yield* Store
  const quoteId = record.transaction.quoteId
  if (quoteId === undefined) return
  const quote = yield* store.quotes.getForUpdate(quoteId)
  if (quote === undefined) return
  if (Result.isFailure(transition(quoteMachine, quote.quote.status as QuoteState, event))) return
  yield* moveQuote(quote, event)
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
// Execution: limits, reservation, submission
// ---------------------------------------------------------------------------------------------

const secondsToUtcMidnight = (iso: string): number => {
  const now = Date.parse(iso)
  const next = Date.parse(`${utcDay(iso)}T00:00:00.000Z`) + 86_400_000
  return Math.max(1, Math.ceil((next - now) / 1000))
}

/** The daily-volume counter key of a customer (or the platform) in one currency on one UTC day. */
export const dailyVolumeKey = (customerId: string | undefined, currencyCode: string, iso: string): string =>
  `daily-volume:${customerId ?? "platform"}:${currencyCode}:${utcDay(iso)}`

/**
 * Checks the platform's limits for the sending currency and counts the amount into the day's
 * volume (rolled back with the command when anything later fails).
 */
const checkLimits = Effect.fnUntraced(function* (quote: QuoteRecord, now: string) {
  const store = yield* Store
  const config = yield* store.config.get()
  const code = quote.quote.sendingCurrency.code
  const amount = quote.quote.totalSendingAmount
  const limit = config?.transactionLimits.find((l) => l.currency === code)
  if (limit?.maxTransactionAmount !== undefined && amount > limit.maxTransactionAmount) {
    return yield* Effect.fail(transactionSizeLimitExceeded(code, amount, limit.maxTransactionAmount))
  }
  const key = dailyVolumeKey(quote.quote.customerId, code, now)
  if (limit?.maxDailyVolume !== undefined) {
    const used = yield* store.counters.get(key)
    if (used + amount > limit.maxDailyVolume) {
      return yield* Effect.fail(
        dailyVolumeLimitExceeded(code, used, amount, limit.maxDailyVolume, secondsToUtcMidnight(now))
      )
    }
  }
  yield* store.counters.add(key, amount)
})

/**
 * Executes a PENDING quote inside the caller's store transaction: limits, the holds on the
 * source (all-or-nothing; `INSUFFICIENT_FUNDS` leaves nothing behind), quote and transaction to
 * PROCESSING. An internal transfer settles at once (its holds are posted). A payout to a rail is
 * submitted after commit by `submitTransaction`.
 */
export const reserveQuote = Effect.fnUntraced(function* (quote: QuoteRecord, record: TransactionRecord) {
  const now = yield* nowIso
  yield* checkLimits(quote, now)
  yield* Ledger.record(record.id, paymentLegs(quote), "PENDING")
  const executing = yield* moveQuote(quote, "EXECUTE")
  let tx = yield* moveTransaction(record, "EXECUTE", { record: { dueAt: addSeconds(now, SUBMIT_GRACE_SECONDS) } })
  if (isInternalTransfer(executing)) {
    yield* Ledger.resolve(record.id, "POSTED")
    yield* moveQuote(executing, "COMPLETE")
    tx = yield* moveTransaction(tx, "SETTLE", {
      transaction: { settledAt: now, expectedSettlementAt: now, settlementTimelineSeconds: 0 },
      record: { dueAt: undefined }
    })
  }
  return tx
})

export interface ExecuteOptions {
  /** A deposit for a quote funded by payment instructions arrived (sandbox send). */
  readonly viaDeposit?: boolean
}

type ExecuteError = NotFound | Conflict | Refused | LimitExceeded | StoreError | IllegalTransition

/**
 * Executes a quote: 409 `QUOTE_ALREADY_EXECUTED` unless PENDING; at or after `expiresAt` the quote
 * and its transaction are moved to EXPIRED (committed) and the call fails with 409 `QUOTE_EXPIRED`.
 * Then reserves (see `reserveQuote`) and submits the payout. Returns the transaction.
 */
export const executeQuote = Effect.fnUntraced(function* (
  quoteId: string,
  options: ExecuteOptions = {}
): Effect.fn.Return<TransactionRecord, ExecuteError, Store | Ids | Rail> {
  const store = yield* Store
  const outcome = yield* store.transaction(
    Effect.gen(function* () {
      const quote = yield* store.quotes.getForUpdate(quoteId)
      if (quote === undefined) return yield* Effect.fail(quoteNotFound(quoteId))
      const status = quote.quote.status
      if (status === "EXPIRED") return yield* Effect.fail(quoteExpired(quoteId, quote.quote.expiresAt))
      if (status !== "PENDING") return yield* Effect.fail(quoteAlreadyExecuted(quoteId, status))
      if (quote.quote.source.sourceType === "REALTIME_FUNDING" && options.viaDeposit !== true) {
        return yield* Effect.fail(quoteNotExecutable(quoteId))
      }
      const record = yield* store.transactions.getForUpdate(quote.quote.transactionId)
      if (record === undefined) return yield* Effect.die(new Error(`quote ${quoteId} has no transaction`))
      const now = yield* nowIso
      if (now >= quote.quote.expiresAt) {
        yield* expireQuoteAndTransaction(quote)
        return { expired: quote.quote.expiresAt } as const
      }
      return { record: yield* reserveQuote(quote, record) } as const
    })
  )
  if ("expired" in outcome) return yield* Effect.fail(quoteExpired(quoteId, outcome.expired))
  return yield* submitTransaction(outcome.record.id)
})

/** Quote and its PENDING transaction to EXPIRED (inside a store transaction). */
const expireQuoteAndTransaction = Effect.fnUntraced(function* (quote: QuoteRecord) {
  const store = yield* Store
  yield* moveQuote(quote, "EXPIRE")
  const record = yield* store.transactions.getForUpdate(quote.quote.transactionId)
  if (record !== undefined && record.state === "PENDING") yield* moveTransaction(record, "EXPIRE")
})

/** The worker's expiry step: re-reads the quote and expires it if it is still waiting and past `expiresAt`. */
export const expireQuote = Effect.fnUntraced(function* (quoteId: string) {
  const store = yield* Store
  return yield* store.transaction(
    Effect.gen(function* () {
      const quote = yield* store.quotes.getForUpdate(quoteId)
      if (quote === undefined) return false
      const status = quote.quote.status
      if (status !== "PENDING" && status !== "PENDING_AUTHORIZATION") return false
      if ((yield* nowIso) < quote.quote.expiresAt) return false
      yield* expireQuoteAndTransaction(quote)
      return true
    })
  )
})

/** What a rail is asked to do for a transaction (a payout; for a transfer-in, the pull from the account). */
const payoutOf = Effect.fnUntraced(function* (record: TransactionRecord) {
  const store = yield* Store
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
    } satisfies Payout
  }
  const base = {
    transactionId: record.id,
    rail,
    amount: tx.receivedAmount.amount,
    currency: tx.receivedAmount.currency.code,
    remittanceInformation: tx.remittanceInformation
  }
  if (tx.destination.umaAddress !== undefined) {
    return { ...base, destination: { kind: "UMA", umaAddress: tx.destination.umaAddress } } satisfies Payout
  }
  const external =
    tx.destination.accountId === undefined ? undefined : yield* store.externalAccounts.get(tx.destination.accountId)
  if (external === undefined) return undefined
  return { ...base, destination: { kind: "ACCOUNT", accountInfo: external.accountInfo } } satisfies Payout
})

/** The state in which a transaction waits for (re-)submission to its rail. */
const awaitingSubmission = (record: TransactionRecord): boolean =>
  record.railReference === undefined &&
  (isOutgoing(record) ? record.state === "PROCESSING" : record.state === "PENDING")

/** Fails a payment at or before settlement (inside a store transaction); outgoing ones start their refund. */
const failPayment = Effect.fnUntraced(function* (record: TransactionRecord, reason: FailureReason) {
  const now = yield* nowIso
  if (!isOutgoing(record)) {
    yield* Ledger.resolve(record.id, "VOIDED")
    return yield* moveTransaction(record, "FAIL", {
      transaction: { failureReason: reason },
      record: { dueAt: undefined }
    })
  }
  yield* followQuote(record, "FAIL")
  return yield* moveTransaction(record, "FAIL", {
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
  })
})

/**
 * Hands a transaction to its rail (after the commit that reserved it), then records the rail's
 * reference and timing in its own store transaction, re-checking that nobody else did. A refusal
 * fails the payment (and refunds it); a retryable error is retried by the worker with backoff.
 */
export const submitTransaction = Effect.fnUntraced(function* (transactionId: string) {
  const store = yield* Store
  const rail = yield* Rail
  const record = yield* loadTransaction(transactionId)
  if (!awaitingSubmission(record)) return record
  const payout = yield* payoutOf(record)
  const submitted =
    payout === undefined
      ? Result.fail<RailError>({
          _tag: "RailError",
          retryable: false,
          reason: "ACCOUNT_INVALID",
          message: "the account no longer exists"
        })
      : yield* Effect.result(rail.submit(payout))
  const next = yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.transactions.getForUpdate(transactionId)
      if (current === undefined || !awaitingSubmission(current)) return current ?? record
      const now = yield* nowIso
      if (Result.isSuccess(submitted)) {
        const s = submitted.success
        const seconds = rail.settlementSeconds(current.transaction.paymentRail ?? "ACH")
        return yield* saveRecord(current, {
          transaction: { expectedSettlementAt: s.expectedSettlementAt, settlementTimelineSeconds: Math.round(seconds) },
          record: {
            railReference: s.reference,
            dueAt: laterOf(s.expectedSettlementAt, now),
            attempts: 0
          }
        })
      }
      const error = submitted.failure
      const attempts = (current.attempts ?? 0) + 1
      if (error.retryable && attempts < MAX_SUBMIT_ATTEMPTS) {
        return yield* saveRecord(current, { record: { attempts, dueAt: addSeconds(now, backoffSeconds(attempts)) } })
      }
      return yield* failPayment(current, error.retryable ? "QUOTE_EXECUTION_FAILED" : error.reason)
    })
  )
  if (next.state === "REFUND_PENDING") return yield* refundTransaction(transactionId)
  return next
})

// ---------------------------------------------------------------------------------------------
// Settlement worker steps
// ---------------------------------------------------------------------------------------------

const nextReturnCheck = (now: string, settledAt: string | undefined): string | undefined => {
  const elapsed = Math.max(0, (Date.parse(now) - Date.parse(settledAt ?? now)) / 1000)
  if (elapsed >= RETURN_WATCH_SECONDS) return undefined
  return addSeconds(now, Math.min(Math.max(FIRST_RETURN_CHECK_SECONDS, elapsed), RETURN_WATCH_SECONDS - elapsed))
}

/** Whether a transaction waits for its rail's verdict (or, once completed, for a possible return). */
const awaitingRail = (record: TransactionRecord): boolean =>
  record.railReference !== undefined &&
  (isOutgoing(record)
    ? record.state === "PROCESSING" || record.state === "COMPLETED"
    : record.state === "PENDING" || record.state === "COMPLETED")

const settle = Effect.fnUntraced(function* (record: TransactionRecord, settledAt: string) {
  const now = yield* nowIso
  yield* Ledger.resolve(record.id, "POSTED")
  if (isOutgoing(record)) yield* followQuote(record, "COMPLETE")
  return yield* moveTransaction(record, "SETTLE", {
    transaction: { settledAt },
    record: { dueAt: nextReturnCheck(now, settledAt), attempts: 0 }
  })
})

const startReturn = Effect.fnUntraced(function* (record: TransactionRecord) {
  const now = yield* nowIso
  const refund = {
    reference: refundReference(record.id),
    initiatedAt: now,
    status: "PENDING" as const,
    reason: "TRANSACTION_FAILED" as const
  }
  return yield* moveTransaction(record, "RETURN", {
    transaction: isOutgoing(record) ? { failureReason: "PAYOUT_RETURNED", refund } : { refund },
    record: { dueAt: now }
  })
})

/** Applies what the rail said about a transaction (inside a store transaction). */
const applyStatus = Effect.fnUntraced(function* (record: TransactionRecord, status: PayoutStatus) {
  const now = yield* nowIso
  const completed = record.state === "COMPLETED"
  switch (status._tag) {
    case "Pending":
      if (completed)
        return yield* saveRecord(record, { record: { dueAt: nextReturnCheck(now, record.transaction.settledAt) } })
      return yield* saveRecord(record, {
        record: { dueAt: laterOf(status.checkAgainAt, addSeconds(now, 1)), attempts: 0 }
      })
    case "Settled":
      if (completed)
        return yield* saveRecord(record, { record: { dueAt: nextReturnCheck(now, record.transaction.settledAt) } })
      return yield* settle(record, status.settledAt)
    case "Failed":
      // A rail cannot fail a payout it reported settled; stop watching and leave it to operations.
      if (completed) return yield* saveRecord(record, { record: { dueAt: undefined } })
      return yield* failPayment(record, status.reason)
    case "Returned": {
      const settledRecord = completed ? record : yield* settle(record, now)
      return yield* startReturn(settledRecord)
    }
  }
})

/** The worker's poll step for one transaction: asks the rail, then applies the answer in its own store transaction. */
export const pollTransaction = Effect.fnUntraced(function* (transactionId: string) {
  const store = yield* Store
  const rail = yield* Rail
  const record = yield* loadTransaction(transactionId)
  if (!awaitingRail(record)) return record
  const reference = record.railReference!
  const status = yield* Effect.result(rail.status(reference))
  const next = yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.transactions.getForUpdate(transactionId)
      if (current === undefined || current.state !== record.state || current.railReference !== reference) {
        return current ?? record
      }
      if (Result.isSuccess(status)) return yield* applyStatus(current, status.success)
      const now = yield* nowIso
      const attempts = (current.attempts ?? 0) + 1
      if (status.failure.retryable || current.state === "COMPLETED") {
        // Money may be in flight: keep asking (capped backoff); a completed payment just stops being watched.
        if (current.state === "COMPLETED") return yield* saveRecord(current, { record: { dueAt: undefined } })
        return yield* saveRecord(current, { record: { attempts, dueAt: addSeconds(now, backoffSeconds(attempts)) } })
      }
      // The rail does not know the payout: it never left, so it fails and is refunded.
      return yield* failPayment(current, status.failure.reason)
    })
  )
  if (next.state === "REFUND_PENDING") return yield* refundTransaction(transactionId)
  return next
})

/**
 * The refund step of a failed or returned payment, in its own store transaction:
 * - failed before settlement (holds still pending): the holds are voided (REFUND_COMPLETED); when
 *   the rail reports `refundSucceeds: false` the held money goes to `system:suspense:<ccy>`
 *   instead (holds voided, one posted transfer source → suspense; REFUND_FAILED);
 * - returned after settlement (holds posted): one posted reversal of every leg, so payouts, fx
 *   and fee accounts give the whole sending amount back to the source (REFUND_COMPLETED);
 * - an incoming payment returned after it completed: the amount goes back out of the internal
 *   account; if it was spent meanwhile, REFUND_FAILED and nothing moves.
 */
export const refundTransaction = Effect.fnUntraced(function* (transactionId: string) {
  const store = yield* Store
  const rail = yield* Rail
  const record = yield* loadTransaction(transactionId)
  if (record.state !== "REFUND_PENDING") return record
  const transfers = yield* Ledger.transfersOf(transactionId)
  const holdsPending = transfers.some((t) => t.state === "PENDING")
  let refundSucceeds = true
  if (isOutgoing(record) && holdsPending && record.railReference !== undefined) {
    const status = yield* Effect.result(rail.status(record.railReference))
    if (Result.isFailure(status) && status.failure.retryable) {
      const attempts = (record.attempts ?? 0) + 1
      const now = yield* nowIso
      return yield* store.transaction(
        saveRecord(record, { record: { attempts, dueAt: addSeconds(now, backoffSeconds(attempts)) } })
      )
    }
    if (Result.isSuccess(status) && status.success._tag === "Failed") refundSucceeds = status.success.refundSucceeds
  }
  return yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.transactions.getForUpdate(transactionId)
      if (current === undefined || current.state !== "REFUND_PENDING") return current ?? record
      const now = yield* nowIso
      const refund = current.transaction.refund
      const done = (status: "COMPLETED" | "FAILED") =>
        refund === undefined ? undefined : { ...refund, status, ...(status === "COMPLETED" ? { settledAt: now } : {}) }
      const finish = (event: "REFUND_SETTLE" | "REFUND_FAIL") => {
        const r = done(event === "REFUND_SETTLE" ? "COMPLETED" : "FAILED")
        return moveTransaction(current, event, {
          ...(r === undefined ? {} : { transaction: { refund: r } }),
          record: { dueAt: undefined, attempts: 0 }
        })
      }
      const ref = refundReference(current.id)
      if (!isOutgoing(current)) {
        const account = current.accountId
        if (account === undefined) return yield* finish("REFUND_FAIL")
        const code = current.transaction.receivedAmount.currency.code
        const moved = yield* Effect.result(
          Ledger.record(
            ref,
            [
              {
                debit: account,
                credit: systemAccount("deposits", code),
                amount: current.transaction.receivedAmount.amount,
                currency: code
              }
            ],
            "POSTED"
          )
        )
        return yield* finish(Result.isSuccess(moved) ? "REFUND_SETTLE" : "REFUND_FAIL")
      }
      const quote =
        current.transaction.quoteId === undefined ? undefined : yield* store.quotes.get(current.transaction.quoteId)
      if (quote === undefined) return yield* Effect.die(new Error(`transaction ${current.id} has no quote`))
      const pendingNow = (yield* Ledger.transfersOf(current.id)).some((t) => t.state === "PENDING")
      if (pendingNow) {
        yield* Ledger.resolve(current.id, "VOIDED")
        if (refundSucceeds) return yield* finish("REFUND_SETTLE")
        const code = quote.quote.sendingCurrency.code
        yield* Ledger.record(
          ref,
          [
            {
              debit: sourceLedgerAccount(quote),
              credit: systemAccount("suspense", code),
              amount: quote.quote.totalSendingAmount,
              currency: code
            }
          ],
          "POSTED"
        )
        return yield* finish("REFUND_FAIL")
      }
      yield* Ledger.record(ref, Ledger.reversed(paymentLegs(quote)), "POSTED")
      return yield* finish("REFUND_SETTLE")
    })
  )
})

/** One worker step for a due transaction, chosen by its state. */
export const stepTransaction = Effect.fnUntraced(function* (transactionId: string) {
  const store = yield* Store
  const record = yield* store.transactions.get(transactionId)
  if (record === undefined) return undefined
  if (record.state === "REFUND_PENDING") return yield* refundTransaction(transactionId)
  if (awaitingSubmission(record)) return yield* submitTransaction(transactionId)
  if (awaitingRail(record)) return yield* pollTransaction(transactionId)
  return record
})

export interface ProcessDueReport {
  /** Quotes (with their transactions) moved to EXPIRED. */
  readonly expired: number
  /** Transactions the worker looked at (submitted, polled, refunded). */
  readonly stepped: number
  /** Steps that failed unexpectedly (logged; retried next pass). */
  readonly errors: number
}

/**
 * One pass of the background worker: expires PENDING quotes past `expiresAt`, then takes every
 * transaction due by now (re-submission, settlement polls, return watch, refunds). Each step is
 * its own store transaction that re-reads the row and re-checks its state, so a pass run twice or
 * concurrently does nothing twice. The server runs it on a schedule; tests call it after moving
 * the TestClock.
 */
export const processDue = Effect.fnUntraced(function* () {
  const store = yield* Store
  const now = yield* nowIso
  let expired = 0
  let stepped = 0
  let errors = 0
  const guard = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.map(() => true),
      Effect.catchCause((cause) =>
        Effect.logWarning("paycore worker step failed", cause).pipe(
          Effect.map(() => {
            errors++
            return false
          })
        )
      )
    )
  for (const status of ["PENDING", "PENDING_AUTHORIZATION"]) {
    let after: string | undefined
    for (;;) {
      const page = yield* store.quotes.list(
        { status, expiresAtOrBefore: now },
        { limit: WORKER_PAGE, after, sortOrder: "asc" }
      )
      for (const quote of page.data) {
        yield* guard(
          Effect.map(expireQuote(quote.id), (did) => {
            if (did) expired++
          })
        )
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
      if (yield* guard(stepTransaction(record.id))) stepped++
    }
    const last = page.data[page.data.length - 1]
    if (!page.hasMore || last === undefined) break
    after = last.id
  }
  return { expired, stepped, errors } satisfies ProcessDueReport
})

// ---------------------------------------------------------------------------------------------
// Incoming payments
// ---------------------------------------------------------------------------------------------

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
 * An incoming payment that arrived (inside a store transaction): a posted transfer from
 * `system:deposits:<ccy>` to the internal account, and an INCOMING / CREDIT transaction moved
 * PENDING → COMPLETED through its machine (emits `INCOMING_PAYMENT.COMPLETED`).
 */
const receivePayment = Effect.fnUntraced(function* (input: IncomingInput) {
  const store = yield* Store
  const ids = yield* Ids
  const id = yield* ids.make("Transaction")
  const now = yield* nowIso
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
  yield* dieOnUnique(store.transactions.insert(pending))
  yield* Ledger.record(
    id,
    [
      {
        debit: systemAccount("deposits", input.currency),
        credit: input.accountId,
        amount: input.amount,
        currency: input.currency
      }
    ],
    "POSTED"
  )
  return yield* moveTransaction(pending, "SETTLE", { transaction: { settledAt: now } })
})

const usableInternalAccount = Effect.fnUntraced(function* (accountId: string) {
  const store = yield* Store
  const account = yield* store.internalAccounts.get(accountId)
  if (account === undefined) return yield* Effect.fail(accountNotFound(accountId))
  if (account.status !== "ACTIVE" && account.status !== "PENDING") {
    return yield* Effect.fail(accountNotActive(accountId, account.status))
  }
  return account
})

const platformCustomerIdOf = Effect.fnUntraced(function* (customerId: string | undefined) {
  const store = yield* Store
  if (customerId === undefined) return undefined
  return (yield* store.customers.get(customerId))?.platformCustomerId
})

/**
 * Sandbox funding: `amount` (1 to 100 000 000 000, smallest unit) arrives in the internal account
 * as a completed incoming payment (`INCOMING_PAYMENT.COMPLETED`). Returns the account id.
 */
export const fundSandbox = Effect.fnUntraced(function* (accountId: string, amount: number) {
  const store = yield* Store
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > SANDBOX_FUND_MAX) {
    return yield* Effect.fail(invalidFundAmount(amount))
  }
  return yield* store.transaction(
    Effect.gen(function* () {
      const account = yield* usableInternalAccount(accountId)
      yield* receivePayment({
        accountId,
        customerId: account.customerId,
        platformCustomerId: yield* platformCustomerIdOf(account.customerId),
        currency: account.currency,
        amount,
        source: { sourceType: "REALTIME_FUNDING", currency: account.currency },
        description: "Sandbox funding"
      })
      return account.id as string
    })
  )
})

/** Sandbox: an UMA payment arrives for a customer (found by UMA address or id) in their internal account of that currency. */
export const sandboxUmaReceive = Effect.fnUntraced(function* (request: SandboxUmaReceiveRequest) {
  const store = yield* Store
  const record = yield* store.transaction(
    Effect.gen(function* () {
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
      return yield* receivePayment({
        accountId: account.id,
        customerId: customer.id,
        platformCustomerId: customer.platformCustomerId,
        currency: code,
        amount: request.receivingCurrencyAmount,
        source: { sourceType: "UMA_ADDRESS", umaAddress: request.senderUmaAddress, currency: code },
        description: `UMA payment from ${request.senderUmaAddress}`
      })
    })
  )
  return record.transaction
})

/** Sandbox: the deposit for a quote funded by payment instructions arrives, so the quote executes. */
export const sandboxSend = Effect.fnUntraced(function* (request: SandboxSendRequest) {
  const store = yield* Store
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
        { enum: [quote.quote.totalSendingAmount] },
        `The quote expects exactly ${quote.quote.totalSendingAmount} ${code} (smallest unit)`
      )
    )
  }
  const record = yield* executeQuote(request.quoteId, { viaDeposit: true })
  return record.transaction
})

/** An external account a transfer-in can pull from: US bank accounts (ACH debit) in this engine. */
export const isPullable = (account: ExternalAccount): boolean =>
  account.accountInfo.accountType === "US_ACCOUNT" || account.accountInfo.accountType === "USD_ACCOUNT"

/**
 * Deprecated `POST /transfer-in`: pulls `amount` from a pull-capable external account into an
 * internal account of the same customer and currency. The transaction is INCOMING and PENDING
 * (a pending ledger transfer deposits → account, `INCOMING_PAYMENT.PENDING`) until the rail
 * settles the pull (COMPLETED, posted) or fails it (FAILED, voided).
 */
export const transferIn = Effect.fnUntraced(function* (request: TransferInRequest) {
  const store = yield* Store
  const ids = yield* Ids
  const created = yield* store.transaction(
    Effect.gen(function* () {
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
      yield* dieOnUnique(store.transactions.insert(record))
      yield* Ledger.record(
        id,
        [{ debit: systemAccount("deposits", code), credit: account.id, amount: request.amount, currency: code }],
        "PENDING"
      )
      yield* emit("INCOMING_PAYMENT.PENDING", id, record.transaction)
      return record
    })
  )
  const next = yield* submitTransaction(created.id)
  return next?.transaction ?? created.transaction
})

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

export const getTransaction = Effect.fnUntraced(function* (id: string) {
  const store = yield* Store
  const record = yield* store.transactions.get(id)
  if (record === undefined) return yield* Effect.fail(transactionNotFound(id))
  return record.transaction
})

/** `GET /transactions`: filters of `ListTransactionsQuery`, newest first by default; a foreign cursor is 400. */
export const listTransactions = Effect.fnUntraced(function* (query: ListTransactionsQuery) {
  const store = yield* Store
  const page = pageRequest(query)
  if (page === undefined) return yield* Effect.fail(invalidCursor())
  const result = yield* store.transactions.list(
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
  )
  const data = result.data.map((r) => r.transaction)
  return (
    result.nextCursor === undefined
      ? { data, hasMore: result.hasMore, totalCount: result.totalCount }
      : { data, hasMore: result.hasMore, totalCount: result.totalCount, nextCursor: result.nextCursor }
  ) satisfies Page<Transaction>
})

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
      const ports = Context.make(Store, yield* Store).pipe(Context.add(Ids, yield* Ids), Context.add(Rail, yield* Rail))
      const run = Effect.provideContext(ports)
      return Transactions.of({
        list: Effect.fn("Transactions.list")(function* (query: ListTransactionsQuery) {
          return yield* listTransactions(query)
        }, run),
        get: Effect.fn("Transactions.get")(function* (id: string) {
          return yield* getTransaction(id)
        }, run),
        processDue: Effect.fn("Transactions.processDue")(function* () {
          return yield* processDue()
        }, run),
        fundSandbox: Effect.fn("Transactions.fundSandbox")(function* (accountId: string, amount: number) {
          return yield* fundSandbox(accountId, amount)
        }, run),
        sandboxSend: Effect.fn("Transactions.sandboxSend")(function* (request: SandboxSendRequest) {
          return yield* sandboxSend(request)
        }, run),
        sandboxUmaReceive: Effect.fn("Transactions.sandboxUmaReceive")(function* (request: SandboxUmaReceiveRequest) {
          return yield* sandboxUmaReceive(request)
        }, run),
        transferIn: Effect.fn("Transactions.transferIn")(function* (request: TransferInRequest) {
          return yield* transferIn(request)
        }, run)
      })
    })
  )
}
