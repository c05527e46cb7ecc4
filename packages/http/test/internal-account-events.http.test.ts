/**
 * WH-22: `INTERNAL_ACCOUNT.BALANCE_UPDATED`, written in the store transaction of each ledger write that moves an
 * internal account's `balance` or `totalBalance` (accounts/balance-updates.ts), delivered signed like every event,
 * its body the upstream's `InternalAccountStatusWebhook` with the account as `GET` shows it. On the memory store,
 * PGlite and PostgreSQL.
 */
import { expect, it } from "vitest"
import { eventsAbout } from "./agent-actions-kit.ts"
import { upstreamChecker } from "./conformance.ts"
import {
  addUsPayee,
  expectError,
  fundAccount,
  type Onboarded,
  onboardCustomer,
  quoteBody,
  type TestServer,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

const ENDPOINT = "https://platform.example/webhooks"
const BALANCE_UPDATED = "INTERNAL_ACCOUNT.BALANCE_UPDATED"

/** The account's BALANCE_UPDATED events in the outbox, oldest first: `[balance, totalBalance]` of each. */
const balanceEvents = async (server: TestServer, accountId: string) =>
  (await eventsAbout(server, accountId))
    .filter((e) => e.type === BALANCE_UPDATED)
    .map((e) => [e.data.balance.amount, e.data.totalBalance.amount])

/** The bodies of the BALANCE_UPDATED events of `accountId` the receiver got. */
const delivered = (server: TestServer, accountId: string) =>
  server.webhooks
    .requests()
    .map((r) => JSON.parse(r.body))
    .filter((e) => e.type === BALANCE_UPDATED && e.data.id === accountId)

onEveryStore("WH-22 INTERNAL_ACCOUNT.BALANCE_UPDATED", "internal_account_events_http", (stores) => {
  let customer: Onboarded
  let account: string
  const server = useTestServer(async (s) => {
    expect((await s.call("PATCH", "/config", { webhookEndpoint: ENDPOINT })).status).toBe(200)
    customer = await onboardCustomer(s)
    account = customer.accounts.USD!
  }, stores())

  it("WH-22: a sandbox deposit announces the account with its new balances, delivered in the upstream's shape", async () => {
    await fundAccount(server, account, 10_000)
    expect(await balanceEvents(server, account)).toEqual([[10_000, 10_000]])
    await server.dispatch()
    const [event] = delivered(server, account)
    expect(event).toBeDefined()
    const shown = await server.call("GET", `/customers/internal-accounts?customerId=${customer.id}`)
    expect(event.data).toEqual(shown.json.data.find((a: { id: string }) => a.id === account))
    expect(event).toMatchObject({ type: BALANCE_UPDATED, id: expect.stringMatching(/^Webhook:/) })
    expect(upstreamChecker()!.checkSchema("InternalAccountStatusWebhook", event)).toEqual([])
  })

  it("WH-22: a payout announces the hold (available down) and its settlement (total down); both delivered", async () => {
    const payee = await addUsPayee(server, customer.id)
    const quote = await server.call("POST", "/quotes", quoteBody(account, payee, 1_000, { immediatelyExecute: true }))
    expect(quote.status).toBe(201)
    const total = quote.json.totalSendingAmount as number
    expect((await balanceEvents(server, account)).slice(1)).toEqual([[10_000 - total, 10_000]])
    await server.processDue()
    expect((await balanceEvents(server, account)).slice(1)).toEqual([
      [10_000 - total, 10_000],
      [10_000 - total, 10_000 - total]
    ])
    await server.dispatch()
    const bodies = delivered(server, account)
    expect(bodies.map((e) => [e.data.balance.amount, e.data.totalBalance.amount])).toEqual([
      [10_000, 10_000],
      [10_000 - total, 10_000],
      [10_000 - total, 10_000 - total]
    ])
    for (const body of bodies) {
      expect(upstreamChecker()!.checkSchema("InternalAccountStatusWebhook", body)).toEqual([])
    }
  })

  it("WH-22: a payment refused for funds moves nothing and announces nothing", async () => {
    const before = await balanceEvents(server, account)
    const payee = await addUsPayee(server, customer.id, { accountNumber: "987654321" })
    const quote = await server.call("POST", "/quotes", quoteBody(account, payee, 1_000_000))
    expect(quote.status).toBe(201)
    expectError(await server.call("POST", `/quotes/${quote.json.id}/execute`), 400, "INSUFFICIENT_FUNDS")
    expect(await balanceEvents(server, account)).toEqual(before)
  })

  it("WH-22: an internal transfer announces both accounts, each with its own balances", async () => {
    const other = await onboardCustomer(server)
    const target = other.accounts.USD!
    const before = (await balanceEvents(server, account)).length
    const quote = await server.call("POST", "/quotes", quoteBody(account, target, 500, { immediatelyExecute: true }))
    expect(quote.status, JSON.stringify(quote.json)).toBe(201)
    const mine = (await balanceEvents(server, account)).slice(before)
    const [available, totalBalance] = mine.at(-1)!
    expect(available).toBe(totalBalance)
    expect(await balanceEvents(server, target)).toEqual([[500, 500]])
  })
})
