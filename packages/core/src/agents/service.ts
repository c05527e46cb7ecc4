import { Context, Effect, Layer } from "effect"
import type { ExternalAccount, InternalAccount } from "../accounts/model.ts"
import type { Accounts } from "../accounts/service.ts"
import type { PlatformConfigService } from "../platform/service.ts"
import type { Ids } from "../ports/ids.ts"
import type { KycProvider } from "../ports/kyc.ts"
import type { Notifier } from "../ports/notifier.ts"
import type { Rail } from "../ports/rail.ts"
import type { Store } from "../ports/store.ts"
import type { CreateQuoteRequest, Quote } from "../quotes/model.ts"
import type { Quotes } from "../quotes/service.ts"
import type { StoreError } from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { operation } from "../shared/tracing.ts"
import type { Timeline } from "../timelines/model.ts"
import type { TransactionOneOf, TransferInRequest, TransferOutRequest } from "../transactions/model.ts"
import type { Transactions } from "../transactions/service.ts"
import { approveAction, listApprovals, rejectAction } from "./approvals.ts"
import { authenticateAgent } from "./credentials.ts"
import { createDeviceCode, deviceCodeStatus, redeemDeviceCode } from "./device-codes.ts"
import { createAgent, deleteAgent, getAgent, getMe, listAgents, updateAgent, updateAgentPolicy } from "./lifecycle.ts"
import type {
  Agent,
  AgentAction,
  AgentActionRejectRequest,
  AgentCreateRequest,
  AgentCreateResponse,
  AgentDeviceCode,
  AgentDeviceCodeRedeemResponse,
  AgentDeviceCodeStatusResponse,
  AgentExternalAccountCreateRequest,
  AgentPolicyUpdateRequest,
  AgentPrincipal,
  AgentUpdateRequest,
  ListAgentActionsQuery,
  ListAgentExternalAccountsQuery,
  ListAgentInternalAccountsQuery,
  ListAgentsQuery,
  ListAgentTransactionsQuery,
  ListApprovalsQuery
} from "./model.ts"
import { type AgentsError, agentPorts } from "./ports.ts"
import {
  createAgentQuote,
  createExternalAccount,
  deleteExternalAccount,
  getAgentAction,
  getAgentQuote,
  getAgentTransaction,
  getAgentTransactionTimeline,
  getExternalAccount,
  listAgentActions,
  listAgentTransactions,
  listExternalAccounts,
  listInternalAccounts
} from "./scoped.ts"
import { agentTransferIn, agentTransferOut, executeAgentQuote } from "./submit.ts"

// The agents context (issue 16; docs/design/agents.md). S0 fixed the contracts so the slices need not touch each
// other's files: `Agents` (slice A: lifecycle.ts, device-codes.ts, credentials.ts), `AgentActions` (slice B:
// submit.ts, approvals.ts, execution.ts) and `AgentScope` (slice C: scoped.ts) delegate each operation to one
// function of their slice's files, over `AgentPorts`.

export type { AgentsError } from "./ports.ts"

/** What the agents context's layers require: the services below it and the ports they run on. */
export type AgentsRequirements =
  | Store
  | Ids
  | Quotes
  | Accounts
  | Transactions
  | Rail
  | Notifier
  | KycProvider
  | PlatformConfigService

/** The platform's agents and the agents' credentials (AG-01 … AG-15, AG-24; slice A). */
export class Agents extends Context.Service<
  Agents,
  {
    /** `POST /agents` (AG-01): the agent, not connected, and its first device code (answered once in clear). */
    readonly create: (request: AgentCreateRequest) => Effect.Effect<AgentCreateResponse, AgentsError>
    /** `GET /agents` (AG-07). */
    readonly list: (query: ListAgentsQuery) => Effect.Effect<Page<Agent>, AgentsError>
    /** `GET /agents/{agentId}` (AG-08): 404 `REFERENCE_NOT_FOUND` when unknown or deleted. */
    readonly get: (agentId: string) => Effect.Effect<Agent, AgentsError>
    /** `PATCH /agents/{agentId}` (AG-09, AG-10). */
    readonly update: (agentId: string, request: AgentUpdateRequest) => Effect.Effect<Agent, AgentsError>
    /** `DELETE /agents/{agentId}` (AG-11): the token dies with the commit; pending actions fail. */
    readonly delete: (agentId: string) => Effect.Effect<void, AgentsError>
    /** `PATCH /agents/{agentId}/policy` (AG-12): a partial update, effective for the next command. */
    readonly updatePolicy: (agentId: string, request: AgentPolicyUpdateRequest) => Effect.Effect<Agent, AgentsError>
    /** `POST /agents/{agentId}/device-codes` (AG-13): invalidates the unredeemed ones; 409 while connected. */
    readonly createDeviceCode: (agentId: string) => Effect.Effect<AgentDeviceCode, AgentsError>
    /** `GET /agents/device-codes/{code}/status` (AG-14). */
    readonly deviceCodeStatus: (code: string) => Effect.Effect<AgentDeviceCodeStatusResponse, AgentsError>
    /** `POST /agents/device-codes/{code}/redeem` (AG-15): the Bearer token, exactly once. */
    readonly redeem: (code: string, caller?: string) => Effect.Effect<AgentDeviceCodeRedeemResponse, AgentsError>
    /** The agent a `gat_…` token belongs to, read now (never cached); `undefined` refuses it (401). */
    readonly authenticate: (token: string) => Effect.Effect<AgentPrincipal | undefined, StoreError>
    /** `GET /agents/me` (AG-24). */
    readonly me: (principal: AgentPrincipal) => Effect.Effect<Agent, AgentsError>
  }
>()("paycore/agents/Agents") {
  static readonly layer: Layer.Layer<Agents, never, AgentsRequirements> = Layer.effect(
    Agents,
    Effect.gen(function* () {
      const ports = yield* agentPorts
      return Agents.of({
        create: operation("Agents.create")(function* (request) {
          return yield* createAgent(ports, request)
        }),
        list: operation("Agents.list")(function* (query) {
          return yield* listAgents(ports, query)
        }),
        get: operation("Agents.get")(function* (agentId) {
          return yield* getAgent(ports, agentId)
        }),
        update: operation("Agents.update")(function* (agentId, request) {
          return yield* updateAgent(ports, agentId, request)
        }),
        delete: operation("Agents.delete")(function* (agentId) {
          return yield* deleteAgent(ports, agentId)
        }),
        updatePolicy: operation("Agents.updatePolicy")(function* (agentId, request) {
          return yield* updateAgentPolicy(ports, agentId, request)
        }),
        createDeviceCode: operation("Agents.createDeviceCode")(function* (agentId) {
          return yield* createDeviceCode(ports, agentId)
        }),
        deviceCodeStatus: operation("Agents.deviceCodeStatus")(function* (code) {
          return yield* deviceCodeStatus(ports, code)
        }),
        redeem: operation("Agents.redeem")(function* (code, caller) {
          return yield* redeemDeviceCode(ports, code, caller)
        }),
        // Untraced (`authenticateAgent` is an `Effect.fnUntraced`, bound as is): it checks the Bearer credential of
        // every `/agents/me/*` request (never cached), where a span would cost more than the lookup it wraps, as
        // `Tokens.authenticate`.
        authenticate: (token) => authenticateAgent(ports, token),
        me: operation("Agents.me")(function* (principal) {
          return yield* getMe(ports, principal)
        })
      })
    })
  )
}

/** An agent's money movement and the platform's approvals (AG-06, AG-16 … AG-23, AG-33; slice B). */
export class AgentActions extends Context.Service<
  AgentActions,
  {
    /** `POST /agents/me/quotes/{quoteId}/execute` (AG-33): `APPROVED` (executed) or `PENDING_APPROVAL`. */
    readonly executeQuote: (
      principal: AgentPrincipal,
      quoteId: string,
      walletSignature: string | undefined
    ) => Effect.Effect<AgentAction, AgentsError>
    /** `POST /agents/me/transfer-out`. */
    readonly transferOut: (
      principal: AgentPrincipal,
      request: TransferOutRequest
    ) => Effect.Effect<AgentAction, AgentsError>
    /** `POST /agents/me/transfer-in`. */
    readonly transferIn: (
      principal: AgentPrincipal,
      request: TransferInRequest
    ) => Effect.Effect<AgentAction, AgentsError>
    /** `GET /agents/approvals` (AG-16): the `PENDING_APPROVAL` actions. */
    readonly listApprovals: (query: ListApprovalsQuery) => Effect.Effect<Page<AgentAction>, AgentsError>
    /** `POST /agents/{agentId}/actions/{actionId}/approve` (AG-20, AG-21, AG-23): `APPROVED` or `FAILED`. */
    readonly approve: (agentId: string, actionId: string) => Effect.Effect<AgentAction, AgentsError>
    /** `POST /agents/{agentId}/actions/{actionId}/reject` (AG-22, AG-23). */
    readonly reject: (
      agentId: string,
      actionId: string,
      request: AgentActionRejectRequest
    ) => Effect.Effect<AgentAction, AgentsError>
  }
>()("paycore/agents/AgentActions") {
  static readonly layer: Layer.Layer<AgentActions, never, AgentsRequirements> = Layer.effect(
    AgentActions,
    Effect.gen(function* () {
      const ports = yield* agentPorts
      return AgentActions.of({
        executeQuote: operation("AgentActions.executeQuote")(function* (principal, quoteId, walletSignature) {
          return yield* executeAgentQuote(ports, principal, quoteId, walletSignature)
        }),
        transferOut: operation("AgentActions.transferOut")(function* (principal, request) {
          return yield* agentTransferOut(ports, principal, request)
        }),
        transferIn: operation("AgentActions.transferIn")(function* (principal, request) {
          return yield* agentTransferIn(ports, principal, request)
        }),
        listApprovals: operation("AgentActions.listApprovals")(function* (query) {
          return yield* listApprovals(ports, query)
        }),
        approve: operation("AgentActions.approve")(function* (agentId, actionId) {
          return yield* approveAction(ports, agentId, actionId)
        }),
        reject: operation("AgentActions.reject")(function* (agentId, actionId, request) {
          return yield* rejectAction(ports, agentId, actionId, request)
        })
      })
    })
  )
}

/** The agent's own reads and external accounts, bound to its customer (AG-25 … AG-32, AG-34 … AG-37; slice C). */
export class AgentScope extends Context.Service<
  AgentScope,
  {
    readonly listInternalAccounts: (
      principal: AgentPrincipal,
      query: ListAgentInternalAccountsQuery
    ) => Effect.Effect<Page<InternalAccount>, AgentsError>
    readonly createExternalAccount: (
      principal: AgentPrincipal,
      request: AgentExternalAccountCreateRequest
    ) => Effect.Effect<ExternalAccount, AgentsError>
    readonly listExternalAccounts: (
      principal: AgentPrincipal,
      query: ListAgentExternalAccountsQuery
    ) => Effect.Effect<Page<ExternalAccount>, AgentsError>
    readonly getExternalAccount: (
      principal: AgentPrincipal,
      externalAccountId: string
    ) => Effect.Effect<ExternalAccount, AgentsError>
    readonly deleteExternalAccount: (
      principal: AgentPrincipal,
      externalAccountId: string
    ) => Effect.Effect<void, AgentsError>
    readonly createQuote: (principal: AgentPrincipal, request: CreateQuoteRequest) => Effect.Effect<Quote, AgentsError>
    readonly getQuote: (principal: AgentPrincipal, quoteId: string) => Effect.Effect<Quote, AgentsError>
    readonly listTransactions: (
      principal: AgentPrincipal,
      query: ListAgentTransactionsQuery
    ) => Effect.Effect<Page<TransactionOneOf>, AgentsError>
    readonly getTransaction: (
      principal: AgentPrincipal,
      transactionId: string
    ) => Effect.Effect<TransactionOneOf, AgentsError>
    /** Issue 18: `GET /agents/me/transactions/{transactionId}/timeline`, scoped as `getTransaction`. */
    readonly getTransactionTimeline: (
      principal: AgentPrincipal,
      transactionId: string
    ) => Effect.Effect<Timeline, AgentsError>
    readonly listActions: (
      principal: AgentPrincipal,
      query: ListAgentActionsQuery
    ) => Effect.Effect<Page<AgentAction>, AgentsError>
    readonly getAction: (principal: AgentPrincipal, actionId: string) => Effect.Effect<AgentAction, AgentsError>
  }
>()("paycore/agents/AgentScope") {
  static readonly layer: Layer.Layer<AgentScope, never, AgentsRequirements> = Layer.effect(
    AgentScope,
    Effect.gen(function* () {
      const ports = yield* agentPorts
      return AgentScope.of({
        listInternalAccounts: operation("AgentScope.listInternalAccounts")(function* (principal, query) {
          return yield* listInternalAccounts(ports, principal, query)
        }),
        createExternalAccount: operation("AgentScope.createExternalAccount")(function* (principal, request) {
          return yield* createExternalAccount(ports, principal, request)
        }),
        listExternalAccounts: operation("AgentScope.listExternalAccounts")(function* (principal, query) {
          return yield* listExternalAccounts(ports, principal, query)
        }),
        getExternalAccount: operation("AgentScope.getExternalAccount")(function* (principal, id) {
          return yield* getExternalAccount(ports, principal, id)
        }),
        deleteExternalAccount: operation("AgentScope.deleteExternalAccount")(function* (principal, id) {
          return yield* deleteExternalAccount(ports, principal, id)
        }),
        createQuote: operation("AgentScope.createQuote")(function* (principal, request) {
          return yield* createAgentQuote(ports, principal, request)
        }),
        getQuote: operation("AgentScope.getQuote")(function* (principal, quoteId) {
          return yield* getAgentQuote(ports, principal, quoteId)
        }),
        listTransactions: operation("AgentScope.listTransactions")(function* (principal, query) {
          return yield* listAgentTransactions(ports, principal, query)
        }),
        getTransaction: operation("AgentScope.getTransaction")(function* (principal, id) {
          return yield* getAgentTransaction(ports, principal, id)
        }),
        getTransactionTimeline: operation("AgentScope.getTransactionTimeline")(function* (principal, id) {
          return yield* getAgentTransactionTimeline(ports, principal, id)
        }),
        listActions: operation("AgentScope.listActions")(function* (principal, query) {
          return yield* listAgentActions(ports, principal, query)
        }),
        getAction: operation("AgentScope.getAction")(function* (principal, actionId) {
          return yield* getAgentAction(ports, principal, actionId)
        })
      })
    })
  )
}
