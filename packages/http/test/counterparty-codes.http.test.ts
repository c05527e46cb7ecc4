/**
 * Codes that a client could never meet before (issue 31, item 2; Q-47, C-26, C-49, C-50): each reachable in the
 * sandbox by a documented trigger (packages/sandbox/README.md), each changing nothing. 412 `UNSUPPORTED_UMA_VERSION`
 * and the 424 counterparty codes from the UMA addresses of `SANDBOX_UMA_COUNTERPARTY_FAILURES`; 403
 * `COUNTERPARTY_NOT_ALLOWED` for a receiver at a provider off the allow list; 403 `USER_NOT_READY` for a customer whose
 * KYC was rejected; 403 `VELOCITY_LIMIT_EXCEEDED` from screening (a destination ending in `012`); and 404
 * `REFERENCE_NOT_FOUND` for an unknown account, as for every other unknown reference. On the memory store, PGlite and
 * PostgreSQL.
 */
import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import {
  addUsPayee,
  balanceIn,
  expectError,
  fundAccount,
  individualPacket,
  lookupUma,
  onboardCustomer,
  quoteBody,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const umaQuote = (accountId: string, umaAddress: string, lookupId: string, amount = 1_000) => ({
  lookupId,
  source: { sourceType: "ACCOUNT", accountId },
  destination: { destinationType: "UMA_ADDRESS", umaAddress, currency: "USD" },
  lockedCurrencySide: "SENDING",
  lockedCurrencyAmount: amount,
  senderCustomerInfo: { FULL_NAME: "Ada Lovelace", BIRTH_DATE: "1990-12-10" }
})

onEveryStore("codes reachable in the sandbox", "counterparty_codes_http", (stores) => {
  // The KYC review decides on the name alone (K-11): no documents needed for a rejection.
  const server = useTestServer(async (s) => {
    expect((await s.call("PATCH", "/config", { skipVerificationPaperwork: true })).status).toBe(200)
  }, stores())

  describe("UMA counterparties that cannot be dealt with (Q-47, C-50)", () => {
    it.each([
      ["$unsupported.version@sandbox.uma.money", 412, "UNSUPPORTED_UMA_VERSION"],
      ["$no.compatible.version@sandbox.uma.money", 424, "NO_COMPATIBLE_UMA_VERSION"],
      ["$lnurlp.fail@sandbox.uma.money", 424, "LNURLP_REQUEST_FAILED"],
      ["$pubkey.fail@sandbox.uma.money", 424, "COUNTERPARTY_PUBKEY_FETCH_ERROR"]
    ])("a lookup of %s is %i %s", async (address, status, code) => {
      const r = await server.call("GET", `/receiver/uma/${encodeURIComponent(address)}`)
      expectError(r, status, code)
      expect(r.json.message).toContain(address)
    })

    it("a receiver whose pay request fails looks up, and its quote is 424 PAYREQ_REQUEST_FAILED with nothing stored", async () => {
      const payer = await onboardCustomer(server)
      await fundAccount(server, payer.accounts.USD!, 10_000)
      const address = "$payreq.fail.usd@sandbox.uma.money"
      const lookupId = await lookupUma(server, address)
      const r = await server.call("POST", "/quotes", umaQuote(payer.accounts.USD!, address, lookupId))
      expectError(r, 424, "PAYREQ_REQUEST_FAILED")
      const sent = await server.call("GET", `/transactions?customerId=${payer.id}&type=OUTGOING`)
      expect(sent.json.data).toEqual([])
    })
  })

  describe("403 codes (C-49)", () => {
    it("COUNTERPARTY_NOT_ALLOWED: a receiver at a provider off the allow list, on lookup and quote", async () => {
      const providers = await server.call("GET", "/uma-providers?limit=100")
      const blocked = providers.json.data.find((p: { allowListStatus: boolean }) => p.allowListStatus === false)
      expect(blocked).toBeDefined()
      const address = `$ada@${blocked.domain}`
      expectError(
        await server.call("GET", `/receiver/uma/${encodeURIComponent(address)}`),
        403,
        "COUNTERPARTY_NOT_ALLOWED"
      )
      const payer = await onboardCustomer(server)
      await fundAccount(server, payer.accounts.USD!, 10_000)
      const allowed = await lookupUma(server, "$success.usd@sandbox.uma.money")
      const r = await server.call("POST", "/quotes", {
        ...umaQuote(payer.accounts.USD!, address, allowed),
        lookupId: undefined
      })
      expectError(r, 403, "COUNTERPARTY_NOT_ALLOWED")
    })

    it("USER_NOT_READY: a customer whose KYC was rejected can neither pay nor receive; its money stays", async () => {
      const created = await server.call("POST", "/customers", individualPacket("Rex Rejected002"))
      expect(created.status, JSON.stringify(created.json)).toBe(201)
      const id = created.json.id
      const accounts = await server.call("GET", `/customers/internal-accounts?customerId=${id}`)
      const usd = accounts.json.data.find((a: { currency: string }) => a.currency === "USD").id
      await fundAccount(server, usd, 10_000)
      const reviewed = await server.call("POST", "/verifications", { customerId: id })
      expect(reviewed.json.verificationStatus).toBe("REJECTED")
      const payee = await addUsPayee(server, id)

      const paid = await server.call("POST", "/quotes", quoteBody(usd, payee, 1_000))
      expectError(paid, 403, "USER_NOT_READY")
      expect(paid.json.details).toEqual({ kycStatus: "REJECTED" })
      const received = await server.call("POST", "/sandbox/uma/receive", {
        senderUmaAddress: "$success.usd@sandbox.uma.money",
        customerId: id,
        receivingCurrencyCode: "USD",
        receivingCurrencyAmount: 1_000
      })
      expectError(received, 403, "USER_NOT_READY")
      expect(await balanceIn(server, id)).toBe(10_000)
    })

    it("VELOCITY_LIMIT_EXCEEDED: screening refuses a payout to a destination ending in 012; the quote stays executable and nothing moves", async () => {
      const payer = await onboardCustomer(server)
      await fundAccount(server, payer.accounts.USD!, 10_000)
      const payee = await addUsPayee(server, payer.id, { accountNumber: "123456012" })

      const atOnce = await server.call(
        "POST",
        "/quotes",
        quoteBody(payer.accounts.USD!, payee, 1_000, { immediatelyExecute: true })
      )
      expectError(atOnce, 403, "VELOCITY_LIMIT_EXCEEDED")
      const quote = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, payee, 1_000))
      expect(quote.status, JSON.stringify(quote.json)).toBe(201)
      const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
      expectError(executed, 403, "VELOCITY_LIMIT_EXCEEDED")
      expect((await server.call("GET", `/quotes/${quote.json.id}`)).json.status).toBe("PENDING")
      expect(await balanceIn(server, payer.id)).toBe(10_000)
      const sent = await server.call("GET", `/transactions?customerId=${payer.id}&type=OUTGOING`)
      expect(sent.json.data.filter((t: { status: string }) => t.status !== "PENDING")).toEqual([])
    })
  })

  describe("unknown references (C-26)", () => {
    it("an unknown account is 404 REFERENCE_NOT_FOUND, as every other unknown reference", async () => {
      const external = `ExternalAccount:${randomUUID()}`
      const internal = `InternalAccount:${randomUUID()}`
      expectError(await server.call("GET", `/customers/external-accounts/${external}`), 404, "REFERENCE_NOT_FOUND")
      expectError(
        await server.call("POST", `/sandbox/internal-accounts/${internal}/fund`, { amount: 100 }),
        404,
        "REFERENCE_NOT_FOUND"
      )
      expectError(await server.call("GET", `/receiver/external-account/${external}`), 404, "REFERENCE_NOT_FOUND")
    })
  })
})
