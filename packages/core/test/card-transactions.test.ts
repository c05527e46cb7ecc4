/**
 * Card transactions on the ledger (issue 15, slice B; docs/design/cards.md, section 3 "Authorization" and
 * "Reconciliation"): each row of the flows with exact balances and events, the declines, the caps, the funding
 * sources' priority, the close-out and the inbox. Cards are written straight to the store (`seedCard`); after every
 * test the ledger, the card holds and every transaction's events are checked (`cardInvariantProblems`).
 */
import { createPublicKey, verify } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { seedCard, seedCardTransaction } from "@paycore/testkit"
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"
import { pullPayload } from "../src/cards/legs.ts"
import { type CardRecord, cardCounters } from "../src/cards/model.ts"
import { CardsWorker } from "../src/cards/service.ts"
import { toCardTransaction } from "../src/cards/views.ts"
import { Store } from "../src/ports/store.ts"
import { utcDay } from "../src/shared/time.ts"
import {
  activeDelegatedKey,
  authorize,
  cardInvariantProblems,
  cardTx,
  cardWorld,
  deliver,
  rebindCard,
  revokeKey,
  setCardState
} from "./card-kit.ts"
import { balance, eventsOf, makeEnv, setConfig, startClock, T0 } from "./fixtures.ts"

const NETWORK = "system:card-network:USD"
const SUSPENSE = "system:suspense:USD"

/** Runs a test on a fresh engine (memory store, TestClock at T0) and checks every invariant after it. */
const run = (body: Effect.Effect<void, unknown, any>) => {
  const env = makeEnv()
  return Effect.gen(function* () {
    yield* startClock
    yield* body
    assert.deepStrictEqual(yield* cardInvariantProblems, [])
  }).pipe(Effect.provide(env.layer)) as Effect.Effect<void, unknown>
}

const counters = Effect.fnUntraced(function* (card: CardRecord) {
  const store = yield* Store
  const day = utcDay(new Date(yield* Clock.currentTimeMillis).toISOString())
  return {
    spend: yield* store.counters.get(cardCounters.spend(card.id, day)),
    count: yield* store.counters.get(cardCounters.count(card.id, day))
  }
})

const declinedWith = (decision: { _tag: string; reason?: string }, reason: string) =>
  assert.deepInclude(decision, { _tag: "Declined", reason })

describe("card authorizations and the ledger", () => {
  it.effect("CD-36, WH-15: authorize, partial clearing, final clearing: a hold, then posted; events in order", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000])
        const source = accounts[0]!.id
        const decision = yield* authorize(card, 3_000)
        assert.strictEqual(decision._tag, "Approved")
        let tx = yield* cardTx(decision.cardTransactionId)
        assert.deepInclude(tx, { state: "AUTHORIZED", heldAmount: 3_000, accountId: source, direction: "DEBIT" })
        assert.deepStrictEqual(tx.pullSummary, { count: 1, totalAmount: 3_000, pendingCount: 0 })
        assert.deepInclude(yield* balance(source, "USD"), { posted: 10_000, pendingDebits: 3_000, available: 7_000 })
        assert.deepInclude(yield* balance(NETWORK, "USD"), { posted: 0, pendingCredits: 3_000 })

        assert.deepStrictEqual(yield* deliver(tx, { _tag: "Clearing", amount: 1_000 }), { _tag: "Applied" })
        tx = yield* cardTx(tx.id)
        assert.deepInclude(tx, { state: "PARTIALLY_SETTLED", heldAmount: 2_000, settledAmount: 1_000 })
        assert.deepInclude(yield* balance(source, "USD"), { posted: 9_000, pendingDebits: 2_000, available: 7_000 })

        yield* deliver(tx, { _tag: "Clearing", amount: 2_000 })
        tx = yield* cardTx(tx.id)
        assert.deepInclude(tx, { state: "SETTLED", heldAmount: 0, settledAmount: 3_000 })
        assert.deepStrictEqual(tx.settlementSummary, { count: 2, totalAmount: 3_000 })
        assert.deepInclude(yield* balance(source, "USD"), { posted: 7_000, pendingDebits: 0, available: 7_000 })
        assert.deepInclude(yield* balance(NETWORK, "USD"), { posted: 3_000, pendingCredits: 0 })
        assert.deepStrictEqual(yield* eventsOf(tx.id), [
          "CARD_TRANSACTION.AUTHORIZED",
          "CARD_TRANSACTION.PARTIALLY_SETTLED",
          "CARD_TRANSACTION.SETTLED"
        ])
        const view = toCardTransaction(tx)
        assert.deepInclude(view, { status: "SETTLED", accountId: source })
        assert.strictEqual(view.settledAmount?.amount, 3_000)
      })
    )
  )

  it.effect("CD-48: a clearing over the hold pulls the difference post hoc (pullSummary counts it)", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000])
        const tx = yield* cardTx((yield* authorize(card, 2_000)).cardTransactionId)
        yield* deliver(tx, { _tag: "Clearing", amount: 2_500 })
        const settled = yield* cardTx(tx.id)
        assert.deepInclude(settled, { state: "SETTLED", settledAmount: 2_500, heldAmount: 0 })
        assert.deepStrictEqual(settled.pullSummary, { count: 2, totalAmount: 2_500, pendingCount: 0 })
        assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 7_500, available: 7_500 })
        assert.deepInclude(yield* balance(NETWORK, "USD"), { posted: 2_500 })
      })
    )
  )

  it.effect(
    "CD-37, WH-13: over-auth with a drained source: the network settles, suspense fronts the rest, DECLINED",
    () =>
      run(
        Effect.gen(function* () {
          const { accounts, card } = yield* cardWorld([2_000])
          const tx = yield* cardTx((yield* authorize(card, 2_000)).cardTransactionId)
          yield* deliver(tx, { _tag: "Clearing", amount: 2_600 })
          const declined = yield* cardTx(tx.id)
          assert.deepInclude(declined, { state: "PULL_FAILED", settledAmount: 2_600, declineReason: "PULL_FAILED" })
          assert.strictEqual(toCardTransaction(declined).status, "DECLINED")
          assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 0, available: 0 })
          assert.deepInclude(yield* balance(SUSPENSE, "USD"), { posted: -600 })
          assert.deepInclude(yield* balance(NETWORK, "USD"), { posted: 2_600 })
          assert.deepStrictEqual(yield* eventsOf(tx.id), ["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.DECLINED"])
          // A later presentment is force-posted from suspense.
          yield* deliver(tx, { _tag: "Clearing", amount: 100 })
          assert.deepInclude(yield* balance(SUSPENSE, "USD"), { posted: -700 })
          assert.strictEqual((yield* cardTx(tx.id)).settledAmount, 2_700)
        })
      )
  )

  it.effect("CD-29, CD-36: a zero clearing expires the authorization: hold voided, SETTLED with 0, capacity kept", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000], { maxSpendPerDay: 5_000 })
        const tx = yield* cardTx((yield* authorize(card, 4_000)).cardTransactionId)
        yield* deliver(tx, { _tag: "Clearing", amount: 0 })
        const expired = yield* cardTx(tx.id)
        assert.deepInclude(expired, { state: "EXPIRED", heldAmount: 0, settledAmount: 0 })
        assert.strictEqual(toCardTransaction(expired).status, "SETTLED")
        assert.deepStrictEqual(yield* eventsOf(tx.id), ["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.SETTLED"])
        assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 10_000, available: 10_000 })
        // The expiry gives no capacity back: 4 000 of 5 000 used today.
        assert.deepStrictEqual(yield* counters(card), { spend: 4_000, count: 1 })
        declinedWith(yield* authorize(card, 1_001), "DAILY_SPEND_LIMIT_EXCEEDED")
        assert.strictEqual((yield* authorize(card, 1_000))._tag, "Approved")
      })
    )
  )

  it.effect(
    "CD-38, CD-40, WH-14, CD-49: a full return stays SETTLED with refundedAmount = settledAmount; SETTLED re-fires",
    () =>
      run(
        Effect.gen(function* () {
          const { accounts, card } = yield* cardWorld([10_000], { maxSpendPerDay: 3_000 })
          const tx = yield* cardTx((yield* authorize(card, 3_000)).cardTransactionId)
          yield* deliver(tx, { _tag: "Clearing", amount: 3_000 })
          yield* deliver(tx, { _tag: "Return", amount: 1_000 })
          yield* deliver(tx, { _tag: "Return", amount: 2_000 })
          const returned = yield* cardTx(tx.id)
          assert.deepInclude(returned, { state: "SETTLED", settledAmount: 3_000, refundedAmount: 3_000 })
          assert.deepStrictEqual(returned.refundSummary, { count: 2, totalAmount: 3_000 })
          const view = toCardTransaction(returned)
          assert.strictEqual(view.status, "SETTLED")
          assert.strictEqual(view.refundedAmount?.amount, 3_000)
          assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 10_000, available: 10_000 })
          assert.deepStrictEqual(yield* eventsOf(tx.id), [
            "CARD_TRANSACTION.AUTHORIZED",
            "CARD_TRANSACTION.SETTLED",
            "CARD_TRANSACTION.SETTLED",
            "CARD_TRANSACTION.SETTLED"
          ])
          // Nothing more to return; a return gives no daily capacity back (CD-29).
          assert.deepInclude(yield* deliver(tx, { _tag: "Return", amount: 1 }), { _tag: "Refused" })
          declinedWith(yield* authorize(card, 1), "DAILY_SPEND_LIMIT_EXCEEDED")
        })
      )
  )

  it.effect("CD-51: a return reversal needs a posted return; it takes the latest return back from the account", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000])
        const tx = yield* cardTx((yield* authorize(card, 3_000)).cardTransactionId)
        assert.deepInclude(yield* deliver(tx, { _tag: "ReturnReversal" }), { _tag: "Refused" })
        yield* deliver(tx, { _tag: "Clearing", amount: 3_000 })
        assert.deepInclude(yield* deliver(tx, { _tag: "ReturnReversal" }), { _tag: "Refused" })
        yield* deliver(tx, { _tag: "Return", amount: 500 })
        yield* deliver(tx, { _tag: "Return", amount: 700 })
        assert.deepStrictEqual(yield* deliver(tx, { _tag: "ReturnReversal" }), { _tag: "Applied" })
        const reversed = yield* cardTx(tx.id)
        assert.deepInclude(reversed, { state: "SETTLED", refundedAmount: 500 })
        assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 7_500 })
        assert.deepStrictEqual((yield* eventsOf(tx.id)).slice(-1), ["CARD_TRANSACTION.SETTLED"])
      })
    )
  )

  it.effect("CD-51, CD-37: a return reversal the account cannot pay is fronted from suspense: DECLINED", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([3_000])
        const source = accounts[0]!.id
        const tx = yield* cardTx((yield* authorize(card, 3_000)).cardTransactionId)
        yield* deliver(tx, { _tag: "Clearing", amount: 3_000 })
        yield* deliver(tx, { _tag: "Return", amount: 1_000 })
        // The returned money is spent elsewhere before the reversal comes.
        const other = yield* cardTx((yield* authorize(card, 1_000)).cardTransactionId)
        yield* deliver(other, { _tag: "Clearing", amount: 1_000 })
        yield* deliver(tx, { _tag: "ReturnReversal" })
        const declined = yield* cardTx(tx.id)
        assert.deepInclude(declined, { state: "PULL_FAILED", refundedAmount: 0, declineReason: "PULL_FAILED" })
        assert.deepInclude(yield* balance(source, "USD"), { posted: 0 })
        assert.deepInclude(yield* balance(SUSPENSE, "USD"), { posted: -1_000 })
        assert.deepStrictEqual((yield* eventsOf(tx.id)).slice(-1), ["CARD_TRANSACTION.DECLINED"])
      })
    )
  )

  it.effect("CD-39: a standalone merchant refund is a CREDIT, SETTLED at once, its value in settledAmount", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([0], { maxSpendPerDay: 100 })
        const decision = yield* authorize(card, 700, { kind: "FINANCIAL_CREDIT" })
        const refund = yield* cardTx(decision.cardTransactionId)
        assert.deepInclude(refund, { direction: "CREDIT", state: "SETTLED", settledAmount: 700, heldAmount: 0 })
        const view = toCardTransaction(refund)
        assert.deepStrictEqual([view.direction, view.status, view.settledAmount?.amount], ["CREDIT", "SETTLED", 700])
        assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 700 })
        assert.deepStrictEqual(yield* eventsOf(refund.id), ["CARD_TRANSACTION.SETTLED"])
        // A credit authorization holds toward the account until its clearing posts it; credits count nothing.
        const credit = yield* cardTx((yield* authorize(card, 300, { kind: "CREDIT" })).cardTransactionId)
        assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 700, pendingCredits: 300 })
        yield* deliver(credit, { _tag: "Clearing", amount: 300 })
        assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 1_000, pendingCredits: 0 })
        assert.deepStrictEqual(yield* counters(card), { spend: 0, count: 0 })
        // A single-message purchase posts at once and counts.
        const financial = yield* cardTx((yield* authorize(card, 100, { kind: "FINANCIAL" })).cardTransactionId)
        assert.deepInclude(financial, { state: "SETTLED", settledAmount: 100, direction: "DEBIT" })
        assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 900 })
        assert.deepStrictEqual(yield* counters(card), { spend: 100, count: 1 })
      })
    )
  )

  it.effect(
    "CD-22, C-46: a FROZEN card declines with CARD_PAUSED (a DECLINED row, no money, no count); reconciliation goes on",
    () =>
      run(
        Effect.gen(function* () {
          const { accounts, card } = yield* cardWorld([10_000])
          const open = yield* cardTx((yield* authorize(card, 1_000)).cardTransactionId)
          yield* setCardState(card, "FROZEN")
          const decision = yield* authorize(card, 500)
          declinedWith(decision, "CARD_PAUSED")
          const declined = yield* cardTx(decision.cardTransactionId)
          assert.deepInclude(declined, { state: "DECLINED", heldAmount: 0, authorizedAmount: 500 })
          assert.strictEqual(declined.accountId, accounts[0]!.id)
          assert.deepStrictEqual(yield* eventsOf(declined.id), ["CARD_TRANSACTION.DECLINED"])
          assert.deepStrictEqual(yield* counters(card), { spend: 1_000, count: 1 })
          // The earlier authorization still clears.
          yield* deliver(open, { _tag: "Clearing", amount: 1_000 })
          assert.strictEqual((yield* cardTx(open.id)).state, "SETTLED")
          assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 9_000, pendingDebits: 0 })
          yield* setCardState(card, "ACTIVE")
          assert.strictEqual((yield* authorize(card, 500))._tag, "Approved")
        })
      )
  )

  it.effect(
    "declines: PROCESSING, CLOSED, a network decline, insufficient funds, no usable source; none moves money or counts",
    () =>
      run(
        Effect.gen(function* () {
          const { card: processing } = yield* cardWorld([1_000], { state: "PROCESSING" })
          declinedWith(yield* authorize(processing, 100), "CARD_NOT_ACTIVE")
          const { card: closed } = yield* cardWorld([1_000], { state: "CLOSED", bindings: [] })
          declinedWith(yield* authorize(closed, 100), "CARD_CLOSED")
          const { accounts, card } = yield* cardWorld([1_000])
          declinedWith(yield* authorize(card, 100, { forcedDecline: "INSUFFICIENT_FUNDS" }), "INSUFFICIENT_FUNDS")
          declinedWith(yield* authorize(card, 100, { forcedDecline: "CARD_PAUSED" }), "CARD_PAUSED")
          declinedWith(yield* authorize(card, 1_001), "INSUFFICIENT_FUNDS")
          declinedWith(yield* authorize(card, 100, { currency: "EUR" }), "NO_USABLE_FUNDING_SOURCE")
          assert.deepStrictEqual(yield* counters(card), { spend: 0, count: 0 })
          assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 1_000, pendingDebits: 0 })
          // Equal to the balance is allowed.
          assert.strictEqual((yield* authorize(card, 1_000))._tag, "Approved")
          // A balance inquiry decides and stores nothing (design Q14).
          const store = yield* Store
          const before = (yield* store.cardTransactions.list({ cardId: card.id }, { limit: 100, sortOrder: "asc" }))
            .totalCount
          assert.deepStrictEqual(yield* authorize(card, 0, { kind: "BALANCE_INQUIRY" }), { _tag: "Approved" })
          declinedWith(yield* authorize(processing, 0, { kind: "BALANCE_INQUIRY" }), "CARD_NOT_ACTIVE")
          assert.strictEqual(
            (yield* store.cardTransactions.list({ cardId: card.id }, { limit: 100, sortOrder: "asc" })).totalCount,
            before
          )
          assert.deepStrictEqual(yield* counters(card), { spend: 1_000, count: 1 })
        })
      )
  )

  it.effect("CD-12, L-13, P-03: the lower of the card's and the platform's caps applies, each side lower in turn", () =>
    run(
      Effect.gen(function* () {
        // Card lower than platform.
        const { card: a } = yield* cardWorld([100_000], {
          maxSpendPerTransaction: 1_000,
          maxSpendPerDay: 2_000,
          maxTransactionsPerDay: 3
        })
        yield* setConfig({
          cardConfigs: { maxSpendPerTransaction: 5_000, maxSpendPerDay: 50_000, maxTransactionsPerDay: 100 }
        })
        declinedWith(yield* authorize(a, 1_001), "TRANSACTION_LIMIT_EXCEEDED")
        assert.strictEqual((yield* authorize(a, 1_000))._tag, "Approved")
        assert.strictEqual((yield* authorize(a, 1_000))._tag, "Approved")
        declinedWith(yield* authorize(a, 1), "DAILY_SPEND_LIMIT_EXCEEDED")
        // Platform lower than card.
        const { card: b } = yield* cardWorld([100_000], {
          maxSpendPerTransaction: 9_000,
          maxSpendPerDay: 90_000,
          maxTransactionsPerDay: 50
        })
        yield* setConfig({
          cardConfigs: { maxSpendPerTransaction: 600, maxSpendPerDay: 1_500, maxTransactionsPerDay: 2 }
        })
        declinedWith(yield* authorize(b, 601), "TRANSACTION_LIMIT_EXCEEDED")
        assert.strictEqual((yield* authorize(b, 600))._tag, "Approved")
        assert.strictEqual((yield* authorize(b, 600))._tag, "Approved")
        declinedWith(yield* authorize(b, 600), "DAILY_SPEND_LIMIT_EXCEEDED")
        assert.deepStrictEqual(yield* counters(b), { spend: 1_200, count: 2 })
        // The count cap: equal is allowed, one more declines; a null platform cap is no cap.
        yield* setConfig({
          cardConfigs: { maxSpendPerTransaction: null, maxSpendPerDay: null, maxTransactionsPerDay: 3 }
        })
        assert.strictEqual((yield* authorize(b, 1))._tag, "Approved")
        declinedWith(yield* authorize(b, 1), "DAILY_TRANSACTION_COUNT_EXCEEDED")
        assert.deepStrictEqual(yield* counters(b), { spend: 1_201, count: 3 })
      })
    )
  )

  it.effect("CD-11, CD-29: the daily window is the UTC day; midnight resets it, nothing else gives capacity back", () =>
    run(
      Effect.gen(function* () {
        const { card } = yield* cardWorld([100_000], { maxSpendPerDay: 1_000, maxTransactionsPerDay: 2 })
        const first = yield* cardTx((yield* authorize(card, 600)).cardTransactionId)
        yield* deliver(first, { _tag: "Clearing", amount: 600 })
        yield* deliver(first, { _tag: "Return", amount: 600 })
        const second = yield* cardTx((yield* authorize(card, 400)).cardTransactionId)
        yield* deliver(second, { _tag: "Clearing", amount: 0 })
        declinedWith(yield* authorize(card, 1), "DAILY_SPEND_LIMIT_EXCEEDED")
        // T0 is 12:00 UTC: one second before midnight is still the same day.
        yield* TestClock.adjust(12 * 3600 * 1000 - 1000)
        declinedWith(yield* authorize(card, 1), "DAILY_SPEND_LIMIT_EXCEEDED")
        yield* TestClock.adjust(1000)
        const next = yield* cardTx((yield* authorize(card, 1_000)).cardTransactionId)
        assert.strictEqual(next.state, "AUTHORIZED")
        assert.strictEqual(next.day, utcDay(new Date(T0 + 86_400_000).toISOString()))
        assert.deepStrictEqual(yield* counters(card), { spend: 1_000, count: 1 })
      })
    )
  )

  it.effect(
    "issue 34: a card changed since its last authorization here (its hint) is decided as it now is; counts exact",
    () =>
      run(
        Effect.gen(function* () {
          const { accounts, card } = yield* cardWorld([1_000, 5_000], { maxSpendPerDay: 1_000 })
          const [a, b] = accounts.map((x) => x.id)
          const first = yield* authorize(card, 100)
          assert.strictEqual((yield* cardTx(first.cardTransactionId)).accountId, a)
          // The sources replaced: the next authorization holds on b, whatever the last one saw.
          yield* rebindCard(card, [b!])
          assert.strictEqual((yield* cardTx((yield* authorize(card, 200)).cardTransactionId)).accountId, b)
          assert.deepStrictEqual(yield* counters(card), { spend: 300, count: 2 })
          // The hold's BALANCE_UPDATED shows b as it is after the hold (built from the locked balance, not re-read).
          const store = yield* Store
          const announced = (yield* store.outbox.list({ subject: b! }, { limit: 100, sortOrder: "asc" })).data
            .filter((e) => e.type === "INTERNAL_ACCOUNT.BALANCE_UPDATED")
            .sort((x, y) => x.sequence - y.sequence)
            .at(-1)
          const shown = JSON.parse(announced!.body).data
          assert.deepStrictEqual([shown.balance.amount, shown.totalBalance.amount], [4_800, 5_000])
          // Frozen, over the daily cap, a retried token: declined or answered as first decided, nothing counted.
          yield* setCardState(card, "FROZEN")
          declinedWith(yield* authorize(card, 50), "CARD_PAUSED")
          yield* setCardState(card, "ACTIVE")
          declinedWith(yield* authorize(card, 701), "DAILY_SPEND_LIMIT_EXCEEDED")
          const retried = yield* authorize(card, 100, { issuerTransactionToken: "itt-hinted-retry" })
          assert.deepStrictEqual(yield* authorize(card, 100, { issuerTransactionToken: "itt-hinted-retry" }), retried)
          assert.deepStrictEqual(yield* counters(card), { spend: 400, count: 3 })
          assert.deepInclude(yield* balance(a!, "USD"), { available: 900 })
          assert.deepInclude(yield* balance(b!, "USD"), { available: 4_700 })
        })
      )
  )

  it.effect("design Q8: sources in priority order; the first covering the whole amount pays, no split", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([500, 2_000, 10_000])
        const [a, b, c] = accounts.map((x) => x.id)
        assert.strictEqual((yield* cardTx((yield* authorize(card, 400)).cardTransactionId)).accountId, a)
        assert.strictEqual((yield* cardTx((yield* authorize(card, 1_500)).cardTransactionId)).accountId, b)
        assert.strictEqual((yield* cardTx((yield* authorize(card, 5_000)).cardTransactionId)).accountId, c)
        // 100 left on a, 500 on b, 5 000 on c: 600 fits none but c.
        assert.strictEqual((yield* cardTx((yield* authorize(card, 600)).cardTransactionId)).accountId, c)
        declinedWith(yield* authorize(card, 4_401), "INSUFFICIENT_FUNDS")
        assert.deepInclude(yield* balance(a!, "USD"), { available: 100 })
        assert.deepInclude(yield* balance(b!, "USD"), { available: 500 })
        assert.deepInclude(yield* balance(c!, "USD"), { available: 4_400 })
      })
    )
  )

  it.effect(
    "CD-13: an embedded-wallet source without an ACTIVE delegated key is skipped; with one it pays, its pull signed",
    () =>
      run(
        Effect.gen(function* () {
          const { accounts, card } = yield* cardWorld([{ amount: 5_000, wallet: true }, 1_000])
          const [wallet, fiat] = accounts.map((x) => x.id)
          // The wallet comes first but has no key: the fiat account pays; over it, nothing is usable enough.
          assert.strictEqual((yield* cardTx((yield* authorize(card, 800)).cardTransactionId)).accountId, fiat)
          declinedWith(yield* authorize(card, 3_000), "INSUFFICIENT_FUNDS")
          const key = yield* activeDelegatedKey(card, card.bindings[0]!)
          const tx = yield* cardTx((yield* authorize(card, 3_000)).cardTransactionId)
          assert.strictEqual(tx.accountId, wallet)
          assert.strictEqual(tx.fundingSourceId, card.bindings[0]!.id)
          const payload = pullPayload({ cardTransactionId: tx.id, accountId: wallet!, amount: 3_000, currency: "USD" })
          const spki = Buffer.from(`3039301306072a8648ce3d020106082a8648ce3d030107032200${key.publicKey}`, "hex")
          const publicKey = createPublicKey({ key: spki, format: "der", type: "spki" })
          assert.isTrue(
            verify(
              "sha256",
              Buffer.from(payload),
              { key: publicKey, dsaEncoding: "der" },
              Buffer.from(tx.pullSignature!, "hex")
            )
          )
          // The key revoked: a post-hoc pull from the wallet is refused and fronted; new authorizations skip it.
          yield* revokeKey(key)
          yield* deliver(tx, { _tag: "Clearing", amount: 3_100 })
          assert.deepInclude(yield* cardTx(tx.id), { state: "PULL_FAILED" })
          assert.deepInclude(yield* balance(SUSPENSE, "USD"), { posted: -100 })
          declinedWith(yield* authorize(card, 1_000), "INSUFFICIENT_FUNDS")
          // A card whose only source is a keyless wallet has no usable source.
          const { card: walletOnly } = yield* cardWorld([{ amount: 5_000, wallet: true }])
          declinedWith(yield* authorize(walletOnly, 10), "NO_USABLE_FUNDING_SOURCE")
        })
      )
  )

  it.effect("CD-24: closing a card expires its open authorizations (holds voided); a late clearing still posts", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000])
        const source = accounts[0]!.id
        const open = yield* cardTx((yield* authorize(card, 2_000)).cardTransactionId)
        const partial = yield* cardTx((yield* authorize(card, 3_000)).cardTransactionId)
        yield* deliver(partial, { _tag: "Clearing", amount: 1_000 })
        const settled = yield* cardTx((yield* authorize(card, 500)).cardTransactionId)
        yield* deliver(settled, { _tag: "Clearing", amount: 500 })
        yield* setCardState(card, "CLOSED")
        assert.deepInclude(yield* cardTx(open.id), { state: "EXPIRED", heldAmount: 0 })
        assert.deepInclude(yield* cardTx(partial.id), { state: "EXPIRED", heldAmount: 0, settledAmount: 1_000 })
        assert.strictEqual((yield* cardTx(settled.id)).state, "SETTLED")
        assert.deepInclude(yield* balance(source, "USD"), { posted: 8_500, pendingDebits: 0 })
        assert.deepStrictEqual((yield* eventsOf(open.id)).slice(-1), ["CARD_TRANSACTION.SETTLED"])
        declinedWith(yield* authorize(card, 100), "CARD_CLOSED")
        // A late presentment is pulled from the account (CLEAR_LATE); a return on the settled one still credits.
        yield* deliver(open, { _tag: "Clearing", amount: 2_000 })
        assert.deepInclude(yield* cardTx(open.id), { state: "SETTLED", settledAmount: 2_000 })
        yield* deliver(settled, { _tag: "Return", amount: 500 })
        assert.deepInclude(yield* balance(source, "USD"), { posted: 7_000 })
        // A late presentment the account cannot pay is fronted from suspense.
        yield* deliver(partial, { _tag: "Clearing", amount: 7_500 })
        assert.deepInclude(yield* cardTx(partial.id), { state: "PULL_FAILED", settledAmount: 8_500 })
        assert.deepInclude(yield* balance(SUSPENSE, "USD"), { posted: -7_500 })
      })
    )
  )

  it.effect(
    "CD-24, CD-40, CD-49, CD-51, CD-29: a purchase cleared in part before its card closed takes a return of the cleared part and its reversal (EXPIRED, reads SETTLED, SETTLED re-fired)",
    () =>
      run(
        Effect.gen(function* () {
          const { accounts, card } = yield* cardWorld([10_000], { maxSpendPerDay: 3_000 })
          const source = accounts[0]!.id
          const tx = yield* cardTx((yield* authorize(card, 3_000)).cardTransactionId)
          yield* deliver(tx, { _tag: "Clearing", amount: 1_000 })
          yield* setCardState(card, "CLOSED")
          const expired = yield* cardTx(tx.id)
          assert.deepInclude(expired, { state: "EXPIRED", heldAmount: 0, settledAmount: 1_000, refundedAmount: 0 })
          assert.deepInclude(yield* balance(source, "USD"), { posted: 9_000, pendingDebits: 0, available: 9_000 })
          assert.deepInclude(yield* balance(NETWORK, "USD"), { posted: 1_000, pendingCredits: 0 })

          // A return of part of what cleared: the account is credited, the status stays SETTLED, SETTLED re-fires.
          assert.deepStrictEqual(yield* deliver(tx, { _tag: "Return", amount: 400 }), { _tag: "Applied" })
          let returned = yield* cardTx(tx.id)
          assert.deepInclude(returned, { state: "EXPIRED", settledAmount: 1_000, refundedAmount: 400, heldAmount: 0 })
          assert.deepStrictEqual(returned.refundSummary, { count: 1, totalAmount: 400 })
          const view = toCardTransaction(returned)
          assert.strictEqual(view.status, "SETTLED")
          assert.strictEqual(view.refundedAmount?.amount, 400)
          assert.deepInclude(yield* balance(source, "USD"), { posted: 9_400, available: 9_400 })
          assert.deepInclude(yield* balance(NETWORK, "USD"), { posted: 600 })
          assert.deepStrictEqual(yield* eventsOf(tx.id), [
            "CARD_TRANSACTION.AUTHORIZED",
            "CARD_TRANSACTION.PARTIALLY_SETTLED",
            "CARD_TRANSACTION.SETTLED",
            "CARD_TRANSACTION.SETTLED"
          ])

          // Never more than what cleared and is not yet returned (the 2 000 that expired was never paid).
          assert.deepInclude(yield* deliver(tx, { _tag: "Return", amount: 601 }), { _tag: "Refused" })
          assert.deepStrictEqual(yield* deliver(tx, { _tag: "Return", amount: 600 }), { _tag: "Applied" })
          assert.deepInclude(yield* cardTx(tx.id), { state: "EXPIRED", refundedAmount: 1_000 })
          assert.deepInclude(yield* balance(source, "USD"), { posted: 10_000 })

          // The reversal takes the latest return (600) back from the account; the status stays.
          assert.deepStrictEqual(yield* deliver(tx, { _tag: "ReturnReversal" }), { _tag: "Applied" })
          returned = yield* cardTx(tx.id)
          assert.deepInclude(returned, { state: "EXPIRED", settledAmount: 1_000, refundedAmount: 400 })
          assert.deepStrictEqual(returned.refundSummary, { count: 2, totalAmount: 400 })
          assert.strictEqual(toCardTransaction(returned).status, "SETTLED")
          assert.deepInclude(yield* balance(source, "USD"), { posted: 9_400, available: 9_400 })
          assert.deepInclude(yield* balance(NETWORK, "USD"), { posted: 600 })
          assert.deepStrictEqual((yield* eventsOf(tx.id)).slice(3), [
            "CARD_TRANSACTION.SETTLED",
            "CARD_TRANSACTION.SETTLED",
            "CARD_TRANSACTION.SETTLED"
          ])
          // None of it gave daily capacity back (CD-29).
          assert.deepStrictEqual(yield* counters(card), { spend: 3_000, count: 1 })
          // A late presentment of the rest still posts it (CLEAR_LATE), the return kept.
          yield* deliver(tx, { _tag: "Clearing", amount: 2_000 })
          assert.deepInclude(yield* cardTx(tx.id), { state: "SETTLED", settledAmount: 3_000, refundedAmount: 400 })
          assert.deepInclude(yield* balance(source, "USD"), { posted: 7_400 })
        })
      )
  )

  it.effect("CD-24, CD-49: an authorization that expired with nothing cleared takes no return", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000])
        const tx = yield* cardTx((yield* authorize(card, 2_000)).cardTransactionId)
        yield* setCardState(card, "CLOSED")
        assert.deepInclude(yield* deliver(tx, { _tag: "Return", amount: 1 }), { _tag: "Refused" })
        assert.deepInclude(yield* deliver(tx, { _tag: "ReturnReversal" }), { _tag: "Refused" })
        assert.deepInclude(yield* cardTx(tx.id), { state: "EXPIRED", settledAmount: 0, refundedAmount: 0 })
        assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 10_000, available: 10_000 })
        assert.deepStrictEqual(yield* eventsOf(tx.id), ["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.SETTLED"])
      })
    )
  )

  it.effect(
    "CD-24, CD-51, CD-37: after the close, a return reversal the account cannot pay is fronted from suspense: DECLINED",
    () =>
      run(
        Effect.gen(function* () {
          const { accounts, card, customer } = yield* cardWorld([5_000])
          const source = accounts[0]!.id
          const other = yield* seedCard(customer.id, [source])
          const tx = yield* cardTx((yield* authorize(card, 3_000)).cardTransactionId)
          yield* deliver(tx, { _tag: "Clearing", amount: 2_000 })
          yield* setCardState(card, "CLOSED")
          yield* deliver(tx, { _tag: "Return", amount: 1_500 })
          assert.deepInclude(yield* balance(source, "USD"), { posted: 4_500 })
          // The returned money is spent with another card on the same account before the reversal comes.
          const spend = yield* cardTx((yield* authorize(other, 4_500)).cardTransactionId)
          yield* deliver(spend, { _tag: "Clearing", amount: 4_500 })
          assert.deepStrictEqual(yield* deliver(tx, { _tag: "ReturnReversal" }), { _tag: "Applied" })
          const declined = yield* cardTx(tx.id)
          assert.deepInclude(declined, {
            state: "PULL_FAILED",
            settledAmount: 2_000,
            refundedAmount: 0,
            declineReason: "PULL_FAILED"
          })
          assert.strictEqual(toCardTransaction(declined).status, "DECLINED")
          assert.deepInclude(yield* balance(source, "USD"), { posted: 0, available: 0 })
          assert.deepInclude(yield* balance(SUSPENSE, "USD"), { posted: -1_500 })
          assert.deepInclude(yield* balance(NETWORK, "USD"), { posted: 6_500 })
          assert.deepStrictEqual(yield* eventsOf(tx.id), [
            "CARD_TRANSACTION.AUTHORIZED",
            "CARD_TRANSACTION.PARTIALLY_SETTLED",
            "CARD_TRANSACTION.SETTLED",
            "CARD_TRANSACTION.SETTLED",
            "CARD_TRANSACTION.DECLINED"
          ])
        })
      )
  )

  it.effect(
    "CD-24, CD-37, CD-46: a pull that fails after the close: the account gets the cleared part back, suspense fronts it",
    () =>
      run(
        Effect.gen(function* () {
          const { accounts, card } = yield* cardWorld([10_000])
          const source = accounts[0]!.id
          const tx = yield* cardTx((yield* authorize(card, 3_000, { awaitPullResult: true })).cardTransactionId)
          yield* deliver(tx, { _tag: "Clearing", amount: 1_000 })
          yield* setCardState(card, "CLOSED")
          yield* deliver(tx, { _tag: "Return", amount: 200 })
          assert.deepInclude(yield* balance(source, "USD"), { posted: 9_200 })
          assert.deepStrictEqual(yield* deliver(tx, { _tag: "PullResult", outcome: "FAILED" }), { _tag: "Applied" })
          const declined = yield* cardTx(tx.id)
          assert.deepInclude(declined, {
            state: "PULL_FAILED",
            settledAmount: 1_000,
            refundedAmount: 200,
            heldAmount: 0,
            declineReason: "PULL_FAILED"
          })
          assert.strictEqual(declined.pullSummary.pendingCount, 0)
          assert.deepInclude(yield* balance(source, "USD"), { posted: 10_000, pendingDebits: 0 })
          assert.deepInclude(yield* balance(SUSPENSE, "USD"), { posted: -800 })
          assert.deepInclude(yield* balance(NETWORK, "USD"), { posted: 800 })
          assert.deepStrictEqual((yield* eventsOf(tx.id)).slice(-1), ["CARD_TRANSACTION.DECLINED"])
        })
      )
  )

  it.effect(
    "CD-50: an advice re-sizes the hold; a raise the balance cannot cover keeps the hold, the clearing pulls",
    () =>
      run(
        Effect.gen(function* () {
          const { accounts, card } = yield* cardWorld([5_000], { maxSpendPerDay: 1_000 })
          const source = accounts[0]!.id
          const tx = yield* cardTx((yield* authorize(card, 1_000)).cardTransactionId)
          // Past the daily cap: an advice is a network fact, counted nowhere.
          yield* deliver(tx, { _tag: "Advice", amount: 1_500 })
          assert.deepInclude(yield* cardTx(tx.id), { state: "AUTHORIZED", authorizedAmount: 1_500, heldAmount: 1_500 })
          assert.deepInclude(yield* balance(source, "USD"), { pendingDebits: 1_500 })
          assert.deepStrictEqual(yield* counters(card), { spend: 1_000, count: 1 })
          yield* deliver(tx, { _tag: "Advice", amount: 800 })
          assert.deepInclude(yield* balance(source, "USD"), { pendingDebits: 800 })
          yield* deliver(tx, { _tag: "Clearing", amount: 300 })
          assert.deepInclude(yield* deliver(tx, { _tag: "Advice", amount: 200 }), { _tag: "Refused" })
          // 4 700 posted, 500 held: a raise to 6 000 needs 5 700 held, 4 200 available only.
          yield* deliver(tx, { _tag: "Advice", amount: 6_000 })
          assert.deepInclude(yield* cardTx(tx.id), {
            state: "PARTIALLY_SETTLED",
            authorizedAmount: 6_000,
            heldAmount: 500
          })
          yield* deliver(tx, { _tag: "Clearing", amount: 4_000 })
          assert.deepInclude(yield* cardTx(tx.id), { state: "SETTLED", settledAmount: 4_300 })
          assert.deepInclude(yield* balance(source, "USD"), { posted: 700, pendingDebits: 0 })
          assert.deepStrictEqual(yield* eventsOf(tx.id), [
            "CARD_TRANSACTION.AUTHORIZED",
            "CARD_TRANSACTION.AUTHORIZED",
            "CARD_TRANSACTION.AUTHORIZED",
            "CARD_TRANSACTION.PARTIALLY_SETTLED",
            "CARD_TRANSACTION.PARTIALLY_SETTLED",
            "CARD_TRANSACTION.SETTLED"
          ])
        })
      )
  )

  it.effect("CD-46: a pull confirmed 30 s later (005) by the worker; a failed pull (006) reads DECLINED", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000])
        const late = yield* cardTx((yield* authorize(card, 1_000, { awaitPullResult: true })).cardTransactionId)
        assert.deepStrictEqual(late.pullSummary, { count: 1, totalAmount: 1_000, pendingCount: 1 })
        const dueAt = new Date(T0 + 30_000).toISOString()
        assert.deepStrictEqual(yield* deliver(late, { _tag: "PullResult", outcome: "CONFIRMED" }, { dueAt }), {
          _tag: "Deferred",
          dueAt
        })
        const worker = yield* CardsWorker
        yield* TestClock.adjust(29_000)
        assert.strictEqual((yield* worker.processDue()).events, 0)
        assert.strictEqual((yield* cardTx(late.id)).pullSummary.pendingCount, 1)
        yield* TestClock.adjust(1_000)
        assert.deepInclude(yield* worker.processDue(), { events: 1, errors: 0 })
        assert.deepInclude(yield* cardTx(late.id), { state: "AUTHORIZED", heldAmount: 1_000 })
        assert.strictEqual((yield* cardTx(late.id)).pullSummary.pendingCount, 0)
        assert.strictEqual((yield* worker.processDue()).events, 0)
        assert.deepStrictEqual(yield* eventsOf(late.id), ["CARD_TRANSACTION.AUTHORIZED"])

        const failing = yield* cardTx((yield* authorize(card, 2_000, { awaitPullResult: true })).cardTransactionId)
        yield* deliver(failing, { _tag: "PullResult", outcome: "FAILED" })
        const failed = yield* cardTx(failing.id)
        assert.deepInclude(failed, { state: "PULL_FAILED", heldAmount: 0, declineReason: "PULL_FAILED" })
        assert.strictEqual(toCardTransaction(failed).status, "DECLINED")
        assert.deepStrictEqual(yield* eventsOf(failed.id), ["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.DECLINED"])
        assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 10_000, pendingDebits: 1_000 })
        // No second result for one pull.
        assert.deepInclude(yield* deliver(late, { _tag: "PullResult", outcome: "FAILED" }), { _tag: "Refused" })
      })
    )
  )

  it.effect(
    "CD-37: a pull that fails after the clearing: the account gets the settled part back, suspense fronts it",
    () =>
      run(
        Effect.gen(function* () {
          const { accounts, card } = yield* cardWorld([10_000])
          const source = accounts[0]!.id
          const tx = yield* cardTx((yield* authorize(card, 2_000, { awaitPullResult: true })).cardTransactionId)
          const dueAt = new Date(T0 + 30_000).toISOString()
          yield* deliver(tx, { _tag: "PullResult", outcome: "FAILED" }, { dueAt })
          yield* deliver(tx, { _tag: "Clearing", amount: 2_000 })
          yield* deliver(tx, { _tag: "Return", amount: 500 })
          assert.deepInclude(yield* balance(source, "USD"), { posted: 8_500 })
          yield* TestClock.adjust(30_000)
          assert.deepInclude(yield* (yield* CardsWorker).processDue(), { events: 1, errors: 0 })
          assert.deepInclude(yield* cardTx(tx.id), { state: "PULL_FAILED", settledAmount: 2_000, refundedAmount: 500 })
          assert.deepInclude(yield* balance(source, "USD"), { posted: 10_000 })
          assert.deepInclude(yield* balance(SUSPENSE, "USD"), { posted: -1_500 })
          assert.deepStrictEqual((yield* eventsOf(tx.id)).slice(-1), ["CARD_TRANSACTION.DECLINED"])
        })
      )
  )

  it.effect("the inbox: a replayed issuerEventId applies once; a retried token answers its first decision; 404s", () =>
    run(
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000])
        const first = yield* authorize(card, 1_000, { issuerTransactionToken: "itt-replayed" })
        assert.deepStrictEqual(yield* authorize(card, 1_000, { issuerTransactionToken: "itt-replayed" }), first)
        const tx = yield* cardTx(first.cardTransactionId)
        for (let i = 0; i < 3; i++) {
          const outcome = yield* deliver(tx, { _tag: "Clearing", amount: 400 }, { issuerEventId: "evt-once" })
          assert.deepStrictEqual(outcome, i === 0 ? { _tag: "Applied" } : { _tag: "Duplicate" })
        }
        assert.deepInclude(yield* cardTx(tx.id), { state: "PARTIALLY_SETTLED", settledAmount: 400 })
        assert.deepInclude(yield* balance(accounts[0]!.id, "USD"), { posted: 9_600, pendingDebits: 600 })
        // A refused event is stored with its outcome, and a replay of it is a duplicate too.
        assert.deepInclude(yield* deliver(tx, { _tag: "Return", amount: 401 }, { issuerEventId: "evt-refused" }), {
          _tag: "Refused"
        })
        assert.deepStrictEqual(yield* deliver(tx, { _tag: "Return", amount: 1 }, { issuerEventId: "evt-refused" }), {
          _tag: "Duplicate"
        })
        const store = yield* Store
        const stored = yield* store.cardNetworkEvents.findUnique("issuerEventId", "evt-refused")
        assert.deepInclude(stored?.outcome, { _tag: "Refused" })
        // An unknown card, a transaction of another card: 404, nothing stored.
        const { card: other } = yield* cardWorld([0])
        const unknownCard = yield* Effect.flip(
          authorize({ ...card, id: "Card:01234567-89ab-7def-8123-456789abcdef" as CardRecord["id"] }, 1)
        )
        assert.deepInclude(unknownCard, { _tag: "NotFound", code: "REFERENCE_NOT_FOUND" })
        const foreign = yield* Effect.flip(deliver({ ...tx, cardId: other.id }, { _tag: "Clearing", amount: 0 }))
        assert.deepInclude(foreign, { _tag: "NotFound", code: "TRANSACTION_NOT_FOUND" })
      })
    )
  )

  it.effect("CD-37, V-04, V-05, WH-16: no event is EXCEPTION or REFUNDED; a stored EXCEPTION reads DECLINED", () =>
    run(
      Effect.gen(function* () {
        const { card } = yield* cardWorld([10_000])
        const legacy = yield* seedCardTransaction(card, {
          state: "EXCEPTION",
          heldAmount: 0,
          pullSummary: { count: 0, totalAmount: 0, pendingCount: 0 }
        })
        assert.strictEqual(toCardTransaction(legacy).status, "DECLINED")
        // It takes no event.
        assert.deepInclude(yield* deliver(legacy, { _tag: "Clearing", amount: 100 }), { _tag: "Refused" })
        const tx = yield* cardTx((yield* authorize(card, 1_000)).cardTransactionId)
        yield* deliver(tx, { _tag: "Clearing", amount: 1_000 })
        yield* deliver(tx, { _tag: "Return", amount: 1_000 })
        const store = yield* Store
        const outbox = yield* store.outbox.list({}, { limit: 1_000, sortOrder: "asc" })
        const types = outbox.data.map((r) => r.type)
        assert.isTrue(types.some((t) => t.startsWith("CARD_TRANSACTION.")))
        for (const type of types) {
          assert.notInclude(type, "EXCEPTION")
          assert.notInclude(type, "REFUNDED")
        }
        for (const row of outbox.data.filter((r) => r.type.startsWith("CARD_TRANSACTION."))) {
          assert.include(
            ["AUTHORIZED", "PARTIALLY_SETTLED", "SETTLED", "DECLINED"],
            (JSON.parse(row.body) as { data: { status: string } }).data.status
          )
        }
      })
    )
  )
})
