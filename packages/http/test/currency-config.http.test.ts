/**
 * Currency configuration (issue 30, item 3; L-19, P-01, P-05, Q-46, SB-04): `supportedCurrencies` takes and answers
 * the upstream's `PlatformCurrencyConfig` objects (plain codes still taken), and what they set is enforced: the
 * amount range of each currency on quotes (400 `AMOUNT_OUT_OF_RANGE`), the ways it is enabled (400
 * `INVALID_CURRENCY`), the range reported by the external-account lookup and the exchange rates, and the fields asked
 * of an UMA sender on incoming payments. On the memory store, PGlite and PostgreSQL.
 */
import { SANDBOX_PAYEES } from "@paycore/sandbox"
import { describe, expect, it } from "vitest"
import { expectInvalid, fundAccount, onboardCustomer, quoteBody, type TestServer, useTestServer } from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const MAX = 9_000_000_000_000_000

/** The stored settings of one currency, as `GET /config` answers them. */
const settingsOf = async (server: TestServer, code: string) => {
  const config = await server.call("GET", "/config")
  expect(config.status).toBe(200)
  return config.json.supportedCurrencies.find((c: { currencyCode: string }) => c.currencyCode === code)
}

const patchCurrencies = async (server: TestServer, supportedCurrencies: ReadonlyArray<unknown>) => {
  const r = await server.call("PATCH", "/config", { supportedCurrencies })
  expect(r.status, JSON.stringify(r.json)).toBe(200)
  return r.json
}

const DEFAULTS = ["USD", "EUR", "MXN", "USDC"]

onEveryStore("currency configuration (L-19)", "currency_config_http", (stores) => {
  const server = useTestServer(async (s) => {
    await patchCurrencies(s, DEFAULTS)
  }, stores())

  describe("PATCH /config supportedCurrencies (L-19, P-01, P-05)", () => {
    it("a plain code answers the upstream PlatformCurrencyConfig with the defaults", async () => {
      expect(await settingsOf(server, "USD")).toEqual({
        currencyCode: "USD",
        minAmount: 1,
        maxAmount: MAX,
        requiredCounterpartyFields: [],
        enabledTransactionTypes: ["OUTGOING", "INCOMING"]
      })
    })

    it("an object is stored as sent; a plain code later keeps its settings; fields left out keep theirs", async () => {
      const eur = {
        currencyCode: "EUR",
        minAmount: 100,
        maxAmount: 1_000_000,
        requiredCounterpartyFields: [
          { name: "FULL_NAME", mandatory: true },
          { name: "NATIONALITY", mandatory: false }
        ],
        enabledTransactionTypes: ["OUTGOING", "INCOMING"]
      }
      const patched = await patchCurrencies(server, ["USD", eur, "MXN", "USDC"])
      expect(patched.supportedCurrencies[1]).toEqual(eur)
      await patchCurrencies(server, DEFAULTS)
      expect(await settingsOf(server, "EUR")).toEqual(eur)
      await patchCurrencies(server, ["USD", { currencyCode: "EUR", maxAmount: 2_000_000 }, "MXN", "USDC"])
      expect(await settingsOf(server, "EUR")).toEqual({ ...eur, maxAmount: 2_000_000 })
      await patchCurrencies(server, ["USD", { currencyCode: "EUR", ...defaultsOf("EUR") }, "MXN", "USDC"])
    })

    it("a broken list is 400 naming every entry at fault, and changes nothing", async () => {
      const before = (await server.call("GET", "/config")).json
      const r = await server.call("PATCH", "/config", {
        supportedCurrencies: [
          "USD",
          "USD",
          { currencyCode: "EUR", minAmount: 500, maxAmount: 100 },
          {
            currencyCode: "MXN",
            requiredCounterpartyFields: [
              { name: "FULL_NAME", mandatory: true },
              { name: "FULL_NAME", mandatory: false }
            ]
          }
        ]
      })
      expectInvalid(r, [
        "supportedCurrencies.1",
        "supportedCurrencies.2.minAmount",
        "supportedCurrencies.3.requiredCounterpartyFields.1.name"
      ])
      const shape = await server.call("PATCH", "/config", {
        supportedCurrencies: [
          { currencyCode: "USD", enabledTransactionTypes: ["SIDEWAYS"] },
          { currencyCode: "EUR", requiredCounterpartyFields: [{ name: "SHOE_SIZE", mandatory: true }] },
          { currencyCode: "MXN", minAmount: -1 }
        ]
      })
      expect(shape.status).toBe(400)
      expect(shape.json.code).toBe("INVALID_INPUT")
      expect((await server.call("GET", "/config")).json.supportedCurrencies).toEqual(before.supportedCurrencies)
    })
  })

  describe("amount ranges on quotes (L-19, Q-46)", () => {
    it("a quote sending less than the sending currency's minimum, or receiving more than the receiving currency's maximum, is 400 AMOUNT_OUT_OF_RANGE; inside, it is created", async () => {
      const payer = await onboardCustomer(server, { currencies: ["USD", "EUR"] })
      await fundAccount(server, payer.accounts.USD!, 1_000_000)
      const payee = SANDBOX_PAYEES.EUR_ACCOUNT
      const account = await server.call("POST", "/customers/external-accounts", {
        customerId: payer.id,
        currency: payee.currency,
        accountInfo: payee.accountInfo
      })
      expect(account.status, JSON.stringify(account.json)).toBe(201)
      await patchCurrencies(server, [
        { currencyCode: "USD", minAmount: 1_000, maxAmount: 500_000 },
        { currencyCode: "EUR", minAmount: 50, maxAmount: 20_000 },
        "MXN",
        "USDC"
      ])

      const tooSmall = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, account.json.id, 999))
      expect(tooSmall.status).toBe(400)
      expect(tooSmall.json.code).toBe("AMOUNT_OUT_OF_RANGE")
      expect(tooSmall.json.details).toMatchObject({ amount: 999, currency: "USD", min: 1_000, max: 500_000 })

      // 30,000 USD cents receive more than 20,000 EUR cents at the sandbox rate.
      const tooBig = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, account.json.id, 30_000))
      expect(tooBig.status).toBe(400)
      expect(tooBig.json.code).toBe("AMOUNT_OUT_OF_RANGE")
      expect(tooBig.json.details).toMatchObject({ currency: "EUR", min: 50, max: 20_000 })

      const inside = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, account.json.id, 10_000))
      expect(inside.status, JSON.stringify(inside.json)).toBe(201)

      // the lookup reports the receiving currency's range; the exchange rates the sending currency's.
      const lookup = await server.call("GET", `/receiver/external-account/${account.json.id}`)
      expect(lookup.status).toBe(200)
      expect(lookup.json.supportedCurrencies).toEqual([
        expect.objectContaining({ currency: expect.objectContaining({ code: "EUR" }), min: 50, max: 20_000 })
      ])
      const rates = await server.call("GET", "/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR")
      expect(rates.status).toBe(200)
      expect(rates.json.data[0].minSendingAmount).toBeGreaterThanOrEqual(1_000)
      expect(rates.json.data[0].maxSendingAmount).toBe(500_000)
      await patchCurrencies(server, [
        { currencyCode: "USD", ...defaultsOf("USD") },
        { currencyCode: "EUR", ...defaultsOf("EUR") },
        "MXN",
        "USDC"
      ])
    })
  })

  describe("enabled transaction types (L-19)", () => {
    it("sending from a currency not enabled for OUTGOING, or into an internal account of one not enabled for INCOMING, is 400 INVALID_CURRENCY and creates nothing", async () => {
      const payer = await onboardCustomer(server, { currencies: ["USD", "EUR"] })
      const other = await onboardCustomer(server, { currencies: ["USD", "EUR"] })
      await fundAccount(server, payer.accounts.USD!, 100_000)
      await fundAccount(server, payer.accounts.EUR!, 100_000)

      await patchCurrencies(server, [
        { currencyCode: "USD", enabledTransactionTypes: ["INCOMING"] },
        { currencyCode: "EUR", enabledTransactionTypes: ["OUTGOING"] },
        "MXN",
        "USDC"
      ])
      const outgoing = await server.call("POST", "/quotes", quoteBody(payer.accounts.USD!, other.accounts.USD!, 1_000))
      expect(outgoing.status).toBe(400)
      expect(outgoing.json.code).toBe("INVALID_CURRENCY")
      expect(outgoing.json.details).toMatchObject({ currency: "USD", transactionType: "OUTGOING" })
      const incoming = await server.call("POST", "/quotes", quoteBody(payer.accounts.EUR!, other.accounts.EUR!, 1_000))
      expect(incoming.status).toBe(400)
      expect(incoming.json.code).toBe("INVALID_CURRENCY")
      expect(incoming.json.details).toMatchObject({ currency: "EUR", transactionType: "INCOMING" })
      const sent = await server.call("GET", `/transactions?customerId=${payer.id}&type=OUTGOING`)
      expect(sent.status).toBe(200)
      expect(sent.json.data).toEqual([])

      await patchCurrencies(server, [
        { currencyCode: "USD", enabledTransactionTypes: ["OUTGOING", "INCOMING"] },
        { currencyCode: "EUR", enabledTransactionTypes: ["OUTGOING", "INCOMING"] },
        "MXN",
        "USDC"
      ])
      const allowed = await server.call("POST", "/quotes", quoteBody(payer.accounts.EUR!, other.accounts.EUR!, 1_000))
      expect(allowed.status, JSON.stringify(allowed.json)).toBe(201)
    })
  })

  describe("incoming UMA payments (L-19, SB-04)", () => {
    it("the fields the platform asks of senders arrive as counterpartyInformation; a sender that withholds a mandatory one is refused; the currency's range and INCOMING apply", async () => {
      const receiver = await onboardCustomer(server, { currencies: ["USD"] })
      await patchCurrencies(server, [
        {
          currencyCode: "USD",
          minAmount: 100,
          maxAmount: 1_000_000,
          requiredCounterpartyFields: [
            { name: "FULL_NAME", mandatory: true },
            { name: "BIRTH_DATE", mandatory: false }
          ]
        },
        "EUR",
        "MXN",
        "USDC"
      ])
      const receive = (senderUmaAddress: string, amount: number) =>
        server.call("POST", "/sandbox/uma/receive", {
          senderUmaAddress,
          customerId: receiver.id,
          receivingCurrencyCode: "USD",
          receivingCurrencyAmount: amount
        })

      const received = await receive("$success.usd@sandbox.uma.money", 5_000)
      expect(received.status, JSON.stringify(received.json)).toBe(200)
      expect(received.json.counterpartyInformation).toEqual({ FULL_NAME: expect.any(String), BIRTH_DATE: "1990-01-01" })
      const read = await server.call("GET", `/transactions/${received.json.id}`)
      expect(read.json.counterpartyInformation).toEqual(received.json.counterpartyInformation)

      const withheld = await receive("$anonymous@sandbox.uma.money", 5_000)
      expect(withheld.status).toBe(400)
      expect(withheld.json.code).toBe("MISSING_MANDATORY_USER_INFO")
      expect(withheld.json.details).toEqual({ missing: ["FULL_NAME"] })

      const small = await receive("$success.usd@sandbox.uma.money", 99)
      expect(small.status).toBe(400)
      expect(small.json.code).toBe("AMOUNT_OUT_OF_RANGE")

      await patchCurrencies(server, [
        { currencyCode: "USD", enabledTransactionTypes: ["OUTGOING"] },
        "EUR",
        "MXN",
        "USDC"
      ])
      const disabled = await receive("$success.usd@sandbox.uma.money", 5_000)
      expect(disabled.status).toBe(400)
      expect(disabled.json.code).toBe("INVALID_CURRENCY")

      const listed = await server.call("GET", `/transactions?customerId=${receiver.id}`)
      expect(listed.json.data.map((t: { id: string }) => t.id)).toEqual([received.json.id])
      await patchCurrencies(server, [{ currencyCode: "USD", ...defaultsOf("USD") }, "EUR", "MXN", "USDC"])
    })
  })
})

/** The settings a code alone is given, to put a currency back. */
const defaultsOf = (_code: string) => ({
  minAmount: 1,
  maxAmount: MAX,
  requiredCounterpartyFields: [],
  enabledTransactionTypes: ["OUTGOING", "INCOMING"]
})
