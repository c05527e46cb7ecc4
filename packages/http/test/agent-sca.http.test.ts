/**
 * An agent's payment for a customer subject to SCA (issue 16, slice B; docs/design/agents.md section 3 "SCA", Q4):
 * the agent's execution starts the customer's challenge like any execute; the action is APPROVED (execution began),
 * its transaction PENDING_AUTHORIZATION until the customer authorizes through the platform. Usage is counted when
 * the execution begins. Platform approval never stands in for SCA.
 */
import { readUsageSteps } from "@paycore/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { agentPolicy, pay, seedAgentOf, transactionOf } from "./agent-actions-kit.ts"
import { addUsPayee, fundAccount, useTestServer } from "./harness.ts"
import { END_USER_IP, readyForSca, SANDBOX_CODE, scaCustomer } from "./sca-kit.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"

const scaSuite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(async () => {}, stores())

  /** An EEA customer with a verified phone and a live SCA session, its USD account funded, a US payee. */
  const subject = async () => {
    const customer = await scaCustomer(server, { region: "DE", phone: "unverified", currencies: ["USD"] })
    await readyForSca(server, customer.id)
    await fundAccount(server, customer.accounts.USD!, 100_000)
    const payee = await addUsPayee(server, customer.id)
    return { id: customer.id, usd: customer.accounts.USD!, payee }
  }
  const usage = (agentId: string) =>
    Effect.runPromise(Effect.gen(() => readUsageSteps(server.store, agentId, "USD", new Date().toISOString())))
  const authorize = (quoteId: string) =>
    server.call("POST", `/quotes/${quoteId}/authorize`, { code: SANDBOX_CODE, endUserIpAddress: END_USER_IP })

  describe("SCA", () => {
    it("Q4, S-03: an EEA customer's agent payment → APPROVED with the transaction PENDING_AUTHORIZATION; the customer authorizes → PROCESSING", async () => {
      const c = await subject()
      const agent = await seedAgentOf(server, c.id)
      const { quote, executed } = await pay(server, agent, c.usd, c.payee, 1_500)
      expect(executed.status, JSON.stringify(executed.json)).toBe(200)
      expect(executed.json).toMatchObject({
        status: "APPROVED",
        quote: { id: quote.id, status: "PENDING_AUTHORIZATION", scaChallenge: { factor: "SMS_OTP" } },
        transaction: { id: quote.transactionId, status: "PENDING_AUTHORIZATION", agentId: agent.agentId }
      })
      // Counted when the execution began (Q3): an expired challenge would not give it back.
      expect(await usage(agent.agentId)).toMatchObject({ dailySpend: 1_500, dailyTransactionCount: 1 })

      const authorized = await authorize(quote.id)
      expect(authorized.status, JSON.stringify(authorized.json)).toBe(200)
      expect(["PROCESSING", "COMPLETED"]).toContain(authorized.json.status)
      const tx = await transactionOf(server, quote.transactionId)
      expect(["PROCESSING", "COMPLETED"]).toContain(tx.status)
      expect(tx.agentId).toBe(agent.agentId)
    })

    it("Q4: the platform's approval of a held payment starts the customer's challenge; it does not replace it", async () => {
      const c = await subject()
      const agent = await seedAgentOf(server, c.id, agentPolicy({ defaultExecutionMode: "APPROVAL_REQUIRED" }))
      const { quote, executed } = await pay(server, agent, c.usd, c.payee, 700)
      expect(executed.json.status).toBe("PENDING_APPROVAL")
      const approved = await server.call("POST", `/agents/${agent.agentId}/actions/${executed.json.id}/approve`)
      expect(approved.status, JSON.stringify(approved.json)).toBe(200)
      expect(approved.json).toMatchObject({
        status: "APPROVED",
        transaction: { status: "PENDING_AUTHORIZATION", agentId: agent.agentId }
      })
      expect((await authorize(quote.id)).status).toBe(200)
      expect(["PROCESSING", "COMPLETED"]).toContain((await transactionOf(server, quote.transactionId)).status)
    })
  })
}

onEveryStore("agent payments under SCA", "agent_sca_http", scaSuite)
