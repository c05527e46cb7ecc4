import { Data, Effect } from "effect"
import type { QuoteRecord } from "../quotes/model.ts"
import { type Conflict, type DomainError, InvalidInput, type NotFound, type StoreError } from "../shared/errors.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { isoOf } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { invalidCursor } from "../transactions/errors.ts"
import { lockQuoteSteps } from "../transactions/execute.ts"
import type { TransferInRequest } from "../transactions/model.ts"
import { agentActionNotFound, agentActionNotPending, agentNotFound } from "./errors.ts"
import {
  type ActionOperation,
  actionViewSteps,
  afterActionSteps,
  asDefects,
  decideActionSteps,
  endQuoteSteps,
  failActionSteps,
  quoteOperation,
  quoteReadySteps,
  type RunOutcome,
  ratesFor,
  runActionSteps,
  runEnv,
  transferInOperation,
  viewOf,
  withFreshRates
} from "./execution.ts"
import type {
  AgentAction,
  AgentActionRecord,
  AgentActionRejectRequest,
  AgentRecord,
  ListApprovalsQuery
} from "./model.ts"
import { type AgentOperation, evaluate } from "./policy.ts"
import type { AgentPorts, AgentsError } from "./ports.ts"

// The platform's decisions on held actions (slice B; docs/design/agents.md section 3 "Approve and reject"): each
// locks the agent, then the action, as every agent command does; an approval re-checks the policy as it now is.

/** A date-time filter as milliseconds; 400 for one of the right shape that names no instant (a 15th month). */
const instantOf = (field: string, value: string | undefined): Effect.Effect<number | undefined, InvalidInput> => {
  if (value === undefined) return Effect.succeed(undefined)
  const ms = Date.parse(value)
  return Number.isNaN(ms)
    ? Effect.fail(InvalidInput.one(field, { format: "date-time" }, `${field} is not a date and time that exists`))
    : Effect.succeed(ms)
}

/** `GET /agents/approvals` (AG-16): the `PENDING_APPROVAL` actions, `startDate` and `endDate` inclusive. */
export const listApprovals = (
  ports: AgentPorts,
  query: ListApprovalsQuery
): Effect.Effect<Page<AgentAction>, AgentsError> =>
  Effect.gen(function* () {
    const page = pageRequest(query)
    if (page === undefined) return yield* Effect.fail(invalidCursor())
    const { store } = ports
    const start = yield* instantOf("startDate", query.startDate)
    const end = yield* instantOf("endDate", query.endDate)
    const rows = yield* store.agentActions.list(
      {
        status: "PENDING_APPROVAL",
        agentId: query.agentId,
        customerId: query.customerId,
        // The store's `createdAfter` is strict: a millisecond before includes `startDate` itself.
        createdAfter: start === undefined ? undefined : isoOf(start - 1),
        createdAtOrBefore: end === undefined ? undefined : isoOf(end)
      },
      page
    )
    const data: Array<AgentAction> = []
    for (const row of rows.data) data.push(yield* actionViewSteps(store, row))
    return { ...rows, data }
  })

/** The agent (404 when unknown or deleted: the platform addresses it by id) and its action, both locked or read. */
function* agentAndActionSteps(
  ports: AgentPorts,
  agentId: string,
  actionId: string,
  lock: boolean
): Steps<{ readonly agent: AgentRecord; readonly action: AgentActionRecord }, StoreError | NotFound | Conflict> {
  const { agents, agentActions } = ports.store
  const agent = yield* lock ? agents.getForUpdate(agentId) : agents.get(agentId)
  if (agent === undefined || agent.deletedAt !== undefined) return yield* Effect.fail(agentNotFound(agentId))
  const action = yield* lock ? agentActions.getForUpdate(actionId) : agentActions.get(actionId)
  if (action === undefined || action.agentId !== agent.id) return yield* Effect.fail(agentActionNotFound(actionId))
  if (action.status !== "PENDING_APPROVAL") {
    return yield* Effect.fail(agentActionNotPending(action.id, action.status))
  }
  return { agent, action }
}

/** A held transfer-in's request, from what was stored (design Q5: its transaction is made when it runs). */
const transferInRequestOf = (action: AgentActionRecord): TransferInRequest | undefined => {
  const details = action.transferDetails
  if (action.type !== "TRANSFER_IN" || details === undefined) return undefined
  return {
    source: { accountId: details.sourceAccountId as TransferInRequest["source"]["accountId"] },
    destination: { accountId: details.destinationAccountId as TransferInRequest["destination"]["accountId"] },
    amount: details.amount
  }
}

/** A held action's operation as the policy sees it; its quote read (or locked) by the caller. */
const actionOperation = (action: AgentActionRecord, quote: QuoteRecord | undefined): AgentOperation => {
  const request = transferInRequestOf(action)
  if (request !== undefined) return transferInOperation(request, action.currency)
  if (quote === undefined) throw new Error(`agent action ${action.id} has no quote`)
  return quoteOperation(action.type === "TRANSFER_OUT" ? "TRANSFER_OUT" : "EXECUTE_QUOTE", quote.quote)
}

/** A refusal raised once usage was counted: the attempt is rolled back, a second transaction fails the action. */
class RefusedAfterCounting extends Data.TaggedError("RefusedAfterCounting")<{ readonly error: DomainError }> {}

const isDomainError = (e: unknown): e is DomainError =>
  typeof e === "object" &&
  e !== null &&
  ["InvalidInput", "Refused", "NotFound", "Forbidden", "Conflict", "LimitExceeded"].includes(
    (e as { _tag?: string })._tag ?? ""
  )

/** What an action's `failureReason` says of a refusal (design Q10): a policy's reason, else the error's code. */
const failureReasonOf = (error: DomainError): string => {
  if (error._tag === "Forbidden" && typeof error.details?.reason === "string") return error.details.reason
  return "code" in error ? error.code : "INVALID_INPUT"
}

type Attempt =
  | { readonly _tag: "Failed"; readonly record: AgentActionRecord }
  | { readonly _tag: "Approved"; readonly record: AgentActionRecord; readonly run: RunOutcome }

/**
 * `POST /agents/{agentId}/actions/{actionId}/approve` (AG-20, AG-21, AG-23, AG-10). One transaction locks the agent
 * (404 when deleted) and the action (404 of another agent, 409 unless pending), then re-checks the policy as it now
 * is, all but the mode (the platform decided that): paused, the permission, accounts, the per-transaction limit, the
 * quote's expiry (committed) each `FAIL` the action with the reason, the quote ended. Else the usage is counted and
 * the operation runs, the action `APPROVED`. A refusal from there on (a limit consumed meanwhile, funds, platform
 * limits, a stale wallet stamp) rolls that back; a second transaction fails the action with its code, nothing counted.
 */
export const approveAction = (
  ports: AgentPorts,
  agentId: string,
  actionId: string
): Effect.Effect<AgentAction, AgentsError> =>
  asDefects(
    Effect.gen(function* () {
      const { store } = ports
      const env = yield* runEnv
      const seen = yield* agentAndActionSteps(ports, agentId, actionId, false)
      const seenQuote = seen.action.quoteId === undefined ? undefined : yield* store.quotes.get(seen.action.quoteId)
      const op = actionOperation(seen.action, seenQuote)
      const attempt: Effect.Effect<Attempt, AgentsError | RefusedAfterCounting> = withFreshRates(
        ports,
        seen.agent.policy,
        op,
        (rates) =>
          store.transaction(
            Effect.gen(function* () {
              const { agent, action } = yield* agentAndActionSteps(ports, agentId, actionId, true)
              const fail = (reason: string) =>
                Effect.map(
                  Effect.gen(() => failActionSteps(ports, action, reason, env.now)),
                  (record): Attempt => ({ _tag: "Failed", record })
                )
              if (agent.isPaused) return yield* fail("AGENT_PAUSED")
              const decision = evaluate(agent.policy, false, op, yield* ratesFor(rates, agent.policy, op), {
                skipMode: true
              })
              if (decision._tag === "Refuse") return yield* fail(decision.reason)
              let operation: ActionOperation
              const request = transferInRequestOf(action)
              if (request === undefined) {
                const locked = yield* lockQuoteSteps(store, action.quoteId ?? "")
                // AG-21: an expired quote (its expiry committed) or one executed meanwhile fails the action.
                const unready = yield* Effect.gen(() => quoteReadySteps(ports, locked, env.now)).pipe(
                  Effect.map((due) => (due === undefined ? undefined : "QUOTE_EXPIRED")),
                  Effect.catchTag("Conflict", (conflict) => Effect.succeed(conflict.code))
                )
                if (unready !== undefined) return yield* fail(unready)
                operation = { _tag: "Quote", locked, walletSignature: action.walletSignature }
              } else {
                operation = { _tag: "TransferIn", request }
              }
              const approved = yield* Effect.gen(function* () {
                const ran = yield* runActionSteps(ports, agent, decision.policyAmount, operation, env)
                const changes = { transactionId: ran.transactionId as AgentActionRecord["transactionId"] }
                const record = yield* decideActionSteps(ports, action, "APPROVE", changes, env.now)
                return { _tag: "Approved", record, run: ran.outcome } satisfies Attempt
              }).pipe(Effect.mapError((e) => (isDomainError(e) ? new RefusedAfterCounting({ error: e }) : e)))
              return approved
            })
          )
      ) as Effect.Effect<Attempt, AgentsError | RefusedAfterCounting>
      const outcome = yield* attempt.pipe(
        Effect.catchTag("RefusedAfterCounting", ({ error }) =>
          store.transaction(
            Effect.gen(function* () {
              const { action } = yield* agentAndActionSteps(ports, agentId, actionId, true)
              const record = yield* failActionSteps(ports, action, failureReasonOf(error), env.now)
              return { _tag: "Failed", record } satisfies Attempt
            })
          )
        )
      )
      if (outcome._tag === "Failed") return yield* actionViewSteps(store, outcome.record)
      const after = yield* afterActionSteps(ports, outcome.run, env.clock)
      return viewOf(outcome.record, after.quote ?? seenQuote, after.transaction)
    })
  )

/**
 * `POST /agents/{agentId}/actions/{actionId}/reject` (AG-22, AG-23): the agent and the action locked (404s, 409
 * unless pending), `REJECT` with the platform's reason, and the quote ended so it cannot be executed again.
 */
export const rejectAction = (
  ports: AgentPorts,
  agentId: string,
  actionId: string,
  request: AgentActionRejectRequest
): Effect.Effect<AgentAction, AgentsError> =>
  asDefects(
    Effect.gen(function* () {
      const { store } = ports
      const env = yield* runEnv
      const record = yield* store.transaction(
        Effect.gen(function* () {
          const { action } = yield* agentAndActionSteps(ports, agentId, actionId, true)
          const changes = request.reason === undefined ? {} : { rejectionReason: request.reason }
          yield* endQuoteSteps(ports, action.quoteId, env.now)
          return yield* decideActionSteps(ports, action, "REJECT", changes, env.now)
        })
      )
      return yield* actionViewSteps(store, record)
    })
  )
