import { AgentActions, type AgentPrincipal, AgentScope, Agents, type Principal } from "@paycore/core"
import { Effect } from "effect"
import { type GroupHandlers, type HttpObservations, missBudgetCaller } from "./shared.ts"

/** The `agents` group: the platform's agents, their policies, device codes and approvals. */
export const agentsHandlers = Effect.fnUntraced(function* ({ missBudgetKey }: HttpObservations) {
  const agents = yield* Agents
  const agentActions = yield* AgentActions
  const handlers: GroupHandlers<"agents"> = {
    createAgent: ({ payload }) => agents.create(payload),
    listAgents: ({ query }) => agents.list(query),
    listApprovals: ({ query }) => agentActions.listApprovals(query),
    getDeviceCodeStatus: ({ params }) => agents.deviceCodeStatus(params.code),
    // AG-15: never stored by an Idempotency-Key, answered with Cache-Control: no-store (app.ts). A-08, issue 31
    // item 7: an unknown code spends the miss budget of its caller (the peer's address unless a credential is sent).
    redeemDeviceCode: (request) => agents.redeem(request.params.code, missBudgetCaller(missBudgetKey, request)),
    getAgent: ({ params }) => agents.get(params.agentId),
    updateAgent: ({ params, payload }) => agents.update(params.agentId, payload),
    deleteAgent: ({ params }) => agents.delete(params.agentId),
    updateAgentPolicy: ({ params, payload }) => agents.updatePolicy(params.agentId, payload),
    createDeviceCode: ({ params }) => agents.createDeviceCode(params.agentId),
    approveAction: ({ params }) => agentActions.approve(params.agentId, params.actionId),
    rejectAction: ({ params, payload }) => agentActions.reject(params.agentId, params.actionId, payload ?? {})
  }
  return handlers
})

/** The `agentMe` group authenticates Bearer tokens only (app.ts), so its principal is an agent's. */
const agentOf = (principal: Principal): AgentPrincipal => {
  if (principal.kind !== "AGENT") throw new Error("an /agents/me route was reached without an agent's token")
  return principal
}

/** The `agentMe` group: what an agent does with its own token, within its scope. Bearer only (app.ts). */
export const agentMeHandlers = Effect.fnUntraced(function* () {
  const agents = yield* Agents
  const agentActions = yield* AgentActions
  const agentScope = yield* AgentScope
  const handlers: GroupHandlers<"agentMe"> = {
    getMe: ({ principal }) => agents.me(agentOf(principal)),
    listInternalAccounts: ({ principal, query }) => agentScope.listInternalAccounts(agentOf(principal), query),
    createExternalAccount: ({ principal, payload }) => agentScope.createExternalAccount(agentOf(principal), payload),
    listExternalAccounts: ({ principal, query }) => agentScope.listExternalAccounts(agentOf(principal), query),
    getExternalAccount: ({ principal, params }) =>
      agentScope.getExternalAccount(agentOf(principal), params.externalAccountId),
    deleteExternalAccount: ({ principal, params }) =>
      agentScope.deleteExternalAccount(agentOf(principal), params.externalAccountId),
    createQuote: ({ principal, payload }) => agentScope.createQuote(agentOf(principal), payload),
    getQuote: ({ principal, params }) => agentScope.getQuote(agentOf(principal), params.quoteId),
    executeQuote: ({ principal, params, headers }) =>
      agentActions.executeQuote(agentOf(principal), params.quoteId, headers["service-wallet-signature"]),
    transferOut: ({ principal, payload }) => agentActions.transferOut(agentOf(principal), payload),
    transferIn: ({ principal, payload }) => agentActions.transferIn(agentOf(principal), payload),
    listTransactions: ({ principal, query }) => agentScope.listTransactions(agentOf(principal), query),
    getTransaction: ({ principal, params }) => agentScope.getTransaction(agentOf(principal), params.transactionId),
    getTransactionTimeline: ({ principal, params }) =>
      agentScope.getTransactionTimeline(agentOf(principal), params.transactionId),
    listActions: ({ principal, query }) => agentScope.listActions(agentOf(principal), query),
    getAction: ({ principal, params }) => agentScope.getAction(agentOf(principal), params.actionId)
  }
  return handlers
})
