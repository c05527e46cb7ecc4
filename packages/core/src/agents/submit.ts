import { Effect } from "effect"
import type { ExternalAccount, InternalAccountRecord } from "../accounts/model.ts"
import { Store } from "../ports/store.ts"
import { sameCurrencyRefusal } from "../quotes/create.ts"
import { accountNotFound, quoteExpired, quoteNotFound } from "../quotes/errors.ts"
import { walletSigningOf } from "../quotes/funding.ts"
import type { QuoteRecord } from "../quotes/model.ts"
import type { Forbidden, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { QuoteId, TransactionId } from "../shared/ids.ts"
import type { Steps } from "../shared/tracing.ts"
import { lockQuoteSteps } from "../transactions/execute.ts"
import type { TransferInRequest, TransferOutRequest } from "../transactions/model.ts"
import { transferInAccountsSteps, transferOutQuoteRequest } from "../transactions/transfers.ts"
import { verifyWalletStamp } from "../wallet-auth/signed-retry.ts"
import { agentActionAlreadyPending, agentForbidden, agentUnauthorized } from "./errors.ts"
import {
  type ActionDraft,
  type ActionOperation,
  actionDraft,
  afterActionSteps,
  asDefects,
  gateRefusal,
  lockAgentQuoteSteps,
  quoteOperation,
  quoteReadySteps,
  type ReadRates,
  type RunEnv,
  type RunError,
  type RunOutcome,
  ratesFor,
  runActionSteps,
  runEnv,
  type StaleRates,
  startActionSteps,
  transferInOperation,
  viewOf,
  withFreshRates
} from "./execution.ts"
import type { AgentAction, AgentActionRecord, AgentActionType, AgentPrincipal, AgentRecord } from "./model.ts"
import { type AgentOperation, evaluate, limitVerdict, type PolicyHold, type PolicyRun } from "./policy.ts"
import type { AgentPorts, AgentsError } from "./ports.ts"
import { readUsageSteps } from "./usage.ts"

// An agent's money movement (slice B; docs/design/agents.md section 3 "Submit an execute"): evaluated against the
// policy, counted and executed (or held for approval) in one store transaction that locks the agent first. Market
// rates are read before it; a refusal anywhere rolls everything back and is the answer.

/** The agent's row as the command starts (401 once deleted: its token died with the delete) and the gate's 403. */
function* liveAgentSteps(
  ports: AgentPorts,
  agentId: string,
  type: AgentActionType,
  lock: boolean
): Steps<AgentRecord, StoreError | Refused | Forbidden> {
  const agents = ports.store.agents
  const agent = yield* lock ? agents.getForUpdate(agentId) : agents.get(agentId)
  if (agent === undefined || agent.deletedAt !== undefined) return yield* Effect.fail(agentUnauthorized())
  // A PATCH (pause, permissions) may have landed after the HTTP gate read the agent.
  const refusal = gateRefusal(agent, type)
  if (refusal !== undefined) return yield* Effect.fail(agentForbidden(refusal))
  return agent
}

/** The policy's decision on `op` (403 when it refuses): run now, or hold for the platform. */
function* decideSteps(
  agent: AgentRecord,
  op: AgentOperation,
  rates: ReadRates
): Steps<PolicyRun | PolicyHold, Forbidden | StaleRates> {
  const decision = evaluate(agent.policy, agent.isPaused, op, yield* ratesFor(rates, agent.policy, op))
  if (decision._tag === "Refuse") return yield* Effect.fail(agentForbidden(decision))
  return decision
}

/** What the store transaction of a submission left: a held action, or a run to finish after the commit. */
type Submitted =
  | { readonly _tag: "Held"; readonly record: AgentActionRecord; readonly quote?: QuoteRecord }
  | {
      readonly _tag: "Ran"
      readonly record: AgentActionRecord
      readonly run: RunOutcome
    }
  | { readonly _tag: "QuoteDue"; readonly quoteId: string; readonly expiresAt: string }

/**
 * The decided operation, inside the store transaction (design section 3, steps 4 and 5). A hold reads the usage (a
 * limit already passed is 403 now, not at approval), checks the wallet's stamp when the quote needs one (a bad one is
 * 401 now; it is kept for the approval) and stores the action `PENDING_APPROVAL` with its event. A run counts the
 * usage, moves the money and stores the action `APPROVED` with its transaction.
 */
function* actSteps(
  ports: AgentPorts,
  agent: AgentRecord,
  draft: ActionDraft,
  decision: PolicyRun | PolicyHold,
  operation: ActionOperation,
  env: RunEnv
): Steps<Submitted, AgentsError | RunError> {
  const { store } = ports
  const quote = operation._tag === "Quote" ? operation.locked.quote : undefined
  if (decision._tag === "Hold") {
    const usage = yield* readUsageSteps(store, agent.id, agent.policy.spendingLimits.currency, env.now)
    const over = limitVerdict(agent.policy, usage, decision.policyAmount)
    if (over !== undefined) return yield* Effect.fail(agentForbidden(over))
    const signing = quote === undefined ? undefined : walletSigningOf(quote.quote)
    const walletSignature = operation._tag === "Quote" ? operation.walletSignature : undefined
    if (signing !== undefined) {
      yield* verifyWalletStamp(signing.accountId, walletSignature, signing.payload).pipe(
        Effect.provideService(Store, store)
      )
    }
    const changes = {
      approvalReason: decision.approvalReason,
      ...(signing === undefined ? {} : { walletSignature })
    }
    const record = yield* startActionSteps(ports, draft, "HOLD", changes, quote, env.now)
    return quote === undefined ? { _tag: "Held", record } : { _tag: "Held", record, quote }
  }
  const ran = yield* runActionSteps(ports, agent, decision.policyAmount, operation, env)
  const changes = { transactionId: ran.transactionId as TransactionId }
  const record = yield* startActionSteps(ports, draft, "RUN", changes, quote, env.now)
  return { _tag: "Ran", record, run: ran.outcome }
}

/** After the commit: a held action as stored; a run's payment submitted (or its SMS sent), then the action. */
function* answerSteps(ports: AgentPorts, submitted: Submitted, env: RunEnv): Steps<AgentAction, AgentsError> {
  if (submitted._tag === "QuoteDue") {
    return yield* Effect.fail(quoteExpired(submitted.quoteId, submitted.expiresAt))
  }
  if (submitted._tag === "Held") return viewOf(submitted.record, submitted.quote, undefined)
  const after = yield* asDefects(Effect.gen(() => afterActionSteps(ports, submitted.run, env.clock)))
  return viewOf(submitted.record, after.quote, after.transaction)
}

/** `POST /agents/me/quotes/{quoteId}/execute` (AG-33, AG-06, AG-19): `APPROVED` (executed) or `PENDING_APPROVAL`. */
export const executeAgentQuote = (
  ports: AgentPorts,
  principal: AgentPrincipal,
  quoteId: string,
  walletSignature: string | undefined
): Effect.Effect<AgentAction, AgentsError> =>
  asDefects(
    Effect.gen(function* () {
      const { store } = ports
      const env = yield* runEnv
      const seen = yield* liveAgentSteps(ports, principal.agentId, "EXECUTE_QUOTE", false)
      const quote = yield* store.quotes.get(quoteId)
      // C-48: another agent's quote, or the platform's own, is not there for this agent.
      if (quote === undefined || quote.agentId !== seen.id) return yield* Effect.fail(quoteNotFound(quoteId))
      const op = quoteOperation("EXECUTE_QUOTE", quote.quote)
      const submitted = yield* withFreshRates(ports, seen.policy, op, (rates) =>
        store.transaction(
          Effect.gen(function* () {
            const agent = yield* liveAgentSteps(ports, principal.agentId, "EXECUTE_QUOTE", true)
            const locked = yield* lockAgentQuoteSteps(ports, agent.id, quoteId)
            // The quote's lock serializes executes of it: a pending action on it is already committed and seen.
            if ((yield* store.agentActions.findUnique("openSlot", quoteId)) !== undefined) {
              return yield* Effect.fail(agentActionAlreadyPending(quoteId))
            }
            const due = yield* quoteReadySteps(ports, locked, env.now)
            if (due !== undefined) return due
            const decision = yield* decideSteps(agent, op, rates)
            const draft = actionDraft(
              yield* ports.ids.make("AgentAction"),
              agent,
              {
                type: "EXECUTE_QUOTE",
                quoteId: locked.quote.quote.id,
                amount: op.amount,
                currency: op.currency
              },
              env.now
            )
            return yield* actSteps(ports, agent, draft, decision, { _tag: "Quote", locked, walletSignature }, env)
          })
        )
      )
      return yield* answerSteps(ports, submitted, env)
    })
  )

/** The internal account `id` of the agent's customer, else 404 (another customer's is not there for the agent). */
function* customerInternalAccount(
  ports: AgentPorts,
  principal: AgentPrincipal,
  id: string
): Steps<InternalAccountRecord, StoreError | NotFound> {
  const account = yield* ports.store.internalAccounts.get(id)
  if (account === undefined || account.customerId !== principal.customerId) {
    return yield* Effect.fail(accountNotFound(id))
  }
  return account
}

/** The (not deleted) external account `id` of the agent's customer, else 404. */
function* customerExternalAccount(
  ports: AgentPorts,
  principal: AgentPrincipal,
  id: string
): Steps<ExternalAccount, StoreError | NotFound> {
  const account = yield* ports.store.externalAccounts.get(id)
  if (account === undefined || account.status === "INACTIVE" || account.customerId !== principal.customerId) {
    return yield* Effect.fail(accountNotFound(id))
  }
  return account
}

/**
 * `POST /agents/me/transfer-out` (upstream): the customer's internal account to its external account, one currency.
 * Accounts first (404 unless the customer's; 400 across currencies); then, in the transaction, the policy (a refusal
 * creates nothing), the same-currency quote for the agent with a day's life to be approved in (Q5), and the execute's
 * steps on it.
 */
export const agentTransferOut = (
  ports: AgentPorts,
  principal: AgentPrincipal,
  request: TransferOutRequest
): Effect.Effect<AgentAction, AgentsError> =>
  asDefects(
    Effect.gen(function* () {
      const { store } = ports
      const env = yield* runEnv
      const seen = yield* liveAgentSteps(ports, principal.agentId, "TRANSFER_OUT", false)
      const source = yield* customerInternalAccount(ports, principal, request.source.accountId)
      const destination = yield* customerExternalAccount(ports, principal, request.destination.accountId)
      if (destination.currency !== source.currency) {
        return yield* Effect.fail(sameCurrencyRefusal(source.currency, destination.currency))
      }
      const op: AgentOperation = {
        type: "TRANSFER_OUT",
        amount: request.amount,
        currency: source.currency,
        internalAccountIds: [source.id]
      }
      const submitted = yield* withFreshRates(ports, seen.policy, op, (rates) =>
        store.transaction(
          Effect.gen(function* () {
            const agent = yield* liveAgentSteps(ports, principal.agentId, "TRANSFER_OUT", true)
            const decision = yield* decideSteps(agent, op, rates)
            // Its own store transaction joins this one: refused later, the quote is rolled back too.
            const quote = yield* ports.quotes.create(transferOutQuoteRequest(request, false), {
              transferOut: true,
              agentId: agent.id,
              lifetimeSeconds: env.settings.agentTransferApprovalSeconds
            })
            const locked = yield* lockQuoteSteps(store, quote.id)
            const draft = actionDraft(
              yield* ports.ids.make("AgentAction"),
              agent,
              {
                type: "TRANSFER_OUT",
                quoteId: quote.id as QuoteId,
                amount: request.amount,
                currency: source.currency,
                transferDetails: {
                  amount: request.amount,
                  currency: source.currency,
                  sourceAccountId: source.id,
                  destinationAccountId: destination.id
                }
              },
              env.now
            )
            return yield* actSteps(ports, agent, draft, decision, { _tag: "Quote", locked }, env)
          })
        )
      )
      return yield* answerSteps(ports, submitted, env)
    })
  )

/**
 * `POST /agents/me/transfer-in` (upstream): a pull from the customer's external account into its internal account.
 * Accounts first (404 unless the customer's; 400 not pullable or across currencies). Held, only `transferDetails`
 * are stored (the incoming transaction is made when it runs, Q5); run, the transfer-in is stored for the agent in the
 * transaction and handed to its rail after the commit.
 */
export const agentTransferIn = (
  ports: AgentPorts,
  principal: AgentPrincipal,
  request: TransferInRequest
): Effect.Effect<AgentAction, AgentsError> =>
  asDefects(
    Effect.gen(function* () {
      const { store } = ports
      const env = yield* runEnv
      const seen = yield* liveAgentSteps(ports, principal.agentId, "TRANSFER_IN", false)
      yield* customerExternalAccount(ports, principal, request.source.accountId)
      yield* customerInternalAccount(ports, principal, request.destination.accountId)
      const { account } = yield* transferInAccountsSteps(ports.payments, request)
      const op = transferInOperation(request, account.currency)
      const submitted = yield* withFreshRates(ports, seen.policy, op, (rates) =>
        store.transaction(
          Effect.gen(function* () {
            const agent = yield* liveAgentSteps(ports, principal.agentId, "TRANSFER_IN", true)
            const decision = yield* decideSteps(agent, op, rates)
            const draft = actionDraft(
              yield* ports.ids.make("AgentAction"),
              agent,
              {
                type: "TRANSFER_IN",
                amount: request.amount,
                currency: account.currency,
                transferDetails: {
                  amount: request.amount,
                  currency: account.currency,
                  sourceAccountId: request.source.accountId,
                  destinationAccountId: account.id
                }
              },
              env.now
            )
            return yield* actSteps(ports, agent, draft, decision, { _tag: "TransferIn", request }, env)
          })
        )
      )
      return yield* answerSteps(ports, submitted, env)
    })
  )
