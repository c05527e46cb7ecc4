/**
 * Card authorizations and network events racing each other on PostgreSQL (the real server with DATABASE_URL, else
 * PGlite, where they serialize; docs/design/cards.md, "Races on PostgreSQL"): the card's row lock, then the counters,
 * then the balances, must make every race end with the limits and balances exact, each event applied once, and no
 * deadlock or serialization error reaching a caller.
 */
import {
  type AuthorizationDecision,
  type CardNetwork,
  type CardTransactionRecord,
  type Ids,
  Store,
  type Transactions
} from "@paycore/core"
import { seedCard } from "@paycore/testkit"
import { Clock, Effect, Exit } from "effect"
import pg from "pg"
import { describe, expect, it } from "vitest"
import {
  authorize,
  cardInvariantProblems,
  cardTx,
  cardWorld,
  deliver,
  rebindCard,
  setCardState
} from "../../core/test/card-kit.ts"
import { balance, eventsOf, startClock } from "../../core/test/fixtures.ts"
import { runOnEngine, testDatabase } from "./helpers.ts"

const db = testDatabase("card_races")

/** Runs `effect` on this file's database with the core's test engine, the TestClock at T0. */
const run = <A, E>(seed: number, effect: Effect.Effect<A, E, CardNetwork | Transactions | Store | Ids>) =>
  runOnEngine(db, seed, Effect.andThen(startClock, effect))

/** The card's transactions in the order they took the card's lock (ids are made under it, time-ordered). */
const transactionsOf = Effect.fnUntraced(function* (cardId: string) {
  const store = yield* Store
  const page = yield* store.cardTransactions.list({ cardId }, { limit: 10_000, sortOrder: "asc" })
  return page.data
})

const reasons = (decisions: ReadonlyArray<AuthorizationDecision>) =>
  decisions.filter((d) => d._tag === "Declined").map((d) => (d._tag === "Declined" ? d.reason : ""))

/** Whether every approval precedes every decline for `reason` in lock order (none approved after the change). */
const approvalsBefore = (rows: ReadonlyArray<CardTransactionRecord>, reason: string): boolean => {
  const firstDecline = rows.findIndex((r) => r.state === "DECLINED" && r.declineReason === reason)
  return firstDecline < 0 || rows.slice(firstDecline).every((r) => r.state === "DECLINED")
}

describe(`card races (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("CD-11, L-13: 100 concurrent authorizations of 10 on a card with 300 a day: exactly 30 approved", async () => {
    const outcome = await run(
      2001,
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([500], { maxSpendPerDay: 300 })
        const decisions = yield* Effect.forEach(
          Array.from({ length: 100 }, () => card),
          (c) => authorize(c, 10),
          { concurrency: "unbounded" }
        )
        const store = yield* Store
        const day = new Date(yield* Clock.currentTimeMillis).toISOString().slice(0, 10)
        return {
          approved: decisions.filter((d) => d._tag === "Approved").length,
          reasons: reasons(decisions),
          balance: yield* balance(accounts[0]!.id, "USD"),
          spend: yield* store.counters.get(`card-spend:${card.id}:${day}`),
          held: (yield* transactionsOf(card.id)).filter((t) => t.state === "AUTHORIZED").length,
          problems: yield* cardInvariantProblems
        }
      })
    )
    expect(outcome.approved).toBe(30)
    expect(outcome.reasons).toEqual(Array(70).fill("DAILY_SPEND_LIMIT_EXCEEDED"))
    expect(outcome.balance).toMatchObject({ posted: 500, pendingDebits: 300, available: 200 })
    expect(outcome.spend).toBe(300)
    expect(outcome.held).toBe(30)
    expect(outcome.problems).toEqual([])
  }, 120_000)

  it.skipIf(db.kind === "pglite")(
    "CD-11, CD-29, issue 34: 40 authorizations of one card at once share commit groups, each seeing the counts and " +
      "holds of those before it",
    async () => {
      const outcome = await run(
        2009,
        Effect.gen(function* () {
          const { accounts, card } = yield* cardWorld([10_000], { maxSpendPerDay: 3_000, maxTransactionsPerDay: 35 })
          const decisions = yield* Effect.forEach(
            Array.from({ length: 40 }, () => card),
            (c) => authorize(c, 100),
            { concurrency: "unbounded" }
          )
          return {
            approved: decisions.filter((d) => d._tag === "Approved").map((d) => d.cardTransactionId!),
            reasons: reasons(decisions),
            balance: yield* balance(accounts[0]!.id, "USD"),
            problems: yield* cardInvariantProblems
          }
        })
      )
      expect(outcome.approved).toHaveLength(30)
      expect(outcome.reasons).toEqual(Array(10).fill("DAILY_SPEND_LIMIT_EXCEEDED"))
      expect(outcome.balance).toMatchObject({ posted: 10_000, pendingDebits: 3_000 })
      expect(outcome.problems).toEqual([])
      // The card's row is locked to read (shared in a group) and the counts and hold are one conditional statement,
      // so a group of them commits whole; each locking the card alone would take a database transaction apiece.
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await client.connect()
      try {
        const { rows } = await client.query(
          `SELECT count(DISTINCT xmin::text)::int AS commits FROM ${db.schema}.card_transactions WHERE id = ANY($1)`,
          [outcome.approved]
        )
        expect(rows[0].commits).toBeLessThan(15)
      } finally {
        await client.end()
      }
    },
    120_000
  )

  it("CD-11, L-13: two cards of 300 a day on one source of 500: 50 approved in all, at most 30 each, never overdrawn", async () => {
    const outcome = await run(
      2002,
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([500], { maxSpendPerDay: 300 })
        // A second card of the same cardholder on the same account.
        const second = yield* seedCard(card.cardholderId, [accounts[0]!.id], { maxSpendPerDay: 300 })
        const decisions = yield* Effect.forEach(
          Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? card : second)),
          (c) => Effect.map(authorize(c, 10), (d) => ({ card: c.id, d })),
          { concurrency: "unbounded" }
        )
        const store = yield* Store
        const day = new Date(yield* Clock.currentTimeMillis).toISOString().slice(0, 10)
        const counted = (cardId: string) =>
          Effect.all([
            store.counters.get(`card-spend:${cardId}:${day}`),
            store.counters.get(`card-count:${cardId}:${day}`)
          ])
        return {
          first: decisions.filter((x) => x.card === card.id && x.d._tag === "Approved").length,
          second: decisions.filter((x) => x.card === second.id && x.d._tag === "Approved").length,
          reasons: new Set(reasons(decisions.map((x) => x.d))),
          balance: yield* balance(accounts[0]!.id, "USD"),
          counters: [yield* counted(card.id), yield* counted(second.id)],
          held: [
            (yield* transactionsOf(card.id)).filter((t) => t.state === "AUTHORIZED").length,
            (yield* transactionsOf(second.id)).filter((t) => t.state === "AUTHORIZED").length
          ],
          problems: yield* cardInvariantProblems
        }
      })
    )
    expect(outcome.first + outcome.second).toBe(50)
    expect(outcome.first).toBeLessThanOrEqual(30)
    expect(outcome.second).toBeLessThanOrEqual(30)
    // Each card's day counts exactly its approvals (a decline gives its count back); each approval holds once.
    expect(outcome.counters).toEqual([
      [outcome.first * 10, outcome.first],
      [outcome.second * 10, outcome.second]
    ])
    expect(outcome.held).toEqual([outcome.first, outcome.second])
    for (const reason of outcome.reasons) expect(["INSUFFICIENT_FUNDS", "DAILY_SPEND_LIMIT_EXCEEDED"]).toContain(reason)
    expect(outcome.balance).toMatchObject({ posted: 500, pendingDebits: 500, available: 0 })
    expect(outcome.problems).toEqual([])
  }, 120_000)

  it("CD-22: 50 authorizations racing a freeze: none approved after it commits; holds = approvals", async () => {
    const outcome = await run(
      2003,
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([100_000])
        const calls = Array.from({ length: 50 }, (_, i) =>
          i === 20 ? Effect.as(setCardState(card, "FROZEN"), undefined) : authorize(card, 100)
        )
        const decisions = (yield* Effect.all(calls, { concurrency: "unbounded" })).filter((d) => d !== undefined)
        const rows = yield* transactionsOf(card.id)
        const approved = decisions.filter((d) => d._tag === "Approved").length
        return {
          approved,
          reasons: new Set(reasons(decisions)),
          ordered: approvalsBefore(rows, "CARD_PAUSED"),
          balance: yield* balance(accounts[0]!.id, "USD"),
          after: yield* authorize(card, 100),
          problems: yield* cardInvariantProblems
        }
      })
    )
    expect(outcome.ordered).toBe(true)
    expect(outcome.balance.pendingDebits).toBe(outcome.approved * 100)
    for (const reason of outcome.reasons) expect(reason).toBe("CARD_PAUSED")
    expect(outcome.after).toMatchObject({ _tag: "Declined", reason: "CARD_PAUSED" })
    expect(outcome.problems).toEqual([])
  }, 120_000)

  it("CD-48: 20 concurrent clearings of one authorization: the hold posts once, one SETTLED event", async () => {
    const outcome = await run(
      2004,
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000])
        const tx = yield* cardTx((yield* authorize(card, 2_000)).cardTransactionId)
        const outcomes = yield* Effect.forEach(
          Array.from({ length: 20 }, () => tx),
          (t) => deliver(t, { _tag: "Clearing", amount: 2_000 }),
          { concurrency: "unbounded" }
        )
        return {
          applied: outcomes.filter((o) => o._tag === "Applied").length,
          refused: outcomes.filter((o) => o._tag === "Refused").length,
          events: yield* eventsOf(tx.id),
          balance: yield* balance(accounts[0]!.id, "USD"),
          problems: yield* cardInvariantProblems
        }
      })
    )
    expect(outcome.applied).toBe(1)
    expect(outcome.refused).toBe(19)
    expect(outcome.events).toEqual(["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.SETTLED"])
    expect(outcome.balance).toMatchObject({ posted: 8_000, pendingDebits: 0 })
    expect(outcome.problems).toEqual([])
  }, 120_000)

  it("replayed network events: 20 concurrent deliveries of one issuerEventId apply once", async () => {
    const outcome = await run(
      2005,
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000])
        const tx = yield* cardTx((yield* authorize(card, 2_000)).cardTransactionId)
        yield* deliver(tx, { _tag: "Clearing", amount: 2_000 })
        const outcomes = yield* Effect.forEach(
          Array.from({ length: 20 }, () => tx),
          (t) => deliver(t, { _tag: "Return", amount: 500 }, { issuerEventId: "evt-replayed-return" }),
          { concurrency: "unbounded" }
        )
        return {
          tags: outcomes.map((o) => o._tag).sort(),
          tx: yield* cardTx(tx.id),
          balance: yield* balance(accounts[0]!.id, "USD"),
          problems: yield* cardInvariantProblems
        }
      })
    )
    expect(outcome.tags).toEqual(["Applied", ...Array(19).fill("Duplicate")])
    expect(outcome.tx.refundedAmount).toBe(500)
    expect(outcome.balance).toMatchObject({ posted: 8_500 })
    expect(outcome.problems).toEqual([])
  }, 120_000)

  it("CD-24: a close racing 50 authorizations and 10 clearings: no hold remains, no approval after the close", async () => {
    const outcome = await run(
      2006,
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([100_000])
        const opened = []
        for (let i = 0; i < 10; i++) opened.push(yield* cardTx((yield* authorize(card, 100)).cardTransactionId))
        const calls: Array<Effect.Effect<unknown, unknown, CardNetwork | Store | Ids>> = [
          ...Array.from({ length: 50 }, () => authorize(card, 100)),
          ...opened.map((tx) => deliver(tx, { _tag: "Clearing", amount: 100 })),
          setCardState(card, "CLOSED")
        ]
        const exits = yield* Effect.forEach(calls, (call) => Effect.exit(call), { concurrency: "unbounded" })
        const rows = yield* transactionsOf(card.id)
        return {
          failures: exits.filter(Exit.isFailure).length,
          open: rows.filter((r) => r.state === "AUTHORIZED" || r.state === "PARTIALLY_SETTLED").length,
          ordered: approvalsBefore(rows, "CARD_CLOSED"),
          balance: yield* balance(accounts[0]!.id, "USD"),
          problems: yield* cardInvariantProblems
        }
      })
    )
    expect(outcome.failures).toBe(0)
    expect(outcome.open).toBe(0)
    expect(outcome.ordered).toBe(true)
    expect(outcome.balance.pendingDebits).toBe(0)
    expect(outcome.problems).toEqual([])
  }, 120_000)

  it("CD-24, CD-49: a close racing 10 returns of a purchase cleared in part: every return completes, before or after the close", async () => {
    const outcome = await run(
      2008,
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([10_000])
        const tx = yield* cardTx((yield* authorize(card, 3_000)).cardTransactionId)
        yield* deliver(tx, { _tag: "Clearing", amount: 1_000 })
        const returns = Array.from({ length: 10 }, () => deliver(tx, { _tag: "Return", amount: 100 }))
        const [outcomes] = yield* Effect.all(
          [Effect.all(returns, { concurrency: "unbounded" }), setCardState(card, "CLOSED")],
          { concurrency: "unbounded" }
        )
        return {
          applied: outcomes.filter((o) => o._tag === "Applied").length,
          tx: yield* cardTx(tx.id),
          events: yield* eventsOf(tx.id),
          balance: yield* balance(accounts[0]!.id, "USD"),
          problems: yield* cardInvariantProblems
        }
      })
    )
    expect(outcome.applied).toBe(10)
    expect(outcome.tx).toMatchObject({ state: "EXPIRED", settledAmount: 1_000, refundedAmount: 1_000, heldAmount: 0 })
    expect(outcome.balance).toMatchObject({ posted: 10_000, pendingDebits: 0 })
    // Authorized, cleared in part, then the close's SETTLED among the ten returns' re-fires.
    expect(outcome.events.slice(0, 2)).toEqual(["CARD_TRANSACTION.AUTHORIZED", "CARD_TRANSACTION.PARTIALLY_SETTLED"])
    expect(outcome.events).toHaveLength(13)
    expect(outcome.problems).toEqual([])
  }, 120_000)

  it("funding sources replaced while authorizations race: each approval used a source bound at its commit", async () => {
    const outcome = await run(
      2007,
      Effect.gen(function* () {
        const { accounts, card } = yield* cardWorld([100_000, 100_000])
        const [a, b] = accounts.map((x) => x.id)
        const calls = Array.from({ length: 40 }, (_, i) =>
          i === 15 ? Effect.as(rebindCard(card, [b!]), undefined) : authorize(card, 100)
        )
        yield* Effect.all(calls, { concurrency: "unbounded" })
        const rows = yield* transactionsOf(card.id)
        const firstB = rows.findIndex((r) => r.accountId === b)
        return {
          approved: rows.filter((r) => r.state === "AUTHORIZED").length,
          // In lock order: every approval before the swap paid from a, every one after from b.
          ordered: firstB < 0 || rows.slice(firstB).every((r) => r.accountId === b),
          onA: (yield* balance(a!, "USD")).pendingDebits,
          onB: (yield* balance(b!, "USD")).pendingDebits,
          problems: yield* cardInvariantProblems
        }
      })
    )
    expect(outcome.approved).toBe(39)
    expect(outcome.ordered).toBe(true)
    expect(outcome.onA + outcome.onB).toBe(3_900)
    expect(outcome.problems).toEqual([])
  }, 120_000)
})
