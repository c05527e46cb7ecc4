/**
 * Every payee and every corridor (issue 30, items 1 and 2; AC-05, AC-15, AC-18, AC-19, Q-03): every currency of a
 * payee type can be enabled in `supportedCurrencies`; each fiat internal account answers deposit instructions of its
 * currency's scheme and is funded by a deposit; an account of every payee type is accepted on the customer, platform
 * and agent routes, answering its rails; and a quote from USD pays every payee type over each of its rails, settles,
 * and leaves the ledger sound. On the memory store, PGlite and PostgreSQL.
 */
import { currency, PAYEE_TYPES, type PayeeTypeName, Store } from "@paycore/core"
import { identifierField, SANDBOX_PAYEES } from "@paycore/sandbox"
import { ledgerViolations } from "@paycore/testkit"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { clabeCheckDigit, ibanOf } from "../../core/src/shared/bank-identifiers.ts"
import { agentOf, asAgent } from "./agent-kit.ts"
import { consent, fundAccount, onboardCustomer, useTestServer } from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const TYPES = Object.keys(SANDBOX_PAYEES) as Array<PayeeTypeName>
/** The currency of every payee type (USD first). */
const CORRIDORS = [...new Set(["USD", ...TYPES.map((type) => SANDBOX_PAYEES[type].currency)])]
const CRYPTO = new Set(["USDC", "USDT", "BTC"])
const FIAT = CORRIDORS.filter((code) => !CRYPTO.has(code))
/** Every payee type with each of its rails. */
const ROWS = TYPES.flatMap((type) => PAYEE_TYPES[type].rails.map((rail) => [type, rail] as const))
/** What each payment sends, in USD cents. */
const SENT = 10_000

/** The name a currency's deposit account answers: the spec's for USD and MXN, the upstream's elsewhere. */
const depositName = (code: string): string =>
  code === "USD" ? "US_ACCOUNT" : code === "MXN" ? "CLABE" : code === "JPY" ? "SWIFT_ACCOUNT" : `${code}_ACCOUNT`

/**
 * `info` with its primary identifier on `rail` ending in `suffix`, its check digits kept right; `undefined` when the
 * identifier cannot end so (a base58 or Spark address has no `0`).
 */
const withSuffix = (info: Record<string, unknown>, rail: string, suffix: string) => {
  const field = identifierField(info, rail as never)
  if (field === undefined) return undefined
  const value = String(info[field])
  const at = value.lastIndexOf("@")
  let next: string | undefined
  if (field === "iban") next = ibanOf(value.slice(0, 2), `${value.slice(4, -3)}${suffix}`)
  else if (field === "clabeNumber") {
    const candidates = [..."0123456789"].map((d) => `${value.slice(0, 14)}${d}${suffix.slice(0, 2)}`)
    const body = candidates.find((c) => clabeCheckDigit(c) === Number(suffix[2]))
    next = body === undefined ? undefined : `${body}${suffix[2]}`
  } else if (at >= 0) next = `${value.slice(0, at)}${suffix}${value.slice(at)}`
  else if (field === "address" && !value.startsWith("0x")) next = undefined
  // An EVM address in one case carries no EIP-55 checksum to keep right.
  else if (field === "address") next = `${value.slice(0, -3)}${suffix}`.toLowerCase()
  else next = `${value.slice(0, -3)}${suffix}`
  return next === undefined ? undefined : { ...info, [field]: next }
}

onEveryStore("every payee and every corridor", "corridors_http", (stores) => {
  const server = useTestServer(async (s) => {
    const config = await s.call("PATCH", "/config", { supportedCurrencies: CORRIDORS })
    expect(config.status, JSON.stringify(config.json)).toBe(200)
  }, stores())

  let customerId = ""
  const accounts: Record<string, string> = {}
  const payees: Partial<Record<PayeeTypeName, string>> = {}

  it("AC-19 PATCH /config enables the currency of every payee type", async () => {
    const config = await server.call("GET", "/config")
    expect(config.json.supportedCurrencies.map((c: { currencyCode: string }) => c.currencyCode)).toEqual(CORRIDORS)
    expect(CORRIDORS).toEqual(expect.arrayContaining(["AED", "SGD", "ZAR", "GBP", "CAD", "INR", "PHP", "NGN", "BRL"]))
  })

  it("AC-05 every fiat internal account answers deposit instructions of its currency's scheme; a deposit funds it", async () => {
    const created = await server.call("POST", "/customers", {
      customerType: "INDIVIDUAL",
      fullName: "Ada Lovelace",
      currencies: CORRIDORS,
      endUserTermsConsent: consent
    })
    expect(created.status, JSON.stringify(created.json)).toBe(201)
    customerId = created.json.id
    const listed = await server.call("GET", `/customers/internal-accounts?customerId=${customerId}&limit=100`)
    expect(listed.json.data).toHaveLength(CORRIDORS.length)
    for (const account of listed.json.data) {
      const code: string = account.currency
      accounts[code] = account.id
      if (!FIAT.includes(code)) continue
      const [instruction, ...more] = account.fundingPaymentInstructions
      expect(more, code).toEqual([])
      expect(instruction.accountOrWalletInfo.accountType, code).toBe(depositName(code))
      expect(instruction.accountOrWalletInfo.reference, code).toMatch(/^PC[A-Z2-9]{6}$/)
      expect(instruction.accountOrWalletInfo.paymentRails.length, code).toBeGreaterThan(0)
      const amount = 10 ** currency(code).decimals * 50
      expect(await fundAccount(server, account.id, amount), code).toBe(amount)
    }
  })

  it("AC-15 AC-18 AC-19 an account of every payee type is accepted, answering the rails of its routes", async () => {
    for (const type of TYPES) {
      const { currency: code, accountInfo } = SANDBOX_PAYEES[type]
      const r = await server.call("POST", "/customers/external-accounts", {
        customerId,
        currency: code,
        ownershipType: "THIRD_PARTY",
        accountInfo
      })
      expect(r.status, `${type}: ${JSON.stringify(r.json)}`).toBe(201)
      expect(r.json.paymentRails, type).toEqual(PAYEE_TYPES[type].rails)
      expect(r.json.accountInfo.paymentRails, type).toEqual(PAYEE_TYPES[type].rails)
      payees[type] = r.json.id
    }
  })

  it("AC-19 the platform route and an agent's route take every payee type too", async () => {
    const other = await onboardCustomer(server)
    const call = asAgent(server, await agentOf(server, other.id))
    for (const type of TYPES) {
      const { currency: code, accountInfo } = SANDBOX_PAYEES[type]
      const body = { currency: code, ownershipType: "THIRD_PARTY", accountInfo }
      const platform = await server.call("POST", "/platform/external-accounts", body)
      expect(platform.status, `${type}: ${JSON.stringify(platform.json)}`).toBe(201)
      expect(platform.json.customerId).toBeUndefined()
      const byAgent = await call("POST", "/agents/me/external-accounts", body)
      expect(byAgent.status, `${type}: ${JSON.stringify(byAgent.json)}`).toBe(201)
      expect(byAgent.json).toMatchObject({ customerId: other.id, paymentRails: PAYEE_TYPES[type].rails })
    }
  })

  describe("USD to every payee type over each of its rails", () => {
    let funded = 0
    let spent = 0

    it("funds the customer's USD account", async () => {
      funded = await fundAccount(server, accounts.USD!, ROWS.length * SENT * 2)
    })

    it.each(ROWS)("Q-03 AC-19 USD → %s over %s settles", async (type, rail) => {
      const quote = await server.call("POST", "/quotes", {
        source: { sourceType: "ACCOUNT", accountId: accounts.USD },
        destination: { destinationType: "ACCOUNT", accountId: payees[type], paymentRail: rail },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: SENT
      })
      expect(quote.status, JSON.stringify(quote.json)).toBe(201)
      expect(quote.json.receivingCurrency.code).toBe(SANDBOX_PAYEES[type].currency)
      const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
      expect(executed.status, JSON.stringify(executed.json)).toBe(200)
      spent += quote.json.totalSendingAmount
      await server.processDue()
      const tx = await server.call("GET", `/transactions/${quote.json.transactionId}`)
      expect(tx.json).toMatchObject({ status: "COMPLETED", paymentRail: rail })
    })

    it("SB-06 AC-19 a primary identifier ending 004 fails every corridor's payout: ACCOUNT_CANNOT_RECEIVE, refunded", async () => {
      const refused: Array<{ readonly row: string; readonly transactionId: string }> = []
      // One account per failing identifier (a type's bank rails share theirs).
      const failingPayees = new Map<string, string>()
      for (const [type, rail] of ROWS) {
        const { currency: code, accountInfo } = SANDBOX_PAYEES[type]
        const failing = withSuffix(accountInfo as unknown as Record<string, unknown>, rail, "004")
        if (failing === undefined) continue
        const key = JSON.stringify(failing)
        if (!failingPayees.has(key)) {
          const payee = await server.call("POST", "/customers/external-accounts", {
            customerId,
            currency: code,
            ownershipType: "THIRD_PARTY",
            accountInfo: failing
          })
          expect(payee.status, `${type}: ${JSON.stringify(payee.json)}`).toBe(201)
          failingPayees.set(key, payee.json.id)
        }
        const quote = await server.call("POST", "/quotes", {
          source: { sourceType: "ACCOUNT", accountId: accounts.USD },
          destination: { destinationType: "ACCOUNT", accountId: failingPayees.get(key), paymentRail: rail },
          lockedCurrencySide: "SENDING",
          lockedCurrencyAmount: SENT
        })
        expect((await server.call("POST", `/quotes/${quote.json.id}/execute`)).status).toBe(200)
        refused.push({ row: `${type} ${rail}`, transactionId: quote.json.transactionId })
      }
      await server.processDue()
      expect(refused.length).toBeGreaterThan(ROWS.length - 4)
      for (const { row, transactionId } of refused) {
        const tx = await server.call("GET", `/transactions/${transactionId}`)
        expect(tx.json, row).toMatchObject({
          status: "FAILED",
          failureReason: "ACCOUNT_CANNOT_RECEIVE",
          refund: { status: "COMPLETED" }
        })
      }
    })

    it("the ledger is sound: every balance sums to zero per currency, and the USD account paid exactly the quotes", async () => {
      const violations = await Effect.runPromise(
        ledgerViolations.pipe(Effect.provideService(Store, server.store), Effect.orDie)
      )
      expect(violations).toEqual([])
      const usd = await server.call("GET", `/customers/internal-accounts?customerId=${customerId}&currency=USD`)
      expect(usd.json.data[0].balance.amount).toBe(funded - spent)
    })
  })
})
