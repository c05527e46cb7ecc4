/**
 * Transaction timelines (issue 18, docs/design/dashboard-cli.md section 2): every move of a payment's or a card
 * transaction's machine is recorded in the store transaction that makes it, the creation first, each with the webhook
 * type it emitted; `Transactions.timeline` answers them oldest first and 404s as `Transactions.get`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Store } from "../src/ports/store.ts"
import { Transactions } from "../src/transactions/service.ts"
import { authorize, cardTx, cardWorld, deliver } from "./card-kit.ts"
import { advance, allTransactions, eventsOf, executePayment, makeEnv, seedPayer, startClock } from "./fixtures.ts"

/** Every payment's timeline is a walk of its machine from its creation to its state, naming its events in order. */
const timelinesMatchTheRecords = Effect.gen(function* () {
  const transactions = yield* Transactions
  for (const record of yield* allTransactions) {
    const { data } = yield* transactions.timeline(record.id)
    assert.isUndefined(data[0]?.from, record.id)
    for (let i = 1; i < data.length; i++) assert.strictEqual(data[i]!.from, data[i - 1]!.state, record.id)
    assert.strictEqual(data.at(-1)?.state, record.state, record.id)
    const named = data.flatMap((entry) => (entry.event === undefined ? [] : [entry.event]))
    const emitted = yield* eventsOf(record.id)
    assert.deepStrictEqual(
      named,
      emitted.filter((type) => named.includes(type) || !type.endsWith(".REFUND_PENDING")),
      record.id
    )
  }
})

describe("transaction timelines (issue 18)", () => {
  it.effect("a payout that fails and is refunded: every move in order, each with its webhook type", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, eurPayee } = yield* seedPayer()
      const quote = yield* executePayment(env, account.id, eurPayee.id, 40_000, {
        _tag: "Fail",
        reason: "QUOTE_EXECUTION_FAILED",
        refundSucceeds: true
      })
      yield* advance(60)
      const { data } = yield* (yield* Transactions).timeline(quote.transactionId)
      assert.deepStrictEqual(
        data.map(({ from, state, event }) => ({ from, state, event })),
        [
          { from: undefined, state: "PENDING", event: "OUTGOING_PAYMENT.PENDING" },
          { from: "PENDING", state: "PROCESSING", event: "OUTGOING_PAYMENT.PROCESSING" },
          // One move emits FAILED then REFUND_PENDING: the entry names the first, its state the second.
          { from: "PROCESSING", state: "REFUND_PENDING", event: "OUTGOING_PAYMENT.FAILED" },
          { from: "REFUND_PENDING", state: "REFUND_COMPLETED", event: "OUTGOING_PAYMENT.REFUND_COMPLETED" }
        ]
      )
      assert.deepStrictEqual(
        data.map((entry) => entry.at),
        ["2026-03-02T12:00:00.000Z", "2026-03-02T12:00:00.000Z", "2026-03-02T12:01:00.000Z", "2026-03-02T12:01:00.000Z"]
      )
      yield* timelinesMatchTheRecords
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("a payout returned after it completed, and a sandbox funding created without a webhook", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, eurPayee } = yield* seedPayer()
      const transactions = yield* Transactions
      const quote = yield* executePayment(env, account.id, eurPayee.id, 40_000, {
        _tag: "Return",
        returnAfterSeconds: 300
      })
      for (let i = 0; i < 11; i++) yield* advance(60)
      const returned = yield* transactions.timeline(quote.transactionId)
      assert.deepStrictEqual(
        returned.data.map((entry) => [entry.from, entry.state]),
        [
          [undefined, "PENDING"],
          ["PENDING", "PROCESSING"],
          ["PROCESSING", "COMPLETED"],
          ["COMPLETED", "REFUND_PENDING"],
          ["REFUND_PENDING", "REFUND_COMPLETED"]
        ]
      )
      yield* transactions.fundSandbox(account.id, 2_500)
      const funding = (yield* allTransactions).find((r) => r.transaction.type === "INCOMING")!
      assert.deepStrictEqual((yield* transactions.timeline(funding.id)).data, [
        { at: funding.transaction.createdAt, state: "PENDING" },
        { at: funding.transaction.createdAt, from: "PENDING", state: "COMPLETED", event: "INCOMING_PAYMENT.COMPLETED" }
      ])
      yield* timelinesMatchTheRecords
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("a card transaction: its first move has no from; a move that emits nothing has no event", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      yield* startClock
      const { card } = yield* cardWorld([10_000])
      const tx = yield* cardTx((yield* authorize(card, 3_000)).cardTransactionId)
      yield* deliver(tx, { _tag: "Clearing", amount: 1_000 })
      yield* deliver(yield* cardTx(tx.id), { _tag: "Clearing", amount: 2_000 })
      const { data } = yield* (yield* Transactions).timeline(tx.id)
      assert.deepStrictEqual(
        data.map(({ from, state, event }) => ({ from, state, event })),
        [
          { from: undefined, state: "AUTHORIZED", event: "CARD_TRANSACTION.AUTHORIZED" },
          { from: "AUTHORIZED", state: "PARTIALLY_SETTLED", event: "CARD_TRANSACTION.PARTIALLY_SETTLED" },
          { from: "PARTIALLY_SETTLED", state: "SETTLED", event: "CARD_TRANSACTION.SETTLED" }
        ]
      )
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("404 as GET /transactions/{id}: an unknown payment, an unknown card transaction; nothing recorded", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const transactions = yield* Transactions
      for (const id of [
        "Transaction:00000000-0000-7000-8000-000000000999",
        "CardTransaction:00000000-0000-7000-8000-000000000999"
      ]) {
        const [timeline, get] = [
          yield* Effect.flip(transactions.timeline(id)),
          yield* Effect.flip(transactions.get(id))
        ]
        assert.deepStrictEqual(timeline, get)
      }
      const store = yield* Store
      assert.deepStrictEqual((yield* store.transitions.list({}, { limit: 10, sortOrder: "asc" })).data, [])
    }).pipe(Effect.provide(env.layer))
  })
})
