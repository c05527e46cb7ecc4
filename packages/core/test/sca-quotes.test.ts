/**
 * Quotes under Strong Customer Authentication on a TestClock (issue 14, S2; S-04, S-05, S-11, S-15, Q-35, L-14): the
 * challenge's 300 s and the worker's expiry at its last millisecond, the 1 s throttle after a wrong code, each step's
 * fresh 300 s, and the SMS linked to what it authorizes. The HTTP surface is packages/http/test/sca-quotes.http.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { Store } from "../src/ports/store.ts"
import { Quotes } from "../src/quotes/service.ts"
import { SCA_CHALLENGE_SECONDS } from "../src/sca/challenges.ts"
import { challengePlan, type ScaDestinationKind } from "../src/sca/plan.ts"
import { Transactions } from "../src/transactions/service.ts"
import {
  balance,
  eventsOf,
  makeEnv,
  payeeQuote,
  paymentProblems,
  SCA_CODE,
  seedPayer,
  seedScaSubjectPayer
} from "./fixtures.ts"

/** Every transaction's events and timeline are a walk of its machine; the ledger balances. */
const invariants = Effect.gen(function* () {
  assert.deepStrictEqual(yield* paymentProblems, [])
})

const subjectPayer = seedScaSubjectPayer(100_000)

const worker = Effect.gen(function* () {
  const report = yield* (yield* Transactions).processDue()
  assert.strictEqual(report.errors, 0)
})

const stateOf = (transactionId: string) =>
  Effect.gen(function* () {
    return (yield* (yield* Store).transactions.get(transactionId))!
  })

describe("Quotes under SCA on a TestClock", () => {
  it.effect(
    "S-11, Q-35: the worker leaves the payment at 299.999 s and fails it at 300 s: SCA_NOT_COMPLETED, nothing moved, no refund",
    () => {
      const env = makeEnv(31)
      return Effect.gen(function* () {
        const { account, usdPayee } = yield* subjectPayer
        const quotes = yield* Quotes
        const store = yield* Store
        const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000))
        const waiting = yield* quotes.execute(quote.id)
        assert.strictEqual(waiting.status, "PENDING_AUTHORIZATION")
        assert.strictEqual((yield* stateOf(quote.transactionId)).dueAt, waiting.scaChallenge!.expiresAt)

        yield* TestClock.adjust(SCA_CHALLENGE_SECONDS * 1000 - 1)
        yield* worker
        assert.strictEqual((yield* stateOf(quote.transactionId)).state, "PENDING_AUTHORIZATION")

        yield* TestClock.adjust(1)
        yield* worker
        const failed = yield* stateOf(quote.transactionId)
        assert.strictEqual(failed.state, "SCA_FAILED")
        assert.strictEqual(failed.transaction.status, "FAILED")
        assert.strictEqual(failed.transaction.failureReason, "SCA_NOT_COMPLETED")
        assert.isUndefined(failed.transaction.refund)
        assert.isUndefined(failed.dueAt)
        assert.strictEqual((yield* quotes.get(quote.id)).status, "FAILED")
        assert.strictEqual((yield* store.scaChallenges.get(waiting.scaChallenge!.id))!.status, "EXPIRED")
        assert.deepStrictEqual(yield* store.ledger.transfers(quote.transactionId), [])
        assert.strictEqual((yield* balance(account.id, "USD")).available, 100_000)
        assert.deepStrictEqual(yield* eventsOf(quote.transactionId), [
          "OUTGOING_PAYMENT.PENDING",
          "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
          "OUTGOING_PAYMENT.FAILED"
        ])
        const late = yield* Effect.flip((yield* Transactions).authorizeQuote(quote.id, { code: SCA_CODE }))
        assert.strictEqual(late._tag, "Conflict")
        yield* invariants
      }).pipe(Effect.provide(env.layer))
    }
  )

  it.effect(
    "S-04, S-15, L-14: a wrong code; the right one 999 ms later is 429; at 1 s it passes; the SMS says what it authorizes",
    () => {
      const env = makeEnv(32)
      return Effect.gen(function* () {
        const { account, usdPayee, customer } = yield* subjectPayer
        const quotes = yield* Quotes
        const transactions = yield* Transactions
        const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000))
        yield* quotes.execute(quote.id)
        assert.deepStrictEqual(env.sent, [
          {
            channel: "SMS",
            to: "+4915112345678",
            context: `USD ${(quote.totalSendingAmount / 100).toFixed(2)} to …${usdPayee.id.slice(-4)}`
          }
        ])

        const wrong = yield* Effect.flip(transactions.authorizeQuote(quote.id, { code: "000000" }))
        assert.strictEqual(wrong._tag, "InvalidInput")
        yield* TestClock.adjust(999)
        const soon = yield* Effect.flip(transactions.authorizeQuote(quote.id, { code: SCA_CODE }))
        assert.strictEqual(soon._tag, "LimitExceeded")
        yield* TestClock.adjust(1)
        const done = yield* transactions.authorizeQuote(quote.id, { code: SCA_CODE })
        assert.include(["PROCESSING", "COMPLETED"], done.status)
        assert.strictEqual((yield* (yield* Store).scaSecurity.get(customer.id))!.failedAttempts, 0)
        assert.strictEqual((yield* balance(account.id, "USD")).available, 100_000 - quote.totalSendingAmount)
        yield* invariants
      }).pipe(Effect.provide(env.layer))
    }
  )

  it.effect("S-05: each step has its own 300 s; the first step's expiry does not fail a payment on its second", () => {
    const env = makeEnv(33)
    return Effect.gen(function* () {
      const { account, eurPayee } = yield* subjectPayer
      const quotes = yield* Quotes
      const transactions = yield* Transactions
      const quote = yield* quotes.create(payeeQuote(account.id, eurPayee.id, 2_000))
      const first = (yield* quotes.execute(quote.id)).scaChallenge!
      assert.strictEqual(first.purpose, "CURRENCY_CONVERSION")
      yield* TestClock.adjust(200_000)
      const second = (yield* transactions.authorizeQuote(quote.id, { code: SCA_CODE })).scaChallenge!
      assert.strictEqual(second.purpose, "PAYOUT")
      assert.strictEqual(Date.parse(second.expiresAt) - Date.parse(first.expiresAt), 200_000)
      assert.strictEqual(env.sent.length, 2)

      yield* TestClock.adjust(200_000)
      yield* worker
      assert.strictEqual((yield* stateOf(quote.transactionId)).state, "PENDING_AUTHORIZATION")
      yield* TestClock.adjust(100_000)
      yield* worker
      assert.strictEqual((yield* stateOf(quote.transactionId)).transaction.failureReason, "SCA_NOT_COMPLETED")
      assert.strictEqual((yield* balance(account.id, "USD")).available, 100_000)
      yield* invariants
    }).pipe(Effect.provide(env.layer))
  })

  it.effect(
    "S-07: a resend after the challenge's 300 s is 400 expired, and says a new quote is needed (not a login)",
    () => {
      const env = makeEnv(35)
      return Effect.gen(function* () {
        const { account, usdPayee } = yield* subjectPayer
        const quotes = yield* Quotes
        const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000))
        yield* quotes.execute(quote.id)
        yield* TestClock.adjust(SCA_CHALLENGE_SECONDS * 1000)
        const late = yield* Effect.flip((yield* Transactions).resendQuoteScaCode(quote.id))
        assert.strictEqual(late._tag, "InvalidInput")
        assert.strictEqual(
          late.message,
          "The SCA code has expired; the payment can no longer be authorized; create a new quote"
        )
        assert.strictEqual(env.sent.length, 1)
        yield* invariants
      }).pipe(Effect.provide(env.layer))
    }
  )

  it.effect("S-01: a customer without a region pays as before: no challenge, no SMS", () => {
    const env = makeEnv(34)
    return Effect.gen(function* () {
      const { account, usdPayee } = yield* seedPayer(100_000)
      const quotes = yield* Quotes
      const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000))
      const executed = yield* quotes.execute(quote.id)
      assert.include(["PROCESSING", "COMPLETED"], executed.status)
      assert.isUndefined(executed.scaChallenge)
      assert.deepStrictEqual(env.sent, [])
      yield* invariants
    }).pipe(Effect.provide(env.layer))
  })
})

describe("challengePlan (sca/plan.ts)", () => {
  const plan = (subject: boolean, trusted: boolean, crossCurrency: boolean, destination: ScaDestinationKind) =>
    challengePlan({ subject, trusted, crossCurrency, destination })

  it("S-03, S-05: not subject or trusted → no step; cross-currency → conversion then payment; TRANSFER between internal accounts", () => {
    for (const destination of ["INTERNAL", "EXTERNAL", "UMA"] as const) {
      for (const crossCurrency of [false, true]) {
        assert.deepStrictEqual(plan(false, false, crossCurrency, destination), [])
        assert.deepStrictEqual(plan(true, true, crossCurrency, destination), [])
        assert.deepStrictEqual(plan(false, true, crossCurrency, destination), [])
      }
    }
    assert.deepStrictEqual(plan(true, false, false, "EXTERNAL"), ["PAYOUT"])
    assert.deepStrictEqual(plan(true, false, false, "UMA"), ["PAYOUT"])
    assert.deepStrictEqual(plan(true, false, false, "INTERNAL"), ["TRANSFER"])
    assert.deepStrictEqual(plan(true, false, true, "EXTERNAL"), ["CURRENCY_CONVERSION", "PAYOUT"])
    assert.deepStrictEqual(plan(true, false, true, "UMA"), ["CURRENCY_CONVERSION", "PAYOUT"])
    assert.deepStrictEqual(plan(true, false, true, "INTERNAL"), ["CURRENCY_CONVERSION", "TRANSFER"])
  })
})
