/**
 * Compliance holds in the engine (issue 30 item 5) on a TestClock, with a screening that holds every payout
 * of 777 (smallest unit): held as executed, or as the last SCA challenge passes; nothing submitted, no worker step
 * due; released (submitted, settled) or rejected (refunded at once); internal transfers never screened. After each,
 * the ledger balances and every payment's events and timeline are a walk of its machine. The HTTP surface, on every
 * store, is packages/http/test/compliance-holds.http.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ScreeningService } from "../src/ports/screening.ts"
import { Store } from "../src/ports/store.ts"
import { Quotes } from "../src/quotes/service.ts"
import { Transactions } from "../src/transactions/service.ts"
import {
  advance,
  balance,
  eventsOf,
  makeEnv,
  payeeQuote,
  paymentProblems,
  SCA_CODE,
  seedInternalAccount,
  seedPayer,
  seedScaSubjectPayer
} from "./fixtures.ts"

const HELD_AMOUNT = 777

/** Holds every payout of `HELD_AMOUNT`; records what it was asked. */
const screeningOf = (asked: Array<string>): ScreeningService => ({
  screen: (payout) =>
    Effect.sync(() => {
      asked.push(payout.transactionId)
      return payout.amount === HELD_AMOUNT ? { _tag: "Review" } : { _tag: "Clear" }
    })
})

const invariants = Effect.gen(function* () {
  assert.deepStrictEqual(yield* paymentProblems, [])
})

const recordOf = (id: string) =>
  Effect.gen(function* () {
    return (yield* (yield* Store).transactions.get(id))!
  })

describe("compliance holds (Q-38)", () => {
  it.effect("held as executed: COMPLIANCE_REVIEW, money held, nothing submitted; released, it settles once", () => {
    const asked: Array<string> = []
    const env = makeEnv(41, { screening: screeningOf(asked) })
    return Effect.gen(function* () {
      const { account, usdPayee } = yield* seedPayer(100_000)
      const quotes = yield* Quotes
      const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, HELD_AMOUNT))
      const executed = yield* quotes.execute(quote.id)
      assert.strictEqual(executed.status, "PROCESSING")
      const held = yield* recordOf(quote.transactionId)
      assert.deepStrictEqual(
        [held.state, held.transaction.status, held.transaction.pendingReason, held.dueAt, held.railReference],
        ["COMPLIANCE_REVIEW", "PROCESSING", "COMPLIANCE_REVIEW", undefined, undefined]
      )
      assert.deepStrictEqual(asked, [quote.transactionId])
      assert.strictEqual(env.rail.submissions.length, 0)
      assert.deepStrictEqual(yield* balance(account.id, "USD"), {
        posted: 100_000,
        pendingDebits: HELD_AMOUNT,
        pendingCredits: 0,
        available: 100_000 - HELD_AMOUNT
      })
      // A day later nothing has moved: no worker step is due for a held payment.
      yield* advance(86_400)
      assert.strictEqual((yield* recordOf(quote.transactionId)).state, "COMPLIANCE_REVIEW")
      assert.strictEqual(env.rail.submissions.length, 0)
      yield* invariants

      const released = yield* (yield* Transactions).releaseComplianceHold(quote.transactionId)
      assert.strictEqual(released.status, "PROCESSING")
      assert.isUndefined(released.pendingReason)
      assert.strictEqual(env.rail.submissions.length, 1)
      // Released once: not screened again.
      assert.deepStrictEqual(asked, [quote.transactionId])
      yield* advance(3 * 86_400)
      assert.strictEqual((yield* recordOf(quote.transactionId)).transaction.status, "COMPLETED")
      assert.strictEqual((yield* quotes.get(quote.id)).status, "COMPLETED")
      assert.strictEqual((yield* balance(account.id, "USD")).available, 100_000 - HELD_AMOUNT)
      assert.deepStrictEqual(yield* eventsOf(quote.transactionId), [
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.COMPLETED"
      ])
      yield* invariants
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("rejected: FAILED COMPLIANCE_REJECTED, refunded at once, quote FAILED; a second decision is 409", () => {
    const env = makeEnv(42, { screening: screeningOf([]) })
    return Effect.gen(function* () {
      const { account, usdPayee } = yield* seedPayer(100_000)
      const quotes = yield* Quotes
      const transactions = yield* Transactions
      const quote = yield* quotes.create({
        ...payeeQuote(account.id, usdPayee.id, HELD_AMOUNT),
        immediatelyExecute: true
      })
      assert.strictEqual((yield* recordOf(quote.transactionId)).state, "COMPLIANCE_REVIEW")
      const rejected = yield* transactions.rejectComplianceHold(quote.transactionId, { reason: "watchlist" })
      assert.deepStrictEqual(
        [rejected.status, rejected.failureReason, rejected.refund?.status, rejected.pendingReason],
        ["FAILED", "COMPLIANCE_REJECTED", "COMPLETED", undefined]
      )
      const record = yield* recordOf(quote.transactionId)
      assert.deepStrictEqual([record.state, record.decisionReason], ["REFUND_COMPLETED", "watchlist"])
      assert.strictEqual((yield* quotes.get(quote.id)).status, "FAILED")
      assert.deepStrictEqual(yield* balance(account.id, "USD"), {
        posted: 100_000,
        pendingDebits: 0,
        pendingCredits: 0,
        available: 100_000
      })
      assert.strictEqual(env.rail.submissions.length, 0)
      for (const again of [
        transactions.releaseComplianceHold(quote.transactionId),
        transactions.rejectComplianceHold(quote.transactionId)
      ]) {
        const refused = yield* Effect.flip(again)
        assert.deepStrictEqual([refused._tag, "code" in refused ? refused.code : ""], ["Conflict", "CONFLICT"])
      }
      yield* invariants
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("held as the last SCA challenge passes (HOLD from PENDING_AUTHORIZATION), then released", () => {
    const env = makeEnv(43, { screening: screeningOf([]) })
    return Effect.gen(function* () {
      const payer = yield* seedScaSubjectPayer(100_000)
      const quotes = yield* Quotes
      const transactions = yield* Transactions
      const quote = yield* quotes.create(payeeQuote(payer.account.id, payer.usdPayee.id, HELD_AMOUNT))
      assert.strictEqual((yield* quotes.execute(quote.id)).status, "PENDING_AUTHORIZATION")
      const authorized = yield* transactions.authorizeQuote(quote.id, { code: SCA_CODE })
      assert.strictEqual(authorized.status, "PROCESSING")
      const held = yield* recordOf(quote.transactionId)
      assert.deepStrictEqual([held.state, held.transaction.pendingReason], ["COMPLIANCE_REVIEW", "COMPLIANCE_REVIEW"])
      assert.deepStrictEqual(yield* eventsOf(quote.transactionId), [
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PENDING_AUTHORIZATION",
        "OUTGOING_PAYMENT.PROCESSING"
      ])
      yield* transactions.releaseComplianceHold(quote.transactionId)
      yield* advance(3 * 86_400)
      assert.strictEqual((yield* recordOf(quote.transactionId)).transaction.status, "COMPLETED")
      yield* invariants
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("an internal transfer is not screened: it settles at once", () => {
    const asked: Array<string> = []
    const env = makeEnv(44, { screening: screeningOf(asked) })
    return Effect.gen(function* () {
      const { account, customer } = yield* seedPayer(100_000)
      const other = yield* seedInternalAccount(customer.id, "USD")
      const quote = yield* (yield* Quotes).create({
        ...payeeQuote(account.id, other.id, HELD_AMOUNT),
        immediatelyExecute: true
      })
      assert.strictEqual(quote.status, "COMPLETED")
      assert.deepStrictEqual(asked, [])
      yield* invariants
    }).pipe(Effect.provide(env.layer))
  })
})
