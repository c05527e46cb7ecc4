import type { InternalAccountId } from "@paycore/core"
import { openAgentPolicy, seedCard, seedCardTransaction } from "@paycore/testkit"
import { beforeAll, expect, it } from "vitest"
import {
  type AgentCall,
  agentOf,
  asAgent,
  everyItem,
  expectUnchangedBy,
  insertAction,
  runOn,
  usPayeeBody
} from "./agent-kit.ts"
import {
  addUsPayee,
  type CallResult,
  expectError,
  fundAccount,
  type Onboarded,
  onboardCustomer,
  quoteBody,
  type TestServer,
  useTestServer
} from "./harness.ts"
import { onEveryStore } from "./stores.ts"

interface AgentSide {
  readonly agentId: string
  readonly call: AgentCall
  /** Its quotes: one left PENDING, one executed (with an APPROVED action), one held (a PENDING_APPROVAL action). */
  readonly quotes: ReadonlyArray<string>
  readonly actions: ReadonlyArray<string>
  /** The payment of its executed quote. */
  readonly payment: string
  /** An external account it created through `/agents/me`. */
  readonly externalAccount: string
}

interface CustomerSide {
  readonly customer: Onboarded
  /** USD (allowed to its agents) and EUR (not). */
  readonly internalAccounts: ReadonlyArray<string>
  readonly externalAccounts: ReadonlyArray<string>
  /** A settled platform payment, a card transaction and the agents' payments. */
  readonly transactions: ReadonlyArray<string>
  /** The platform's own quote. */
  readonly platformQuote: string
  readonly agents: readonly [AgentSide, AgentSide]
}

let accountNumber = 600_000_000
/** A US payee with an account number of its own. */
const newPayeeBody = (extra: Record<string, unknown> = {}) => usPayeeBody(String(accountNumber++), extra)

const created = (r: CallResult) => {
  expect(r.status, JSON.stringify(r.json)).toBeLessThan(300)
  return r.json
}

/** A customer with its accounts, payee, settled payment, card transaction, platform quote and two agents. */
const customerSide = async (server: TestServer): Promise<CustomerSide> => {
  const customer = await onboardCustomer(server, { currencies: ["USD", "EUR"] })
  const usd = customer.accounts.USD!
  await fundAccount(server, usd, 1_000_000)
  const payee = await addUsPayee(server, customer.id, { accountNumber: String(accountNumber++) })
  const settled = created(
    await server.call("POST", "/quotes", quoteBody(usd, payee, 700, { immediatelyExecute: true }))
  )
  const platformQuote = created(await server.call("POST", "/quotes", quoteBody(usd, payee, 800)))
  const card = await runOn(server, seedCard(customer.id, [usd as InternalAccountId]))
  const cardTransaction = await runOn(
    server,
    seedCardTransaction(card, { state: "SETTLED", authorizedAmount: 900, settledAmount: 900 })
  )
  const agent = async (): Promise<AgentSide> => {
    const seeded = await agentOf(server, customer.id, {
      policy: { ...openAgentPolicy(), accountRestrictions: { allowedAccountIds: [usd] } }
    })
    const call = asAgent(server, seeded)
    const quote = async () => created(await call("POST", "/agents/me/quotes", quoteBody(usd, payee, 1000)))
    const open = await quote()
    const executed = await quote()
    // Q16: the platform may execute an agent's quote; its payment carries the agent (AG-38).
    created(await server.call("POST", `/quotes/${executed.id}/execute`))
    const approved = await insertAction(server, seeded.record, {
      status: "APPROVED",
      quoteId: executed.id,
      transactionId: executed.transactionId
    })
    const held = await quote()
    const pending = await insertAction(server, seeded.record, { status: "PENDING_APPROVAL", quoteId: held.id })
    const externalAccount = created(await call("POST", "/agents/me/external-accounts", newPayeeBody())).id
    return {
      agentId: seeded.agentId,
      call,
      quotes: [open.id, executed.id, held.id],
      actions: [approved.id, pending.id],
      payment: executed.transactionId,
      externalAccount
    }
  }
  const agents = [await agent(), await agent()] as const
  await server.processDue()
  return {
    customer,
    internalAccounts: [usd, customer.accounts.EUR!],
    externalAccounts: [payee, ...agents.map((a) => a.externalAccount)],
    transactions: [settled.transactionId, cardTransaction.id, ...agents.map((a) => a.payment)],
    platformQuote: platformQuote.id,
    agents
  }
}

/** The ids of every page of an `/agents/me` list. */
const everyId = async (call: AgentCall, path: string) => (await everyItem(call, path)).map((item) => item.id)

onEveryStore("the agents' isolation matrix", "agent_isolation_http", (stores) => {
  const server = useTestServer(async () => {}, stores())
  let sides: readonly [CustomerSide, CustomerSide]
  beforeAll(async () => {
    sides = [await customerSide(server), await customerSide(server)]
  }, 120_000)

  /** Each agent with its own customer's side, its sibling and the other customer's side. */
  const eachAgent = () =>
    sides.flatMap((own, s) =>
      own.agents.map((agent, a) => ({ agent, own, sibling: own.agents[1 - a]!, other: sides[1 - s]! }))
    )

  /** `expectUnchangedBy` with the keys of `agentId` and the usage counters of all four agents. */
  const unchangedBy = (agentId: string, act: (key: () => Record<string, string>) => Promise<void>) =>
    expectUnchangedBy(server, act, { agentId, agentIds: sides.flatMap((side) => side.agents.map((a) => a.agentId)) })

  it("C-48, AG-28, AG-32, AG-35, AG-37: every read of another customer's id, or of the sibling agent's quote or action, is 404", async () => {
    for (const { agent, own, sibling, other } of eachAgent()) {
      await unchangedBy(agent.agentId, async () => {
        for (const id of other.externalAccounts) {
          expectError(await agent.call("GET", `/agents/me/external-accounts/${id}`), 404, "REFERENCE_NOT_FOUND")
        }
        const quotes = [
          ...other.agents.flatMap((a) => a.quotes),
          other.platformQuote,
          ...sibling.quotes,
          own.platformQuote
        ]
        for (const id of quotes) expectError(await agent.call("GET", `/agents/me/quotes/${id}`), 404, "QUOTE_NOT_FOUND")
        for (const id of other.transactions) {
          expectError(await agent.call("GET", `/agents/me/transactions/${id}`), 404, "TRANSACTION_NOT_FOUND")
        }
        for (const id of [...other.agents.flatMap((a) => a.actions), ...sibling.actions]) {
          expectError(await agent.call("GET", `/agents/me/actions/${id}`), 404, "REFERENCE_NOT_FOUND")
        }
      })
    }
  }, 120_000)

  it("C-48, AG-26, AG-29, AG-31, Q1: every write naming another customer's id (path or body) is 404 and changes nothing", async () => {
    for (const { agent, own, other } of eachAgent()) {
      const [usd] = own.internalAccounts as [string]
      const payee = own.externalAccounts[0]!
      await unchangedBy(agent.agentId, async (key) => {
        for (const id of other.externalAccounts) {
          expectError(
            await agent.call("DELETE", `/agents/me/external-accounts/${id}`, undefined, key()),
            404,
            "REFERENCE_NOT_FOUND"
          )
          expectError(
            await agent.call("POST", "/agents/me/quotes", quoteBody(usd, id, 1000), key()),
            404,
            "REFERENCE_NOT_FOUND"
          )
        }
        for (const id of other.internalAccounts) {
          expectError(
            await agent.call("POST", "/agents/me/quotes", quoteBody(id, payee, 1000), key()),
            404,
            "REFERENCE_NOT_FOUND"
          )
          expectError(
            await agent.call("POST", "/agents/me/quotes", quoteBody(usd, id, 1000), key()),
            404,
            "REFERENCE_NOT_FOUND"
          )
        }
        const named = quoteBody(usd, payee, 1000)
        expectError(
          await agent.call(
            "POST",
            "/agents/me/quotes",
            { ...named, source: { ...named.source, customerId: other.customer.id } },
            key()
          ),
          404,
          "USER_NOT_FOUND"
        )
        expectError(
          await agent.call(
            "POST",
            "/agents/me/external-accounts",
            newPayeeBody({ customerId: other.customer.id }),
            key()
          ),
          404,
          "USER_NOT_FOUND"
        )
      })
    }
  }, 120_000)

  it("C-48: the two agents of one customer share its accounts and transactions (200), not their quotes or actions", async () => {
    for (const { agent, own, sibling } of eachAgent()) {
      const read = await agent.call("GET", `/agents/me/external-accounts/${sibling.externalAccount}`)
      expect(read.status).toBe(200)
      expect(read.json.customerId).toBe(own.customer.id)
      for (const id of own.transactions) {
        const r = await agent.call("GET", `/agents/me/transactions/${id}`)
        expect(r.status, `${id}: ${JSON.stringify(r.json)}`).toBe(200)
      }
      for (const id of agent.quotes) expect((await agent.call("GET", `/agents/me/quotes/${id}`)).status).toBe(200)
      for (const id of agent.actions) expect((await agent.call("GET", `/agents/me/actions/${id}`)).status).toBe(200)
      // A quote to the account the sibling created is the customer's own.
      const shared = await agent.call(
        "POST",
        "/agents/me/quotes",
        quoteBody(own.internalAccounts[0]!, sibling.externalAccount, 100)
      )
      expect(shared.status, JSON.stringify(shared.json)).toBe(201)
    }
  }, 120_000)

  it("C-48, AG-25, AG-27, AG-34, AG-36: no list of an agent shows another customer's id, nor another agent's action", async () => {
    for (const { agent, own, sibling, other } of eachAgent()) {
      const foreign = new Set([
        other.customer.id,
        ...other.internalAccounts,
        ...other.externalAccounts,
        ...other.transactions,
        ...other.agents.flatMap((a) => [...a.actions, ...a.quotes]),
        ...sibling.actions
      ])
      const lists = {
        internal: await everyId(agent.call, "/agents/me/internal-accounts"),
        external: await everyId(agent.call, "/agents/me/external-accounts"),
        transactions: await everyId(agent.call, "/agents/me/transactions"),
        actions: await everyId(agent.call, "/agents/me/actions")
      }
      for (const [name, listed] of Object.entries(lists)) {
        expect(
          listed.filter((id) => foreign.has(id)),
          `${name} of ${agent.agentId}`
        ).toEqual([])
      }
      expect(lists.internal.sort()).toEqual([...own.internalAccounts].sort())
      expect(lists.external).toEqual(expect.arrayContaining([...own.externalAccounts]))
      expect(lists.transactions).toEqual(expect.arrayContaining([...own.transactions]))
      expect(lists.actions.sort()).toEqual([...agent.actions].sort())
    }
  }, 120_000)

  it("A-07: the platform's Basic credentials open no /agents/me route (401 with the Bearer challenge)", async () => {
    const [{ agents, externalAccounts, transactions, customer }] = sides
    const [agent] = agents
    const routes: ReadonlyArray<readonly [string, string, unknown?]> = [
      ["GET", "/agents/me"],
      ["GET", "/agents/me/internal-accounts"],
      ["POST", "/agents/me/external-accounts", newPayeeBody()],
      ["GET", "/agents/me/external-accounts"],
      ["GET", `/agents/me/external-accounts/${externalAccounts[0]}`],
      ["DELETE", `/agents/me/external-accounts/${externalAccounts[0]}`],
      ["POST", "/agents/me/quotes", quoteBody(customer.accounts.USD!, externalAccounts[0]!, 100)],
      ["GET", `/agents/me/quotes/${agent.quotes[0]}`],
      ["POST", `/agents/me/quotes/${agent.quotes[0]}/execute`],
      [
        "POST",
        "/agents/me/transfer-out",
        { source: { accountId: customer.accounts.USD }, destination: { accountId: externalAccounts[0] }, amount: 100 }
      ],
      [
        "POST",
        "/agents/me/transfer-in",
        { source: { accountId: externalAccounts[0] }, destination: { accountId: customer.accounts.USD }, amount: 100 }
      ],
      ["GET", "/agents/me/transactions"],
      ["GET", `/agents/me/transactions/${transactions[0]}`],
      ["GET", "/agents/me/actions"],
      ["GET", `/agents/me/actions/${agent.actions[0]}`]
    ]
    await unchangedBy(agent.agentId, async (key) => {
      for (const [method, path, body] of routes) {
        const r = await server.call(method, path, body, { headers: method === "GET" ? {} : key() })
        expectError(r, 401, "UNAUTHORIZED")
        expect(r.headers.get("www-authenticate"), path).toBe('Bearer realm="paycore"')
      }
    })
  })

  it("C-48: an agent's execute and transfers naming another customer's id, or the sibling's quote, are 404", async () => {
    for (const { agent, own, sibling, other } of eachAgent()) {
      const [usd] = own.internalAccounts as [string]
      const payee = own.externalAccounts[0]!
      await unchangedBy(agent.agentId, async (key) => {
        for (const id of [...other.agents.flatMap((a) => a.quotes), ...sibling.quotes, other.platformQuote]) {
          const r = await agent.call("POST", `/agents/me/quotes/${id}/execute`, undefined, key())
          expectError(r, 404, "QUOTE_NOT_FOUND")
        }
        for (const id of other.internalAccounts) {
          const out = { source: { accountId: id }, destination: { accountId: payee }, amount: 100 }
          expect((await agent.call("POST", "/agents/me/transfer-out", out, key())).status).toBe(404)
          const into = { source: { accountId: payee }, destination: { accountId: id }, amount: 100 }
          expect((await agent.call("POST", "/agents/me/transfer-in", into, key())).status).toBe(404)
        }
        for (const id of other.externalAccounts) {
          const out = { source: { accountId: usd }, destination: { accountId: id }, amount: 100 }
          expect((await agent.call("POST", "/agents/me/transfer-out", out, key())).status).toBe(404)
          const into = { source: { accountId: id }, destination: { accountId: usd }, amount: 100 }
          expect((await agent.call("POST", "/agents/me/transfer-in", into, key())).status).toBe(404)
        }
      })
    }
  }, 120_000)
})
