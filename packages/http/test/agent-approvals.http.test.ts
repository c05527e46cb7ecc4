/**
 * The platform's decisions on an agent's held actions over HTTP (issue 16, slice B; docs/design/agents.md section 3
 * "Approve and reject"): the approvals list, approve (re-checked against the agent as it now is; usage counted then),
 * the FAILED causes, reject, and the 404s and 409s.
 */
import { readUsageSteps } from "@paycore/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  actionsOf,
  agentPolicy,
  asAgent,
  backdateQuote,
  balanceOfAccount,
  changeAgent,
  eventsAbout,
  execute,
  type Payer,
  pay,
  payer,
  seedAgentOf,
  transactionOf
} from "./agent-actions-kit.ts"
import { expectError, expectInvalid, ids, type TestServer, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const usage = (server: TestServer, agentId: string) =>
  Effect.runPromise(Effect.gen(() => readUsageSteps(server.store, agentId, "USD", new Date().toISOString())))

const HELD = agentPolicy({ defaultExecutionMode: "APPROVAL_REQUIRED" })

const approvalsSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())

  /** A payer, an agent of it that needs approval for everything (`policy`), and one held execute of `amount`. */
  const heldPayment = async (amount = 2_000, options: { readonly usd?: number; readonly c?: Payer } = {}) => {
    const c = options.c ?? (await payer(server, { usd: options.usd ?? 1_000_000 }))
    const agent = await seedAgentOf(server, c.id, HELD)
    const { quote, executed } = await pay(server, agent, c.accounts.USD!, c.usdPayee, amount)
    expect(executed.json.status, JSON.stringify(executed.json)).toBe("PENDING_APPROVAL")
    return { c, agent, quote, action: executed.json }
  }
  const approve = (agentId: string, actionId: string) =>
    server.call("POST", `/agents/${agentId}/actions/${actionId}/approve`)
  const reject = (agentId: string, actionId: string, body?: unknown) =>
    server.call("POST", `/agents/${agentId}/actions/${actionId}/reject`, body)
  const quoteStatus = async (id: string) => (await server.call("GET", `/quotes/${id}`)).json.status

  describe("approve", () => {
    it("AG-20, AG-38, Q3: approve → APPROVED with the transaction; money moved and usage counted at approval, not at hold", async () => {
      const { c, agent, quote, action } = await heldPayment(2_000)
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 })
      const approved = await approve(agent.agentId, action.id)
      expect(approved.status, JSON.stringify(approved.json)).toBe(200)
      expect(approved.json).toMatchObject({
        id: action.id,
        status: "APPROVED",
        quote: { id: quote.id },
        transaction: { id: quote.transactionId, agentId: agent.agentId }
      })
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 2_000, dailyTransactionCount: 1 })
      expect(await balanceOfAccount(server, c.id, c.accounts.USD!)).toBe(1_000_000 - 2_000)
      await server.processDue()
      expect((await transactionOf(server, quote.transactionId)).status).toBe("COMPLETED")
      // Decided: the quote's open slot is free again.
      const [stored] = await actionsOf(server, agent.agentId)
      expect([stored!.status, stored!.openSlot]).toEqual(["APPROVED", undefined])
      // No webhook for a decision (design Q17): only the hold's.
      expect((await eventsAbout(server, action.id)).map((e) => e.type)).toEqual(["AGENT_ACTION.PENDING_APPROVAL"])
    })

    it("AG-21: approve after the quote expired → 200 FAILED QUOTE_EXPIRED, quote and transaction EXPIRED, nothing counted", async () => {
      const { agent, quote, action } = await heldPayment()
      await backdateQuote(server, quote.id)
      const failed = await approve(agent.agentId, action.id)
      expect(failed.status, JSON.stringify(failed.json)).toBe(200)
      expect(failed.json).toMatchObject({ status: "FAILED", failureReason: "QUOTE_EXPIRED" })
      expect(failed.json.transaction).toBeUndefined()
      expect(await quoteStatus(quote.id)).toBe("EXPIRED")
      expect((await transactionOf(server, quote.transactionId)).status).toBe("EXPIRED")
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 })
    })

    it("AG-10: approve while the agent is paused → FAILED AGENT_PAUSED; the quote is ended", async () => {
      const { agent, quote, action } = await heldPayment()
      await changeAgent(server, agent.agentId, { isPaused: true })
      const failed = await approve(agent.agentId, action.id)
      expect(failed.json).toMatchObject({ status: "FAILED", failureReason: "AGENT_PAUSED" })
      expect(await quoteStatus(quote.id)).toBe("EXPIRED")
      expect(await usage(server, agent.agentId)).toMatchObject({ dailyTransactionCount: 0 })
    })

    it("AG-20: approve re-checks the policy as it now is: a permission removed since → FAILED PERMISSION_MISSING", async () => {
      const { agent, action } = await heldPayment()
      await changeAgent(server, agent.agentId, { policy: { ...HELD, permissions: ["CREATE_QUOTES"] } })
      expect((await approve(agent.agentId, action.id)).json).toMatchObject({
        status: "FAILED",
        failureReason: "PERMISSION_MISSING"
      })
    })

    it("AG-06, Q3: approve over a limit used up meanwhile → FAILED DAILY_LIMIT_EXCEEDED, nothing counted, nothing moved", async () => {
      const c = await payer(server)
      const policy = agentPolicy({
        spendingLimits: { dailyLimit: 3_000 },
        approvalThresholds: { currency: "USD", amount: 1_000 }
      })
      const agent = await seedAgentOf(server, c.id, policy)
      const held = await pay(server, agent, c.accounts.USD!, c.usdPayee, 2_000)
      expect(held.executed.json.status).toBe("PENDING_APPROVAL")
      // A pending action reserves nothing: two AUTO payments use the day meanwhile.
      for (const amount of [1_000, 1_000]) {
        expect((await pay(server, agent, c.accounts.USD!, c.usdPayee, amount)).executed.json.status).toBe("APPROVED")
      }
      const failed = await approve(agent.agentId, held.executed.json.id)
      expect(failed.status, JSON.stringify(failed.json)).toBe(200)
      expect(failed.json).toMatchObject({ status: "FAILED", failureReason: "DAILY_LIMIT_EXCEEDED" })
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 2_000, dailyTransactionCount: 2 })
      expect(await balanceOfAccount(server, c.id, c.accounts.USD!)).toBe(1_000_000 - 2_000)
      expect(await quoteStatus(held.quote.id)).toBe("EXPIRED")
    })

    it("AG-20: a refusal of the payment at approval (INSUFFICIENT_FUNDS) → FAILED with its code, nothing counted", async () => {
      const { agent, quote, action } = await heldPayment(5_000, { usd: 1_000 })
      const failed = await approve(agent.agentId, action.id)
      expect(failed.json).toMatchObject({ status: "FAILED", failureReason: "INSUFFICIENT_FUNDS" })
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 })
      expect((await transactionOf(server, quote.transactionId)).status).toBe("EXPIRED")
    })

    it("Q16: a held quote the platform executed itself → FAILED QUOTE_ALREADY_EXECUTED", async () => {
      const { agent, quote, action } = await heldPayment()
      expect((await server.call("POST", `/quotes/${quote.id}/execute`)).status).toBe(200)
      expect((await approve(agent.agentId, action.id)).json).toMatchObject({
        status: "FAILED",
        failureReason: "QUOTE_ALREADY_EXECUTED"
      })
      expect(await usage(server, agent.agentId)).toMatchObject({ dailyTransactionCount: 0 })
    })

    it("approve a held transfer-out and a held transfer-in: each runs then, for the agent", async () => {
      const c = await payer(server)
      const agent = await seedAgentOf(server, c.id, HELD)
      const me = asAgent(server, agent)
      const out = await me("POST", "/agents/me/transfer-out", {
        source: { accountId: c.accounts.USD },
        destination: { accountId: c.usdPayee },
        amount: 300
      })
      const pull = await me("POST", "/agents/me/transfer-in", {
        source: { accountId: c.usdPayee },
        destination: { accountId: c.accounts.USD },
        amount: 400
      })
      expect([out.json.status, pull.json.status]).toEqual(["PENDING_APPROVAL", "PENDING_APPROVAL"])
      const sent = await approve(agent.agentId, out.json.id)
      expect(sent.json).toMatchObject({
        status: "APPROVED",
        type: "TRANSFER_OUT",
        transaction: { type: "OUTGOING", agentId: agent.agentId }
      })
      const pulled = await approve(agent.agentId, pull.json.id)
      expect(pulled.json).toMatchObject({
        status: "APPROVED",
        type: "TRANSFER_IN",
        transaction: { type: "INCOMING", agentId: agent.agentId, receivedAmount: { amount: 400 } }
      })
      expect(await usage(server, agent.agentId)).toMatchObject({ dailySpend: 700, dailyTransactionCount: 2 })
    })
  })

  describe("reject, and decided actions", () => {
    it("AG-22: reject with a reason → REJECTED with rejectionReason; the quote is expired and cannot be executed again", async () => {
      const { agent, quote, action } = await heldPayment()
      const rejected = await reject(agent.agentId, action.id, { reason: "Not this month" })
      expect(rejected.status, JSON.stringify(rejected.json)).toBe(200)
      expect(rejected.json).toMatchObject({ status: "REJECTED", rejectionReason: "Not this month" })
      expect(await quoteStatus(quote.id)).toBe("EXPIRED")
      expectError(await execute(server, agent, quote.id), 409, "QUOTE_EXPIRED")
      expect(await usage(server, agent.agentId)).toMatchObject({ dailyTransactionCount: 0 })
    })

    it("AG-22: reject without a body; a reason over 1 000 characters → 400, nothing changed", async () => {
      const { agent, action } = await heldPayment()
      expectInvalid(await reject(agent.agentId, action.id, { reason: "x".repeat(1_001) }), ["reason"])
      expect((await actionsOf(server, agent.agentId))[0]!.status).toBe("PENDING_APPROVAL")
      const rejected = await reject(agent.agentId, action.id)
      expect(rejected.json.status).toBe("REJECTED")
      expect(rejected.json.rejectionReason).toBeUndefined()
    })

    it("AG-23: approve or reject of a decided action → 409 CONFLICT with details.status", async () => {
      const { agent, action } = await heldPayment()
      expect((await approve(agent.agentId, action.id)).json.status).toBe("APPROVED")
      for (const r of [await approve(agent.agentId, action.id), await reject(agent.agentId, action.id)]) {
        expectError(r, 409, "CONFLICT")
        expect(r.json.details).toEqual({ status: "APPROVED" })
      }
      const second = await heldPayment()
      expect((await reject(second.agent.agentId, second.action.id)).json.status).toBe("REJECTED")
      const again = await approve(second.agent.agentId, second.action.id)
      expectError(again, 409, "CONFLICT")
      expect(again.json.details).toEqual({ status: "REJECTED" })
    })

    it("C-48: an unknown agent, an unknown action, another agent's action, a deleted agent → 404", async () => {
      const { c, agent, action } = await heldPayment()
      const other = await seedAgentOf(server, c.id, HELD)
      const unknownAgent = "Agent:00000000-0000-7000-8000-000000000000"
      const unknownAction = "AgentAction:00000000-0000-7000-8000-000000000000"
      for (const [agentId, actionId] of [
        [unknownAgent, action.id],
        [agent.agentId, unknownAction],
        [other.agentId, action.id]
      ]) {
        expectError(await approve(agentId!, actionId!), 404, "REFERENCE_NOT_FOUND")
        expectError(await reject(agentId!, actionId!), 404, "REFERENCE_NOT_FOUND")
      }
      await changeAgent(server, agent.agentId, { deletedAt: new Date().toISOString() })
      expectError(await approve(agent.agentId, action.id), 404, "REFERENCE_NOT_FOUND")
      expect((await actionsOf(server, agent.agentId))[0]!.status).toBe("PENDING_APPROVAL")
    })
  })

  describe("GET /agents/approvals", () => {
    it("AG-16: only PENDING_APPROVAL actions; filters agentId, customerId; startDate and endDate inclusive; sortOrder; paging", async () => {
      const c = await payer(server)
      const a1 = await seedAgentOf(server, c.id, HELD)
      const a2 = await seedAgentOf(server, c.id, HELD)
      const held: Array<{ id: string; createdAt: string }> = []
      for (const agent of [a1, a1, a2]) {
        held.push((await pay(server, agent, c.accounts.USD!, c.usdPayee, 100)).executed.json)
      }
      // A decided action leaves the list.
      const decided = (await pay(server, a1, c.accounts.USD!, c.usdPayee, 100)).executed.json
      expect((await reject(a1.agentId, decided.id)).status).toBe(200)
      const list = async (query: string) => {
        const r = await server.call("GET", `/agents/approvals?${query}`)
        expect(r.status, JSON.stringify(r.json)).toBe(200)
        return r
      }
      const all = await list(`customerId=${c.id}&sortOrder=asc`)
      expect(ids(all)).toEqual(held.map((a) => a.id))
      expect(all.json.data[0]).toMatchObject({
        status: "PENDING_APPROVAL",
        customerId: c.id,
        quote: { status: "PENDING" }
      })
      expect(ids(await list(`customerId=${c.id}`))).toEqual(held.map((a) => a.id).reverse())
      expect(ids(await list(`agentId=${a2.agentId}`))).toEqual([held[2]!.id])
      const first = held[0]!
      expect(ids(await list(`agentId=${a1.agentId}&startDate=${first.createdAt}&endDate=${first.createdAt}`))).toEqual([
        first.id
      ])
      expect(ids(await list(`customerId=${c.id}&startDate=${held[2]!.createdAt}&sortOrder=asc`))).toContain(held[2]!.id)
      const stranger = await payer(server)
      expect(ids(await list(`customerId=${stranger.id}`))).toEqual([])

      const page1 = await list(`customerId=${c.id}&sortOrder=asc&limit=2`)
      expect(ids(page1)).toEqual([held[0]!.id, held[1]!.id])
      expect(page1.json.hasMore).toBe(true)
      const page2 = await list(`customerId=${c.id}&sortOrder=asc&limit=2&cursor=${page1.json.nextCursor}`)
      expect(ids(page2)).toEqual([held[2]!.id])
      expectInvalid(await server.call("GET", "/agents/approvals?cursor=not-a-cursor"), ["cursor"])
      expectInvalid(await server.call("GET", "/agents/approvals?endDate=2026-15-94T66:12:40Z"), ["endDate"])
    })
  })
}

onEveryStore("agent approvals", "agent_approvals_http", approvalsSuite)
