/**
 * Quotes under Strong Customer Authentication (S-03 … S-08, S-11; docs/design/sca.md, section 3): the steps the
 * commands that start a payment share (execute, `POST /quotes` with `immediatelyExecute` or a real-time-funded
 * source) and the worker's expiry. Who is subject and what the plan is are read at each command; a payment that
 * needs challenges waits in PENDING_AUTHORIZATION with nothing held or counted; the challenges themselves are
 * sca/challenges.ts's (one mechanism for every SCA flow). Authorizing and resending are authorize.ts.
 */
import { Effect } from "effect"
import type { Customer } from "../customers/model.ts"
import { debitsOf, shortfallOf } from "../ledger/transfers.ts"
import type { PlatformConfig } from "../platform/model.ts"
import { Store } from "../ports/store.ts"
import { scaFactorNotUsable } from "../quotes/errors.ts"
import type { Quote, QuoteRecord } from "../quotes/model.ts"
import { type ChallengeRequest, LINKABLE_FACTORS, linkingText, type PendingCode } from "../sca/challenges.ts"
import type { LinkedOperation, ScaChallengeRecord, ScaFactor, ScaPurpose } from "../sca/model.ts"
import { challengePlan, type ScaDestinationKind } from "../sca/plan.ts"
import { refuseWhileLocked, settled } from "../sca/proofs.ts"
import { isScaSubject } from "../sca/regions.ts"
import { requireScaSession } from "../sca/sessions.ts"
import { isTrustedBeneficiary } from "../sca/trust.ts"
import type { EngineSettings } from "../shared/engine-config.ts"
import type { InvalidInput, LimitExceeded, Refused, StoreError } from "../shared/errors.ts"
import { isoOf } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { paymentLegs } from "./legs.ts"
import { dailyVolumeKey, dailyVolumeRefusal, sizeLimitRefusal } from "./limits.ts"
import type { TransactionRecord } from "./model.ts"
import { type MoveError, moveQuoteWithSteps, moveTransactionSteps } from "./moves.ts"
import type { PaymentPorts, ScaPaymentPorts } from "./ports.ts"

/** A subject customer's quote: the customer and the purposes of its challenges, in order (none: trusted). */
export interface ScaContext {
  readonly customer: Customer
  readonly steps: ReadonlyArray<ScaPurpose>
}

/** A payment left waiting for a challenge, and the SMS to send once that is committed. */
export interface Challenged {
  readonly _tag: "Challenged"
  readonly quote: QuoteRecord
  readonly transaction: TransactionRecord
  readonly code: PendingCode | undefined
}

/** The open challenge slot of a quote: one challenge at a time, step after step. */
export const quoteSlot = (quoteId: string): string => `QUOTE|${quoteId}`

/**
 * Whether the quote's destination is a trusted beneficiary of the customer (AC-31 … AC-38): trusted, its payments
 * skip the per-transaction challenges (a live session is still required). The one place the trust lookup goes: an
 * external account the customer trusts now (sca/trust.ts); an internal account or an UMA address is never trusted.
 */
export const isDestinationTrusted = (
  store: PaymentPorts["store"],
  customerId: string,
  quote: QuoteRecord
): Effect.Effect<boolean, StoreError> => {
  const destination = quote.quote.destination
  return destination.destinationType === "ACCOUNT" && destination.accountId.startsWith("ExternalAccount:")
    ? isTrustedBeneficiary(store, customerId, destination.accountId)
    : Effect.succeed(false)
}

const destinationKind = (quote: Quote): ScaDestinationKind =>
  quote.destination.destinationType === "UMA_ADDRESS"
    ? "UMA"
    : quote.destination.accountId.startsWith("InternalAccount:")
      ? "INTERNAL"
      : "EXTERNAL"

/** The challenges a subject customer's quote needs (sca/plan.ts), given whether its destination is trusted. */
export const quoteChallengePlan = (quote: Quote, trusted: boolean): ReadonlyArray<ScaPurpose> =>
  challengePlan({
    subject: true,
    trusted,
    crossCurrency: quote.sendingCurrency.code !== quote.receivingCurrency.code,
    destination: destinationKind(quote)
  })

/** The subject customer of a quote and its plan, or `undefined`: no customer, or not in an SCA region (S-01). */
export function* scaContextSteps(
  store: PaymentPorts["store"],
  quote: QuoteRecord,
  settings: Pick<EngineSettings, "scaRegions">,
  known?: Customer
): Steps<ScaContext | undefined, StoreError> {
  const customerId = quote.quote.customerId
  if (customerId === undefined || settings.scaRegions.length === 0) return undefined
  const customer = known ?? (yield* store.customers.get(customerId))
  if (customer === undefined || !isScaSubject(customer, settings)) return undefined
  const trusted = yield* isDestinationTrusted(store, customer.id, quote)
  return { customer, steps: quoteChallengePlan(quote.quote, trusted) }
}

/** What a payment's codes are linked to (PSD2 dynamic linking): the amount sent and who is paid. */
export const linkedOperationOf = (quote: Quote): LinkedOperation => ({
  amount: quote.totalSendingAmount,
  currency: quote.sendingCurrency.code,
  payee: quote.destination.destinationType === "ACCOUNT" ? quote.destination.accountId : quote.destination.umaAddress
})

/** The SMS of a committed challenge, with the text that says what it authorizes. */
export const linkedCode = (code: PendingCode | undefined, quote: Quote): PendingCode | undefined =>
  code === undefined
    ? undefined
    : { ...code, context: linkingText(linkedOperationOf(quote), quote.sendingCurrency.decimals) }

/**
 * The read-only pre-check of a payment about to be challenged (design Q4): the size limit, the day's volume and the
 * source's balance, so a refusal comes before an SMS. Nothing is counted or held: that happens when the last
 * challenge passes (and is checked again there).
 */
function* affordableSteps(
  store: PaymentPorts["store"],
  config: PlatformConfig | undefined,
  quote: QuoteRecord,
  now: string
): Steps<void, Refused | LimitExceeded | StoreError> {
  const tooLarge = sizeLimitRefusal(config, quote)
  if (tooLarge !== undefined) return yield* Effect.fail(tooLarge)
  const code = quote.quote.sendingCurrency.code
  const used = yield* store.counters.get(dailyVolumeKey(quote.quote.customerId, code, now))
  const overVolume = dailyVolumeRefusal(config, quote, used + quote.quote.totalSendingAmount, now)
  if (overVolume !== undefined) return yield* Effect.fail(overVolume)
  if (quote.quote.source.sourceType !== "ACCOUNT") return
  const debits = debitsOf(paymentLegs(quote))
  const refused = shortfallOf(debits, yield* store.ledger.balances(debits))
  if (refused !== undefined) return yield* Effect.fail(refused)
}

/** The factor of a payment's first challenge: asked for, else the quote's, else the first usable (S-08). */
const chooseFactor = (
  asked: ScaFactor | undefined,
  usable: ReadonlyArray<ScaFactor>
): Effect.Effect<ScaFactor, InvalidInput> => {
  const factor = asked ?? usable[0]
  return factor !== undefined && usable.includes(factor)
    ? Effect.succeed(factor)
    : Effect.fail(scaFactorNotUsable(asked, usable))
}

/**
 * A subject customer starts a payment (S-03, S-06, Q-19): 423 while its proofs are locked, 409
 * `SCA_SESSION_REQUIRED` without a live session (both write nothing). A plan without steps (trusted destination)
 * answers `undefined`: the caller goes on as for anyone. Otherwise the pre-check, then the first challenge is issued
 * into the quote's slot; the quote moves to PENDING_AUTHORIZATION carrying it (a real-time-funded quote without its
 * payment instructions) and the transaction too (`OUTGOING_PAYMENT.PENDING_AUTHORIZATION`), due when the challenge
 * expires. Inside the caller's store transaction; the SMS goes after its commit.
 */
export function* startAuthorizationSteps(
  ports: ScaPaymentPorts,
  sca: ScaContext,
  quote: QuoteRecord,
  record: TransactionRecord,
  askedFactor: ScaFactor | undefined,
  config: PlatformConfig | undefined,
  nowMs: number
): Steps<Challenged | undefined, MoveError | InvalidInput | Refused | LimitExceeded> {
  const { store, challenges } = ports
  const customerId = sca.customer.id
  yield* refuseWhileLocked(yield* store.scaSecurity.get(customerId), nowMs)
  yield* Effect.provideService(requireScaSession(customerId), Store, store)
  const purpose = sca.steps[0]
  if (purpose === undefined) return undefined
  const now = isoOf(nowMs)
  yield* affordableSteps(store, config, quote, now)
  const usable = yield* challenges.usableFactors(sca.customer)
  const linkable = usable.factors.filter((f) => LINKABLE_FACTORS.includes(f))
  const factor = yield* chooseFactor(askedFactor ?? quote.scaFactor, linkable)
  return yield* challengeQuoteSteps(
    ports,
    quote,
    record,
    {
      customerId,
      step: 1,
      purpose,
      factor,
      availableFactors: linkable,
      linked: linkedOperationOf(quote.quote),
      smsTo: usable.smsTo
    },
    nowMs
  )
}

/** What a quote's challenge asks for: the slot and the subject are the quote's. */
export type QuoteChallengeRequest = Omit<ChallengeRequest, "kind" | "subjectId" | "openSlot">

/**
 * Issues a quote's challenge into the quote's slot and leaves the payment waiting for it: the quote carries the
 * challenge's view (the first one moves it to PENDING_AUTHORIZATION, a real-time-funded quote without its payment
 * instructions; a later one leaves it there, S-05) and the transaction moves to PENDING_AUTHORIZATION again, due when
 * the challenge expires. Inside the caller's store transaction; the SMS goes after its commit.
 */
export function* challengeQuoteSteps(
  ports: ScaPaymentPorts,
  quote: QuoteRecord,
  record: TransactionRecord,
  request: QuoteChallengeRequest,
  nowMs: number
): Steps<Challenged, MoveError | InvalidInput | LimitExceeded> {
  const issued = yield* ports.challenges.issue(
    { ...request, kind: "QUOTE", subjectId: quote.id, openSlot: quoteSlot(quote.id) },
    nowMs
  )
  const scaChallenge = yield* ports.challenges.view(issued.challenge)
  const first = request.step === 1
  const waiting = first
    ? yield* moveQuoteWithSteps(ports, quote, "EXECUTE_SCA", (q) => ({
        ...q,
        quote: {
          ...q.quote,
          scaChallenge,
          ...(q.quote.source.sourceType === "REALTIME_FUNDING" ? { paymentInstructions: [] } : {})
        }
      }))
    : { ...quote, quote: { ...quote.quote, scaChallenge } }
  if (!first) yield* ports.store.quotes.update(waiting)
  const transaction = yield* moveTransactionSteps(
    ports,
    record,
    first ? "EXECUTE_SCA" : "NEXT_CHALLENGE",
    { record: { dueAt: issued.challenge.expiresAt } },
    isoOf(nowMs)
  )
  return { _tag: "Challenged", quote: waiting, transaction, code: linkedCode(issued.code, waiting.quote) }
}

/** A quote without its challenge (it left PENDING_AUTHORIZATION). */
export const withoutChallenge = (record: QuoteRecord): QuoteRecord => {
  const { scaChallenge: _, ...quote } = record.quote
  return { ...record, quote }
}

/**
 * The challenge expired before the payment was authorized (S-11, Q-35): the challenge `EXPIRE`s (when still open),
 * the quote fails, the transaction fails with `SCA_NOT_COMPLETED` (`OUTGOING_PAYMENT.FAILED` only: nothing was held
 * or counted, so no ledger write and no refund). A new quote is needed.
 */
export function* failUnauthorizedSteps(
  ports: PaymentPorts,
  quote: QuoteRecord,
  record: TransactionRecord,
  open: ScaChallengeRecord | undefined,
  nowMs: number
): Steps<TransactionRecord, MoveError> {
  if (open !== undefined) yield* Effect.orDie(ports.store.scaChallenges.update(settled(open, "EXPIRE", nowMs)))
  yield* moveQuoteWithSteps(ports, quote, "FAIL", withoutChallenge)
  return yield* moveTransactionSteps(
    ports,
    record,
    "SCA_EXPIRE",
    { transaction: { failureReason: "SCA_NOT_COMPLETED" }, record: { dueAt: undefined } },
    isoOf(nowMs)
  )
}
