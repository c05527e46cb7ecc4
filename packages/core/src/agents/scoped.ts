import type { Effect } from "effect"
import type { ExternalAccount, InternalAccount } from "../accounts/model.ts"
import type { CreateQuoteRequest, Quote } from "../quotes/model.ts"
import type { Page } from "../shared/paging.ts"
import type { TransactionOneOf } from "../transactions/model.ts"
import type { AgentPorts, AgentsError } from "./agent-ports.ts"
import type {
  AgentAction,
  AgentExternalAccountCreateRequest,
  AgentPrincipal,
  ListAgentActionsQuery,
  ListAgentExternalAccountsQuery,
  ListAgentInternalAccountsQuery,
  ListAgentTransactionsQuery
} from "./model.ts"
import { notBuilt } from "./not-built.ts"

// The agent's own surface (slice C; docs/design/agents.md section 3 "Scoped reads"): every read and write is bound
// to the principal's customer (and, for quotes and actions, to the agent); anything else is 404 (C-48).

type Scoped<A> = Effect.Effect<A, AgentsError>

export const listInternalAccounts = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _query: ListAgentInternalAccountsQuery
): Scoped<Page<InternalAccount>> => notBuilt("GET /agents/me/internal-accounts")

export const createExternalAccount = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _request: AgentExternalAccountCreateRequest
): Scoped<ExternalAccount> => notBuilt("POST /agents/me/external-accounts")

export const listExternalAccounts = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _query: ListAgentExternalAccountsQuery
): Scoped<Page<ExternalAccount>> => notBuilt("GET /agents/me/external-accounts")

export const getExternalAccount = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _externalAccountId: string
): Scoped<ExternalAccount> => notBuilt("GET /agents/me/external-accounts/{externalAccountId}")

export const deleteExternalAccount = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _externalAccountId: string
): Scoped<void> => notBuilt("DELETE /agents/me/external-accounts/{externalAccountId}")

export const createAgentQuote = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _request: CreateQuoteRequest
): Scoped<Quote> => notBuilt("POST /agents/me/quotes")

export const getAgentQuote = (_ports: AgentPorts, _principal: AgentPrincipal, _quoteId: string): Scoped<Quote> =>
  notBuilt("GET /agents/me/quotes/{quoteId}")

export const listAgentTransactions = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _query: ListAgentTransactionsQuery
): Scoped<Page<TransactionOneOf>> => notBuilt("GET /agents/me/transactions")

export const getAgentTransaction = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _transactionId: string
): Scoped<TransactionOneOf> => notBuilt("GET /agents/me/transactions/{transactionId}")

export const listAgentActions = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _query: ListAgentActionsQuery
): Scoped<Page<AgentAction>> => notBuilt("GET /agents/me/actions")

export const getAgentAction = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _actionId: string
): Scoped<AgentAction> => notBuilt("GET /agents/me/actions/{actionId}")
