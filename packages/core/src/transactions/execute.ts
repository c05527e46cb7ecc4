/**
 * Executing quotes: a quote's outgoing payment is opened with the quote (PENDING), executed (limits, holds on the
 * source, quote and payment to PROCESSING; an internal transfer settles at once) and, after that store
 * transaction commits, submitted to its rail. This is the `QuotePayments` that `Quotes` asks for.
 */
import { type Clock, Effect, Layer } from "effect"
import type { Mutable } from "effect/Types"
import { recordIfAvailableSteps, resolveSteps } from "../accounts/balance-updates.ts"
import type { Customer } from "../customers/model.ts"
import type { PlatformConfig } from "../platform/model.ts"
import type { PlatformConfigService } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import type { KycProvider } from "../ports/kyc.ts"
import type { Notifier } from "../ports/notifier.ts"
import { Rail } from "../ports/rail.ts"
import { Screening } from "../ports/screening.ts"
import { Store, together, type UniqueViolation } from "../ports/store.ts"
import { quoteAlreadyExecuted, quoteExpired, quoteNotExecutable, quoteNotFound } from "../quotes/errors.ts"
import { isQuoteDueToExpire } from "../quotes/expiry.ts"
import { paymentReference, walletSigningOf } from "../quotes/funding.ts"
import { quoteMachine } from "../quotes/machine.ts"
import type { Quote, QuoteRecord } from "../quotes/model.ts"
import { type ExecuteError, type PaymentTerms, QuotePayments } from "../quotes/ports.ts"
import { refuseUnlinkable } from "../quotes/sca-factor.ts"
import type { ScaFactor } from "../sca/model.ts"
import type { EngineSettings } from "../shared/engine-config.ts"
import { type LimitExceeded, type NotFound, Refused, type StoreError } from "../shared/errors.ts"
import { allows } from "../shared/machine.ts"
import { amountOf } from "../shared/money.ts"
import { addSeconds } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { verifyWalletStamp } from "../wallet-auth/signed-retry.ts"
import { type Challenged, scaContextSteps, startAuthorizationSteps } from "./authorization.ts"
import { isInternalTransfer, paymentLegs } from "./legs.ts"
import { dailyVolumeKey, dailyVolumeRefusal, limitsOf, sizeLimitRefusal } from "./limits.ts"
import { outgoingPaymentMachine } from "./machine.ts"
import type { Transaction, TransactionRecord } from "./model.ts"
import {
  currentClock,
  dieOnUnique,
  insertTransactionSteps,
  type MoveError,
  moveQuoteSteps,
  moveTransactionSteps,
  nowOf
} from "./moves.ts"
import { depositedRecord } from "./on-chain.ts"
import { type PaymentPorts, type ScaPaymentPorts, scaPaymentPorts } from "./ports.ts"
import { type PayoutRead, payoutOfSteps, SUBMIT_GRACE_SECONDS, submitSteps } from "./submission.ts"

export interface ExecuteOptions {
  /** A deposit for a quote funded by payment instructions arrived (sandbox send). */
  readonly viaDeposit?: boolean
  /** The `Service-Wallet-Signature` of the request: a quote from an embedded wallet needs it. */
  readonly walletSignature?: string | undefined
  /** The factor the request asks the SCA challenge in (S-08; TOTP refused). */
  readonly scaFactor?: ScaFactor | undefined
  /** The engine's settings (who is subject to SCA); without them no SCA applies (a deposit, an internal step). */
  readonly settings?: Pick<EngineSettings, "scaRegions"> | undefined
}

/** What `reserveSteps` left: the quote and its transaction, both moved on. */
export interface Reserved {
  readonly quote: QuoteRecord
  readonly transaction: TransactionRecord
  /** What the rail will be asked for, when it was read alongside the reservation (see `submitSteps`). */
  readonly payout?: PayoutRead
}

/**
 * The outgoing payment of a new quote, PENDING: amounts, fees and rail from the quote, the reconciliation
 * reference from its transaction id. Optional fields are assigned when present (see `newQuoteRecord`).
 */
const outgoingPaymentOf = (quoteRecord: QuoteRecord, terms: PaymentTerms): TransactionRecord => {
  const quote = quoteRecord.quote
  const source = quote.source
  const destination = quote.destination
  const sendingCode = quote.sendingCurrency.code
  const receivingCode = quote.receivingCurrency.code
  const rail = terms.rail
  const transaction: Mutable<Transaction> = {
    id: quote.transactionId,
    status: "PENDING",
    type: "OUTGOING",
    direction: "DEBIT",
    source:
      source.sourceType === "ACCOUNT"
        ? { sourceType: "ACCOUNT", accountId: source.accountId, currency: sendingCode }
        : { sourceType: "REALTIME_FUNDING", currency: sendingCode },
    destination:
      destination.destinationType === "ACCOUNT"
        ? { destinationType: "ACCOUNT", accountId: destination.accountId, currency: receivingCode, paymentRail: rail }
        : {
            destinationType: "UMA_ADDRESS",
            umaAddress: destination.umaAddress,
            currency: receivingCode,
            paymentRail: rail
          },
    sentAmount: amountOf(quote.totalSendingAmount, sendingCode),
    receivedAmount: amountOf(quote.totalReceivingAmount, receivingCode),
    exchangeRate: quote.exchangeRate,
    quoteId: quote.id,
    fees: quote.feesIncluded,
    platformFees: quote.platformFeesIncluded,
    paymentRail: rail,
    railSelectionMode: terms.railSelectionMode,
    reconciliationInstructions: { reference: paymentReference(quote.transactionId) },
    createdAt: quote.createdAt,
    updatedAt: quote.createdAt
  }
  if (quote.customerId !== undefined) {
    transaction.customerId = quote.customerId
    if (terms.platformCustomerId !== undefined) transaction.platformCustomerId = terms.platformCustomerId
  }
  if (quoteRecord.agentId !== undefined) transaction.agentId = quoteRecord.agentId
  if (quote.description !== undefined) transaction.description = quote.description
  if (quote.remittanceInformation !== undefined) transaction.remittanceInformation = quote.remittanceInformation
  return {
    id: quote.transactionId,
    state: "PENDING",
    accountId: source.sourceType === "ACCOUNT" ? source.accountId : undefined,
    transaction,
    ...(terms.transfer === undefined ? {} : { transfer: terms.transfer })
  }
}

/**
 * A payout as its rail will get it (read alongside a reservation), whether screening holds it, and why it
 * refuses it (C-49), if it does.
 */
interface Screened {
  readonly read: PayoutRead
  readonly held: boolean
  readonly refused?: Refused
}

/**
 * What the rail will be asked for, screened: held when the `Screening` port answers `Review`. A payment with
 * nothing to pay out to (its account is gone) is not screened: its submission fails it.
 */
function* screenPayoutSteps(ports: PaymentPorts, record: TransactionRecord): Steps<Screened, StoreError> {
  const payout = yield* payoutOfSteps(ports, record)
  if (payout === undefined) return { read: { payout }, held: false }
  const verdict = yield* ports.screening.screen(payout)
  if (verdict._tag === "Refuse") {
    return { read: { payout }, held: false, refused: new Refused({ code: verdict.code, message: verdict.message }) }
  }
  return { read: { payout }, held: verdict._tag === "Review" }
}

/**
 * Executes a PENDING quote inside the caller's store transaction: the platform's limits for the sending
 * currency (`config`, read in this transaction), the amount counted into the day's volume, the holds on the
 * source (all-or-nothing; `INSUFFICIENT_FUNDS` leaves nothing behind), quote and transaction to PROCESSING (by
 * `EXECUTE`, or `AUTHORIZE` once the last SCA challenge of a PENDING_AUTHORIZATION quote passed).
 * An internal transfer settles at once (its holds are posted). A payout's rail request is read alongside and
 * screened: a held payout moves `HOLD` instead, to COMPLIANCE_REVIEW (`pendingReason: COMPLIANCE_REVIEW`, its
 * money held, no submission); any other is submitted after the commit (`submitReservedSteps`).
 */
export function* reserveSteps(
  ports: PaymentPorts,
  config: PlatformConfig | undefined,
  quote: QuoteRecord,
  record: TransactionRecord,
  now: string,
  event: "EXECUTE" | "AUTHORIZE" = "EXECUTE"
): Steps<Reserved, MoveError | Refused | LimitExceeded> {
  const { store } = ports
  const tooLarge = sizeLimitRefusal(config, quote)
  if (tooLarge !== undefined) return yield* Effect.fail(tooLarge)
  const legs = paymentLegs(quote)
  const internal = isInternalTransfer(quote)
  // The day's volume counted and the money held in one step, checked there (`ledger.recordIfAvailable` with a count:
  // written only if the volume stays within the limit and the source covers the payment), so two payments of one
  // customer at once cannot both see room for themselves; with it, the payout screened (one round trip on
  // PostgreSQL). A PENDING transaction (re-read under lock) has no transfers yet: they are numbered from 1, so a racing
  // second reservation would collide on the transfer ids instead of holding the money twice.
  const code = quote.quote.sendingCurrency.code
  const amount = quote.quote.totalSendingAmount
  const volume = {
    key: dailyVolumeKey(quote.quote.customerId, code, now),
    amount,
    cap: limitsOf(config, quote)?.maxDailyVolume
  }
  const [held, screened] = yield* together(
    store,
    () => recordIfAvailableSteps(ports, record.id, legs, "PENDING", now, 0, [volume]),
    () => (internal ? Effect.succeed(undefined) : screenPayoutSteps(ports, record))
  )
  const overVolume = dailyVolumeRefusal(config, quote, held.totals[0]! + amount, now)
  if (overVolume !== undefined) return yield* Effect.fail(overVolume)
  if (screened?.refused !== undefined) return yield* Effect.fail(screened.refused)
  if (held.refused !== undefined) return yield* Effect.fail(held.refused)
  let executing = yield* moveQuoteSteps(ports, quote, event)
  if (screened?.held === true) {
    const held = yield* moveTransactionSteps(
      ports,
      record,
      "HOLD",
      { transaction: { pendingReason: "COMPLIANCE_REVIEW" }, record: { dueAt: undefined } },
      now
    )
    return { quote: executing, transaction: held, payout: screened.read }
  }
  let tx = yield* moveTransactionSteps(
    ports,
    record,
    event,
    { record: { dueAt: addSeconds(now, SUBMIT_GRACE_SECONDS) } },
    now
  )
  // A payout (screened, as only payouts are) is submitted after the commit; an internal transfer settles here.
  if (screened !== undefined) return { quote: executing, transaction: tx, payout: screened.read }
  yield* resolveSteps(ports, record.id, "POSTED", now)
  executing = yield* moveQuoteSteps(ports, executing, "COMPLETE")
  tx = yield* moveTransactionSteps(
    ports,
    tx,
    "SETTLE",
    {
      transaction: { settledAt: now, expectedSettlementAt: now, settlementTimelineSeconds: 0 },
      record: { dueAt: undefined }
    },
    now
  )
  return { quote: executing, transaction: tx }
}

/**
 * `reserveSteps` as an Effect over the `Store`, `Ids`, `Rail` and `Screening` in context (inside the caller's store
 * transaction); the engine itself uses the steps.
 */
export const reserveQuote = (quote: QuoteRecord, record: TransactionRecord) =>
  dieOnUnique(
    Effect.gen(function* () {
      const ports = { store: yield* Store, ids: yield* Ids, rail: yield* Rail, screening: yield* Screening }
      const clock = yield* currentClock
      const config = yield* ports.store.config.get()
      return yield* reserveSteps(ports, config, quote, record, nowOf(clock))
    })
  )

/** Quote and its PENDING transaction to EXPIRED (inside a store transaction). */
export function* expireQuoteAndTransactionSteps(
  ports: PaymentPorts,
  quote: QuoteRecord,
  now: string
): Steps<void, MoveError> {
  yield* moveQuoteSteps(ports, quote, "EXPIRE")
  const record = yield* ports.store.transactions.getForUpdate(quote.quote.transactionId)
  if (record !== undefined && allows(outgoingPaymentMachine, record.state, "EXPIRE")) {
    yield* moveTransactionSteps(ports, record, "EXPIRE", {}, now)
  }
}

/**
 * `submitSteps` after `reserveSteps` committed. The quote moves after its reservation only when its payment
 * fails (the quote follows it): only then is it read again.
 */
export function* submitReservedSteps(
  ports: PaymentPorts,
  reserved: Reserved,
  clock: Clock.Clock
): Steps<Reserved, MoveError | Refused> {
  const transaction = yield* submitSteps(ports, reserved.transaction, clock, reserved.payout)
  if (transaction.state === reserved.transaction.state) return { quote: reserved.quote, transaction }
  const quote = yield* ports.store.quotes.get(reserved.quote.id)
  return { quote: quote ?? reserved.quote, transaction }
}

/** A quote and its transaction, locked, with the platform's config read in the same store transaction. */
export interface LockedQuote {
  readonly quote: QuoteRecord
  readonly transaction: TransactionRecord | undefined
  readonly config: PlatformConfig | undefined
  /** The quote's customer, when asked for (`lockQuoteSteps`' `withCustomer`; `undefined` when it has none). */
  readonly customer?: Customer | undefined
}

/**
 * Locks a quote and its transaction (in that order) and reads the platform's config, and the quote's customer when
 * `withCustomer` (an execute that may need SCA: S-03), inside the caller's store transaction; 404 `QUOTE_NOT_FOUND`.
 * The start of every execute and authorize.
 */
export function* lockQuoteSteps(
  store: Store["Service"],
  quoteId: string,
  withCustomer = false
): Steps<LockedQuote, NotFound | StoreError> {
  // The locks, the limits and the customer asked for together (one round trip on PostgreSQL).
  const [locked, config] = yield* together(
    store,
    () => store.quotes.getForUpdateWithTransaction(quoteId, withCustomer),
    () => store.config.get()
  )
  if (locked === undefined) return yield* Effect.fail(quoteNotFound(quoteId))
  return withCustomer
    ? { quote: locked.quote, transaction: locked.transaction, config, customer: locked.customer }
    : { quote: locked.quote, transaction: locked.transaction, config }
}

/**
 * Whether an execute asks for SCA (S-03): not for a deposit executing a real-time-funded quote (its challenges
 * were passed before its payment instructions were shown, S-06), nor without the engine's settings.
 */
const scaMayApply = (
  options: ExecuteOptions
): options is ExecuteOptions & { readonly settings: Pick<EngineSettings, "scaRegions"> } =>
  options.viaDeposit !== true && options.settings !== undefined && options.settings.scaRegions.length > 0

/** An execute that found its quote due to expire: the expiry is written, the 409 answered after the commit. */
export interface Expired {
  readonly _tag: "Expired"
  readonly quoteId: string
  readonly expiresAt: string
}

/** What the store transaction of an execute came to (see `executeLockedSteps`). */
export type ExecuteOutcome = Reserved | Challenged | Expired

/**
 * Executes a locked quote (see `lockQuoteSteps`) inside the caller's store transaction: 409 unless PENDING (or
 * `QUOTE_EXPIRED` when already expired); the wallet's stamp; a quote due to expire is expired (`Expired`,
 * to commit); a subject customer's payment gets its first SCA challenge (`Challenged`, S-03); any other is
 * reserved (`reserveSteps`, with its payout read). A refusal fails the caller's transaction: nothing is written.
 * `options.scaFactor` must have passed `refuseUnlinkable`. After the commit: `afterExecuteSteps`.
 */
export function* executeLockedSteps(
  ports: ScaPaymentPorts,
  locked: LockedQuote,
  options: ExecuteOptions,
  clock: Clock.Clock
): Steps<ExecuteOutcome, ExecuteError | UniqueViolation> {
  const { store } = ports
  const { quote, transaction: record, config } = locked
  const quoteId = quote.id
  const status = quote.quote.status
  if (status === "EXPIRED") return yield* Effect.fail(quoteExpired(quoteId, quote.quote.expiresAt))
  if (!allows(quoteMachine, status, "EXECUTE")) return yield* Effect.fail(quoteAlreadyExecuted(quoteId, status))
  if (quote.quote.source.sourceType === "REALTIME_FUNDING" && options.viaDeposit !== true) {
    return yield* Effect.fail(quoteNotExecutable(quoteId))
  }
  // the wallet's stamp over the quote's terms, before anything is written (a refusal moves nothing; the
  // quote stays PENDING). Only a quote from an embedded wallet carries the payload: others read nothing more.
  const signing = walletSigningOf(quote.quote)
  if (signing !== undefined) {
    yield* verifyWalletStamp(signing.accountId, options.walletSignature, signing.payload).pipe(
      Effect.provideService(Store, store)
    )
  }
  if (record === undefined) return yield* Effect.die(new Error(`quote ${quoteId} has no transaction`))
  const now = nowOf(clock)
  if (isQuoteDueToExpire(quote.quote, now)) {
    yield* expireQuoteAndTransactionSteps(ports, quote, now)
    return { _tag: "Expired", quoteId, expiresAt: quote.quote.expiresAt }
  }
  // S-03: a subject customer's payment waits for its challenges (see `scaMayApply`).
  if (scaMayApply(options)) {
    const sca = yield* scaContextSteps(store, quote, options.settings, locked.customer)
    if (sca !== undefined) {
      const challenged = yield* startAuthorizationSteps(
        ports,
        sca,
        quote,
        record,
        options.scaFactor,
        config,
        clock.currentTimeMillisUnsafe()
      )
      if (challenged !== undefined) return challenged
    }
  }
  // The deposit that funded the quote arrived: on a chain, its transfer is the payment's source.
  const payment = options.viaDeposit === true ? depositedRecord(record, quote) : record
  return yield* reserveSteps(ports, config, quote, payment, now)
}

/**
 * What runs after the commit of an execute's store transaction: a reserved payment is submitted to its rail
 * (`submitReservedSteps`), a challenged one gets its SMS sent, an expired quote is 409 `QUOTE_EXPIRED`.
 */
export function* afterExecuteSteps(
  ports: ScaPaymentPorts,
  outcome: ExecuteOutcome,
  clock: Clock.Clock
): Steps<Executed, ExecuteError | UniqueViolation> {
  if (!("_tag" in outcome)) return yield* submitReservedSteps(ports, outcome, clock)
  if (outcome._tag === "Expired") return yield* Effect.fail(quoteExpired(outcome.quoteId, outcome.expiresAt))
  yield* ports.challenges.sendCode(outcome.code)
  return outcome
}

/** What an execute left: the quote and its transaction, reserved and submitted, or waiting for a challenge. */
export type Executed = Pick<Reserved, "quote" | "transaction">

/**
 * Executes a quote: 409 `QUOTE_ALREADY_EXECUTED` unless PENDING; at or after `expiresAt` the quote
 * and its transaction are moved to EXPIRED (committed) and the call fails with 409 `QUOTE_EXPIRED`.
 * A subject customer's payment then waits in PENDING_AUTHORIZATION for its first challenge (its SMS sent after the
 * commit; see `startAuthorizationSteps`); any other is reserved (see `reserveSteps`) and its payout submitted.
 * Returns the quote and the transaction.
 */
export const executeQuote = Effect.fnUntraced(function* (
  ports: ScaPaymentPorts,
  quoteId: string,
  clock: Clock.Clock,
  options: ExecuteOptions = {}
): Effect.fn.Return<Executed, ExecuteError | UniqueViolation> {
  const unlinkable = refuseUnlinkable(options.scaFactor)
  if (unlinkable !== undefined) return yield* Effect.fail(unlinkable)
  const outcome = yield* ports.store.transaction(
    Effect.gen(function* () {
      const locked = yield* lockQuoteSteps(ports.store, quoteId, scaMayApply(options))
      return yield* executeLockedSteps(ports, locked, options, clock)
    })
  )
  return yield* afterExecuteSteps(ports, outcome, clock)
}, dieOnUnique)

/**
 * The store transaction of `placeQuote`: the quote, its PENDING payment and event; executed when asked. A subject
 * customer's quote that would move money (executed at once, or real-time-funded) is challenged instead (S-06).
 */
const placeInStore = Effect.fnUntraced(function* (
  ports: ScaPaymentPorts,
  quote: QuoteRecord,
  record: TransactionRecord,
  terms: PaymentTerms,
  execute: boolean,
  config: PlatformConfig | undefined,
  clock: Clock.Clock
) {
  const { store } = ports
  const now = quote.quote.createdAt
  // Both rows asked for together (one round trip on PostgreSQL), the quote first; either's taken key fails the command.
  yield* together(
    store,
    () => store.quotes.insert(quote),
    () => insertTransactionSteps(ports, record, ["OUTGOING_PAYMENT.PENDING"], now)
  )
  const funding = quote.quote.source.sourceType === "REALTIME_FUNDING"
  if (terms.scaSettings !== undefined && (execute || funding)) {
    const sca = yield* scaContextSteps(store, quote, terms.scaSettings, terms.customer)
    if (sca !== undefined) {
      const challenged = yield* startAuthorizationSteps(
        ports,
        sca,
        quote,
        record,
        undefined,
        config,
        clock.currentTimeMillisUnsafe()
      )
      if (challenged !== undefined) return challenged
    }
  }
  if (!execute) return undefined
  return yield* reserveSteps(ports, config, quote, record, now)
})

/** `QuotePayments.place`: the quote and its payment stored, executed and submitted when asked. */
function* placeQuoteSteps(
  ports: ScaPaymentPorts,
  quote: QuoteRecord,
  terms: PaymentTerms,
  execute: boolean,
  config: PlatformConfig | undefined,
  clock: Clock.Clock
): Steps<Quote, ExecuteError | UniqueViolation> {
  const placed = yield* ports.store.transaction(
    placeInStore(ports, quote, outgoingPaymentOf(quote, terms), terms, execute, config, clock)
  )
  if (placed === undefined) return quote.quote
  return (yield* afterExecuteSteps(ports, placed, clock)).quote.quote
}

/** `QuotePayments` over the payment engine (see quotes/ports.ts). */
export const quotePaymentsLayer: Layer.Layer<
  QuotePayments,
  never,
  Store | Ids | Rail | Notifier | KycProvider | PlatformConfigService
> = Layer.effect(
  QuotePayments,
  Effect.gen(function* () {
    const ports = yield* scaPaymentPorts
    return QuotePayments.of({
      place: (quote, terms, execute, config, clock) => placeQuoteSteps(ports, quote, terms, execute, config, clock),
      execute: (quoteId, env, options) =>
        Effect.map(
          executeQuote(ports, quoteId, env.clock, { ...options, settings: env.settings }),
          (executed) => executed.quote.quote
        )
    })
  })
)
