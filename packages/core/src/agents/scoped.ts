import { type BigDecimal, Effect } from "effect"
import { accountOwnerNotFound, externalAccountNotFound } from "../accounts/errors.ts"
import type { ExternalAccount, InternalAccount } from "../accounts/model.ts"
import { invalidCursor } from "../platform/errors.ts"
import { accountNotFound, customerNotFound, quoteNotFound } from "../quotes/errors.ts"
import type { CreateQuoteRequest, Quote } from "../quotes/model.ts"
import type { QuotesError } from "../quotes/service.ts"
import type { FieldError } from "../shared/errors.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { invalidInput } from "../shared/validation.ts"
import type { Timeline } from "../timelines/model.ts"
import { transactionNotFound } from "../transactions/errors.ts"
import type { TransactionOneOf } from "../transactions/model.ts"
import { agentActionNotFound, agentForbidden, agentUnauthorized } from "./errors.ts"
import type {
  AgentAction,
  AgentActionRecord,
  AgentExternalAccountCreateRequest,
  AgentPermission,
  AgentPrincipal,
  AgentRecord,
  ListAgentActionsQuery,
  ListAgentExternalAccountsQuery,
  ListAgentInternalAccountsQuery,
  ListAgentTransactionsQuery
} from "./model.ts"
import { type AgentOperation, evaluate, type MarketRates, marketRates, ratePairs } from "./policy.ts"
import type { AgentPorts, AgentsError } from "./ports.ts"
import { toAgentAction } from "./views.ts"

// The agent's own surface (slice C; docs/design/agents.md section 3 "Scoped reads"): every read and write is bound
// to the principal's customer (and, for quotes and actions, to the agent); anything else is 404 (C-48), answered
// with the code the platform's route gives an unknown id, so a foreign id and an unknown one look the same.

type Scoped<A> = Effect.Effect<A, AgentsError>

/** A quotes call: an illegal move of a quote's machine is a defect here, never an answer. */
const fromQuotes = <A>(effect: Effect.Effect<A, QuotesError>): Scoped<A> =>
  Effect.catchTag(effect, "IllegalTransition", (e) => Effect.die(e))

// ---- the agent as it is now ----

/**
 * The agent's row as it is now, for a write: the HTTP gate checked the principal read at authentication, but a PATCH
 * or a pause may have landed since. Deleted → 401 (its token is dead); paused → 403 `AGENT_PAUSED` (AG-10); without
 * `permission` → 403 `PERMISSION_MISSING` (AG-30).
 */
const writableAgent = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal,
  permission: AgentPermission
) {
  const agent = yield* ports.store.agents.get(principal.agentId)
  if (agent === undefined || agent.deletedAt !== undefined) return yield* agentUnauthorized()
  if (agent.isPaused) return yield* agentForbidden({ reason: "AGENT_PAUSED" })
  if (!agent.policy.permissions.includes(permission)) {
    return yield* agentForbidden({ reason: "PERMISSION_MISSING", details: { permission } })
  }
  return agent
})

// ---- internal accounts (AG-25) ----

/** Every internal account of the customer (design Q7: not narrowed by `allowedAccountIds`, which it is to check). */
export const listInternalAccounts = (
  ports: AgentPorts,
  principal: AgentPrincipal,
  query: ListAgentInternalAccountsQuery
): Scoped<Page<InternalAccount>> => ports.accounts.listInternal({ ...query, customerId: principal.customerId })

// ---- external accounts (AG-26 … AG-29) ----

/** AG-26: the platform's create for the agent's customer; another `customerId` is 404 `USER_NOT_FOUND` (C-48). */
export const createExternalAccount = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal,
  request: AgentExternalAccountCreateRequest
): Effect.fn.Return<ExternalAccount, AgentsError> {
  const agent = yield* writableAgent(ports, principal, "MANAGE_EXTERNAL_ACCOUNTS")
  if (request.customerId !== undefined && request.customerId !== agent.customerId) {
    return yield* accountOwnerNotFound(request.customerId)
  }
  return yield* ports.accounts.createExternal({ ...request, customerId: agent.customerId })
})

/** AG-27: the customer's external accounts. */
export const listExternalAccounts = (
  ports: AgentPorts,
  principal: AgentPrincipal,
  query: ListAgentExternalAccountsQuery
): Scoped<Page<ExternalAccount>> => ports.accounts.listExternal({ ...query, customerId: principal.customerId })

/** AG-28: 404 `NOT_FOUND` (the platform's get's code) for another customer's account. */
export const getExternalAccount = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal,
  externalAccountId: string
): Effect.fn.Return<ExternalAccount, AgentsError> {
  const account = yield* ports.accounts.getExternal(externalAccountId)
  if (account.customerId !== principal.customerId) return yield* externalAccountNotFound(externalAccountId)
  return account
})

/** AG-29: the platform's delete (409 `BENEFICIARY_TRUSTED` for a trusted one) of one of the customer's accounts. */
export const deleteExternalAccount = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal,
  externalAccountId: string
): Effect.fn.Return<void, AgentsError> {
  yield* writableAgent(ports, principal, "MANAGE_EXTERNAL_ACCOUNTS")
  yield* getExternalAccount(ports, principal, externalAccountId)
  yield* ports.accounts.deleteExternal(externalAccountId)
})

// ---- quotes (AG-31, AG-32) ----

/**
 * Design Q9: an agent's quote is executed through its own execute, where the policy applies; a real-time-funded
 * quote would execute on a deposit and `immediatelyExecute` at once, both past the policy.
 */
const quoteShapeErrors = (request: CreateQuoteRequest): Array<FieldError> => {
  const errors: Array<FieldError> = []
  if (request.source.sourceType !== "ACCOUNT") {
    errors.push({
      field: "source.sourceType",
      constraint: { const: "ACCOUNT" },
      message: "An agent's quote is paid from one of its customer's internal accounts (sourceType ACCOUNT)"
    })
  }
  if (request.immediatelyExecute === true) {
    errors.push({
      field: "immediatelyExecute",
      constraint: { const: false },
      message: "An agent executes its quote with POST /agents/me/quotes/{quoteId}/execute, where its policy applies"
    })
  }
  return errors
}

/**
 * The internal accounts a quote of the agent's customer touches, each checked to be the customer's (C-48, design
 * Q1: another customer's account or `customerId` is the 404 an unknown one gets, not a 403), with their currencies.
 */
const ownAccountsOf = Effect.fnUntraced(function* (ports: AgentPorts, customerId: string, request: CreateQuoteRequest) {
  const { source, destination } = request
  if (source.customerId !== undefined && source.customerId !== customerId) {
    return yield* customerNotFound(source.customerId)
  }
  const internal: Array<{ readonly id: string; readonly currency: string }> = []
  const internalAccount = Effect.fnUntraced(function* (id: string) {
    const account = yield* ports.store.internalAccounts.get(id)
    if (account === undefined || account.customerId !== customerId) return yield* accountNotFound(id)
    internal.push({ id, currency: account.currency })
  })
  if (source.sourceType === "ACCOUNT") yield* internalAccount(source.accountId)
  let receivingCurrency: string | undefined
  if (destination.destinationType === "ACCOUNT") {
    if (destination.accountId.startsWith("InternalAccount:")) {
      yield* internalAccount(destination.accountId)
      receivingCurrency = internal[internal.length - 1]?.currency
    } else {
      const payee = yield* ports.store.externalAccounts.get(destination.accountId)
      if (payee === undefined || payee.customerId !== customerId) {
        return yield* accountNotFound(destination.accountId)
      }
      receivingCurrency = payee.currency
    }
  }
  return { internal, receivingCurrency }
})

/** The market rates `evaluate` converts `op` with under `policy`, read before the store transaction. */
const ratesFor = Effect.fnUntraced(function* (ports: AgentPorts, policy: AgentRecord["policy"], op: AgentOperation) {
  const table: Record<string, BigDecimal.BigDecimal> = {}
  for (const [from, to] of ratePairs(policy, op))
    table[`${from}/${to}`] = yield* fromQuotes(ports.quotes.marketRate(from, to))
  const rates: MarketRates = marketRates(table)
  return rates
})

/**
 * AG-31: the platform's `POST /quotes` for the agent (`Quotes.create(…, {agentId})`, so its transaction carries it,
 * AG-38), after the agent's rules in the design's order: the current agent may create quotes (paused, permission);
 * an `ACCOUNT` source and no `immediatelyExecute` (400, Q9); every account and `customerId` its customer's (404);
 * every internal account allowed (403 `ACCOUNT_NOT_ALLOWED`); then the quote is priced and its
 * `totalSendingAmount` must be within the per-transaction limit (403 `PER_TRANSACTION_LIMIT_EXCEEDED`), else the
 * creation rolls back. Mode, thresholds and the day's limits are the execute's (a quote moves no money).
 */
export const createAgentQuote = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal,
  request: CreateQuoteRequest
): Effect.fn.Return<Quote, AgentsError> {
  const agent = yield* writableAgent(ports, principal, "CREATE_QUOTES")
  const shape = quoteShapeErrors(request)
  if (shape.length > 0) return yield* invalidInput(shape)
  const accounts = yield* ownAccountsOf(ports, agent.customerId, request)
  const sending = accounts.internal[0]!
  const operation = (amount: number): AgentOperation => ({
    type: "CREATE_QUOTE",
    amount,
    currency: sending.currency,
    internalAccountIds: accounts.internal.map((a) => a.id),
    accountCurrencies: Object.fromEntries(accounts.internal.map((a) => [a.id, a.currency]))
  })
  const rates = yield* ratesFor(ports, agent.policy, operation(0))
  const refusal = (amount: number) => {
    const decision = evaluate(agent.policy, agent.isPaused, operation(amount), rates)
    return decision._tag === "Refuse" ? agentForbidden(decision) : undefined
  }
  // The accounts are refused before pricing (an amount of 0 is within any limit).
  const early = refusal(0)
  if (early !== undefined) return yield* early
  // Warm the rate the quote is priced at, so no fetch happens inside the store transaction.
  if (accounts.receivingCurrency !== undefined) {
    yield* fromQuotes(ports.quotes.marketRate(sending.currency, accounts.receivingCurrency))
  }
  return yield* ports.store.transaction(
    Effect.gen(function* () {
      const quote = yield* fromQuotes(ports.quotes.create(request, { agentId: agent.id }))
      const over = refusal(quote.totalSendingAmount)
      if (over !== undefined) return yield* over
      return quote
    })
  )
})

/** AG-32: one of the agent's own quotes; another agent's or the platform's is 404 `QUOTE_NOT_FOUND` (C-48). */
export const getAgentQuote = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal,
  quoteId: string
): Effect.fn.Return<Quote, AgentsError> {
  const record = yield* ports.store.quotes.get(quoteId)
  if (record === undefined || record.agentId !== principal.agentId) return yield* quoteNotFound(quoteId)
  return record.quote
})

// ---- transactions (AG-34, AG-35) ----

/** AG-34: the `/transactions` listing (payments and card transactions) of the agent's customer only. */
export const listAgentTransactions = (
  ports: AgentPorts,
  principal: AgentPrincipal,
  query: ListAgentTransactionsQuery
): Scoped<Page<TransactionOneOf>> => ports.transactions.list({ ...query, customerId: principal.customerId })

/** AG-35: a payment or card transaction of the customer; another customer's is 404 `TRANSACTION_NOT_FOUND`. */
export const getAgentTransaction = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal,
  transactionId: string
): Effect.fn.Return<TransactionOneOf, AgentsError> {
  const transaction: TransactionOneOf = yield* ports.transactions.get(transactionId)
  if (transaction.customerId !== principal.customerId) return yield* transactionNotFound(transactionId)
  return transaction
})

/** Issue 18: the timeline of a payment or card transaction of the customer; 404 as `getAgentTransaction`. */
export const getAgentTransactionTimeline = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal,
  transactionId: string
): Effect.fn.Return<Timeline, AgentsError> {
  yield* getAgentTransaction(ports, principal, transactionId)
  return yield* ports.transactions.timeline(transactionId)
})

// ---- actions (AG-36, AG-37) ----

/** An action with its live quote and, once `APPROVED`, its transaction (views.ts `toAgentAction`). */
const renderAction = Effect.fnUntraced(function* (ports: AgentPorts, record: AgentActionRecord) {
  const quote = record.quoteId === undefined ? undefined : yield* ports.store.quotes.get(record.quoteId)
  const transaction =
    record.transactionId === undefined || record.status !== "APPROVED"
      ? undefined
      : yield* ports.store.transactions.get(record.transactionId)
  return toAgentAction(record, quote?.quote, transaction?.transaction)
})

/** AG-36: the agent's own actions, newest first, filter `status`, paged: how it polls for decisions. */
export const listAgentActions = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal,
  query: ListAgentActionsQuery
): Effect.fn.Return<Page<AgentAction>, AgentsError> {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  const rows = yield* ports.store.agentActions.list({ agentId: principal.agentId, status: query.status }, page)
  const data = yield* Effect.forEach(rows.data, (record) => renderAction(ports, record))
  const result: Page<AgentAction> = { ...rows, data }
  return result
})

/** AG-37: one of the agent's own actions; another agent's is 404 `REFERENCE_NOT_FOUND` (C-48). */
export const getAgentAction = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal,
  actionId: string
): Effect.fn.Return<AgentAction, AgentsError> {
  const record = yield* ports.store.agentActions.get(actionId)
  if (record === undefined || record.agentId !== principal.agentId) return yield* agentActionNotFound(actionId)
  return yield* renderAction(ports, record)
})
