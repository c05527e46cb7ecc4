/**
 * An agent's money movement over HTTP (issue 16, slice B; docs/design/agents.md section 3 "Submit an execute"):
 * executes and transfers run within the policy (AUTO), wait for the platform (PENDING_APPROVAL, with the
 * `AGENT_ACTION.PENDING_APPROVAL` webhook), or are refused with the policy's reason and leave nothing behind.
 */
import { readUsageSteps } from "@paycore/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  actionsOf,
  agentPolicy,
  agentQuote,
  asAgent,
  backdateQuote,
  balanceOfAccount,
  changeAgent,
  eventsAbout,
  eventsOfType,
  execute,
  expectRefused,
  type Payer,
  pay,
  payer,
  payment,
  seedAgentOf,
  transactionOf
} from "./agent-actions-kit.ts"
import { expectError, type TestServer, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

/** The agent's usage now, read from the store's counters (in its policy currency). */
const usage = (server: TestServer, agentId: string, currency = "USD") =>
  Effect.runPromise(Effect.gen(() => readUsageSteps(server.store, agentId, currency, new Date().toISOString())))

const actionsSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())

  describe("execute in AUTO", () => {
    it("AG-33, AG-38, AG-05: within the policy → 200 APPROVED with the transaction (agentId), money moved, usage counted", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(server, c.id)
      const { quote, executed } = await pay(server, agent, c.accounts.USD!, c.usdPayee, 2_500)
      expect(executed.status, JSON.stringify(executed.json)).toBe(200)
      expect(executed.json).toMatchObject({
        agentId: agent.agentId,
        customerId: c.id,
        status: "APPROVED",
        type: "EXECUTE_QUOTE",
        quote: { id: quote.id },
        transaction: { id: quote.transactionId, agentId: agent.agentId }
      })
      expect(executed.json.id).toMatch(/^AgentAction:[0-9a-f-]{36}$/)
      expect(["PROCESSING", "COMPLETED"]).toContain(executed.json.transaction.status)
      expect((await transactionOf(server, quote.transactionId)).agentId).toBe(agent.agentId)
      expect(await balanceOfAccount(server, c.id, c.accounts.USD!)).toBe(1_000_000 - 2_500)
      expect(await usage(server, agent.agentId)).toMatchObject({
        dailySpend: 2_500,
        monthlySpend: 2_500,
        dailyTransactionCount: 1
      })
      // AUTO runs tell nobody: the transaction emits its own events.
      expect((await eventsAbout(server, executed.json.id)).map((e) => e.type)).toEqual([])
    })

    it("AG-06: a EUR payment is counted against USD limits at the sandbox rate, rounded up; equal to the limit is allowed", async () => {
      const c = await payer(server, { usd: 0, eur: 100_000 })
      // 1 000 EUR cents at 0.92 EUR per USD are 1 086.96 USD cents: 1 087 counted.
      const agent = await seedAgentOf(server, c.id, agentPolicy({ spendingLimits: { dailyLimit: 1_087 } }))
      const first = await pay(server, agent, c.accounts.EUR!, c.eurPayee!, 1_000)
      expect(first.executed.status, JSON.stringify(first.executed.json)).toBe(200)
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 1_087, dailyTransactionCount: 1 })
      // One more EUR cent is 1.087 USD cents: 2 counted, over the limit.
      const second = await pay(server, agent, c.accounts.EUR!, c.eurPayee!, 1)
      expectRefused(second.executed, "DAILY_LIMIT_EXCEEDED")
      expect(second.executed.json.details).toMatchObject({ limit: 1_087, used: 1_087, amount: 2, currency: "USD" })
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 1_087, dailyTransactionCount: 1 })
    })
  })

  describe("refusals: 403 with the reason, nothing written", () => {
    /** The refused execute left no action, no count, no move, and the quote PENDING. */
    const expectNothing = async (c: Payer, agentId: string, quote: { id: string; transactionId: string }) => {
      expect(await actionsOf(server, agentId)).toEqual([])
      expect(await usage(server, agentId)).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 })
      expect(await balanceOfAccount(server, c.id, c.accounts.USD!)).toBe(1_000_000)
      expect((await server.call("GET", `/quotes/${quote.id}`)).json.status).toBe("PENDING")
      expect((await transactionOf(server, quote.transactionId)).status).toBe("PENDING")
    }

    it("AG-10: a paused agent → 403 AGENT_PAUSED", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(server, c.id)
      const quote = await agentQuote(server, agent, payment(c.accounts.USD!, c.usdPayee, 100))
      await changeAgent(server, agent.agentId, { isPaused: true })
      expectRefused(await execute(server, agent, quote.id), "AGENT_PAUSED")
      await expectNothing(c, agent.agentId, quote)
    })

    it("AG-30: without EXECUTE_QUOTES → 403 PERMISSION_MISSING", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(server, c.id, agentPolicy({ permissions: ["CREATE_QUOTES"] }))
      const quote = await agentQuote(server, agent, payment(c.accounts.USD!, c.usdPayee, 100))
      expectRefused(await execute(server, agent, quote.id), "PERMISSION_MISSING")
      await expectNothing(c, agent.agentId, quote)
    })

    it("AG-03: a source outside allowedAccountIds → 403 ACCOUNT_NOT_ALLOWED", async () => {
      const c = await payer(server, { eur: 0 })
      const agent = await seedAgentOf(server, c.id)
      const quote = await agentQuote(server, agent, payment(c.accounts.USD!, c.usdPayee, 100))
      const policy = agentPolicy({ accountRestrictions: { allowedAccountIds: [c.accounts.EUR!] } })
      await changeAgent(server, agent.agentId, { policy })
      const refused = await execute(server, agent, quote.id)
      expectRefused(refused, "ACCOUNT_NOT_ALLOWED")
      expect(refused.json.details.accountId).toBe(c.accounts.USD)
      await expectNothing(c, agent.agentId, quote)
    })

    it("AG-06: above perTransactionLimit → 403 PER_TRANSACTION_LIMIT_EXCEEDED; an account rule's own limit wins", async () => {
      const c = await payer(server)
      const strict = await seedAgentOf(server, c.id)
      const quote = await agentQuote(server, strict, payment(c.accounts.USD!, c.usdPayee, 1_001))
      await changeAgent(server, strict.agentId, {
        policy: agentPolicy({ spendingLimits: { perTransactionLimit: 1_000 } })
      })
      expectRefused(await execute(server, strict, quote.id), "PER_TRANSACTION_LIMIT_EXCEEDED")
      await expectNothing(c, strict.agentId, quote)

      const ruled = await seedAgentOf(
        server,
        c.id,
        agentPolicy({
          spendingLimits: { perTransactionLimit: 1_000 },
          accountRestrictions: { accountRules: [{ accountId: c.accounts.USD!, perTransactionLimit: 5_000 }] }
        })
      )
      expect((await pay(server, ruled, c.accounts.USD!, c.usdPayee, 5_000)).executed.json.status).toBe("APPROVED")
    })

    it("AG-06: daily, monthly and daily-transaction limits → 403 with limit, used and amount", async () => {
      const c = await payer(server)
      const daily = await seedAgentOf(server, c.id, agentPolicy({ spendingLimits: { dailyLimit: 1_000 } }))
      expect((await pay(server, daily, c.accounts.USD!, c.usdPayee, 600)).executed.status).toBe(200)
      const over = await pay(server, daily, c.accounts.USD!, c.usdPayee, 401)
      expectRefused(over.executed, "DAILY_LIMIT_EXCEEDED")
      expect(over.executed.json.details).toMatchObject({ limit: 1_000, used: 600, amount: 401, currency: "USD" })
      expect((await pay(server, daily, c.accounts.USD!, c.usdPayee, 400)).executed.status).toBe(200)

      const monthly = await seedAgentOf(server, c.id, agentPolicy({ spendingLimits: { monthlyLimit: 500 } }))
      expectRefused((await pay(server, monthly, c.accounts.USD!, c.usdPayee, 501)).executed, "MONTHLY_LIMIT_EXCEEDED")

      const counted = await seedAgentOf(server, c.id, agentPolicy({ spendingLimits: { dailyTransactionLimit: 1 } }))
      expect((await pay(server, counted, c.accounts.USD!, c.usdPayee, 1)).executed.status).toBe(200)
      const second = await pay(server, counted, c.accounts.USD!, c.usdPayee, 1)
      expectRefused(second.executed, "DAILY_TRANSACTION_LIMIT_EXCEEDED")
      expect(await usage(server, counted.agentId)).toMatchObject({ dailyTransactionCount: 1, dailySpend: 1 })
      expect((await server.call("GET", `/quotes/${second.quote.id}`)).json.status).toBe("PENDING")
    })

    it("AG-33: a refusal of the payment itself (INSUFFICIENT_FUNDS) rolls back the count and the action", async () => {
      const c = await payer(server, { usd: 1_000 })
      const agent = await seedAgentOf(server, c.id)
      const { quote, executed } = await pay(server, agent, c.accounts.USD!, c.usdPayee, 5_000)
      expectError(executed, 400, "INSUFFICIENT_FUNDS")
      expect(await actionsOf(server, agent.agentId)).toEqual([])
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 })
      expect((await transactionOf(server, quote.transactionId)).status).toBe("PENDING")
    })

    it("C-48, AG-33: an unknown quote, the platform's own and another agent's → 404 QUOTE_NOT_FOUND", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(server, c.id)
      const other = await seedAgentOf(server, c.id)
      const theirs = await agentQuote(server, other, payment(c.accounts.USD!, c.usdPayee, 100))
      const platform = await server.call("POST", "/quotes", payment(c.accounts.USD!, c.usdPayee, 100))
      for (const id of [theirs.id, platform.json.id, "Quote:00000000-0000-7000-8000-000000000000"]) {
        expectError(await execute(server, agent, id), 404, "QUOTE_NOT_FOUND")
      }
      expect((await server.call("GET", `/quotes/${theirs.id}`)).json.status).toBe("PENDING")
    })

    it("AG-33: an executed quote → 409 QUOTE_ALREADY_EXECUTED; an expired one → 409 QUOTE_EXPIRED", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(server, c.id)
      const { quote } = await pay(server, agent, c.accounts.USD!, c.usdPayee, 100)
      expectError(await execute(server, agent, quote.id), 409, "QUOTE_ALREADY_EXECUTED")

      const stale = await agentQuote(server, agent, payment(c.accounts.USD!, c.usdPayee, 100))
      await backdateQuote(server, stale.id)
      expectError(await execute(server, agent, stale.id), 409, "QUOTE_EXPIRED")
      expect((await server.call("GET", `/quotes/${stale.id}`)).json.status).toBe("EXPIRED")
      expect(await usage(server, agent.agentId)).toMatchObject({ dailyTransactionCount: 1 })
    })
  })

  describe("holds: PENDING_APPROVAL and the webhook", () => {
    it("AG-19, WH-22: APPROVAL_REQUIRED → PENDING_APPROVAL without a transaction; AGENT_ACTION.PENDING_APPROVAL carries the action; nothing counted or moved", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(server, c.id, agentPolicy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
      const quote = await agentQuote(server, agent, payment(c.accounts.USD!, c.usdPayee, 2_000))
      const held = await execute(server, agent, quote.id)
      expect(held.status, JSON.stringify(held.json)).toBe(200)
      expect(held.json).toMatchObject({
        status: "PENDING_APPROVAL",
        type: "EXECUTE_QUOTE",
        agentId: agent.agentId,
        quote: { id: quote.id, status: "PENDING" }
      })
      expect(held.json.transaction).toBeUndefined()
      const events = await eventsAbout(server, held.json.id)
      expect(events.map((e) => e.type)).toEqual(["AGENT_ACTION.PENDING_APPROVAL"])
      expect(events[0]!.data).toEqual(held.json)
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 })
      expect(await balanceOfAccount(server, c.id, c.accounts.USD!)).toBe(1_000_000)
      expect((await transactionOf(server, quote.transactionId)).status).toBe("PENDING")

      // AG-33: a second execute of the quote while its action waits → 409 CONFLICT, nothing new.
      expectError(await execute(server, agent, quote.id), 409, "CONFLICT")
      expect(await actionsOf(server, agent.agentId)).toHaveLength(1)
    })

    it("WH-22: a refused execute writes no AGENT_ACTION.PENDING_APPROVAL", async () => {
      const c = await payer(server)
      const policy = agentPolicy({ defaultExecutionMode: "APPROVAL_REQUIRED" })
      const agent = await seedAgentOf(server, c.id, policy)
      const before = (await eventsOfType(server, "AGENT_ACTION.PENDING_APPROVAL")).length
      const quote = await agentQuote(server, agent, payment(c.accounts.USD!, c.usdPayee, 11))
      await changeAgent(server, agent.agentId, {
        policy: { ...policy, spendingLimits: { ...policy.spendingLimits, perTransactionLimit: 10 } }
      })
      expectRefused(await execute(server, agent, quote.id), "PER_TRANSACTION_LIMIT_EXCEEDED")
      expect(await eventsOfType(server, "AGENT_ACTION.PENDING_APPROVAL")).toHaveLength(before)
      expect(await actionsOf(server, agent.agentId)).toEqual([])
    })

    it("AG-19: above approvalThresholds (strictly) holds; at it runs; the threshold's currency converts", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(
        server,
        c.id,
        agentPolicy({ approvalThresholds: { currency: "EUR", amount: 920 } })
      )
      // 920 EUR cents = 1 000 USD cents.
      expect((await pay(server, agent, c.accounts.USD!, c.usdPayee, 1_000)).executed.json.status).toBe("APPROVED")
      expect((await pay(server, agent, c.accounts.USD!, c.usdPayee, 1_001)).executed.json.status).toBe(
        "PENDING_APPROVAL"
      )
    })

    it("AG-03, Q14: an account rule's mode replaces the default for its account, both ways", async () => {
      const c = await payer(server, { eur: 100_000 })
      const agent = await seedAgentOf(
        server,
        c.id,
        agentPolicy({
          defaultExecutionMode: "APPROVAL_REQUIRED",
          accountRestrictions: {
            accountRules: [
              { accountId: c.accounts.USD!, executionMode: "AUTO" },
              { accountId: c.accounts.EUR!, executionMode: "APPROVAL_REQUIRED" }
            ]
          }
        })
      )
      expect((await pay(server, agent, c.accounts.USD!, c.usdPayee, 100)).executed.json.status).toBe("APPROVED")
      const held = await pay(server, agent, c.accounts.EUR!, c.eurPayee!, 100)
      expect(held.executed.json.status).toBe("PENDING_APPROVAL")
      const stored = await actionsOf(server, agent.agentId)
      expect(stored.map((a) => a.approvalReason)).toEqual([undefined, "ACCOUNT_RULE"])
    })

    it("AG-06: a hold over a limit already used up → 403, no action", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(
        server,
        c.id,
        agentPolicy({ spendingLimits: { dailyLimit: 1_000 }, approvalThresholds: { currency: "USD", amount: 500 } })
      )
      expect((await pay(server, agent, c.accounts.USD!, c.usdPayee, 500)).executed.json.status).toBe("APPROVED")
      expectRefused((await pay(server, agent, c.accounts.USD!, c.usdPayee, 501)).executed, "DAILY_LIMIT_EXCEEDED")
      expect(await actionsOf(server, agent.agentId)).toHaveLength(1)
    })
  })

  describe("transfers", () => {
    it("transfer-out AUTO → 201 APPROVED: a same-currency payment for the agent, counted", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(server, c.id)
      const r = await asAgent(server, agent)("POST", "/agents/me/transfer-out", {
        source: { accountId: c.accounts.USD },
        destination: { accountId: c.usdPayee },
        amount: 1_234
      })
      expect(r.status, JSON.stringify(r.json)).toBe(201)
      expect(r.json).toMatchObject({
        status: "APPROVED",
        type: "TRANSFER_OUT",
        transferDetails: {
          amount: 1_234,
          currency: "USD",
          sourceAccountId: c.accounts.USD,
          destinationAccountId: c.usdPayee
        },
        transaction: { agentId: agent.agentId, sentAmount: { amount: 1_234 } }
      })
      expect(r.json.quote).toBeUndefined()
      expect(await balanceOfAccount(server, c.id, c.accounts.USD!)).toBe(1_000_000 - 1_234)
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 1_234, dailyTransactionCount: 1 })
    })

    it("transfer-out held → PENDING_APPROVAL, its quote PENDING for a day; refused → no quote left behind", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(server, c.id, agentPolicy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
      const transfer = (amount: number) =>
        asAgent(server, agent)("POST", "/agents/me/transfer-out", {
          source: { accountId: c.accounts.USD },
          destination: { accountId: c.usdPayee },
          amount
        })
      const before = Date.now()
      const r = await transfer(500)
      expect(r.status, JSON.stringify(r.json)).toBe(201)
      expect(r.json.status).toBe("PENDING_APPROVAL")
      expect(r.json.transaction).toBeUndefined()
      const [stored] = await actionsOf(server, agent.agentId)
      const quote = (await server.call("GET", `/quotes/${stored!.quoteId}`)).json
      expect(quote.status).toBe("PENDING")
      expect(Date.parse(quote.expiresAt)).toBeGreaterThanOrEqual(before + 86_400_000 - 1_000)
      expect((await eventsAbout(server, r.json.id)).map((e) => e.type)).toEqual(["AGENT_ACTION.PENDING_APPROVAL"])

      const quotesBefore = (await server.call("GET", `/transactions?customerId=${c.id}`)).json.totalCount
      const tooMuch = await seedAgentOf(server, c.id, agentPolicy({ spendingLimits: { perTransactionLimit: 10 } }))
      const refused = await asAgent(server, tooMuch)("POST", "/agents/me/transfer-out", {
        source: { accountId: c.accounts.USD },
        destination: { accountId: c.usdPayee },
        amount: 11
      })
      expectRefused(refused, "PER_TRANSACTION_LIMIT_EXCEEDED")
      expect((await server.call("GET", `/transactions?customerId=${c.id}`)).json.totalCount).toBe(quotesBefore)
    })

    it("transfer-out: another customer's account → 404; across currencies → 400", async () => {
      const c = await payer(server, { eur: 0 })
      const stranger = await payer(server)
      const agent = await seedAgentOf(server, c.id)
      const transfer = (source: string, destination: string) =>
        asAgent(server, agent)("POST", "/agents/me/transfer-out", {
          source: { accountId: source },
          destination: { accountId: destination },
          amount: 100
        })
      expectError(await transfer(stranger.accounts.USD!, c.usdPayee), 404, "REFERENCE_NOT_FOUND")
      expectError(await transfer(c.accounts.USD!, stranger.usdPayee), 404, "REFERENCE_NOT_FOUND")
      expectError(await transfer(c.accounts.USD!, c.eurPayee!), 400, "INVALID_INPUT")
      expect(await actionsOf(server, agent.agentId)).toEqual([])
    })

    it("transfer-in AUTO → 201 APPROVED with the incoming transaction (agentId); held → transferDetails only", async () => {
      const c = await payer(server, { usd: 0 })
      const agent = await seedAgentOf(
        server,
        c.id,
        agentPolicy({ approvalThresholds: { currency: "USD", amount: 1_000 } })
      )
      const pull = (amount: number) =>
        asAgent(server, agent)("POST", "/agents/me/transfer-in", {
          source: { accountId: c.usdPayee },
          destination: { accountId: c.accounts.USD },
          amount
        })
      const ran = await pull(700)
      expect(ran.status, JSON.stringify(ran.json)).toBe(201)
      expect(ran.json).toMatchObject({
        status: "APPROVED",
        type: "TRANSFER_IN",
        transaction: { type: "INCOMING", agentId: agent.agentId, receivedAmount: { amount: 700 } }
      })
      await server.processDue()
      expect((await transactionOf(server, ran.json.transaction.id)).status).toBe("COMPLETED")
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 700, dailyTransactionCount: 1 })

      const held = await pull(1_001)
      expect(held.status, JSON.stringify(held.json)).toBe(201)
      expect(held.json).toMatchObject({
        status: "PENDING_APPROVAL",
        transferDetails: { amount: 1_001, sourceAccountId: c.usdPayee, destinationAccountId: c.accounts.USD }
      })
      expect(held.json.transaction).toBeUndefined()
      // Q5: a held transfer-in has no transaction yet: only the one that ran is the agent's.
      const listed = await server.call("GET", `/transactions?customerId=${c.id}`)
      expect(listed.json.data.filter((t: { agentId?: string }) => t.agentId === agent.agentId)).toHaveLength(1)
    })
  })
}

onEveryStore("agent actions", "agent_actions_http", actionsSuite)
