/**
 * Issuing and managing cards over HTTP (issue 15, slice A; docs/design/cards.md sections 1 and 3; docs/cards.md):
 * `POST /cards` with every issue rule and the sandbox issuer's suffix table, the worker's provisioning pass,
 * `GET /cards` with its filters and paging, `GET /cards/{id}`, every `PATCH /cards/{id}` rule with the card machine,
 * its events and what a close does, the live-card limit (and its races on PostgreSQL), and an issuer-decisioning
 * program. The 3-D Secure password, the worker's backoff and the 30 s of `005` on a TestClock are in
 * packages/core/test/cards-issuing.test.ts and packages/sandbox/test/card-issuer.test.ts; reveal in
 * cards-reveal.http.test.ts. The whole file runs on the memory store, on PGlite and on PostgreSQL.
 */
import { randomUUID } from "node:crypto"
import { cardCounters } from "@paycore/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  activeCard,
  type Cardholder,
  cardBody,
  cardholder,
  cardPlatform,
  cardRow,
  endingIn,
  eventsOf,
  extraAccount,
  issue,
  issued
} from "./cards-kit.ts"
import { type CallResult, expectError, expectInvalid, ids, UNKNOWN_CUSTOMER, UUID, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const UNKNOWN_CARD = "Card:01234567-89ab-7def-8123-456789abcdef"
const UNKNOWN_ACCOUNT = "InternalAccount:01234567-89ab-7def-8123-456789abcdef"
const STATE_CHANGE = "card.state_change"
const SOURCES_CHANGE = "CARD.FUNDING_SOURCE_CHANGE"

const expectIneligible = (r: CallResult, accountId: string) => {
  expectError(r, 400, "FUNDING_SOURCE_INELIGIBLE")
  expect(r.json.details.accountId).toBe(accountId)
}

const cardsSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(cardPlatform, stores())
  const live = () => Effect.runPromise(server.store.counters.get(cardCounters.live))
  const patch = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    server.call("PATCH", `/cards/${id}`, body, { headers })
  const cardsOf = async (holder: string) => ids(await server.call("GET", `/cards?cardholderId=${holder}&limit=100`))

  describe("issue", () => {
    it("V-10, CD-01, CD-03, CD-07, CD-19, CD-20, WH-12: 201 PROCESSING, then a worker pass makes it ACTIVE with its details and one card.state_change", async () => {
      const holder = await cardholder(server)
      const platformCardId = endingIn("042")
      const r = await issue(
        server,
        cardBody(holder.id, [holder.accounts.USD!], {
          platformCardId,
          maxSpendPerTransaction: 5000,
          maxSpendPerDay: 20_000,
          maxTransactionsPerDay: 10
        })
      )
      expect(r.status, JSON.stringify(r.json)).toBe(201)
      expect(r.json).toEqual({
        id: expect.stringMatching(new RegExp(`^Card:${UUID}$`)),
        cardholderId: holder.id,
        platformCardId,
        state: "PROCESSING",
        stateReason: null,
        form: "VIRTUAL",
        fundingSources: [holder.accounts.USD],
        currency: "USD",
        maxSpendPerTransaction: 5000,
        maxSpendPerDay: 20_000,
        maxTransactionsPerDay: 10,
        cardCapabilities: { supportsPanReveal: true, supportsSpendLimits: true, supportsTransactionCountLimit: true },
        createdAt: r.json.createdAt,
        updatedAt: r.json.createdAt
      })
      // No event for a new card: card.state_change reports moves.
      expect(await eventsOf(server, r.json.id)).toEqual([])

      await server.processDue()
      const active = (await server.call("GET", `/cards/${r.json.id}`)).json
      expect(active).toMatchObject({
        id: r.json.id,
        state: "ACTIVE",
        stateReason: null,
        brand: "VISA",
        last4: "4042",
        expMonth: expect.any(Number),
        expYear: new Date().getUTCFullYear() + 3,
        processorRef: expect.stringMatching(/^sbxcard:/),
        issuerRef: expect.stringMatching(/^sbxiss_/)
      })
      expect(JSON.stringify(active)).not.toContain("http")
      const events = await eventsOf(server, r.json.id)
      expect(events.map((e) => [e.type, e.data])).toEqual([[STATE_CHANGE, active]])
      // Nothing is due any more: another pass changes nothing.
      await server.processDue()
      expect((await server.call("GET", `/cards/${r.json.id}`)).json).toEqual(active)
      expect((await cardRow(server, r.json.id))?.dueAt).toBeUndefined()
    })

    it("CD-43, CD-21, L-12: the sandbox issuance suffixes: 001 stays PROCESSING, 002 CLOSED ISSUER_REJECTED freeing its live slot, 005 waits 30 s", async () => {
      const holder = await cardholder(server)
      const body = (suffix: string) => cardBody(holder.id, [holder.accounts.USD!], { platformCardId: endingIn(suffix) })
      const before = await live()
      const pending = (await issue(server, body("001"))).json
      const rejected = (await issue(server, body("002"))).json
      const delayed = (await issue(server, body("005"))).json
      expect([pending.state, rejected.state, delayed.state]).toEqual(["PROCESSING", "PROCESSING", "PROCESSING"])
      expect(await live()).toBe(before + 3)
      const passAt = Date.now()
      await server.processDue()

      expect((await server.call("GET", `/cards/${pending.id}`)).json.state).toBe("PROCESSING")
      const pendingRow = await cardRow(server, pending.id)
      expect(pendingRow?.processorRef).toMatch(/^sbxcard:\d+:001:/)
      // Asked again in an hour.
      expect(Date.parse(pendingRow!.dueAt!)).toBeGreaterThanOrEqual(passAt + 3_600_000)

      const closed = (await server.call("GET", `/cards/${rejected.id}`)).json
      expect(closed).toMatchObject({ state: "CLOSED", stateReason: "ISSUER_REJECTED" })
      expect(closed.fundingSources).toEqual([holder.accounts.USD])
      expect((await cardRow(server, rejected.id))?.bindings).toEqual([])
      expect((await eventsOf(server, rejected.id)).map((e) => [e.type, e.data])).toEqual([[STATE_CHANGE, closed]])
      expect(await live()).toBe(before + 2)

      expect((await server.call("GET", `/cards/${delayed.id}`)).json.state).toBe("PROCESSING")
      // Asked again when the issuer said it would be ready: 30 s after it was asked.
      const due = Date.parse((await cardRow(server, delayed.id))!.dueAt!)
      expect(due).toBeGreaterThanOrEqual(passAt + 30_000)
      expect(due).toBeLessThanOrEqual(Date.now() + 30_000)
      expect(await eventsOf(server, pending.id)).toEqual([])
      expect(await eventsOf(server, delayed.id)).toEqual([])
    })

    it("CD-01, CD-02, Q21: the Idempotency-Key: same key and body answer the same card, another body 409; none is 400; platformCardId is generated, and unique", async () => {
      const holder = await cardholder(server)
      const key = randomUUID()
      const body = cardBody(holder.id, [holder.accounts.USD!])
      const first = await issue(server, body, key)
      expect(first.status).toBe(201)
      expect(first.json.platformCardId).toMatch(/^card-[0-9a-f]{12}$/)
      const again = await issue(server, body, key)
      expect(again.status).toBe(201)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.json).toEqual(first.json)
      expectError(await issue(server, { ...body, maxSpendPerDay: 100 }, key), 409, "IDEMPOTENCY_KEY_REUSED")
      expectInvalid(await server.call("POST", "/cards", body), ["headers.idempotency-key"])
      const taken = await issue(server, { ...body, platformCardId: first.json.platformCardId })
      expectError(taken, 409, "CONFLICT")
      expect(await cardsOf(holder.id)).toEqual([first.json.id])
    })

    it("CD-09, C-44: a cardholder whose KYC is not APPROVED is 400 CARDHOLDER_KYC_NOT_APPROVED; an unknown one 404 USER_NOT_FOUND", async () => {
      const unverified = await cardholder(server, { approved: false })
      const r = await issue(server, cardBody(unverified.id, [unverified.accounts.USD!]))
      expectError(r, 400, "CARDHOLDER_KYC_NOT_APPROVED")
      expect(r.json.message).toContain("UNVERIFIED")
      expectError(await issue(server, cardBody(UNKNOWN_CUSTOMER, [unverified.accounts.USD!])), 404, "USER_NOT_FOUND")
      expect(await cardsOf(unverified.id)).toEqual([])
    })

    it("CD-15, CD-44: FUNDING_SOURCE_INELIGIBLE names the account: another customer's, unknown, not ACTIVE, no card currency, mixed currencies, refused by the issuer (platformCustomerId ending 002, 003)", async () => {
      const holder = await cardholder(server, { currencies: ["USD", "USDB", "MXN"] })
      const other = await cardholder(server)
      const usd = holder.accounts.USD!
      const frozen = await extraAccount(server, holder.id, { status: "FROZEN" })
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [[other.accounts.USD!], other.accounts.USD!],
        [[usd, UNKNOWN_ACCOUNT], UNKNOWN_ACCOUNT],
        [[frozen], frozen],
        [[holder.accounts.MXN!], holder.accounts.MXN!],
        [[usd, holder.accounts.USDB!], holder.accounts.USDB!]
      ]
      for (const [sources, named] of cases) expectIneligible(await issue(server, cardBody(holder.id, sources)), named)
      expect(await cardsOf(holder.id)).toEqual([])
      // CD-44: the sandbox issuer refuses the accounts of a cardholder whose platformCustomerId ends 002 or 003,
      // naming the first.
      for (const suffix of ["002", "003"]) {
        const refusing = await cardholder(server, { extra: { platformCustomerId: endingIn(suffix) } })
        const second = await extraAccount(server, refusing.id)
        const sources = [refusing.accounts.USD!, second]
        expectIneligible(await issue(server, cardBody(refusing.id, sources)), refusing.accounts.USD!)
        expect(await cardsOf(refusing.id)).toEqual([])
      }
      // USDB is a card currency too (Q9).
      const usdb = await issue(server, cardBody(holder.id, [holder.accounts.USDB!]))
      expect(usdb.status).toBe(201)
      expect(usdb.json.currency).toBe("USDB")
    })

    it("CD-10, Q19: limits need the accounts' capabilities (every refused limit named); a 3-D Secure password where the program takes none is 400", async () => {
      const holder = await cardholder(server)
      const plain = await extraAccount(server, holder.id, {
        cardCapabilities: { supportsSpendLimits: false, supportsTransactionCountLimit: false }
      })
      const limits = { maxSpendPerTransaction: 100, maxSpendPerDay: 500, maxTransactionsPerDay: 3 }
      const r = await issue(server, cardBody(holder.id, [holder.accounts.USD!, plain], limits))
      expectInvalid(r, ["maxSpendPerTransaction", "maxSpendPerDay", "maxTransactionsPerDay"])
      expect(r.json.details.errors[0].constraint).toEqual({ supportsSpendLimits: true })
      const withoutLimits = await issue(server, cardBody(holder.id, [holder.accounts.USD!, plain]))
      expect(withoutLimits.json.cardCapabilities).toEqual({
        supportsPanReveal: true,
        supportsSpendLimits: false,
        supportsTransactionCountLimit: false
      })
      expectInvalid(
        await issue(server, cardBody(holder.id, [holder.accounts.USD!], { threeDSecurePassword: "s3cret-pass" })),
        ["threeDSecurePassword"]
      )
      expect(await cardsOf(holder.id)).toEqual([withoutLimits.json.id])
    })

    it("CD-12, P-03, Q11: a card's limits above the platform's cardConfigs are kept as set (the lower applies at authorization)", async () => {
      expect((await server.call("PATCH", "/config", { cardConfigs: { maxSpendPerDay: 1000 } })).status).toBe(200)
      try {
        const holder = await cardholder(server)
        const r = await issue(server, cardBody(holder.id, [holder.accounts.USD!], { maxSpendPerDay: 50_000 }))
        expect(r.status).toBe(201)
        expect(r.json.maxSpendPerDay).toBe(50_000)
      } finally {
        await server.call("PATCH", "/config", { cardConfigs: { maxSpendPerDay: null } })
      }
    })
  })

  describe("list and get", () => {
    it("CD-16, CD-17: filters by cardholder, a bound account (any position, a closed card's last ones too), platformCardId and state; paging both ways; 404 and a bad cursor 400", async () => {
      const holder = await cardholder(server)
      const second = await extraAccount(server, holder.id)
      const c1 = await activeCard(server, holder)
      const c2 = await activeCard(server, holder, { fundingSources: [second, holder.accounts.USD!] })
      const c3 = await issued(server, cardBody(holder.id, [second], { platformCardId: endingIn("000") }))
      expect((await patch(c3.id, { state: "CLOSED" })).status).toBe(200)
      const stranger = await cardholder(server)
      await activeCard(server, stranger)

      const list = (query: string) => server.call("GET", `/cards?${query}`)
      expect(ids(await list(`cardholderId=${holder.id}`))).toEqual([c3.id, c2.id, c1.id])
      expect(ids(await list(`accountId=${holder.accounts.USD}`))).toEqual([c2.id, c1.id])
      expect(ids(await list(`accountId=${second}`))).toEqual([c3.id, c2.id])
      expect(ids(await list(`platformCardId=${c2.platformCardId}`))).toEqual([c2.id])
      expect(ids(await list(`cardholderId=${holder.id}&state=CLOSED`))).toEqual([c3.id])
      expect(ids(await list(`cardholderId=${holder.id}&state=ACTIVE&sortOrder=asc`))).toEqual([c1.id, c2.id])

      const first = await list(`cardholderId=${holder.id}&limit=2&sortOrder=asc`)
      expect(first.json).toMatchObject({ hasMore: true, totalCount: 3 })
      expect(ids(first)).toEqual([c1.id, c2.id])
      const next = await list(`cardholderId=${holder.id}&limit=2&sortOrder=asc&cursor=${first.json.nextCursor}`)
      expect(next.json).toMatchObject({ hasMore: false, totalCount: 3 })
      expect(ids(next)).toEqual([c3.id])
      expect((await list(`cardholderId=${holder.id}`)).json.data[2]).toEqual(c1)

      expectInvalid(await list("cursor=not-a-cursor"), ["cursor"])
      expectError(await server.call("GET", `/cards/${UNKNOWN_CARD}`), 404, "REFERENCE_NOT_FOUND")
    })
  })

  describe("update", () => {
    it("CD-22, CD-23, CD-25, C-36, WH-12: ACTIVE ⇄ FROZEN each with card.state_change; ACTIVE → ACTIVE and FROZEN → FROZEN are 409 INVALID_STATE_TRANSITION; the issuer learns each move", async () => {
      const holder = await cardholder(server)
      const card = await activeCard(server, holder)
      const frozen = await patch(card.id, { state: "FROZEN" })
      expect(frozen.status).toBe(200)
      expect(frozen.json).toMatchObject({ state: "FROZEN", stateReason: null })
      expect((await cardRow(server, card.id))?.issuerSync).toEqual({ state: "FROZEN" })
      const twice = await patch(card.id, { state: "FROZEN" })
      expectError(twice, 409, "INVALID_STATE_TRANSITION")
      expect(twice.json.details).toEqual({ from: "FROZEN", to: "FROZEN" })
      const active = await patch(card.id, { state: "ACTIVE" })
      expect(active.json.state).toBe("ACTIVE")
      const again = await patch(card.id, { state: "ACTIVE" })
      expectError(again, 409, "INVALID_STATE_TRANSITION")
      expect(again.json.details).toEqual({ from: "ACTIVE", to: "ACTIVE" })
      const events = (await eventsOf(server, card.id)).slice(1)
      expect(events.map((e) => [e.type, e.data])).toEqual([
        [STATE_CHANGE, frozen.json],
        [STATE_CHANGE, active.json]
      ])
      // Both moves reach the issuer as one change (the latest state), then nothing is due.
      expect((await cardRow(server, card.id))?.issuerSync).toEqual({ state: "ACTIVE" })
      await server.processDue()
      const row = await cardRow(server, card.id)
      expect([row?.issuerSync, row?.dueAt]).toEqual([undefined, undefined])
    })

    it("CD-24, L-12: close → CLOSED CLOSED_BY_PLATFORM, bindings detached (fundingSources kept), the live slot freed; CLOSED is terminal (409) and takes no other change (409 CARD_NOT_MUTABLE)", async () => {
      const holder = await cardholder(server)
      const card = await activeCard(server, holder)
      const before = await live()
      const closed = await patch(card.id, { state: "CLOSED" })
      expect(closed.status).toBe(200)
      expect(closed.json).toMatchObject({
        state: "CLOSED",
        stateReason: "CLOSED_BY_PLATFORM",
        fundingSources: [holder.accounts.USD]
      })
      expect(await live()).toBe(before - 1)
      const row = await cardRow(server, card.id)
      expect(row?.bindings).toEqual([])
      expect(row?.issuerSync).toEqual({ state: "CLOSED" })
      for (const state of ["ACTIVE", "FROZEN", "CLOSED"]) {
        const r = await patch(card.id, { state })
        expectError(r, 409, "INVALID_STATE_TRANSITION")
        expect(r.json.details).toEqual({ from: "CLOSED", to: state })
      }
      expectError(await patch(card.id, { maxSpendPerDay: 100 }), 409, "CARD_NOT_MUTABLE")
      expectError(await patch(card.id, { fundingSources: [holder.accounts.USD] }), 409, "CARD_NOT_MUTABLE")
      expect(await live()).toBe(before - 1)
      const events = (await eventsOf(server, card.id)).map((e) => e.type)
      expect(events).toEqual([STATE_CHANGE, STATE_CHANGE])
      await server.processDue()
      expect((await cardRow(server, card.id))?.issuerSync).toBeUndefined()
    })

    it("CD-25: a PROCESSING card takes no state (409 from PROCESSING); its limits can change", async () => {
      const holder = await cardholder(server)
      const card = await issued(
        server,
        cardBody(holder.id, [holder.accounts.USD!], { platformCardId: endingIn("001") })
      )
      expect(card.state).toBe("PROCESSING")
      for (const state of ["ACTIVE", "FROZEN", "CLOSED"]) {
        const r = await patch(card.id, { state })
        expectError(r, 409, "INVALID_STATE_TRANSITION")
        expect(r.json.details).toEqual({ from: "PROCESSING", to: state })
      }
      const limited = await patch(card.id, { maxSpendPerTransaction: 700 })
      expect(limited.json).toMatchObject({ state: "PROCESSING", maxSpendPerTransaction: 700 })
    })

    it("CD-18, CD-26, CD-28, CD-30: an empty body, and funding sources or a limit beside state CLOSED, are 400 naming the field; an unknown card 404", async () => {
      const holder = await cardholder(server)
      const card = await activeCard(server, holder)
      expectInvalid(await patch(card.id, {}), ["body"])
      expectInvalid(await patch(card.id, { state: "CLOSED", fundingSources: [holder.accounts.USD] }), [
        "fundingSources"
      ])
      for (const field of ["maxSpendPerTransaction", "maxSpendPerDay", "maxTransactionsPerDay"]) {
        expectInvalid(await patch(card.id, { state: "CLOSED", [field]: null }), [field])
      }
      expectError(await patch(UNKNOWN_CARD, { state: "FROZEN" }), 404, "REFERENCE_NOT_FOUND")
      expect((await server.call("GET", `/cards/${card.id}`)).json).toEqual(card)
    })

    it("CD-26, CD-31: fundingSources replaces the list in priority order with CARD.FUNDING_SOURCE_CHANGE; a kept account keeps its binding; the same list again is no change", async () => {
      const holder = await cardholder(server)
      const second = await extraAccount(server, holder.id)
      const usd = holder.accounts.USD!
      const card = await activeCard(server, holder)
      const bindingOf = async (accountId: string) =>
        (await cardRow(server, card.id))?.bindings.find((b) => b.accountId === accountId)?.id
      const usdBinding = await bindingOf(usd)
      expect(usdBinding).toMatch(new RegExp(`^CardFundingSource:${UUID}$`))

      const both = await patch(card.id, { fundingSources: [second, usd] })
      expect(both.status).toBe(200)
      expect(both.json.fundingSources).toEqual([second, usd])
      expect(await bindingOf(usd)).toBe(usdBinding)
      expect((await cardRow(server, card.id))?.issuerSync).toEqual({ fundingAccountIds: [second, usd] })
      const same = await patch(card.id, { fundingSources: [second, usd] })
      expect(same.json.fundingSources).toEqual([second, usd])
      const reordered = await patch(card.id, { fundingSources: [usd, second] })
      const alone = await patch(card.id, { fundingSources: [second] })
      expect(alone.json.fundingSources).toEqual([second])
      expect(await bindingOf(usd)).toBeUndefined()

      const events = (await eventsOf(server, card.id)).slice(1)
      expect(events.map((e) => [e.type, e.data])).toEqual([
        [SOURCES_CHANGE, both.json],
        [SOURCES_CHANGE, reordered.json],
        [SOURCES_CHANGE, alone.json]
      ])
      await server.processDue()
      expect((await cardRow(server, card.id))?.issuerSync).toBeUndefined()
    })

    it("CD-15, CD-44: new funding sources are checked as at issue with the card's currency; a refusal changes nothing", async () => {
      const holder = await cardholder(server, { currencies: ["USD", "USDB"] })
      const other = await cardholder(server)
      const card = await activeCard(server, holder)
      const second = await extraAccount(server, holder.id)
      expectIneligible(await patch(card.id, { fundingSources: [holder.accounts.USDB] }), holder.accounts.USDB!)
      expectIneligible(await patch(card.id, { fundingSources: [other.accounts.USD] }), other.accounts.USD!)
      // CD-44: once the platform sets the cardholder a platformCustomerId ending 002, the sandbox issuer refuses its
      // accounts, the card's own among them.
      const renamed = await server.call("PATCH", `/customers/${holder.id}`, {
        customerType: "INDIVIDUAL",
        platformCustomerId: endingIn("002")
      })
      expect(renamed.status, JSON.stringify(renamed.json)).toBe(200)
      expectIneligible(await patch(card.id, { fundingSources: [second, holder.accounts.USD] }), second)
      expect((await server.call("GET", `/cards/${card.id}`)).json).toEqual(card)
      expect(await eventsOf(server, card.id)).toHaveLength(1)
    })

    it("CD-28, CD-30, CD-06: a limit sets, null clears, an absent one stays; limits change no event; a limit the card cannot hold is 400", async () => {
      const holder = await cardholder(server)
      const card = await activeCard(server, holder, { maxSpendPerDay: 300 })
      const set = await patch(card.id, { maxSpendPerTransaction: 100, maxTransactionsPerDay: 5 })
      expect(set.json).toMatchObject({ maxSpendPerTransaction: 100, maxSpendPerDay: 300, maxTransactionsPerDay: 5 })
      const cleared = await patch(card.id, { maxSpendPerDay: null, maxTransactionsPerDay: null })
      expect(cleared.json).toMatchObject({
        maxSpendPerTransaction: 100,
        maxSpendPerDay: null,
        maxTransactionsPerDay: null
      })
      expect(await eventsOf(server, card.id)).toHaveLength(1)

      const plain = await extraAccount(server, holder.id, {
        cardCapabilities: { supportsSpendLimits: false, supportsTransactionCountLimit: false }
      })
      const bare = await activeCard(server, holder, { fundingSources: [plain] })
      expectInvalid(await patch(bare.id, { maxSpendPerDay: 10 }), ["maxSpendPerDay"])
      // Clearing needs no capability; a source that cannot hold the card's limit cannot replace its sources.
      expect((await patch(bare.id, { maxSpendPerDay: null })).status).toBe(200)
      expectInvalid(await patch(card.id, { fundingSources: [plain] }), ["maxSpendPerTransaction"])
    })

    it("CD-27, CD-31, WH-12: state and fundingSources in one PATCH on a service-decisioning program: card.state_change then CARD.FUNDING_SOURCE_CHANGE, both with the card as it now is", async () => {
      const holder = await cardholder(server)
      const second = await extraAccount(server, holder.id)
      const card = await activeCard(server, holder)
      const r = await patch(card.id, { state: "FROZEN", fundingSources: [second] })
      expect(r.json).toMatchObject({ state: "FROZEN", fundingSources: [second] })
      const events = (await eventsOf(server, card.id)).slice(1)
      expect(events.map((e) => [e.type, e.data])).toEqual([
        [STATE_CHANGE, r.json],
        [SOURCES_CHANGE, r.json]
      ])
      expect((await cardRow(server, card.id))?.issuerSync).toEqual({ state: "FROZEN", fundingAccountIds: [second] })
    })

    it("A-10, Q3: the platform credential alone updates a card; wallet signature headers are not read", async () => {
      const holder = await cardholder(server)
      const card = await activeCard(server, holder)
      const r = await patch(
        card.id,
        { state: "FROZEN" },
        { "service-wallet-signature": "not-a-stamp", "request-id": `Request:${randomUUID()}` }
      )
      expect(r.status, JSON.stringify(r.json)).toBe(200)
      expect(r.json.state).toBe("FROZEN")
    })
  })

  describe("at the live-card limit (10,000 by default)", () => {
    const full = useTestServer(cardPlatform, stores())
    const liveCount = () => Effect.runPromise(full.store.counters.get(cardCounters.live))
    /** Brings the live-card count to the default limit minus `room`. */
    const leaveRoom = async (room: number) => {
      const now = await liveCount()
      await Effect.runPromise(full.store.counters.add(cardCounters.live, 10_000 - room - now))
    }
    let holder: Cardholder

    it("CD-14, L-12, C-45: at the limit an issue is 400 CARD_LIMIT_REACHED and stores nothing; a closed or rejected card frees its slot", async () => {
      holder = await cardholder(full)
      await leaveRoom(2)
      const body = (suffix = "000") => cardBody(holder.id, [holder.accounts.USD!], { platformCardId: endingIn(suffix) })
      const a = await issued(full, body())
      const b = await issued(full, body())
      const over = await issue(full, body())
      expectError(over, 400, "CARD_LIMIT_REACHED")
      expect(over.json.details).toEqual({ liveCardLimit: 10_000 })
      expect(await liveCount()).toBe(10_000)
      expect((await full.call("PATCH", `/cards/${a.id}`, { state: "CLOSED" })).status).toBe(200)
      expect(await liveCount()).toBe(9_999)
      const rejected = await issued(full, body("002"))
      expect(rejected.state).toBe("CLOSED")
      expect(await liveCount()).toBe(9_999)
      expect((await issue(full, body())).status).toBe(201)
      expectError(await issue(full, body()), 400, "CARD_LIMIT_REACHED")
      const listed = ids(await full.call("GET", `/cards?cardholderId=${holder.id}`))
      expect(listed).toHaveLength(4)
      expect(listed).toContain(b.id)
    })

    it("CD-14, CD-01: ten issues racing for the last three slots make three cards; twenty with one key make one", async () => {
      await leaveRoom(3)
      const racing = await Promise.all(
        Array.from({ length: 10 }, () => issue(full, cardBody(holder.id, [holder.accounts.USD!])))
      )
      const statuses = racing.map((r) => r.status).sort()
      expect(statuses).toEqual([201, 201, 201, 400, 400, 400, 400, 400, 400, 400])
      for (const r of racing.filter((x) => x.status === 400)) expectError(r, 400, "CARD_LIMIT_REACHED")
      expect(await liveCount()).toBe(10_000)

      await leaveRoom(5)
      const key = randomUUID()
      const body = cardBody(holder.id, [holder.accounts.USD!], { platformCardId: endingIn("000") })
      const same = await Promise.all(Array.from({ length: 20 }, () => issue(full, body, key)))
      const created = new Set(same.filter((r) => r.status === 201).map((r) => r.json.id))
      expect(created.size).toBe(1)
      for (const r of same) expect([201, 409]).toContain(r.status)
      expect(await liveCount()).toBe(9_996)
    })
  })

  describe("an issuer-decisioning program", () => {
    const issuerDecides = useTestServer(cardPlatform, {
      ...stores(),
      sandbox: { cardIssuer: { decisioning: "ISSUER", supportsThreeDSecurePassword: true } }
    })

    it("CD-27, CD-10, Q22: no limit capability; limits 400; fundingSources beside any state 400, alone or state alone 200", async () => {
      const holder = await cardholder(issuerDecides)
      const second = await extraAccount(issuerDecides, holder.id)
      expectInvalid(
        await issue(issuerDecides, cardBody(holder.id, [holder.accounts.USD!], { maxSpendPerTransaction: 10 })),
        ["maxSpendPerTransaction"]
      )
      const card = await activeCard(issuerDecides, holder)
      expect(card.cardCapabilities).toEqual({
        supportsPanReveal: true,
        supportsSpendLimits: false,
        supportsTransactionCountLimit: false
      })
      const call = (body: unknown) => issuerDecides.call("PATCH", `/cards/${card.id}`, body)
      expectInvalid(await call({ state: "FROZEN", fundingSources: [second] }), ["fundingSources"])
      expectInvalid(await call({ state: "ACTIVE", fundingSources: [second] }), ["fundingSources"])
      expectInvalid(await call({ maxTransactionsPerDay: 2 }), ["maxTransactionsPerDay"])
      expect((await call({ fundingSources: [second] })).json.fundingSources).toEqual([second])
      expect((await call({ state: "FROZEN" })).json.state).toBe("FROZEN")
    })

    it("Q19: a 3-D Secure password where the program takes one: kept sealed until the issuer has it, then erased; never shown", async () => {
      const holder = await cardholder(issuerDecides)
      const password = `pw-${randomUUID()}`
      const r = await issue(
        issuerDecides,
        cardBody(holder.id, [holder.accounts.USD!], { platformCardId: endingIn("000"), threeDSecurePassword: password })
      )
      expect(r.status).toBe(201)
      expect(JSON.stringify(r.json)).not.toContain(password)
      const sealed = (await cardRow(issuerDecides, r.json.id))?.threeDSecurePasswordSealed
      expect(sealed).toMatch(/^v1\./)
      expect(sealed).not.toContain(password)
      await issuerDecides.processDue()
      const row = await cardRow(issuerDecides, r.json.id)
      expect(row?.state).toBe("ACTIVE")
      expect(row?.threeDSecurePasswordSealed).toBeUndefined()
      expect(JSON.stringify((await issuerDecides.call("GET", `/cards/${r.json.id}`)).json)).not.toContain(password)
    })
  })
}

onEveryStore("cards", "cards_http", cardsSuite)
