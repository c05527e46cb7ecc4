/**
 * A payment end to end over the Quill rail: the example server (paycore's HTTP binding with `QuillRail` as its rail)
 * on a free port, a customer paying an EUR IBAN over SEPA_INSTANT with `fetch`, and the worker inside the server
 * settling it through the simulated scheme within seconds; a payment above Quill's per-payment limit fails with
 * LIMIT_EXCEEDED and its money comes back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type RunningQuillServer, startQuillServer } from "../src/server.ts"

type Json = Record<string, any>

let server: RunningQuillServer

beforeAll(async () => {
  // A limit of €50.00 so that the second payment is refused.
  server = await startQuillServer({ port: 0, perPaymentLimitCents: 5_000 })
})
afterAll(() => server.close())

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.api}${path}`, {
    method,
    headers: {
      authorization: server.authorization,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const json = (await response.json()) as Json
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

/** A customer with a funded USD account and an EUR IBAN payee. */
const customerWithPayee = async () => {
  const terms = await call("GET", "/customers/end-user-terms")
  const customer = await call("POST", "/customers", {
    customerType: "INDIVIDUAL",
    fullName: "Ada Lovelace",
    currencies: ["USD"],
    endUserTermsConsent: {
      acceptedAt: new Date().toISOString(),
      ipAddress: "203.0.113.7",
      termsVersion: terms.version,
      acceptanceMethod: "CHECKBOX"
    }
  })
  const account = (await call("GET", `/internal-account?customerId=${customer.id}&currency=USD`)).data[0] as Json
  await call("POST", `/sandbox/internal-accounts/${account.id}/fund`, { amount: 100_000 })
  const payee = await call("POST", "/customers/external-accounts", {
    customerId: customer.id,
    currency: "EUR",
    accountInfo: {
      accountType: "IBAN",
      iban: "DE89370400440532013000",
      swiftCode: "COBADEFFXXX",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Emmy Noether", countryOfResidence: "DE" }
    }
  })
  return { customer, account, payee }
}

const pay = async (accountId: string, payeeId: string, usdCents: number) => {
  const quote = await call(
    "POST",
    "/quotes",
    {
      source: { sourceType: "ACCOUNT", accountId },
      destination: { destinationType: "ACCOUNT", accountId: payeeId, paymentRail: "SEPA_INSTANT" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: usdCents
    },
    { "idempotency-key": crypto.randomUUID() }
  )
  const executed = await call("POST", `/quotes/${quote.id}/execute`)
  // The worker inside the server asks Quill; the simulated scheme decides 3 s after it accepted the transfer.
  let transaction = await call("GET", `/transactions/${executed.transactionId}`)
  for (let i = 0; i < 200 && (transaction.status === "PENDING" || transaction.status === "PROCESSING"); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    transaction = await call("GET", `/transactions/${executed.transactionId}`)
  }
  return { quote, transaction }
}

describe("a server with the Quill rail in place of the sandbox rail", () => {
  it("pays an EUR IBAN over SEPA_INSTANT through Quill: the payment settles, the USD account is debited", async () => {
    const { customer, account, payee } = await customerWithPayee()
    const { quote, transaction } = await pay(account.id, payee.id, 2_500)
    expect(transaction).toMatchObject({ status: "COMPLETED", paymentRail: "SEPA_INSTANT" })
    expect(quote.receivingCurrency.code).toBe("EUR")
    const after = (await call("GET", `/internal-account?customerId=${customer.id}&currency=USD`)).data[0] as Json
    expect(after.balance.amount).toBe(100_000 - quote.totalSendingAmount)
  })

  it("a payment above Quill's per-payment limit is refused at submission: FAILED, LIMIT_EXCEEDED, the money back", async () => {
    const { customer, account, payee } = await customerWithPayee()
    const { transaction } = await pay(account.id, payee.id, 20_000)
    expect(transaction).toMatchObject({ status: "FAILED", failureReason: "LIMIT_EXCEEDED" })
    const after = (await call("GET", `/internal-account?customerId=${customer.id}&currency=USD`)).data[0] as Json
    expect(after.balance.amount).toBe(100_000)
  })
})
