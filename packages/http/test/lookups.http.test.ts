/**
 * Receiver lookups kept for quotes (issue 30 item 4; Q-03, C-23, Q-48, Q-46, Q-47; docs/transactions.md "Receiver
 * lookups"), on every store: a lookup is stored under its `lookupId` for 15 minutes; a quote to an UMA address names a
 * live lookup of that address; an unknown or expired one is 404 `LOOKUP_REQUEST_NOT_FOUND`; the receiver's
 * `requiredPayerDataFields` come from the sandbox directory and the quote's `senderCustomerInfo` must carry every
 * mandatory one (400 `MISSING_MANDATORY_USER_INFO`, each field named).
 */
import type { LookupId } from "@paycore/core"
import { Effect } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import {
  balanceIn,
  expectError,
  expectInvalid,
  fundedPayer,
  lookupUma,
  type Onboarded,
  quoteBody,
  type TestServer,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const MARIA = "$maria@aurorapay.example"
const UNKNOWN_LOOKUP = "Lookup:01234567-89ab-7def-8123-456789abcdef"

/** A body paying `amount` USD (sending side) from `account` to the UMA `address`, with `extra` fields. */
const umaQuote = (account: string, address: string, amount: number, extra: Record<string, unknown> = {}) => ({
  source: { sourceType: "ACCOUNT", accountId: account },
  destination: { destinationType: "UMA_ADDRESS", umaAddress: address, currency: "USD" },
  lockedCurrencySide: "SENDING",
  lockedCurrencyAmount: amount,
  ...extra
})

/** Moves a stored lookup's `expiresAt` to `at` (the test server runs on the real clock). */
const expireLookup = (server: TestServer, id: string, at: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const lookup = yield* server.store.lookups.get(id)
      expect(lookup).toBeDefined()
      yield* server.store.lookups.update({ ...lookup!, expiresAt: at })
    })
  )

onEveryStore("receiver lookups", "lookups_http", (stores) => {
  let payer: Onboarded
  let payee: string
  const server = useTestServer(async (s) => {
    const funded = await fundedPayer(s, 100_000)
    payer = funded.payer
    payee = funded.payees[0]!
  }, stores())
  const account = () => payer.accounts.USD!

  describe("Q-46, Q-47: a lookup is stored for the quote that follows", () => {
    it("Q-47 Q-48: an UMA lookup answers the receiver's payer data fields and is stored 15 minutes", async () => {
      const before = Date.now()
      const r = await server.call("GET", `/receiver/uma/${encodeURIComponent(MARIA)}?customerId=${payer.id}`)
      expect(r.status).toBe(200)
      expect(r.json.requiredPayerDataFields).toEqual([
        { name: "FULL_NAME", mandatory: true },
        { name: "NATIONALITY", mandatory: false }
      ])
      const thames = await server.call("GET", `/receiver/uma/${encodeURIComponent("$jo@thames.example")}`)
      expect(thames.json.requiredPayerDataFields).toEqual([
        { name: "FULL_NAME", mandatory: true },
        { name: "BIRTH_DATE", mandatory: true }
      ])
      const sandbox = await server.call("GET", `/receiver/uma/${encodeURIComponent("$success.usd@sandbox.uma.money")}`)
      expect(sandbox.json.requiredPayerDataFields).toEqual([])
      const stored = await Effect.runPromise(server.store.lookups.get(r.json.lookupId))
      expect(stored).toMatchObject({
        id: r.json.lookupId,
        destinationType: "UMA_ADDRESS",
        receiver: MARIA,
        customerId: payer.id,
        requiredPayerDataFields: r.json.requiredPayerDataFields
      })
      const created = Date.parse(stored!.createdAt)
      expect(created).toBeGreaterThanOrEqual(before - 1000)
      expect(Date.parse(stored!.expiresAt) - created).toBe(15 * 60 * 1000)
      // Each lookup is its own: two lookups, two ids.
      expect(await lookupUma(server, MARIA)).not.toBe(r.json.lookupId)
    })

    it("Q-46: an external account's lookup is stored too and asks nothing of the payer", async () => {
      const r = await server.call("GET", `/receiver/external-account/${payee}`)
      expect(r.status).toBe(200)
      expect(r.json.requiredPayerDataFields).toEqual([])
      const stored = await Effect.runPromise(server.store.lookups.get(r.json.lookupId))
      expect(stored).toMatchObject({ destinationType: "ACCOUNT", receiver: payee, requiredPayerDataFields: [] })
      expect(stored?.customerId).toBeUndefined()
    })
  })

  describe("Q-03, C-23: a quote to an UMA address names a live lookup of that address", () => {
    it("Q-03: no lookupId → 400 on lookupId; nothing is created", async () => {
      const before = (await server.call("GET", "/transactions?limit=1")).json.totalCount
      const r = await server.call("POST", "/quotes", umaQuote(account(), "$success.usd@sandbox.uma.money", 1_000))
      expectInvalid(r, ["lookupId"])
      expect(r.json.details.errors[0].constraint).toEqual({ required: true })
      expect((await server.call("GET", "/transactions?limit=1")).json.totalCount).toBe(before)
    })

    it("C-23: a lookupId never issued, or expired → 404 LOOKUP_REQUEST_NOT_FOUND", async () => {
      const unknown = await server.call(
        "POST",
        "/quotes",
        umaQuote(account(), "$success.usd@sandbox.uma.money", 1_000, { lookupId: UNKNOWN_LOOKUP })
      )
      expectError(unknown, 404, "LOOKUP_REQUEST_NOT_FOUND")
      const lookupId = await lookupUma(server, "$success.usd@sandbox.uma.money")
      await expireLookup(server, lookupId, new Date(Date.now() - 1000).toISOString())
      const expired = await server.call(
        "POST",
        "/quotes",
        umaQuote(account(), "$success.usd@sandbox.uma.money", 1_000, { lookupId })
      )
      expectError(expired, 404, "LOOKUP_REQUEST_NOT_FOUND")
      // A malformed one is the body's: 400.
      const malformed = await server.call(
        "POST",
        "/quotes",
        umaQuote(account(), "$success.usd@sandbox.uma.money", 1_000, { lookupId: "Lookup:nope" })
      )
      expectInvalid(malformed, ["lookupId"])
    })

    it("Q-03: the lookup of another receiver (an address, an account) → 400 on lookupId", async () => {
      const eur = await lookupUma(server, "$success.eur@sandbox.uma.money")
      const other = await server.call(
        "POST",
        "/quotes",
        umaQuote(account(), "$success.usd@sandbox.uma.money", 1_000, { lookupId: eur })
      )
      expectInvalid(other, ["lookupId"])
      const accountLookup = (await server.call("GET", `/receiver/external-account/${payee}`)).json.lookupId
      const ofAccount = await server.call(
        "POST",
        "/quotes",
        umaQuote(account(), "$success.usd@sandbox.uma.money", 1_000, { lookupId: accountLookup })
      )
      expectInvalid(ofAccount, ["lookupId"])
      // An account quote may name its account's lookup (and needs none), not an address's.
      expect(
        (await server.call("POST", "/quotes", quoteBody(account(), payee, 100, { lookupId: accountLookup }))).status
      ).toBe(201)
      expectInvalid(await server.call("POST", "/quotes", quoteBody(account(), payee, 100, { lookupId: eur })), [
        "lookupId"
      ])
    })

    it("Q-03 Q-14: looked up (any case), quoted, executed and settled; one lookup serves several quotes", async () => {
      const lookupId = await lookupUma(server, "$Success.USD@Sandbox.UMA.money", payer.id)
      const before = await balanceIn(server, payer.id)
      for (const amount of [1_000, 2_000]) {
        const quote = await server.call(
          "POST",
          "/quotes",
          umaQuote(account(), "$success.usd@sandbox.uma.money", amount, { lookupId, immediatelyExecute: true })
        )
        expect(quote.status, JSON.stringify(quote.json)).toBe(201)
        await server.processDue()
        expect((await server.call("GET", `/transactions/${quote.json.transactionId}`)).json.status).toBe("COMPLETED")
      }
      expect(await balanceIn(server, payer.id)).toBe(before - 3_000)
    })
  })

  describe("Q-48: senderCustomerInfo carries the payer data the receiver asks for", () => {
    let lookupId: LookupId
    beforeAll(async () => {
      lookupId = (await lookupUma(server, MARIA, payer.id)) as LookupId
    })

    it("Q-48: a mandatory field missing (or empty) → 400 MISSING_MANDATORY_USER_INFO naming it; nothing is created", async () => {
      const before = (await server.call("GET", "/transactions?limit=1")).json.totalCount
      for (const senderCustomerInfo of [undefined, {}, { FULL_NAME: "" }, { FULL_NAME: null, NATIONALITY: "GB" }]) {
        const r = await server.call(
          "POST",
          "/quotes",
          umaQuote(account(), MARIA, 1_000, {
            lookupId,
            ...(senderCustomerInfo === undefined ? {} : { senderCustomerInfo })
          })
        )
        expectError(r, 400, "MISSING_MANDATORY_USER_INFO")
        expect(r.json.details.errors).toEqual([
          {
            field: "senderCustomerInfo.FULL_NAME",
            constraint: { required: true },
            message: "The receiver requires FULL_NAME about the payer"
          }
        ])
        expect(r.json.message).toContain("FULL_NAME")
      }
      expect((await server.call("GET", "/transactions?limit=1")).json.totalCount).toBe(before)
    })

    it("Q-48: every mandatory field given (the optional one left out) → the quote is made and pays", async () => {
      const before = await balanceIn(server, payer.id)
      const quote = await server.call(
        "POST",
        "/quotes",
        umaQuote(account(), MARIA, 1_500, {
          lookupId,
          senderCustomerInfo: { FULL_NAME: "Ada Lovelace" },
          immediatelyExecute: true
        })
      )
      expect(quote.status, JSON.stringify(quote.json)).toBe(201)
      expect(quote.json.destination).toMatchObject({ umaAddress: MARIA, currency: "USD", paymentRail: "LIGHTNING" })
      await server.processDue()
      expect((await server.call("GET", `/transactions/${quote.json.transactionId}`)).json.status).toBe("COMPLETED")
      expect(await balanceIn(server, payer.id)).toBe(before - 1_500)
    })
  })
})
