import { type BigDecimal, Data, Effect } from "effect"
import { liveCustomer } from "../customers/rules.ts"
import type { Store } from "../ports/store.ts"
import { commandEnv } from "../shared/engine-config.ts"
import type { Page } from "../shared/paging.ts"
import { pageRequest } from "../shared/paging.ts"
import { isoOf } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { invalidCursor } from "../transactions/errors.ts"
import { invalidateIssuedSteps, issueDeviceCodeSteps } from "./device-codes.ts"
import { agentUnauthorized, emptyAgentUpdate, emptyPolicyUpdate } from "./errors.ts"
import { asDefects, failActionSteps } from "./execution.ts"
import { liveAgent } from "./live-agent.ts"
import type {
  Agent,
  AgentCreateRequest,
  AgentCreateResponse,
  AgentPolicy,
  AgentPolicyUpdateRequest,
  AgentPrincipal,
  AgentRecord,
  AgentUpdateRequest,
  ListAgentsQuery
} from "./model.ts"
import {
  canonicalPolicy,
  currencyChangeOf,
  type MarketRates,
  marketRates,
  mergePolicy,
  policyRefusal
} from "./policy.ts"
import type { AgentPorts, AgentsError } from "./ports.ts"
import { convertUsageSteps, readUsageSteps } from "./usage.ts"
import { toAgent } from "./views.ts"

// The platform's agent lifecycle (slice A; docs/design/agents.md section 3 "Create, device codes, redeem", steps 1,
// 6 and 7). Every write locks the agent's row first, the order every agent command keeps, so a PATCH, a pause or a
// delete is seen whole by the agent's next command and never half-way through one.

/** The agent as the API shows it, with the usage of `now`'s UTC day and month (AG-05). */
function* viewSteps(store: Store["Service"], record: AgentRecord, now: string): Steps<Agent, AgentsError> {
  return toAgent(record, yield* readUsageSteps(store, record.id, record.policy.spendingLimits.currency, now))
}

/** The internal accounts a policy names (allowed accounts, account rules) that are the customer's. */
function* ownedAccountIdsSteps(
  store: Store["Service"],
  customerId: string,
  policy: AgentPolicy
): Steps<ReadonlyArray<string>, AgentsError> {
  const restrictions = policy.accountRestrictions
  const named = new Set([
    ...(restrictions?.allowedAccountIds ?? []),
    ...(restrictions?.accountRules ?? []).map((rule) => rule.accountId)
  ])
  const owned: Array<string> = []
  for (const id of named) {
    const account = yield* store.internalAccounts.get(id)
    if (account?.customerId === customerId) owned.push(id)
  }
  return owned
}

/** 400 `INVALID_INPUT` listing every broken rule of `policy` for the customer (design section 2 "Policy rules"). */
function* checkPolicySteps(
  store: Store["Service"],
  customerId: string,
  policy: AgentPolicy,
  prefix: string
): Steps<void, AgentsError> {
  const refusal = policyRefusal(policy, yield* ownedAccountIdsSteps(store, customerId, policy), prefix)
  if (refusal !== undefined) return yield* refusal
}

/**
 * `POST /agents` (AG-01 … AG-05): the customer live (404 `USER_NOT_FOUND`, 410 `CUSTOMER_DELETED`), the policy's rules
 * (400, every account an internal account of this customer), then one transaction: the agent, not connected, and its
 * first device code `ISSUED`. The code is answered here in clear, once; the store keeps only its SHA-256.
 */
export const createAgent = (
  ports: AgentPorts,
  request: AgentCreateRequest
): Effect.Effect<AgentCreateResponse, AgentsError> =>
  asDefects(
    Effect.gen(function* () {
      const { store, ids } = ports
      const customer = yield* liveCustomer(yield* store.customers.get(request.customerId), request.customerId)
      const policy = canonicalPolicy(request.policy)
      yield* checkPolicySteps(store, customer.id, policy, "policy.")
      const env = yield* commandEnv
      const now = isoOf(env.nowMs)
      const agent: AgentRecord = {
        id: yield* ids.make("Agent"),
        name: request.name,
        customerId: customer.id,
        platformCustomerId: customer.platformCustomerId,
        policy,
        isPaused: false,
        createdAt: now,
        updatedAt: now
      }
      const deviceCode = yield* store.transaction(
        Effect.gen(function* () {
          yield* store.agents.insert(agent)
          return yield* issueDeviceCodeSteps(ports, agent.id, env)
        })
      )
      return { agent: yield* viewSteps(store, agent, now), deviceCode }
    })
  )

const flag = (value: "true" | "false" | undefined): boolean | undefined =>
  value === undefined ? undefined : value === "true"

/** `GET /agents` (AG-07): the live agents, filtered and paged as every list; 400 for a cursor not ours. */
export const listAgents = Effect.fnUntraced(function* (
  ports: AgentPorts,
  query: ListAgentsQuery
): Effect.fn.Return<Page<Agent>, AgentsError> {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  const found = yield* ports.store.agents.list(
    {
      customerId: query.customerId,
      isPaused: flag(query.isPaused),
      isConnected: flag(query.isConnected),
      createdAfter: query.createdAfter,
      createdBefore: query.createdBefore,
      updatedAfter: query.updatedAfter,
      updatedBefore: query.updatedBefore
    },
    page
  )
  const now = isoOf((yield* commandEnv).nowMs)
  const data: Array<Agent> = []
  for (const record of found.data) data.push(yield* viewSteps(ports.store, record, now))
  const agents: Page<Agent> = { ...found, data }
  return agents
})

/** `GET /agents/{agentId}` (AG-08): 404 `REFERENCE_NOT_FOUND` when unknown or deleted. */
export const getAgent = Effect.fnUntraced(function* (
  ports: AgentPorts,
  agentId: string
): Effect.fn.Return<Agent, AgentsError> {
  const agent = yield* liveAgent(yield* ports.store.agents.get(agentId), agentId)
  return yield* viewSteps(ports.store, agent, isoOf((yield* commandEnv).nowMs))
})

/** `PATCH /agents/{agentId}` (AG-09, AG-10): rename, pause or resume under the agent's lock; 400 for an empty body. */
export const updateAgent = (
  ports: AgentPorts,
  agentId: string,
  request: AgentUpdateRequest
): Effect.Effect<Agent, AgentsError> =>
  asDefects(
    Effect.gen(function* () {
      if (request.name === undefined && request.isPaused === undefined) return yield* emptyAgentUpdate()
      const { store } = ports
      const now = isoOf((yield* commandEnv).nowMs)
      const changed = yield* store.transaction(
        Effect.gen(function* () {
          const agent = yield* liveAgent(yield* store.agents.getForUpdate(agentId), agentId)
          const next: AgentRecord = {
            ...agent,
            name: request.name ?? agent.name,
            isPaused: request.isPaused ?? agent.isPaused,
            updatedAt: now
          }
          yield* store.agents.update(next)
          return next
        })
      )
      return yield* viewSteps(store, changed, now)
    })
  )

/** The locked policy's currency is not the one the rate was read for: a currency-changing PATCH raced this one. */
class StaleCurrency extends Data.TaggedError("StaleCurrency") {}

/** The rate a policy currency change needs (design Q8), read before the store transaction; none without a change. */
const changeRates = (
  ports: AgentPorts,
  change: { readonly from: string; readonly to: string } | undefined
): Effect.Effect<MarketRates, AgentsError> =>
  change === undefined
    ? Effect.succeed(marketRates({}))
    : asDefects(
        Effect.map(
          ports.quotes.marketRate(change.from, change.to),
          (rate: BigDecimal.BigDecimal): MarketRates => marketRates({ [`${change.from}/${change.to}`]: rate })
        )
      )

/**
 * `PATCH /agents/{agentId}/policy` (AG-12): `mergePolicy` (top-level fields replace, `spendingLimits` per field,
 * `null` clears, omitted fields kept), the merged policy's rules (400), and on a policy currency change the limits
 * not given and the day's and month's usage recast at the market rate (Q8). The rate is read before the
 * transaction for the currency seen then; if a racing PATCH changed it meanwhile, the PATCH runs again.
 */
export const updateAgentPolicy = (
  ports: AgentPorts,
  agentId: string,
  request: AgentPolicyUpdateRequest
): Effect.Effect<Agent, AgentsError> => {
  const { store } = ports
  const attempt = (tries: number): Effect.Effect<Agent, AgentsError> =>
    asDefects(
      Effect.gen(function* () {
        const seen = yield* liveAgent(yield* store.agents.get(agentId), agentId)
        const change = currencyChangeOf(seen.policy, request)
        const rates = yield* changeRates(ports, change)
        const now = isoOf((yield* commandEnv).nowMs)
        const changed = yield* store.transaction(
          Effect.gen(function* () {
            const agent = yield* liveAgent(yield* store.agents.getForUpdate(agentId), agentId)
            const locked = currencyChangeOf(agent.policy, request)
            if (locked !== undefined && locked.from !== change?.from) {
              return yield* new StaleCurrency()
            }
            const policy = mergePolicy(agent.policy, request, rates)
            yield* checkPolicySteps(store, agent.customerId, policy, "")
            if (locked !== undefined) yield* convertUsageSteps(store, agent.id, locked, rates, now)
            const next: AgentRecord = { ...agent, policy, updatedAt: now }
            yield* store.agents.update(next)
            return next
          })
        )
        return yield* viewSteps(store, changed, now)
      }).pipe(
        Effect.catchTag("StaleCurrency", () =>
          tries > 0 ? attempt(tries - 1) : Effect.die(new Error("the agent's policy currency kept changing"))
        )
      )
    )
  return Object.keys(request).length === 0 ? Effect.fail(emptyPolicyUpdate()) : attempt(2)
}

/**
 * `DELETE /agents/{agentId}` (AG-11; design section 3 step 7, Q11), one store transaction under the agent's lock:
 * `deletedAt` set and the token cleared (tokens are never cached, so the next Bearer call is 401 in every process),
 * the `ISSUED` device codes `INVALIDATE`d, every `PENDING_APPROVAL` action `FAILED` with `AGENT_DELETED` and its
 * still-pending quote expired.
 */
export const deleteAgent = (ports: AgentPorts, agentId: string): Effect.Effect<void, AgentsError> =>
  asDefects(
    Effect.gen(function* () {
      const { store } = ports
      const now = isoOf((yield* commandEnv).nowMs)
      yield* store.transaction(
        Effect.gen(function* () {
          const agent = yield* liveAgent(yield* store.agents.getForUpdate(agentId), agentId)
          yield* invalidateIssuedSteps(ports, agent.id, now)
          // Each failed action leaves the filter: the first page until none is left.
          for (;;) {
            const held = yield* store.agentActions.list(
              { agentId: agent.id, status: "PENDING_APPROVAL" },
              { limit: 100, sortOrder: "asc" }
            )
            if (held.data.length === 0) break
            for (const row of held.data) {
              const action = yield* store.agentActions.getForUpdate(row.id)
              if (action?.status === "PENDING_APPROVAL") yield* failActionSteps(ports, action, "AGENT_DELETED", now)
            }
          }
          const { tokenSelector: _selector, tokenVerifierSha256: _verifier, ...kept } = agent
          yield* store.agents.update({ ...kept, deletedAt: now, updatedAt: now })
        })
      )
    })
  )

/** `GET /agents/me` (AG-24): the agent as it is now, usage included; a token whose agent was deleted meanwhile is 401. */
export const getMe = Effect.fnUntraced(function* (
  ports: AgentPorts,
  principal: AgentPrincipal
): Effect.fn.Return<Agent, AgentsError> {
  const agent = yield* ports.store.agents.get(principal.agentId)
  if (agent === undefined || agent.deletedAt !== undefined) return yield* agentUnauthorized()
  return yield* viewSteps(ports.store, agent, isoOf((yield* commandEnv).nowMs))
})
