import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { consent, startTestServer, type TestServer } from "./harness.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

describe("a first payment over HTTP", () => {
  it("onboards, funds, quotes, executes and settles", async () => {
    const customer = await server.call("POST", "/customers", {
      customerType: "INDIVIDUAL",
      fullName: "Ada Lovelace",
      currencies: ["USD"],
      endUserTermsConsent: consent
    })
    expect(customer.status).toBe(201)
    const accounts = await server.call("GET", `/customers/internal-accounts?customerId=${customer.json.id}`)
    const account = accounts.json.data[0]
    const funded = await server.call("POST", `/sandbox/internal-accounts/${account.id}/fund`, { amount: 10_000 })
    expect(funded.json.balance.amount).toBe(10_000)
    const payee = await server.call("POST", "/customers/external-accounts", {
      customerId: customer.json.id,
      currency: "USD",
      accountInfo: {
        accountType: "US_ACCOUNT",
        accountNumber: "123456789",
        routingNumber: "021000021",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" }
      }
    })
    expect(payee.status).toBe(201)
    const quote = await server.call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: account.id },
      destination: { destinationType: "ACCOUNT", accountId: payee.json.id },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 2_500
    })
    expect(quote.status).toBe(201)
    const executed = await server.call("POST", `/quotes/${quote.json.id}/execute`)
    expect(executed.json.status).toBe("PROCESSING")
    await server.processDue()
    const tx = await server.call("GET", `/transactions/${quote.json.transactionId}`)
    expect(tx.json.status).toBe("COMPLETED")
    expect(tx.json.settledAt).toBeTypeOf("string")
    const after = await server.call("GET", `/internal-account?customerId=${customer.json.id}&currency=USD`)
    expect(after.json.data[0].balance.amount).toBe(7_500)
  })
})
