/**
 * The bridge from an agent's action into the payment engine (docs/design/agents.md, section 3 "Submit an execute"
 * and "Approve and reject"; slice B). Everything here runs inside the caller's store transaction, after the agent's
 * row lock: the market rates the policy converts with (read before the transaction), the quote's 409s, the action's
 * moves (`agentActionMachine`, with `AGENT_ACTION.PENDING_APPROVAL` on a hold, WH-22), the execution itself (usage
 * counted first, then `executeLockedSteps` or `transferInStoreSteps`), and what runs after the commit.
 */
import { type BigDecimal, type Clock, Data, Effect, Result } from "effect"
import { together, type UniqueViolation } from "../ports/store.ts"
import { quoteAlreadyExecuted, quoteExpired, quoteNotExecutable, quoteNotFound } from "../quotes/errors.ts"
import { isQuoteDueToExpire } from "../quotes/expiry.ts"
import { quoteMachine } from "../quotes/machine.ts"
import type { Quote, QuoteRecord } from "../quotes/model.ts"
import type { QuotesError } from "../quotes/service.ts"
import { commandEnv, type EngineSettings } from "../shared/engine-config.ts"
import type { Conflict, Forbidden, NotFound, StoreError } from "../shared/errors.ts"
import type { AgentActionId } from "../shared/ids.ts"
import { allows, type IllegalTransition, transition } from "../shared/machine.ts"
import { isoOf } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import {
  afterExecuteSteps,
  type ExecuteOutcome,
  executeLockedSteps,
  expireQuoteAndTransactionSteps,
  type LockedQuote,
  lockQuoteSteps
} from "../transactions/execute.ts"
import type { TransactionRecord, TransferInRequest } from "../transactions/model.ts"
import { dieOnUnique, type MoveError } from "../transactions/moves.ts"
import { submitSteps } from "../transactions/submission.ts"
import { transferInStoreSteps } from "../transactions/transfers.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { agentActionAlreadyPending } from "./errors.ts"
import { type AgentActionEvent, agentActionMachine } from "./machine.ts"
import type { AgentAction, AgentActionRecord, AgentActionType, AgentPolicy, AgentRecord } from "./model.ts"
import {
  type AgentOperation,
  evaluate,
  type MarketRates,
  marketRates,
  type PolicyRefusal,
  ratePairs
} from "./policy.ts"
import type { AgentPorts } from "./ports.ts"
import { countUsageSteps } from "./usage.ts"
import { toAgentAction } from "./views.ts"

// ---- defects and retries ----

/** A move the machine lacks or a second row on a key nothing expects is a bug: it dies, it is no client's answer. */
export const asDefects = <A, E, R>(
  effect: Effect.Effect<A, E | IllegalTransition | UniqueViolation, R>
): Effect.Effect<A, Exclude<E, IllegalTransition | UniqueViolation>, R> =>
  dieOnUnique(
    Effect.catchIf(
      effect,
      (e): e is IllegalTransition =>
        typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "IllegalTransition",
      (e) => Effect.die(e)
    )
  ) as Effect.Effect<A, Exclude<E, IllegalTransition | UniqueViolation>, R>

/** The locked policy needs a market rate that was not read before the transaction (a policy PATCH raced). */
export class StaleRates extends Data.TaggedError("StaleRates")<{ readonly policy: AgentPolicy }> {}

// ---- market rates ----

/** Market rates read before a store transaction (`FROM/TO` → rate). */
export interface ReadRates {
  readonly table: Readonly<Record<string, BigDecimal.BigDecimal>>
}

const pairKey = (from: string, to: string) => `${from}/${to}`

/** The market rates `evaluate` needs for `op` under `policy` (`Quotes.marketRate`, the cached rate; none: no read). */
export function* readRatesSteps(
  ports: AgentPorts,
  policy: AgentPolicy,
  op: AgentOperation
): Steps<ReadRates, QuotesError> {
  const table: Record<string, BigDecimal.BigDecimal> = {}
  for (const [from, to] of ratePairs(policy, op)) table[pairKey(from, to)] = yield* ports.quotes.marketRate(from, to)
  return { table }
}

/**
 * The rates `evaluate` takes for `op` under the (locked) policy; `StaleRates` when it needs a pair that was not read
 * (the command then runs once more).
 */
export function* ratesFor(rates: ReadRates, policy: AgentPolicy, op: AgentOperation): Steps<MarketRates, StaleRates> {
  const missing = ratePairs(policy, op).some(([from, to]) => rates.table[pairKey(from, to)] === undefined)
  if (missing) return yield* Effect.fail(new StaleRates({ policy }))
  return marketRates(rates.table)
}

/**
 * Runs `attempt` (a store transaction evaluating with rates read for a policy), and once more with the rates of the
 * policy it found locked when a PATCH changed the currencies in between (design section 3, "Policy evaluation").
 */
export const withFreshRates = <A, E>(
  ports: AgentPorts,
  policy: AgentPolicy,
  op: AgentOperation,
  attempt: (rates: ReadRates) => Effect.Effect<A, E | StaleRates>
): Effect.Effect<A, E | QuotesError> => {
  const run = (current: AgentPolicy, left: number): Effect.Effect<A, E | QuotesError> =>
    Effect.gen(function* () {
      const rates = yield* readRatesSteps(ports, current, op)
      return yield* attempt(rates)
    }).pipe(
      Effect.catchIf(
        (e): e is StaleRates => e instanceof StaleRates,
        (stale) =>
          left > 0 ? run(stale.policy, left - 1) : Effect.die(new Error("the agent's policy kept changing currency"))
      )
    ) as Effect.Effect<A, E | QuotesError>
  return run(policy, 2)
}

// ---- the operation ----

const isInternalAccountId = (id: string) => id.startsWith("InternalAccount:")

/**
 * A quote as the policy sees it (design section 3): its sending amount, and every internal account it touches (the
 * source, and the destination of an internal transfer, whose rule limit is in that account's currency).
 */
export const quoteOperation = (type: "EXECUTE_QUOTE" | "TRANSFER_OUT", quote: Quote): AgentOperation => {
  const accounts: Array<string> = []
  const currencies: Record<string, string> = {}
  if (quote.source.sourceType === "ACCOUNT") accounts.push(quote.source.accountId)
  const destination = quote.destination
  if (destination.destinationType === "ACCOUNT" && isInternalAccountId(destination.accountId)) {
    accounts.push(destination.accountId)
    currencies[destination.accountId] = quote.receivingCurrency.code
  }
  return {
    type,
    amount: quote.totalSendingAmount,
    currency: quote.sendingCurrency.code,
    internalAccountIds: accounts,
    accountCurrencies: currencies
  }
}

/** A transfer-in as the policy sees it: the amount into the internal account it credits. */
export const transferInOperation = (request: TransferInRequest, currency: string): AgentOperation => ({
  type: "TRANSFER_IN",
  amount: request.amount,
  currency,
  internalAccountIds: [request.destination.accountId]
})

/**
 * The refusal of the policy's first two checks alone (paused, AG-10; the permission, AG-30), under the agent's lock
 * before anything else is read: an operation of nothing on no account passes the others.
 */
export const gateRefusal = (agent: AgentRecord, type: AgentActionType): PolicyRefusal | undefined => {
  const none = { type, amount: 0, currency: agent.policy.spendingLimits.currency, internalAccountIds: [] }
  // `skipMode`: the mode and threshold are not the gate's (nor would an amount of nothing convert).
  const decision = evaluate(agent.policy, agent.isPaused, none, () => undefined, { skipMode: true })
  return decision._tag === "Refuse" ? decision : undefined
}

// ---- the quote ----

/** An execute that found its quote due to expire: the expiry is committed, then 409 `QUOTE_EXPIRED`. */
export interface QuoteDue {
  readonly _tag: "QuoteDue"
  readonly quoteId: string
  readonly expiresAt: string
}

/**
 * The 409s of a locked quote an agent acts on, as `executeLockedSteps` has them (`QUOTE_EXPIRED`,
 * `QUOTE_ALREADY_EXECUTED`, `QUOTE_NOT_EXECUTABLE`), checked before anything is counted or held; a quote due to
 * expire is expired (`QuoteDue`: commit it, then answer 409).
 */
export function* quoteReadySteps(
  ports: AgentPorts,
  locked: LockedQuote,
  now: string
): Steps<QuoteDue | undefined, Conflict | MoveError> {
  const quote = locked.quote.quote
  if (quote.status === "EXPIRED") return yield* Effect.fail(quoteExpired(quote.id, quote.expiresAt))
  if (!allows(quoteMachine, quote.status, "EXECUTE")) {
    return yield* Effect.fail(quoteAlreadyExecuted(quote.id, quote.status))
  }
  if (quote.source.sourceType === "REALTIME_FUNDING") return yield* Effect.fail(quoteNotExecutable(quote.id))
  if (!isQuoteDueToExpire(quote, now)) return undefined
  yield* expireQuoteAndTransactionSteps(ports.payments, locked.quote, now)
  return { _tag: "QuoteDue", quoteId: quote.id, expiresAt: quote.expiresAt }
}

/**
 * Ends a held action's quote with its decision (design section 3, "Ending the underlying quote"): a quote still
 * `PENDING` expires with its transaction (`OUTGOING_PAYMENT.EXPIRED`), so a refused operation cannot be executed
 * again from it.
 */
export function* endQuoteSteps(ports: AgentPorts, quoteId: string | undefined, now: string): Steps<void, MoveError> {
  if (quoteId === undefined) return
  const quote = yield* ports.store.quotes.getForUpdate(quoteId)
  if (quote !== undefined && allows(quoteMachine, quote.quote.status, "EXPIRE")) {
    yield* expireQuoteAndTransactionSteps(ports.payments, quote, now)
  }
}

// ---- the action ----

/** A new action before its first move (`SUBMITTED` is never stored). */
export type ActionDraft = Omit<AgentActionRecord, "status" | "updatedAt">

/** A new action from the agent's row, `now`, and what it is about. */
export const actionDraft = (
  id: AgentActionId,
  agent: AgentRecord,
  fields: Pick<AgentActionRecord, "type" | "amount" | "currency" | "quoteId" | "transferDetails">,
  now: string
): ActionDraft => ({
  id,
  agentId: agent.id,
  customerId: agent.customerId,
  platformCustomerId: agent.platformCustomerId,
  ...fields,
  createdAt: now
})

/** The view of an action whose quote and transaction the caller holds (none read). */
export const viewOf = (
  record: AgentActionRecord,
  quote: QuoteRecord | undefined,
  transaction: TransactionRecord | undefined
): AgentAction => toAgentAction(record, quote?.quote, transaction?.transaction)

/**
 * An action's first move (`HOLD` or `RUN`) inside the caller's store transaction: the row inserted, the move's events
 * written with the action as it now is (`AGENT_ACTION.PENDING_APPROVAL` for a hold, WH-22). A held action holds its
 * quote's open slot (unique): a second pending action on one quote is 409 `CONFLICT`.
 */
export function* startActionSteps(
  ports: AgentPorts,
  draft: ActionDraft,
  event: Extract<AgentActionEvent, "HOLD" | "RUN">,
  changes: Partial<AgentActionRecord>,
  quote: QuoteRecord | undefined,
  now: string
): Steps<AgentActionRecord, StoreError | Conflict> {
  const move = transition(agentActionMachine, "SUBMITTED", event)
  if (Result.isFailure(move)) return yield* Effect.die(move.failure)
  const status = move.success.to as AgentActionRecord["status"]
  const held = status === "PENDING_APPROVAL" && draft.quoteId !== undefined
  const record: AgentActionRecord = {
    ...draft,
    ...changes,
    status,
    ...(held ? { openSlot: draft.quoteId } : {}),
    ...(status === "APPROVED" ? { decidedAt: now } : {}),
    updatedAt: now
  }
  yield* ports.store.agentActions
    .insert(record)
    .pipe(Effect.catchTag("UniqueViolation", () => Effect.fail(agentActionAlreadyPending(draft.quoteId ?? ""))))
  yield* emitSteps(ports.store, ports.ids, move.success.emits, record.id, viewOf(record, quote, undefined), now)
  return record
}

/** A decision on a held action (`APPROVE`, `REJECT`, `FAIL`), inside the caller's transaction, the action locked. */
export function* decideActionSteps(
  ports: AgentPorts,
  current: AgentActionRecord,
  event: Extract<AgentActionEvent, "APPROVE" | "REJECT" | "FAIL">,
  changes: Partial<AgentActionRecord>,
  now: string
): Steps<AgentActionRecord, StoreError> {
  const move = transition(agentActionMachine, current.status, event)
  if (Result.isFailure(move)) return yield* Effect.die(move.failure)
  const { openSlot: _freed, ...rest } = current
  const record: AgentActionRecord = {
    ...rest,
    ...changes,
    status: move.success.to as AgentActionRecord["status"],
    decidedAt: now,
    updatedAt: now
  }
  yield* dieOnUnique(ports.store.agentActions.update(record))
  yield* emitSteps(ports.store, ports.ids, move.success.emits, record.id, viewOf(record, undefined, undefined), now)
  return record
}

/** `FAIL` with `failureReason`, and the quote ended (design Q10, section 3). */
export function* failActionSteps(
  ports: AgentPorts,
  current: AgentActionRecord,
  failureReason: string,
  now: string
): Steps<AgentActionRecord, MoveError> {
  yield* endQuoteSteps(ports, current.quoteId, now)
  return yield* decideActionSteps(ports, current, "FAIL", { failureReason }, now)
}

/** An action as the API shows it (AG-17): its live quote (an execute's) and transaction (once approved) read now. */
export function* actionViewSteps(
  store: AgentPorts["store"],
  record: AgentActionRecord
): Steps<AgentAction, StoreError> {
  const quoteId = record.type === "EXECUTE_QUOTE" ? record.quoteId : undefined
  const transactionId = record.status === "APPROVED" ? record.transactionId : undefined
  const [quote, transaction] = yield* together(
    store,
    () => (quoteId === undefined ? Effect.succeed(undefined) : store.quotes.get(quoteId)),
    () => (transactionId === undefined ? Effect.succeed(undefined) : store.transactions.get(transactionId))
  )
  return viewOf(record, quote, transaction)
}

// ---- running the operation ----

/** What an action runs: a locked quote (execute, transfer-out) or a transfer-in. */
export type ActionOperation =
  | { readonly _tag: "Quote"; readonly locked: LockedQuote; readonly walletSignature?: string | undefined }
  | { readonly _tag: "TransferIn"; readonly request: TransferInRequest }

/** What the store transaction of a run left for after its commit. */
export type RunOutcome =
  | { readonly _tag: "Executed"; readonly outcome: ExecuteOutcome }
  | { readonly _tag: "TransferredIn"; readonly record: TransactionRecord }

/** The instant, settings and clock of one command (`commandEnv`). */
export interface RunEnv {
  readonly now: string
  readonly clock: Clock.Clock
  readonly settings: EngineSettings
}

/** The command's instant, clock and settings, read once. */
export const runEnv: Effect.Effect<RunEnv> = Effect.map(commandEnv, (env) => ({
  now: isoOf(env.nowMs),
  clock: env.clock,
  settings: env.settings
}))

/**
 * Executes an agent's operation inside the caller's store transaction, the agent and (for a quote) the quote
 * locked and found ready: the usage counted first (`countUsageSteps`: over a limit, 403 and the caller's
 * transaction rolls the count back, AG-06), then the money moved as a platform's execute would (wallet stamp, SCA
 * for a subject customer, platform limits, holds; design Q4) or the transfer-in stored (AG-38). Any refusal fails
 * the caller's transaction: nothing counted, nothing moved. Returns the transaction's id and what to do after the
 * commit (`afterActionSteps`).
 */
export function* runActionSteps(
  ports: AgentPorts,
  agent: AgentRecord,
  policyAmount: number,
  operation: ActionOperation,
  env: RunEnv
): Steps<{ readonly transactionId: string; readonly outcome: RunOutcome }, RunError> {
  yield* countUsageSteps(ports.store, agent.id, agent.policy, policyAmount, env.now)
  if (operation._tag === "TransferIn") {
    const record = yield* transferInStoreSteps(ports.payments, operation.request, { agentId: agent.id })
    return { transactionId: record.id, outcome: { _tag: "TransferredIn", record } }
  }
  const { locked } = operation
  const options = { walletSignature: operation.walletSignature, settings: env.settings }
  const outcome = yield* executeLockedSteps(ports.payments, locked, options, env.clock)
  // The caller checked the quote's expiry at this instant; a clock that moved on since rolls the whole run back.
  if ("_tag" in outcome && outcome._tag === "Expired") {
    return yield* Effect.fail(quoteExpired(outcome.quoteId, outcome.expiresAt))
  }
  return { transactionId: locked.quote.quote.transactionId, outcome: { _tag: "Executed", outcome } }
}

/** Every refusal a run can fail with (each rolls the caller's transaction back). */
export type RunError = Forbidden | QuotesError | MoveError

/**
 * After the run's commit: a payout is submitted to its rail, a subject customer's challenge SMS is sent, a transfer-in
 * is handed to its rail (`submitSteps`). Returns the quote and transaction as they then are, to render the action.
 */
export function* afterActionSteps(
  ports: AgentPorts,
  run: RunOutcome,
  clock: Clock.Clock
): Steps<{ readonly quote?: QuoteRecord; readonly transaction: TransactionRecord }, RunError> {
  if (run._tag === "TransferredIn") return { transaction: yield* submitSteps(ports.payments, run.record, clock) }
  const after = yield* afterExecuteSteps(ports.payments, run.outcome, clock)
  return { quote: after.quote, transaction: after.transaction }
}

/** `lockQuoteSteps`, and 404 `QUOTE_NOT_FOUND` for a quote that is not this agent's (C-48). */
export function* lockAgentQuoteSteps(
  ports: AgentPorts,
  agentId: string,
  quoteId: string
): Steps<LockedQuote, StoreError | NotFound> {
  const locked = yield* lockQuoteSteps(ports.store, quoteId)
  if (locked.quote.agentId !== agentId) return yield* Effect.fail(quoteNotFound(quoteId))
  return locked
}
