/**
 * A first payment through a host's mounted API, as one of the host's callers makes it with `fetch`: a customer who
 * accepted the end-user terms, its USD account funded in the sandbox, a payee, a quote, its execution, and the
 * transaction settled by the worker running inside the host. Shared by the host examples' tests.
 */
import { expect } from "vitest"

type Json = Record<string, any>

/** `api`: the paycore API as the host serves it (`…/payments/2025-10-13`); `authorization`: the host's credential. */
export const firstPayment = async (api: string, authorization: string) => {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const json = (await response.json()) as Json
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  }

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
  const accounts = await call("GET", `/internal-account?customerId=${customer.id}&currency=USD`)
  const account = accounts.data[0] as Json
  const funded = await call("POST", `/sandbox/internal-accounts/${account.id}/fund`, { amount: 100_000 })
  const payee = await call("POST", "/customers/external-accounts", {
    customerId: customer.id,
    currency: "USD",
    accountInfo: {
      accountType: "US_ACCOUNT",
      accountNumber: "123456789",
      routingNumber: "021000021",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" }
    }
  })
  const quote = await call(
    "POST",
    "/quotes",
    {
      source: { sourceType: "ACCOUNT", accountId: account.id },
      destination: { destinationType: "ACCOUNT", accountId: payee.id, paymentRail: "RTP" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 2_500
    },
    { "idempotency-key": `first-payment-${customer.id}` }
  )
  const executed = await call("POST", `/quotes/${quote.id}/execute`)
  expect(executed.transactionId).toBeTypeOf("string")

  // Nobody drives the worker here: the host's own process settles the payment, within seconds.
  let transaction = await call("GET", `/transactions/${executed.transactionId}`)
  for (let i = 0; i < 150 && transaction.status !== "COMPLETED"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    transaction = await call("GET", `/transactions/${executed.transactionId}`)
  }
  const after = await call("GET", `/internal-account?customerId=${customer.id}&currency=USD`)
  return { funded, quote, transaction, balanceAfter: (after.data[0] as Json).balance }
}
