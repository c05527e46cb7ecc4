/**
 * examples/agent walked end to end against the test server (issue 16; docs/design/agents.md "The example"): the
 * platform onboards and funds a customer and creates an agent (AUTO under a 50.00 USD approval threshold, 500.00 per
 * transaction); the program redeems the device code, pays 10.00 (APPROVED at once; the payment completes after a
 * worker pass) and asks for 800.00, which it caps at its per-transaction limit and which waits for the platform's
 * approval (given here through Basic while the program polls) before it sees APPROVED.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  addUsPayee,
  fundAccount,
  type Onboarded,
  onboardCustomer,
  startTestServer,
  type TestServer
} from "../../../packages/http/test/harness.ts"
import { type AgentAction, connect } from "../src/agent.ts"

const fastSleep = () => new Promise<void>((resolve) => setTimeout(resolve, 5))

describe("examples/agent: an agent program pays within its policy over HTTP", () => {
  let server: TestServer
  let customer: Onboarded
  let payee: string
  beforeAll(async () => {
    server = await startTestServer()
    customer = await onboardCustomer(server)
    await fundAccount(server, customer.accounts.USD!, 1_000_000)
    payee = await addUsPayee(server, customer.id)
  })
  afterAll(() => server?.close())

  /** `POST /agents` for the customer; its device code, as the platform would show it to the customer. */
  const createAgent = async () => {
    const r = await server.call("POST", "/agents", {
      name: "Household bills",
      customerId: customer.id,
      policy: {
        permissions: ["VIEW_TRANSACTIONS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"],
        defaultExecutionMode: "AUTO",
        spendingLimits: { currency: "USD", perTransactionLimit: 50_000, dailyLimit: 200_000 },
        accountRestrictions: { allowedAccountIds: [customer.accounts.USD!] },
        approvalThresholds: { currency: "USD", amount: 5_000 }
      }
    })
    expect(r.status, JSON.stringify(r.json)).toBe(201)
    return { agentId: r.json.agent.id as string, code: r.json.deviceCode.code as string }
  }

  it("AG-15, AG-24, AG-25, AG-31, AG-33, AG-37: redeems, pays within its policy, and a held payment waits for approval", async () => {
    const { agentId, code } = await createAgent()
    const session = await connect(server.baseUrl, code, { sleep: fastSleep, backoff: { initialMillis: 1 } })
    expect(session.agent).toMatchObject({ id: agentId, customerId: customer.id, isPaused: false })

    // Under the threshold: AUTO, executed at once.
    const small = await session.pay({ amount: 1_000, payeeId: payee })
    expect(small.accountId).toBe(customer.accounts.USD)
    expect(small.quote.totalSendingAmount).toBe(1_000)
    expect(small.submitted.status).toBe("APPROVED")
    expect(small.final.transaction?.id).toBe(small.quote.transactionId)
    await server.processDue()
    const settled = await server.call("GET", `/transactions/${small.quote.transactionId}`)
    expect(settled.json).toMatchObject({ status: "COMPLETED", agentId })

    // Over the threshold (and over the per-transaction limit, so capped at it): held until the platform approves.
    let approval: Promise<unknown> | undefined
    const approve = async (action: AgentAction) => {
      const pending = await server.call("GET", `/agents/approvals?agentId=${agentId}`)
      expect(pending.json.data.map((a: { id: string }) => a.id)).toEqual([action.id])
      const approved = await server.call("POST", `/agents/${agentId}/actions/${action.id}/approve`)
      expect(approved.status, JSON.stringify(approved.json)).toBe(200)
    }
    const large = await session.pay({
      amount: 80_000,
      payeeId: payee,
      onSubmitted: (action) => {
        expect(action.status).toBe("PENDING_APPROVAL")
        approval = approve(action)
      }
    })
    await approval
    expect(large.quote.totalSendingAmount).toBe(50_000)
    expect(large.submitted.status).toBe("PENDING_APPROVAL")
    expect(large.final.status).toBe("APPROVED")
    expect(large.final.transaction?.id).toBe(large.quote.transactionId)
  })

  it("AG-15: a device code connects one installation; the program's second redeem is refused", async () => {
    const { code } = await createAgent()
    await connect(server.baseUrl, code, { sleep: fastSleep })
    await expect(connect(server.baseUrl, code)).rejects.toMatchObject({ status: 400, code: "INVALID_INPUT" })
  })
})
