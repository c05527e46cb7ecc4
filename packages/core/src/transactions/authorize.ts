/**
 * Authorizing a quote under Strong Customer Authentication (S-04, S-05, S-06, S-10, S-11, S-15, L-14): the proof of
 * its open challenge moves it to the next challenge, or executes it (the reservation `execute` would have made), or
 * (real-time-funded) shows its payment instructions; an expired challenge fails it. And the SMS resend (S-07).
 * docs/design/sca.md, section 3.
 */
import { type Clock, Effect } from "effect"
import { Store, type UniqueViolation } from "../ports/store.ts"
import {
  noPendingAuthorization,
  quoteChallengeExpired,
  quoteNotUnderSca,
  scaCodeNotResendable
} from "../quotes/errors.ts"
import { fundingInstructions, paymentReference } from "../quotes/funding.ts"
import type { ExecuteError } from "../quotes/ports.ts"
import type { PendingCode } from "../sca/challenges.ts"
import type { ScaAuthorization } from "../sca/model.ts"
import { refuseWhileLocked } from "../sca/proofs.ts"
import { requireScaSession, subjectCustomer } from "../sca/sessions.ts"
import type { InvalidInput, LimitExceeded, Refused } from "../shared/errors.ts"
import { isoOf } from "../shared/time.ts"
import {
  type Challenged,
  challengeQuoteSteps,
  failUnauthorizedSteps,
  linkedCode,
  quoteChallengePlan,
  quoteSlot,
  withoutChallenge
} from "./authorization.ts"
import { afterExecuteSteps, type Executed, lockQuoteSteps, type Reserved, reserveSteps } from "./execute.ts"
import { dieOnUnique, moveQuoteWithSteps, moveTransactionSteps } from "./moves.ts"
import type { ScaPaymentPorts } from "./ports.ts"

/** What the store transaction of an authorize came to: a refusal to answer after its commit, or the quote moved. */
type AuthorizeOutcome =
  | { readonly _tag: "Refused"; readonly error: InvalidInput | Refused | LimitExceeded }
  | Challenged
  | { readonly _tag: "Funding"; readonly executed: Executed }
  | { readonly _tag: "Reserved"; readonly reserved: Reserved }

/**
 * The locked quote of a subject customer and its transaction, with the checks every authorize and resend starts
 * with (design section 1): 404 `QUOTE_NOT_FOUND`; 409 `CONFLICT` when its customer is not subject (or it has none)
 * or nothing is pending (a race's losers stop here, counting nothing). The customer's row is locked too: the
 * customer's proofs are counted one after the other, as a login's are.
 */
const pendingQuote = Effect.fnUntraced(function* (ports: ScaPaymentPorts, quoteId: string) {
  const { store } = ports
  const { quote, transaction, config } = yield* lockQuoteSteps(store, quoteId)
  const customerId = quote.quote.customerId
  if (customerId === undefined) return yield* Effect.fail(quoteNotUnderSca(quoteId))
  const customer = yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
  if (quote.quote.status !== "PENDING_AUTHORIZATION" || transaction === undefined) {
    return yield* Effect.fail(noPendingAuthorization(quoteId, quote.quote.status))
  }
  const open = yield* store.scaChallenges.findUnique("openSlot", quoteSlot(quoteId))
  return { quote, transaction, customer, open, config }
})

/** The store transaction of `authorizeQuote`. */
const authorizeInStore = Effect.fnUntraced(function* (
  ports: ScaPaymentPorts,
  quoteId: string,
  proof: ScaAuthorization,
  clock: Clock.Clock
) {
  const { store, challenges } = ports
  const { quote, transaction, customer, open, config } = yield* pendingQuote(ports, quoteId)
  const nowMs = clock.currentTimeMillisUnsafe()
  const now = isoOf(nowMs)
  const security = yield* store.scaSecurity.get(customer.id)
  yield* refuseWhileLocked(security, nowMs)
  yield* Effect.provideService(requireScaSession(customer.id), Store, store)
  if (open === undefined) {
    // A pending payment always has its open challenge; without one it cannot be authorized any more.
    yield* failUnauthorizedSteps(ports, quote, transaction, undefined, nowMs)
    return { _tag: "Refused", error: quoteChallengeExpired(quoteId) } as AuthorizeOutcome
  }
  const proved = yield* challenges.prove(open, proof, security, nowMs)
  if (proved._tag === "Expired") {
    yield* failUnauthorizedSteps(ports, quote, transaction, undefined, nowMs)
    const error = proved.error._tag === "InvalidInput" ? quoteChallengeExpired(quoteId) : proved.error
    return { _tag: "Refused", error } as AuthorizeOutcome
  }
  if (proved._tag === "Refused") return { _tag: "Refused", error: proved.error } as AuthorizeOutcome
  // The plan of an open payment is the one it started with: a later trust does not skip its remaining steps.
  const steps = quoteChallengePlan(quote.quote, false)
  const purpose = steps[open.step]
  if (purpose !== undefined) {
    const usable = yield* challenges.usableFactors(customer)
    // The quote stays PENDING_AUTHORIZATION (no move of its machine): it carries the next challenge (S-05).
    const challenged = yield* challengeQuoteSteps(
      ports,
      quote,
      transaction,
      {
        customerId: customer.id,
        step: open.step + 1,
        purpose,
        factor: open.factor,
        availableFactors: open.availableFactors,
        linked: open.linked,
        smsTo: usable.smsTo
      },
      nowMs
    )
    return challenged as AuthorizeOutcome
  }
  const source = quote.quote.source
  if (source.sourceType === "REALTIME_FUNDING") {
    // S-06: authorized before the money is sent; the deposit then executes it without another challenge.
    const code = quote.quote.sendingCurrency.code
    const instructions = fundingInstructions(code, paymentReference(quote.quote.transactionId), source.cryptoNetwork)
    const funding = yield* moveQuoteWithSteps(ports, quote, "AUTHORIZE_FUNDING", (q) => {
      const bare = withoutChallenge(q)
      return { ...bare, quote: { ...bare.quote, paymentInstructions: instructions ?? [] }, scaAuthorizedAt: now }
    })
    const pending = yield* moveTransactionSteps(
      ports,
      transaction,
      "AUTHORIZE_FUNDING",
      { record: { dueAt: undefined } },
      now
    )
    return { _tag: "Funding", executed: { quote: funding, transaction: pending } } as AuthorizeOutcome
  }
  // The last challenge passed: the reservation execute makes (limits counted, holds, an internal transfer settled).
  // A refusal there (funds, limits) fails this whole store transaction: the challenge stays open, nothing counted.
  const authorized = { ...withoutChallenge(quote), scaAuthorizedAt: now }
  yield* store.quotes.update(authorized)
  const reserved = yield* reserveSteps(ports, config, authorized, transaction, now, "AUTHORIZE")
  return { _tag: "Reserved", reserved } as AuthorizeOutcome
})

/**
 * `POST /quotes/{quoteId}/authorize` (S-04): one store transaction that locks the quote and its transaction. 404;
 * 409 `CONFLICT` (not subject, nothing pending); 423 `ACCOUNT_LOCKED`; 409 `SCA_SESSION_REQUIRED`. Then the proof
 * of the open challenge: wrong is 400, counted (committed, then answered); too soon after a wrong one is 429;
 * expired fails the payment (`SCA_NOT_COMPLETED`, committed) and is 400. Right: the next challenge (a new id, the
 * event again, its SMS after the commit), or the payment moves as execute moves it (its payout submitted after the
 * commit), or a real-time-funded quote gets its payment instructions (PENDING).
 */
export const authorizeQuote = Effect.fnUntraced(function* (
  ports: ScaPaymentPorts,
  quoteId: string,
  proof: ScaAuthorization,
  clock: Clock.Clock
): Effect.fn.Return<Executed, ExecuteError | UniqueViolation> {
  const outcome = yield* ports.store.transaction(authorizeInStore(ports, quoteId, proof, clock))
  switch (outcome._tag) {
    case "Refused":
      return yield* Effect.fail(outcome.error)
    case "Challenged":
      return yield* afterExecuteSteps(ports, outcome, clock)
    case "Funding":
      return outcome.executed
    case "Reserved":
      return yield* afterExecuteSteps(ports, outcome.reserved, clock)
  }
}, dieOnUnique)

/** The store transaction of `resendQuoteCode`: a new code for the open SMS challenge, `expiresAt` kept. */
const resendInStore = Effect.fnUntraced(function* (ports: ScaPaymentPorts, quoteId: string, clock: Clock.Clock) {
  const { quote, customer, open } = yield* pendingQuote(ports, quoteId)
  if (open === undefined) return yield* Effect.fail(noPendingAuthorization(quoteId, quote.quote.status))
  if (open.factor !== "SMS_OTP") return yield* Effect.fail(scaCodeNotResendable(quoteId, open.factor))
  const usable = yield* ports.challenges.usableFactors(customer)
  if (usable.smsTo === undefined) return yield* Effect.fail(scaCodeNotResendable(quoteId, open.factor))
  const code: PendingCode = yield* ports.challenges.resend(open, usable.smsTo, clock.currentTimeMillisUnsafe())
  return linkedCode(code, quote.quote)
})

/**
 * `POST /quotes/{quoteId}/authorize/resend` (S-07, L-14): a new SMS code for the quote's open challenge (the old
 * one dies; the same challenge id, `expiresAt` not extended). 404; 409 `CONFLICT` (not subject, nothing pending,
 * a PASSKEY challenge); 429 `RATE_LIMITED` within 60 s of the last code or after five; 400 once expired.
 */
export const resendQuoteCode = Effect.fnUntraced(function* (
  ports: ScaPaymentPorts,
  quoteId: string,
  clock: Clock.Clock
) {
  const code = yield* ports.store.transaction(resendInStore(ports, quoteId, clock))
  yield* ports.challenges.sendCode(code)
}, dieOnUnique)
