/**
 * Transaction timelines over HTTP (issue 18, docs/design/dashboard-cli.md section 2; docs/transactions.md), on every
 * store: `GET /transactions/{transactionId}/timeline` for a payment and a card transaction (oldest first, the creation
 * without `from`, each move with the webhook type it emitted), 404 and 400 exactly as `GET /transactions/{id}`, any
 * token may read it; `GET /agents/me/transactions/{transactionId}/timeline` scoped to the agent's customer.
 */
import { randomUUID } from "node:crypto"
import { type CardRecord, Ids, type InternalAccountId, Store } from "@paycore/core"
import { seedCard } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { agentOf, asAgent, policyWith } from "./agent-kit.ts"
import { eventsOf } from "./cards-kit.ts"
import {
  addUsPayee,
  type CallResult,
  expectError,
  fundAccount,
  type Onboarded,
  onboardCustomer,
  quoteBody,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const purchase = (amount: number) => ({
  amount,
  currency: { code: "USD" },
  merchant: { descriptor: "BLUE BOTTLE COFFEE SF", mcc: "5814", country: "US" }
})

interface Entry {
  readonly at: string
  readonly from?: string
  readonly state: string
  readonly event?: string
}

const entries = (r: CallResult): ReadonlyArray<Entry> => {
  expect(r.status, JSON.stringify(r.json)).toBe(200)
  expect(Object.keys(r.json)).toEqual(["data"])
  return r.json.data
}

onEveryStore("transaction timelines", "timelines_http", (stores) => {
  let payer: Onboarded
  let payee: string
  let card: CardRecord
  const server = useTestServer(async (s) => {
    payer = await onboardCustomer(s)
    payee = await addUsPayee(s, payer.id)
    await fundAccount(s, payer.accounts.USD!, 100_000)
    card = await Effect.runPromise(
      seedCard(payer.id, [payer.accounts.USD as InternalAccountId]).pipe(
        Effect.provide(Layer.mergeAll(Layer.succeed(Store, s.store), Ids.layer))
      )
    )
  }, stores())
  const timeline = (id: string) => server.call("GET", `/transactions/${id}/timeline`)

  /** Executes a payout to the US payee; its transaction id. */
  const payOut = async (amount: number) => {
    const quote = await server.call(
      "POST",
      "/quotes",
      quoteBody(payer.accounts.USD!, payee, amount, { immediatelyExecute: true })
    )
    expect(quote.status, JSON.stringify(quote.json)).toBe(201)
    return quote.json.transactionId as string
  }

  it("a payout's moves oldest first: created PENDING, then each move with its webhook, as the outbox has them", async () => {
    const id = await payOut(1_000)
    await server.processDue()
    const tx = await server.call("GET", `/transactions/${id}`)
    const data = entries(await timeline(id))
    expect(data[0]).toEqual({ at: tx.json.createdAt, state: "PENDING", event: "OUTGOING_PAYMENT.PENDING" })
    for (let i = 1; i < data.length; i++) expect(data[i]!.from).toBe(data[i - 1]!.state)
    expect(data.map((e) => e.at)).toEqual(data.map((e) => e.at).sort())
    expect(data.at(-1)?.state).toBe(tx.json.status)
    expect(data.map((e) => e.event)).toEqual((await eventsOf(server, id)).map((e) => e.type))
  })

  it("a sandbox funding: created PENDING without a webhook, then COMPLETED with INCOMING_PAYMENT.COMPLETED", async () => {
    await fundAccount(server, payer.accounts.USD!, 500)
    const listed = await server.call(
      "GET",
      `/transactions?accountIdentifier=${payer.accounts.USD}&type=INCOMING&limit=1`
    )
    const id = listed.json.data[0].id as string
    expect(entries(await timeline(id)).map(({ from, state, event }) => ({ from, state, event }))).toEqual([
      { from: undefined, state: "PENDING", event: undefined },
      { from: "PENDING", state: "COMPLETED", event: "INCOMING_PAYMENT.COMPLETED" }
    ])
  })

  it("a card transaction, by its CardTransaction: id: authorized, partly cleared, settled", async () => {
    const simulate = (route: string, body: unknown) =>
      server.call("POST", `/sandbox/cards/${card.id}/simulate/${route}`, body)
    const authorized = await simulate("authorization", purchase(1_000))
    expect(authorized.status, JSON.stringify(authorized.json)).toBe(202)
    const token = authorized.json.issuerTransactionToken as string
    const found = await server.call("GET", `/transactions?reference=${encodeURIComponent(token)}`)
    const id = found.json.data[0].id as string
    expect(id.startsWith("CardTransaction:")).toBe(true)
    expect((await simulate("clearing", { cardTransactionId: id, amount: 400 })).status).toBe(202)
    expect((await simulate("clearing", { cardTransactionId: id, amount: 600 })).status).toBe(202)
    expect(entries(await timeline(id)).map(({ from, state, event }) => ({ from, state, event }))).toEqual([
      { from: undefined, state: "AUTHORIZED", event: "CARD_TRANSACTION.AUTHORIZED" },
      { from: "AUTHORIZED", state: "PARTIALLY_SETTLED", event: "CARD_TRANSACTION.PARTIALLY_SETTLED" },
      { from: "PARTIALLY_SETTLED", state: "SETTLED", event: "CARD_TRANSACTION.SETTLED" }
    ])
  })

  it("404 and 400 exactly as GET /transactions/{id}; no credentials 401", async () => {
    for (const id of [`Transaction:${randomUUID()}`, `CardTransaction:${randomUUID()}`, "Transaction:1", "Quote:x"]) {
      const [got, moves] = [await server.call("GET", `/transactions/${id}`), await timeline(id)]
      expect(got.status).toBeGreaterThanOrEqual(400)
      expect({ status: moves.status, code: moves.json.code }).toEqual({ status: got.status, code: got.json.code })
    }
    expectError(await timeline(`Transaction:${randomUUID()}`), 404, "TRANSACTION_NOT_FOUND")
    const id = await payOut(100)
    expectError(
      await server.call("GET", `/transactions/${id}/timeline`, undefined, { auth: null }),
      401,
      "UNAUTHORIZED"
    )
    const viewer = await server.token(["VIEW"])
    expect((await server.call("GET", `/transactions/${id}/timeline`, undefined, { auth: viewer })).status).toBe(200)
  })

  describe("GET /agents/me/transactions/{transactionId}/timeline", () => {
    it("the agent's customer's transaction: the platform's timeline; another customer's 404; no VIEW_TRANSACTIONS 403", async () => {
      const id = await payOut(200)
      const own = asAgent(server, await agentOf(server, payer.id))
      const platform = entries(await timeline(id))
      expect(entries(await own("GET", `/agents/me/transactions/${id}/timeline`))).toEqual(platform)
      const stranger = await onboardCustomer(server)
      const other = asAgent(server, await agentOf(server, stranger.id))
      expectError(await other("GET", `/agents/me/transactions/${id}/timeline`), 404, "TRANSACTION_NOT_FOUND")
      const blind = asAgent(server, await agentOf(server, payer.id, { policy: policyWith(["CREATE_QUOTES"]) }))
      expectError(await blind("GET", `/agents/me/transactions/${id}/timeline`), 403, "FORBIDDEN")
    })
  })
})
