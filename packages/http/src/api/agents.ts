import {
  Agent,
  AgentAction,
  AgentActionId,
  AgentActionRejectRequest,
  AgentCreateRequest,
  AgentCreateResponse,
  AgentDeviceCode,
  AgentDeviceCodeRedeemResponse,
  AgentDeviceCodeStatusResponse,
  AgentExternalAccountCreateRequest,
  AgentId,
  AgentPolicyUpdateRequest,
  AgentUpdateRequest,
  AnyTransactionId,
  CreateQuoteRequest,
  ExternalAccount,
  ExternalAccountId,
  InternalAccount,
  ListAgentActionsQuery,
  ListAgentExternalAccountsQuery,
  ListAgentInternalAccountsQuery,
  ListAgentsQuery,
  ListAgentTransactionsQuery,
  ListApprovalsQuery,
  PageOf,
  Quote,
  QuoteId,
  Timeline,
  TransactionOneOf,
  TransferInRequest,
  TransferOutRequest
} from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { CarriesSecret, PublicEndpoint, SecretAnswer } from "../annotations.ts"
import { created, TypedCodeParam } from "./shared.ts"

/** AG-01 … AG-23: what the platform does with its agents (Basic). Redeem is public: the agent has no credential yet. */
export const AgentsGroup = HttpApiGroup.make("agents")
  .add(
    HttpApiEndpoint.post("createAgent", "/agents", {
      payload: AgentCreateRequest,
      success: AgentCreateResponse.pipe(created)
    }).annotate(CarriesSecret, true)
  )
  .add(HttpApiEndpoint.get("listAgents", "/agents", { query: ListAgentsQuery, success: PageOf(Agent) }))
  .add(
    HttpApiEndpoint.get("listApprovals", "/agents/approvals", {
      query: ListApprovalsQuery,
      success: PageOf(AgentAction)
    })
  )
  .add(
    HttpApiEndpoint.get("getDeviceCodeStatus", "/agents/device-codes/:code/status", {
      params: { code: TypedCodeParam },
      success: AgentDeviceCodeStatusResponse
    })
  )
  .add(
    HttpApiEndpoint.post("redeemDeviceCode", "/agents/device-codes/:code/redeem", {
      params: { code: TypedCodeParam },
      success: AgentDeviceCodeRedeemResponse
    })
      .annotate(PublicEndpoint, true)
      .annotate(SecretAnswer, true)
  )
  .add(HttpApiEndpoint.get("getAgent", "/agents/:agentId", { params: { agentId: AgentId }, success: Agent }))
  .add(
    HttpApiEndpoint.patch("updateAgent", "/agents/:agentId", {
      params: { agentId: AgentId },
      payload: AgentUpdateRequest,
      success: Agent
    })
  )
  .add(
    HttpApiEndpoint.delete("deleteAgent", "/agents/:agentId", {
      params: { agentId: AgentId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.patch("updateAgentPolicy", "/agents/:agentId/policy", {
      params: { agentId: AgentId },
      payload: AgentPolicyUpdateRequest,
      success: Agent
    })
  )
  .add(
    HttpApiEndpoint.post("createDeviceCode", "/agents/:agentId/device-codes", {
      params: { agentId: AgentId },
      success: AgentDeviceCode.pipe(created)
    }).annotate(CarriesSecret, true)
  )
  .add(
    HttpApiEndpoint.post("approveAction", "/agents/:agentId/actions/:actionId/approve", {
      params: { agentId: AgentId, actionId: AgentActionId },
      success: AgentAction
    })
  )
  .add(
    HttpApiEndpoint.post("rejectAction", "/agents/:agentId/actions/:actionId/reject", {
      params: { agentId: AgentId, actionId: AgentActionId },
      payload: Schema.NullOr(AgentActionRejectRequest),
      success: AgentAction
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Agents",
      description:
        "Software agents acting for one customer within a policy: create, pause, policy, device codes to connect " +
        "the agent's software, and the approvals of the actions its policy holds"
    })
  )

/** AG-24 … AG-37: what an agent does (Bearer `gat_…` only), always on its own customer. */
export const AgentMeGroup = HttpApiGroup.make("agentMe")
  .add(HttpApiEndpoint.get("getMe", "/agents/me", { success: Agent }))
  .add(
    HttpApiEndpoint.get("listInternalAccounts", "/agents/me/internal-accounts", {
      query: ListAgentInternalAccountsQuery,
      success: PageOf(InternalAccount)
    })
  )
  .add(
    HttpApiEndpoint.post("createExternalAccount", "/agents/me/external-accounts", {
      payload: AgentExternalAccountCreateRequest,
      success: ExternalAccount.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.get("listExternalAccounts", "/agents/me/external-accounts", {
      query: ListAgentExternalAccountsQuery,
      success: PageOf(ExternalAccount)
    })
  )
  .add(
    HttpApiEndpoint.get("getExternalAccount", "/agents/me/external-accounts/:externalAccountId", {
      params: { externalAccountId: ExternalAccountId },
      success: ExternalAccount
    })
  )
  .add(
    HttpApiEndpoint.delete("deleteExternalAccount", "/agents/me/external-accounts/:externalAccountId", {
      params: { externalAccountId: ExternalAccountId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.post("createQuote", "/agents/me/quotes", {
      payload: CreateQuoteRequest,
      success: Quote.pipe(created)
    })
  )
  .add(HttpApiEndpoint.get("getQuote", "/agents/me/quotes/:quoteId", { params: { quoteId: QuoteId }, success: Quote }))
  .add(
    HttpApiEndpoint.post("executeQuote", "/agents/me/quotes/:quoteId/execute", {
      params: { quoteId: QuoteId },
      // required for a quote from an EMBEDDED_WALLET, as on the platform's execute; checked again at approval.
      headers: { "service-wallet-signature": Schema.optionalKey(Schema.String) },
      success: AgentAction
    })
  )
  .add(
    HttpApiEndpoint.post("transferOut", "/agents/me/transfer-out", {
      payload: TransferOutRequest,
      success: AgentAction.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.post("transferIn", "/agents/me/transfer-in", {
      payload: TransferInRequest,
      success: AgentAction.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.get("listTransactions", "/agents/me/transactions", {
      query: ListAgentTransactionsQuery,
      success: PageOf(TransactionOneOf)
    })
  )
  .add(
    HttpApiEndpoint.get("getTransaction", "/agents/me/transactions/:transactionId", {
      params: { transactionId: AnyTransactionId },
      success: TransactionOneOf
    })
  )
  .add(
    HttpApiEndpoint.get("getTransactionTimeline", "/agents/me/transactions/:transactionId/timeline", {
      params: { transactionId: AnyTransactionId },
      success: Timeline
    })
  )
  .add(
    HttpApiEndpoint.get("listActions", "/agents/me/actions", {
      query: ListAgentActionsQuery,
      success: PageOf(AgentAction)
    })
  )
  .add(
    HttpApiEndpoint.get("getAction", "/agents/me/actions/:actionId", {
      params: { actionId: AgentActionId },
      success: AgentAction
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Agent operations",
      description:
        "Called by an agent's software with its Bearer token: its profile and usage, its customer's accounts and " +
        "transactions, quotes, and the actions its policy runs or holds for approval"
    })
  )
