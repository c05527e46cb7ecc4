/**
 * Incoming approvals on the TestClock (WH-21; docs/transactions.md): the deadlines of `EngineSettings.incomingApproval`
 * (`decisionSeconds` from arrival, `replySeconds` after a 202) and the reply table as a pure function. The HTTP cases
 * are in packages/http/test/transaction-actions.http.test.ts, the sandbox rail's cancellation in
 * packages/sandbox/test/rail.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { Ids } from "../src/ports/ids.ts"
import { Rail } from "../src/ports/rail.ts"
import { Screening } from "../src/ports/screening.ts"
import { Store } from "../src/ports/store.ts"
import { Quotes } from "../src/quotes/service.ts"
import { defaultEngineSettings, EngineConfig } from "../src/shared/engine-config.ts"
import { approvalReplies, replyDecision } from "../src/transactions/approvals.ts"
import { Transactions } from "../src/transactions/service.ts"
import {
  balance,
  makeEnv,
  payeeQuote,
  retryableRailError,
  seedCustomer,
  seedInternalAccount,
  seedPayer,
  startClock
} from "./fixtures.ts"

const APPROVAL = { replySeconds: 5, decisionSeconds: 60 }

/** An UMA payment of 5 000 awaiting approval, and the approvals' reply handler. */
const received = Effect.gen(function* () {
  yield* startClock
  const customer = yield* seedCustomer()
  const account = yield* seedInternalAccount(customer.id, "USD")
  const tx = yield* (yield* Transactions).sandboxUmaReceive({
    senderUmaAddress: "$alice@bank.example",
    customerId: customer.id as never,
    receivingCurrencyCode: "USD",
    receivingCurrencyAmount: 5_000
  })
  const replies = approvalReplies({
    store: yield* Store,
    ids: yield* Ids,
    rail: yield* Rail,
    screening: yield* Screening
  })
  const reply = (status: number) =>
    replies.onReply(
      { id: "Webhook:1", type: "INCOMING_PAYMENT.PENDING", subject: tx.id },
      {
        _tag: "Response",
        status,
        body: ""
      }
    )
  return { account, tx, reply }
})

const stateOf = (id: string) =>
  Effect.gen(function* () {
    const record = (yield* (yield* Store).transactions.get(id))!
    return { state: record.state, failureReason: record.transaction.failureReason }
  })

const withApprovals = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.provideService(EngineConfig, { ...defaultEngineSettings, incomingApproval: APPROVAL }))

describe("incoming approvals (WH-21)", () => {
  it.effect("no decision: PENDING until decisionSeconds, then the worker fails it PAYMENT_APPROVAL_TIMED_OUT", () =>
    Effect.gen(function* () {
      const { account, tx } = yield* received
      assert.strictEqual(tx.status, "PENDING")
      const transactions = yield* Transactions
      yield* TestClock.adjust("59 seconds")
      yield* transactions.processDue()
      assert.deepStrictEqual(yield* stateOf(tx.id), { state: "AWAITING_APPROVAL", failureReason: undefined })
      yield* TestClock.adjust("1 second")
      yield* transactions.processDue()
      assert.deepStrictEqual(yield* stateOf(tx.id), { state: "FAILED", failureReason: "PAYMENT_APPROVAL_TIMED_OUT" })
      assert.strictEqual((yield* balance(account.id, "USD")).posted, 0)
    }).pipe(withApprovals, Effect.provide(makeEnv().layer))
  )

  it.effect("a 202 reply gives the platform replySeconds from the reply: approved within them, credited once", () =>
    Effect.gen(function* () {
      const { account, tx, reply } = yield* received
      const transactions = yield* Transactions
      yield* TestClock.adjust("10 seconds")
      yield* reply(202)
      yield* TestClock.adjust("4 seconds")
      yield* transactions.processDue()
      assert.strictEqual((yield* stateOf(tx.id)).state, "AWAITING_APPROVAL")
      const approved = yield* transactions.approve(tx.id)
      assert.strictEqual(approved.status, "COMPLETED")
      // A late 200 reply or a second pass changes nothing.
      yield* reply(200)
      yield* TestClock.adjust("2 seconds")
      yield* transactions.processDue()
      assert.strictEqual((yield* balance(account.id, "USD")).posted, 5_000)
    }).pipe(withApprovals, Effect.provide(makeEnv().layer))
  )

  it.effect("a 202 reply then silence: failed PAYMENT_APPROVAL_TIMED_OUT replySeconds after the reply", () =>
    Effect.gen(function* () {
      const { account, tx, reply } = yield* received
      const transactions = yield* Transactions
      yield* reply(202)
      yield* TestClock.adjust("5 seconds")
      yield* transactions.processDue()
      assert.deepStrictEqual(yield* stateOf(tx.id), { state: "FAILED", failureReason: "PAYMENT_APPROVAL_TIMED_OUT" })
      assert.strictEqual((yield* balance(account.id, "USD")).posted, 0)
    }).pipe(withApprovals, Effect.provide(makeEnv().layer))
  )

  it("the reply table: 200 approves, 202 waits, 403 rejects with the body's reason, 409 ignored, the rest fail", () => {
    const response = (status: number, body = "") => ({ _tag: "Response" as const, status, body })
    assert.deepStrictEqual(replyDecision(response(200)), { _tag: "Approve" })
    assert.deepStrictEqual(replyDecision(response(202)), { _tag: "Wait" })
    assert.deepStrictEqual(replyDecision(response(403, '{"reason":"RESTRICTED"}')), {
      _tag: "Reject",
      reason: "RESTRICTED"
    })
    assert.deepStrictEqual(replyDecision(response(403, "no")), { _tag: "Reject", reason: undefined })
    assert.deepStrictEqual(replyDecision(response(409)), { _tag: "Ignore" })
    assert.deepStrictEqual(replyDecision(response(422)), { _tag: "Fail", reason: "MISSING_MANDATORY_PAYEE_DATA" })
    for (const status of [201, 204, 400, 404, 500, 503]) {
      assert.deepStrictEqual(replyDecision(response(status)), {
        _tag: "Fail",
        reason: "PAYMENT_APPROVAL_WEBHOOK_ERROR"
      })
    }
    assert.deepStrictEqual(replyDecision({ _tag: "TransportError", message: "timeout" }), {
      _tag: "Fail",
      reason: "PAYMENT_APPROVAL_WEBHOOK_ERROR"
    })
  })
})

describe("cancel asks the rail first (WH-07)", () => {
  /** An executed ACH payout of 1 000, submitted: its id, and the account it holds money of. */
  const payout = Effect.gen(function* () {
    const { account, usdPayee } = yield* seedPayer(10_000)
    const quotes = yield* Quotes
    const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000))
    yield* quotes.execute(quote.id)
    return { id: quote.transactionId, account }
  })

  it.effect("a rail that does not answer: 503 SERVICE_UNAVAILABLE, nothing changed; a later call cancels", () => {
    let down = true
    const env = makeEnv(7, {
      rail: (rail) => ({
        ...rail,
        cancel: () => (down ? retryableRailError("timeout") : Effect.succeed({ _tag: "Cancelled" as const }))
      })
    })
    return Effect.gen(function* () {
      const { id, account } = yield* payout
      const transactions = yield* Transactions
      const refused = yield* Effect.flip(transactions.cancel(id))
      assert.strictEqual((refused as { code?: string }).code, "SERVICE_UNAVAILABLE")
      assert.strictEqual((yield* stateOf(id)).state, "PROCESSING")
      assert.strictEqual((yield* balance(account.id, "USD")).pendingDebits, 1_000)
      down = false
      const cancelled = yield* transactions.cancel(id)
      assert.strictEqual(cancelled.refund?.reason, "USER_CANCELLATION")
      assert.strictEqual((yield* balance(account.id, "USD")).pendingDebits, 0)
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("a rail without cancel: 409 TRANSACTION_NOT_CANCELLABLE, the payout settles as usual", () =>
    Effect.gen(function* () {
      const { id } = yield* payout
      const transactions = yield* Transactions
      const refused = yield* Effect.flip(transactions.cancel(id))
      assert.strictEqual((refused as { code?: string }).code, "TRANSACTION_NOT_CANCELLABLE")
      yield* TestClock.adjust("61 seconds")
      yield* transactions.processDue()
      assert.strictEqual((yield* stateOf(id)).state, "COMPLETED")
    }).pipe(Effect.provide(makeEnv().layer))
  )
})
