/**
 * An agent's execute of a quote from an embedded wallet (AG-33, Q-24; docs/design/agents.md section 3 "Submit an
 * execute"): the wallet's signature is required as on the platform's execute — without it 401 and nothing moves or is
 * recorded; stamped by a live session of that wallet, it runs.
 */
import { Store } from "@paycore/core"
import { ledgerViolations } from "@paycore/testkit"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { actionsOf, agentQuote, asAgent, seedAgentOf } from "./agent-actions-kit.ts"
import { addUsPayee, expectError, fundAccount, quoteBody, useTestServer } from "./harness.ts"
import { onEveryStore, type StoresUnderTest } from "./stores.ts"
import { ensureUsdb, type Wallet, walletKit } from "./wallet-kit.ts"

const FUNDED = 50_000_000
const SENT = 10_000_000

const suite = (stores: () => StoresUnderTest) => {
  const server = useTestServer(ensureUsdb, stores())
  const { walletAccount, newWallet, signIn } = walletKit(server)

  const walletBalance = async (w: Wallet): Promise<number> => (await walletAccount(w.customerId)).balance.amount

  /** A funded wallet, its customer's agent and a PENDING quote made for the agent from the wallet to a USD payee. */
  const agentWalletQuote = async () => {
    const w = await newWallet()
    await fundAccount(server, w.accountId, FUNDED)
    const payee = await addUsPayee(server, w.customerId)
    const agent = await seedAgentOf(server, w.customerId)
    const quote = await agentQuote(server, agent, quoteBody(w.accountId, payee, SENT))
    const payload: string = quote.paymentInstructions[0].accountOrWalletInfo.payloadToSign
    return { w, agent, quote, payload, execute: `/agents/me/quotes/${quote.id}/execute` }
  }

  describe("execute of an embedded-wallet quote by an agent", () => {
    it("AG-33, Q-24: without Service-Wallet-Signature 401 WALLET_SIGNATURE_MISSING; no action, nothing moved", async () => {
      const { w, agent, quote, execute } = await agentWalletQuote()
      const r = await asAgent(server, agent)("POST", execute)
      expectError(r, 401, "WALLET_SIGNATURE_MISSING")
      expect(await actionsOf(server, agent.agentId)).toEqual([])
      expect(await walletBalance(w)).toBe(FUNDED)
      expect((await server.call("GET", `/quotes/${quote.id}`)).json.status).toBe("PENDING")
    })

    it("AG-33, Q-24: stamped by a live session of the wallet → 200 APPROVED, the wallet debited once", async () => {
      const { w, agent, quote, payload, execute } = await agentWalletQuote()
      const signed = await signIn(w.emailCredentialId)
      const executed = await asAgent(server, agent)("POST", execute, undefined, {
        "service-wallet-signature": signed.key.stamp(payload)
      })
      expect(executed.status, JSON.stringify(executed.json)).toBe(200)
      expect(executed.json).toMatchObject({
        agentId: agent.agentId,
        status: "APPROVED",
        type: "EXECUTE_QUOTE",
        quote: { id: quote.id },
        transaction: { id: quote.transactionId, agentId: agent.agentId }
      })
      expect(await walletBalance(w)).toBe(FUNDED - quote.totalSendingAmount)
      const violations = await Effect.runPromise(
        ledgerViolations.pipe(Effect.provideService(Store, server.store), Effect.orDie)
      )
      expect(violations).toEqual([])
    })
  })
}

onEveryStore("agent executes of embedded-wallet quotes", "agent_wallet_http", suite)
