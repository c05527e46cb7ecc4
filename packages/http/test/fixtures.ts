import { expect } from "vitest"
import { agentOf, asAgent } from "./agent-kit.ts"
import type { IdPool } from "./fuzzer.ts"
import { addUsPayee, fundAccount, onboardCustomer, quoteBody, type TestServer, uploadDocument } from "./harness.ts"
import { ensureUsdb, walletKit } from "./wallet-kit.ts"

/**
 * An embedded wallet (a customer of a USDB platform), its credential and a session signed in with the sandbox OTP
 * through the client kit: the ids the wallet routes take.
 */
const seedWallet = async (server: TestServer) => {
  await ensureUsdb(server)
  const customer = await server.call("POST", "/customers", {
    customerType: "INDIVIDUAL",
    fullName: "Wendy Wallet",
    email: `wendy.${Date.now()}@example.com`,
    currencies: ["USDB"]
  })
  const accounts = await server.call("GET", `/customers/internal-accounts?customerId=${customer.json.id}`)
  const accountId: string = accounts.json.data[0].id
  const credential = (await server.call("GET", `/auth/credentials?accountId=${accountId}`)).json.data[0]
  const { session } = await walletKit(server).signIn(credential.id)
  return { customer: customer.json, accountId, credential, session }
}

/**
 * Customers, accounts, a payee, a quote, a payment, a business with an owner, a document, a delivery, a token, an
 * agent of the first customer with every permission and a quote of its own: one of each kind of resource, their ids
 * in `pool` (the fuzzer and the auth matrix draw ids from it). Returns the two customers' ids and the agent (its
 * Bearer token lets the fuzzer reach past the `/agents/me` gate).
 */
export const seedFixtures = async (server: TestServer, pool: IdPool) => {
  const ada = await onboardCustomer(server, { currencies: ["USD", "EUR"] })
  const payer = ada.accounts.USD!
  await fundAccount(server, payer, 1_000_000)
  const payee = await addUsPayee(server, ada.id)
  const quote = await server.call("POST", "/quotes", quoteBody(payer, payee, 1000))
  const paid = await server.call("POST", "/quotes", quoteBody(payer, payee, 700, { immediatelyExecute: true }))
  const business = await server.call("POST", "/customers", {
    customerType: "BUSINESS",
    currencies: ["USD"],
    businessInfo: {
      legalName: "Analytical Engines Ltd",
      country: "GB",
      incorporatedOn: "2019-05-01",
      taxId: "GB123456789"
    }
  })
  const owner = await server.call("POST", "/beneficial-owners", {
    customerId: business.json.id,
    roles: ["UBO"],
    ownershipPercentage: 60,
    personalInfo: {
      firstName: "Charles",
      lastName: "Babbage",
      birthDate: "1971-12-26",
      nationality: "GB",
      address: { line1: "1 Dorset St", postalCode: "W1U 4EG", country: "GB" },
      idType: "NON_US_TAX_ID",
      identifier: "AB123456C"
    }
  })
  const document = await uploadDocument(server, ada.id, "PASSPORT")
  const wallet = await seedWallet(server)
  const endpoint = await server.call("PATCH", "/config", { webhookEndpoint: "https://platform.example.com/hooks" })
  const delivery = await server.call("POST", "/sandbox/webhooks/test")
  // The only token id in the pool: a `deleteToken` cell that passes the gate deletes it, never a column's token.
  const victim = await server.call("POST", "/tokens", { name: "matrix-victim", permissions: ["VIEW"] })
  for (const r of [quote, paid, business, owner, endpoint, delivery, victim]) {
    expect(r.status, JSON.stringify(r.json)).toBeLessThan(300)
    pool.harvest(r.json)
  }
  const agent = await agentOf(server, ada.id)
  const agentQuote = await asAgent(server, agent)("POST", "/agents/me/quotes", quoteBody(payer, payee, 900))
  expect(agentQuote.status, JSON.stringify(agentQuote.json)).toBe(201)
  pool.harvest([ada, document, wallet, agent.agentId, agentQuote.json])
  // Deliveries (the test event's among them) are only listed: the test answer carries no id.
  pool.harvest((await server.call("GET", "/webhooks/deliveries")).json)
  return { customers: [ada.id, business.json.id as string] as const, agent }
}
