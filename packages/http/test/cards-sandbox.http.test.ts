/**
 * The sandbox card network (issue 15, slice C; docs/design/cards.md, sections 1 and 2 "Numbers"; docs/cards.md,
 * "The sandbox"): the ten `/sandbox/cards/{id}/simulate/*` routes with the sandbox simulator installed (the test
 * server's `Sandbox.layer`). The refusals (404, 403, 400) run now, over cards and card transactions written
 * straight to the store. The walks through the network (each route → the transaction its token finds, the
 * descriptor suffixes, clearings, returns, reversals) run through `CardNetwork.authorize / reconcile` (slice B).
 */
import { randomUUID } from "node:crypto"
import {
  type CardRecord,
  type CardTransactionRecord,
  Ids,
  type InternalAccountId,
  Store,
  type StoredCardTransactionState
} from "@paycore/core"
import { seedCard, seedCardTransaction, snapshotStore } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { eventsOf } from "./cards-kit.ts"
import {
  type CallResult,
  type Credentials,
  expectError,
  expectInvalid,
  fundAccount,
  type Onboarded,
  onboardCustomer,
  useTestServer
} from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const purchase = (descriptor = "BLUE BOTTLE COFFEE SF", amount = 1250) => ({
  amount,
  currency: { code: "USD" },
  merchant: { descriptor, mcc: "5814", country: "US" }
})

/** The five authorization-family routes (CD-46, CD-47): same body, same suffix table. */
const AUTHORIZATION_ROUTES = [
  "authorization",
  "credit_authorization",
  "financial_authorization",
  "financial_credit_authorization",
  "credit_authorization_advice"
] as const

/** The four routes about an earlier transaction, with a body each accepts (CD-48 … CD-51). */
const FOLLOW_UPS = {
  clearing: (cardTransactionId: string) => ({ cardTransactionId, amount: 500 }),
  return: (cardTransactionId: string) => ({ cardTransactionId, amount: 100 }),
  authorization_advice: (cardTransactionId: string) => ({ cardTransactionId, amount: 2000 }),
  return_reversal: (cardTransactionId: string) => ({ cardTransactionId })
} as const

/** Every route with a body it accepts about `parent`. */
const allRoutes = (parent: string): ReadonlyArray<readonly [string, unknown]> => [
  ...AUTHORIZATION_ROUTES.map((route) => [route, purchase()] as const),
  ["balance_inquiry", { merchant: { descriptor: "SHELL OIL 12345678" } }],
  ...Object.entries(FOLLOW_UPS).map(([route, body]) => [route, body(parent)] as const)
]

const cardsSandboxSuite = (stores: () => StoresUnderTest) => {
  let production: Credentials
  const server = useTestServer(async (s) => {
    production = await s.token(["VIEW", "TRANSACT", "MANAGE"], "PRODUCTION")
  }, stores())
  const run = <A, E>(effect: Effect.Effect<A, E, Store | Ids>) =>
    Effect.runPromise(effect.pipe(Effect.provide(Layer.mergeAll(Layer.succeed(Store, server.store), Ids.layer))))
  const snapshot = () => run(snapshotStore())

  /** A customer with a USD card on its USD account (funded with `funds` when given). */
  const cardholder = async (funds = 0): Promise<{ customer: Onboarded; card: CardRecord }> => {
    const customer = await onboardCustomer(server)
    if (funds > 0) await fundAccount(server, customer.accounts.USD!, funds)
    const card = await run(seedCard(customer.id, [customer.accounts.USD as InternalAccountId]))
    return { customer, card }
  }
  const seedTx = (card: CardRecord, overrides: Partial<CardTransactionRecord> = {}) =>
    run(seedCardTransaction(card, overrides))
  const simulate = (card: string, route: string, body: unknown, auth?: Credentials) =>
    server.call("POST", `/sandbox/cards/${card}/simulate/${route}`, body, auth === undefined ? {} : { auth })

  /** 400 INVALID_INPUT because the parent is not in a state the event applies to (design Q17), naming its status. */
  const expectNotApplicable = (r: CallResult, status: string) => {
    expectError(r, 400, "INVALID_INPUT")
    expect(r.json.details).toEqual({ status })
    expect(r.json.message).toBeTypeOf("string")
  }

  describe("refusals (the simulator installed)", () => {
    it("CD-45, CD-52: an unknown card is 404 REFERENCE_NOT_FOUND on each of the ten routes, and nothing changes", async () => {
      const before = await snapshot()
      for (const [route, body] of allRoutes(`CardTransaction:${randomUUID()}`)) {
        expectError(await simulate(`Card:${randomUUID()}`, route, body), 404, "REFERENCE_NOT_FOUND")
      }
      expect(await snapshot()).toEqual(before)
    })

    it("CD-52: an unknown card transaction, or one of another card, is 404 TRANSACTION_NOT_FOUND", async () => {
      const { card } = await cardholder()
      const other = await cardholder()
      const othersTx = await seedTx(other.card, { state: "SETTLED" })
      const before = await snapshot()
      for (const [route, body] of Object.entries(FOLLOW_UPS)) {
        expectError(
          await simulate(card.id, route, body(`CardTransaction:${randomUUID()}`)),
          404,
          "TRANSACTION_NOT_FOUND"
        )
        expectError(await simulate(card.id, route, body(othersTx.id)), 404, "TRANSACTION_NOT_FOUND")
      }
      expect(await snapshot()).toEqual(before)
    })

    it("CD-52: a production token is 403 FORBIDDEN on each of the ten routes, before the card is looked up", async () => {
      const { card } = await cardholder()
      const tx = await seedTx(card)
      for (const [route, body] of allRoutes(tx.id)) {
        expectError(await simulate(card.id, route, body, production), 403, "FORBIDDEN")
        expectError(await simulate(`Card:${randomUUID()}`, route, body, production), 403, "FORBIDDEN")
      }
    })

    it("CD-46, design Q9: an authorization-family simulation in another currency than the card's is 400", async () => {
      const { card } = await cardholder()
      const before = await snapshot()
      for (const route of AUTHORIZATION_ROUTES) {
        expectInvalid(await simulate(card.id, route, { ...purchase(), currency: { code: "EUR" } }), ["currency.code"])
      }
      expect(await snapshot()).toEqual(before)
    })

    it("CD-48: a clearing of a transaction that is not open (settled, expired, declined, pull failed) is 400", async () => {
      const { card } = await cardholder()
      const cases: ReadonlyArray<readonly [StoredCardTransactionState, string]> = [
        ["SETTLED", "SETTLED"],
        ["EXPIRED", "SETTLED"],
        ["DECLINED", "DECLINED"],
        ["PULL_FAILED", "DECLINED"],
        ["EXCEPTION", "DECLINED"]
      ]
      const parents = await Promise.all(cases.map(([state]) => seedTx(card, { state })))
      const before = await snapshot()
      for (const [i, [, status]] of cases.entries()) {
        for (const amount of [0, 500, 5000]) {
          expectNotApplicable(
            await simulate(card.id, "clearing", { cardTransactionId: parents[i]!.id, amount }),
            status
          )
        }
      }
      expect(await snapshot()).toEqual(before)
    })

    it("CD-50: an advice needs an open authorization, and a new total at least what is settled (400 otherwise)", async () => {
      const { card } = await cardholder()
      const settled = await seedTx(card, { state: "SETTLED" })
      const declined = await seedTx(card, { state: "DECLINED", declineReason: "CARD_PAUSED" })
      const partial = await seedTx(card, { state: "PARTIALLY_SETTLED", authorizedAmount: 1000, settledAmount: 600 })
      const before = await snapshot()
      const advice = (parent: CardTransactionRecord, amount: number) =>
        simulate(card.id, "authorization_advice", { cardTransactionId: parent.id, amount })
      expectNotApplicable(await advice(settled, 2000), "SETTLED")
      expectNotApplicable(await advice(declined, 2000), "DECLINED")
      expectNotApplicable(await advice(partial, 599), "PARTIALLY_SETTLED")
      expect(await snapshot()).toEqual(before)
    })

    it("CD-49: a return needs a settled clearing and at most the net settled amount (400 otherwise)", async () => {
      const { card } = await cardholder()
      const authorized = await seedTx(card)
      const declined = await seedTx(card, { state: "DECLINED", declineReason: "INSUFFICIENT_FUNDS" })
      const settled = await seedTx(card, { state: "SETTLED", settledAmount: 1000, refundedAmount: 400 })
      const before = await snapshot()
      const giveBack = (parent: CardTransactionRecord, amount: number) =>
        simulate(card.id, "return", { cardTransactionId: parent.id, amount })
      expectNotApplicable(await giveBack(authorized, 100), "AUTHORIZED")
      expectNotApplicable(await giveBack(declined, 100), "DECLINED")
      // 1000 settled, 400 already returned: 601 is one too many.
      expectNotApplicable(await giveBack(settled, 601), "SETTLED")
      expect(await snapshot()).toEqual(before)
    })

    it("CD-51: a return reversal needs a posted return (refundedAmount above 0)", async () => {
      const { card } = await cardholder()
      const settled = await seedTx(card, { state: "SETTLED", settledAmount: 1000 })
      const authorized = await seedTx(card)
      const before = await snapshot()
      for (const parent of [settled, authorized]) {
        expectNotApplicable(
          await simulate(card.id, "return_reversal", { cardTransactionId: parent.id }),
          parent === settled ? "SETTLED" : "AUTHORIZED"
        )
      }
      expect(await snapshot()).toEqual(before)
    })
  })

  describe("walks through the network (CardNetwork, slice B)", () => {
    /** The card transaction a simulation's token finds (`GET /transactions?reference=`, design Q23). */
    const byToken = async (token: string) => {
      const r = await server.call("GET", `/transactions?reference=${encodeURIComponent(token)}`)
      expect(r.status).toBe(200)
      expect(r.json.data).toHaveLength(1)
      return r.json.data[0]
    }
    const accepted = async (r: CallResult): Promise<string> => {
      expect(r.status, JSON.stringify(r.json)).toBe(202)
      expect(Object.keys(r.json)).toEqual(["issuerTransactionToken"])
      return r.json.issuerTransactionToken
    }
    /** Moves the card's deferred network events into the past, then runs the worker (the server runs on the real clock). */
    const afterDelay = async (card: CardRecord) => {
      await run(
        Effect.gen(function* () {
          const store = yield* Store
          const pending = yield* store.cardNetworkEvents.list(
            { cardId: card.id, includeApplied: false },
            { limit: 100, sortOrder: "asc" }
          )
          for (const event of pending.data) {
            yield* store.cardNetworkEvents.update({ ...event, dueAt: new Date(Date.now() - 1000).toISOString() })
          }
        })
      )
      await server.processDue()
    }
    const authorize = async (card: CardRecord, descriptor?: string, amount?: number) =>
      byToken(await accepted(await simulate(card.id, "authorization", purchase(descriptor, amount))))

    it("CD-45, CD-47: each authorization-family route answers 202 and its token finds its transaction", async () => {
      const { customer, card } = await cardholder(100_000)
      const expected = {
        authorization: ["AUTHORIZED", "DEBIT"],
        credit_authorization: ["AUTHORIZED", "CREDIT"],
        financial_authorization: ["SETTLED", "DEBIT"],
        financial_credit_authorization: ["SETTLED", "CREDIT"],
        credit_authorization_advice: ["AUTHORIZED", "CREDIT"]
      } as const
      for (const route of AUTHORIZATION_ROUTES) {
        const tx = await byToken(await accepted(await simulate(card.id, route, purchase())))
        expect({ route, type: tx.type, status: tx.status, direction: tx.direction }).toEqual({
          route,
          type: "CARD",
          status: expected[route][0],
          direction: expected[route][1]
        })
        expect(tx).toMatchObject({ cardId: card.id, customerId: customer.id, accountId: customer.accounts.USD })
        expect(tx.authorizedAmount.amount).toBe(1250)
        // CD-39: a standalone merchant refund is a CREDIT, SETTLED, its value in settledAmount.
        if (route === "financial_credit_authorization") expect(tx.settledAmount.amount).toBe(1250)
      }
      // A balance inquiry is decided and stored nowhere (design Q14): its token finds nothing.
      const inquiry = await accepted(
        await simulate(card.id, "balance_inquiry", { merchant: { descriptor: "SHELL OIL 12345678" } })
      )
      const found = await server.call("GET", `/transactions?reference=${encodeURIComponent(inquiry)}`)
      expect(found.json.totalCount).toBe(0)
    })

    it("CD-46, CD-47: each descriptor suffix on each authorization-family route", async () => {
      const { card } = await cardholder(1_000_000)
      const debits = new Set(["authorization", "financial_authorization"])
      for (const route of AUTHORIZATION_ROUTES) {
        const approved = debits.has(route) && route === "financial_authorization" ? "SETTLED" : undefined
        const at = async (suffix: string) =>
          byToken(await accepted(await simulate(card.id, route, purchase(`SUFFIX TEST ${suffix}`))))
        const insufficient = await at("002")
        expect([route, insufficient.status, insufficient.declineReason]).toEqual([
          route,
          "DECLINED",
          "INSUFFICIENT_FUNDS"
        ])
        const paused = await at("003")
        expect([route, paused.status, paused.declineReason]).toEqual([route, "DECLINED", "CARD_PAUSED"])
        const delayed = await at("005")
        expect([route, delayed.status]).not.toContain("DECLINED")
        // Only a debit pulls from the funding source: the pull suffixes touch debits only.
        expect([route, delayed.pullSummary.pendingCount]).toEqual([route, debits.has(route) ? 1 : 0])
        const failed = await at("006")
        expect([route, failed.status]).toEqual([route, debits.has(route) ? "DECLINED" : failed.status])
        if (debits.has(route)) expect(failed.declineReason).toBe("PULL_FAILED")
        const plain = await at("001")
        expect([route, plain.status]).toEqual([route, approved ?? plain.status])
        expect(plain.declineReason).toBeUndefined()
      }
    })

    it("CD-46: 005 is approved with its pull pending, confirmed 30 s later by a worker pass", async () => {
      const { card } = await cardholder(100_000)
      const tx = await authorize(card, "SLOW PULL 005")
      expect(tx.status).toBe("AUTHORIZED")
      expect(tx.pullSummary).toEqual({ count: 1, totalAmount: 1250, pendingCount: 1 })
      // Not yet due: a pass changes nothing.
      await server.processDue()
      expect((await byToken(tx.issuerTransactionToken)).pullSummary.pendingCount).toBe(1)
      await afterDelay(card)
      const confirmed = await byToken(tx.issuerTransactionToken)
      expect(confirmed.status).toBe("AUTHORIZED")
      expect(confirmed.pullSummary).toEqual({ count: 1, totalAmount: 1250, pendingCount: 0 })
    })

    it("CD-46, CD-37: 006 is approved, then its pull confirmation fails at once: DECLINED (PULL_FAILED)", async () => {
      const { customer, card } = await cardholder(100_000)
      const tx = await authorize(card, "BROKEN PULL 006")
      expect(tx).toMatchObject({ status: "DECLINED", declineReason: "PULL_FAILED" })
      // The hold is gone: the whole balance is available again.
      const account = await server.call("GET", `/customers/internal-accounts?customerId=${customer.id}`)
      expect(account.json.data[0].balance.amount).toBe(100_000)
    })

    it("CD-48: clearings: partial, then the rest; over the authorization (post-hoc pull); zero (expiry)", async () => {
      const { card } = await cardholder(100_000)
      const clear = async (tx: { id: string; issuerTransactionToken: string }, amount: number) => {
        const token = await accepted(await simulate(card.id, "clearing", { cardTransactionId: tx.id, amount }))
        expect(token).toBe(tx.issuerTransactionToken)
        return byToken(token)
      }
      const split = await authorize(card, "SPLIT SHIPMENT", 1000)
      const part = await clear(split, 400)
      expect(part).toMatchObject({ status: "PARTIALLY_SETTLED", settledAmount: { amount: 400 } })
      expect(part.settlementSummary).toEqual({ count: 1, totalAmount: 400 })
      const rest = await clear(split, 600)
      expect(rest).toMatchObject({ status: "SETTLED", settledAmount: { amount: 1000 } })
      expect(rest.settlementSummary).toEqual({ count: 2, totalAmount: 1000 })

      const full = await clear(await authorize(card, "FULL", 1000), 1000)
      expect(full).toMatchObject({ status: "SETTLED", settledAmount: { amount: 1000 } })

      // A restaurant tip: the clearing is more than authorized; the difference is pulled after the fact.
      const over = await clear(await authorize(card, "RESTAURANT TIP", 1000), 1200)
      expect(over).toMatchObject({ status: "SETTLED", settledAmount: { amount: 1200 } })
      expect(over.pullSummary).toMatchObject({ count: 2, totalAmount: 1200 })

      // A zero clearing expires the authorization: closed against the funding source with nothing settled (Q5).
      const expired = await clear(await authorize(card, "NEVER SHIPPED", 1000), 0)
      expect(expired).toMatchObject({ status: "SETTLED", settledAmount: { amount: 0 } })
      // And it is no longer open: a second clearing is 400.
      expectNotApplicable(await simulate(card.id, "clearing", { cardTransactionId: expired.id, amount: 10 }), "SETTLED")
    })

    it("CD-49, CD-51, CD-40: returns up to the net settled amount, stay SETTLED; a reversal undoes the latest", async () => {
      const { card } = await cardholder(100_000)
      const tx = await authorize(card, "BOOK STORE", 1000)
      await accepted(await simulate(card.id, "clearing", { cardTransactionId: tx.id, amount: 1000 }))
      // CD-51: no return yet, so no reversal.
      expectNotApplicable(await simulate(card.id, "return_reversal", { cardTransactionId: tx.id }), "SETTLED")
      const giveBack = (amount: number) => simulate(card.id, "return", { cardTransactionId: tx.id, amount })
      expect(await byToken(await accepted(await giveBack(300)))).toMatchObject({
        status: "SETTLED",
        refundedAmount: { amount: 300 },
        refundSummary: { count: 1, totalAmount: 300 }
      })
      expectNotApplicable(await giveBack(701), "SETTLED")
      // CD-38: a full return stays SETTLED with refundedAmount = settledAmount.
      expect(await byToken(await accepted(await giveBack(700)))).toMatchObject({
        status: "SETTLED",
        refundedAmount: { amount: 1000 },
        settledAmount: { amount: 1000 }
      })
      // CD-51, design Q16: the reversal takes back the latest return in full.
      const reversed = await byToken(
        await accepted(await simulate(card.id, "return_reversal", { cardTransactionId: tx.id }))
      )
      expect(reversed).toMatchObject({ status: "SETTLED", refundedAmount: { amount: 300 } })
    })

    it("CD-24, CD-49, CD-51, CD-40: a card closed after a partial clearing still takes a return of the cleared part and its reversal", async () => {
      const { customer, card } = await cardholder(100_000)
      const balance = async () => {
        const r = await server.call("GET", `/customers/internal-accounts?customerId=${customer.id}`)
        return r.json.data.find((a: { id: string }) => a.id === customer.accounts.USD).balance.amount
      }
      const tx = await authorize(card, "SPLIT SHIPMENT", 1000)
      const untouched = await authorize(card, "NEVER SHIPPED", 500)
      await accepted(await simulate(card.id, "clearing", { cardTransactionId: tx.id, amount: 400 }))
      // 400 posted, 600 and 500 still held.
      expect(await balance()).toBe(98_500)
      const closed = await server.call("PATCH", `/cards/${card.id}`, { state: "CLOSED" })
      expect(closed.status, JSON.stringify(closed.json)).toBe(200)
      // The close voids both holds and expires the rest: closed against the source with what cleared (design Q5).
      expect(await byToken(tx.issuerTransactionToken)).toMatchObject({
        status: "SETTLED",
        settledAmount: { amount: 400 },
        refundedAmount: { amount: 0 }
      })
      expect(await balance()).toBe(99_600)

      const giveBack = (amount: number) => simulate(card.id, "return", { cardTransactionId: tx.id, amount })
      expect(await byToken(await accepted(await giveBack(300)))).toMatchObject({
        status: "SETTLED",
        settledAmount: { amount: 400 },
        refundedAmount: { amount: 300 },
        refundSummary: { count: 1, totalAmount: 300 }
      })
      expect(await balance()).toBe(99_900)
      // Only what cleared can come back: 100 of it is left.
      expectNotApplicable(await giveBack(101), "SETTLED")
      const reversed = await byToken(
        await accepted(await simulate(card.id, "return_reversal", { cardTransactionId: tx.id }))
      )
      expect(reversed).toMatchObject({ status: "SETTLED", refundedAmount: { amount: 0 } })
      expect(await balance()).toBe(99_600)
      const events = await eventsOf(server, tx.id)
      expect(events.map((e) => [e.type, e.data.status, e.data.refundedAmount.amount])).toEqual([
        ["CARD_TRANSACTION.AUTHORIZED", "AUTHORIZED", 0],
        ["CARD_TRANSACTION.PARTIALLY_SETTLED", "PARTIALLY_SETTLED", 0],
        ["CARD_TRANSACTION.SETTLED", "SETTLED", 0],
        ["CARD_TRANSACTION.SETTLED", "SETTLED", 300],
        ["CARD_TRANSACTION.SETTLED", "SETTLED", 0]
      ])
      // An authorization the close expired with nothing cleared has nothing to return.
      expectNotApplicable(await simulate(card.id, "return", { cardTransactionId: untouched.id, amount: 1 }), "SETTLED")
    })

    it("CD-06, CD-11, CD-12, CD-28, CD-29, CD-30, L-13, P-03: the caps of PATCH /cards and PATCH /config apply at authorization, the lower of both, equal allowed; expiries and returns give the day nothing back", async () => {
      const { card } = await cardholder(100_000)
      const patchCard = async (body: unknown) => {
        const r = await server.call("PATCH", `/cards/${card.id}`, body)
        expect(r.status, JSON.stringify(r.json)).toBe(200)
      }
      const caps = async (cardConfigs: unknown) =>
        expect((await server.call("PATCH", "/config", { cardConfigs })).status).toBe(200)
      const clear = (tx: { id: string }, amount: number) =>
        simulate(card.id, "clearing", { cardTransactionId: tx.id, amount }).then(accepted)
      await patchCard({ maxSpendPerTransaction: 2000, maxSpendPerDay: 3000, maxTransactionsPerDay: 3 })
      await caps({ maxSpendPerTransaction: 1000 })
      try {
        // The platform's 1000 is lower than the card's 2000; a purchase equal to the cap passes.
        expect(await authorize(card, "OVER THE PLATFORM CAP", 1001)).toMatchObject({
          status: "DECLINED",
          declineReason: "TRANSACTION_LIMIT_EXCEEDED"
        })
        const expiring = await authorize(card, "NEVER SHIPPED", 1000)
        expect(expiring.status).toBe("AUTHORIZED")
        await clear(expiring, 0)
        const returned = await authorize(card, "RETURNED IN FULL", 1000)
        await clear(returned, 1000)
        await accepted(await simulate(card.id, "return", { cardTransactionId: returned.id, amount: 1000 }))
        // 3000 of the card's 3000 a day: the expiry and the return gave nothing back (CD-29), equal is allowed.
        expect((await authorize(card, "THIRD", 1000)).status).toBe("AUTHORIZED")
        expect(await authorize(card, "FOURTH", 1)).toMatchObject({
          status: "DECLINED",
          declineReason: "DAILY_SPEND_LIMIT_EXCEEDED"
        })
        // null clears the card's daily spend cap (CD-28); its count cap of 3 still holds (CD-30).
        await patchCard({ maxSpendPerDay: null })
        expect(await authorize(card, "FOURTH AGAIN", 1)).toMatchObject({
          status: "DECLINED",
          declineReason: "DAILY_TRANSACTION_COUNT_EXCEEDED"
        })
        await patchCard({ maxTransactionsPerDay: null })
        expect((await authorize(card, "NO CARD CAPS", 500)).status).toBe("AUTHORIZED")
        // A platform cap alone applies too (L-13).
        await caps({ maxSpendPerTransaction: null, maxTransactionsPerDay: 4 })
        expect(await authorize(card, "PLATFORM COUNT", 1)).toMatchObject({
          status: "DECLINED",
          declineReason: "DAILY_TRANSACTION_COUNT_EXCEEDED"
        })
      } finally {
        await caps({ maxSpendPerTransaction: null, maxSpendPerDay: null, maxTransactionsPerDay: null })
      }
    })

    it("CD-50: an advice re-sizes an open authorization to its new total", async () => {
      const { card } = await cardholder(100_000)
      const tx = await authorize(card, "HOTEL", 1000)
      const advise = (amount: number) => simulate(card.id, "authorization_advice", { cardTransactionId: tx.id, amount })
      expect(await byToken(await accepted(await advise(1500)))).toMatchObject({
        status: "AUTHORIZED",
        authorizedAmount: { amount: 1500 }
      })
      await accepted(await simulate(card.id, "clearing", { cardTransactionId: tx.id, amount: 500 }))
      expect(await byToken(await accepted(await advise(800)))).toMatchObject({
        status: "PARTIALLY_SETTLED",
        authorizedAmount: { amount: 800 },
        settledAmount: { amount: 500 }
      })
      expectNotApplicable(await advise(499), "PARTIALLY_SETTLED")
    })

    it("CD-22, CD-23: PATCH FROZEN declines new authorizations with CARD_PAUSED while clearings and returns go on; PATCH ACTIVE resumes", async () => {
      const { card } = await cardholder(100_000)
      const state = async (to: string) => {
        const r = await server.call("PATCH", `/cards/${card.id}`, { state: to })
        expect(r.status, JSON.stringify(r.json)).toBe(200)
      }
      const before = await authorize(card, "BEFORE THE FREEZE", 1000)
      await state("FROZEN")
      expect(await authorize(card, "WHILE FROZEN", 100)).toMatchObject({
        status: "DECLINED",
        declineReason: "CARD_PAUSED"
      })
      await accepted(await simulate(card.id, "clearing", { cardTransactionId: before.id, amount: 1000 }))
      await accepted(await simulate(card.id, "return", { cardTransactionId: before.id, amount: 250 }))
      expect(await byToken(before.issuerTransactionToken)).toMatchObject({
        status: "SETTLED",
        settledAmount: { amount: 1000 },
        refundedAmount: { amount: 250 }
      })
      await state("ACTIVE")
      expect((await authorize(card, "AFTER THE THAW", 100)).status).toBe("AUTHORIZED")
    })

    it("CD-22, CD-46: a frozen card's authorization is DECLINED CARD_PAUSED, with no pull result after it", async () => {
      const { card } = await cardholder(100_000)
      const frozen = await run(
        Effect.gen(function* () {
          const store = yield* Store
          const next = { ...card, state: "FROZEN" as const }
          yield* store.cards.update(next)
          return next
        })
      )
      const tx = await authorize(frozen, "SLOW PULL 005")
      expect(tx).toMatchObject({ status: "DECLINED", declineReason: "CARD_PAUSED" })
      await afterDelay(frozen)
      expect((await byToken(tx.issuerTransactionToken)).status).toBe("DECLINED")
    })
  })
}

onEveryStore("the sandbox card network", "cards_sandbox_http", cardsSandboxSuite)
