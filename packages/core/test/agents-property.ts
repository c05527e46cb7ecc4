/**
 * What the agents' property test and the PostgreSQL races run on (docs/design/agents.md, "Property test", "Races"):
 * the engine with the agents' services over a test env, a seeded agent's principal, and the model — the policy's
 * rules written again here in plain arithmetic, apart from `policy.ts`, so the test checks one against the other.
 */
import { seedAgent } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { Accounts } from "../src/accounts/service.ts"
import type { AgentPolicy, AgentPrincipal, AgentRecord } from "../src/agents/model.ts"
import { AgentActions, Agents } from "../src/agents/service.ts"
import { Store } from "../src/ports/store.ts"
import { Quotes } from "../src/quotes/service.ts"
import type { AgentId } from "../src/shared/ids.ts"
import { makeEnv, payeeQuote, type TestEnv } from "./fixtures.ts"

// ---- the engine ----

/** `makeEnv`'s engine with `AgentActions` and `Agents` (and `Accounts`, which they read) over the same ports. */
export const agentEnvLayer = (env: TestEnv) =>
  Layer.merge(AgentActions.layer, Agents.layer).pipe(Layer.provide(Accounts.layer), Layer.provideMerge(env.layer))

/** `makeEnv` with the agents' services. */
export const makeAgentEnv = (seed: number, options: Parameters<typeof makeEnv>[1] = {}) => {
  const env = makeEnv(seed, options)
  return { ...env, layer: agentEnvLayer(env) }
}

/** The principal a Bearer token of this agent establishes (as `Agents.authenticate` reads it). */
export const principalOf = (agent: AgentRecord): AgentPrincipal => ({
  kind: "AGENT",
  agentId: agent.id,
  customerId: agent.customerId,
  platformCustomerId: agent.platformCustomerId,
  permissions: agent.policy.permissions,
  isPaused: agent.isPaused
})

/** A connected agent of `customerId` with `policy`. */
export const agentOf = (customerId: string, policy: AgentPolicy) =>
  Effect.map(seedAgent({ customerId, policy }), (seeded) => seeded.record)

/** A quote of `amount` from `account` to `payee` made for `agentId` (what `POST /agents/me/quotes` stores). */
export const agentQuoteOf = (agentId: AgentId, account: string, payee: string, amount: number) =>
  Effect.gen(function* () {
    return yield* (yield* Quotes).create(payeeQuote(account, payee, amount), { agentId })
  })

/** The agent's row as stored now, with `change` written under its lock (a PATCH's pause, a narrowed policy). */
export const changeAgent = (agentId: string, change: Partial<AgentRecord>) =>
  Effect.gen(function* () {
    const store = yield* Store
    return yield* store.transaction(
      Effect.gen(function* () {
        const agent = yield* store.agents.getForUpdate(agentId)
        if (agent === undefined) return yield* Effect.die(new Error(`no agent ${agentId}`))
        const next = { ...agent, ...change }
        yield* store.agents.update(next)
        return next
      })
    )
  })

// ---- the model (docs/design/agents.md, "Property test") ----

/** The test env's market rates (fixtures.ts `RATES`), as the model converts with them: exact, then rounded up. */
const MODEL_RATES: Readonly<Record<string, string>> = { "USD/EUR": "0.92", "EUR/USD": "1.08695652173913" }

/** `amount` (cents of `from`) in cents of `to` at the fixed rate, rounded up (both currencies have 2 decimals). */
export const modelConvert = (amount: number, from: string, to: string): number => {
  if (from === to) return amount
  const rate = MODEL_RATES[`${from}/${to}`]!
  const [whole, fraction = ""] = rate.split(".")
  const numerator = BigInt(whole! + fraction)
  const denominator = 10n ** BigInt(fraction.length)
  return Number((BigInt(amount) * numerator + denominator - 1n) / denominator)
}

/** The accounts of the property's customer, by currency: the model names them so. */
export type ModelAccount = "USD" | "EUR"

/** A policy over the model's account names (`accountIds` maps them to the run's ids). */
export interface ModelPolicy {
  readonly permissions: ReadonlyArray<AgentPolicy["permissions"][number]>
  readonly mode: "AUTO" | "APPROVAL_REQUIRED"
  readonly currency: ModelAccount
  readonly perTransactionLimit: number
  readonly dailyLimit: number | null | undefined
  readonly monthlyLimit: number | null | undefined
  readonly dailyTransactionLimit: number | undefined
  readonly threshold: { readonly currency: ModelAccount; readonly amount: number } | undefined
  readonly allowed: ReadonlyArray<ModelAccount> | null | undefined
  readonly rule:
    | {
        readonly account: ModelAccount
        readonly mode: "AUTO" | "APPROVAL_REQUIRED" | undefined
        readonly perTransactionLimit: number | null | undefined
      }
    | undefined
}

/** The engine's policy of a model policy, with the run's account ids. */
export const toAgentPolicy = (p: ModelPolicy, accountIds: Readonly<Record<ModelAccount, string>>): AgentPolicy => ({
  permissions: p.permissions,
  defaultExecutionMode: p.mode,
  spendingLimits: {
    currency: p.currency,
    perTransactionLimit: p.perTransactionLimit,
    ...(p.dailyLimit === undefined ? {} : { dailyLimit: p.dailyLimit }),
    ...(p.monthlyLimit === undefined ? {} : { monthlyLimit: p.monthlyLimit }),
    ...(p.dailyTransactionLimit === undefined ? {} : { dailyTransactionLimit: p.dailyTransactionLimit })
  },
  ...(p.allowed === undefined && p.rule === undefined
    ? {}
    : {
        accountRestrictions: {
          ...(p.allowed === undefined
            ? {}
            : { allowedAccountIds: p.allowed === null ? null : p.allowed.map((a) => accountIds[a]) }),
          ...(p.rule === undefined
            ? {}
            : {
                accountRules: [
                  {
                    accountId: accountIds[p.rule.account],
                    ...(p.rule.mode === undefined ? {} : { executionMode: p.rule.mode }),
                    ...(p.rule.perTransactionLimit === undefined
                      ? {}
                      : { perTransactionLimit: p.rule.perTransactionLimit })
                  }
                ]
              })
        }
      }),
  ...(p.threshold === undefined ? {} : { approvalThresholds: p.threshold })
})

/** An operation as the model sees it: one internal account, whose currency is the amount's. */
export interface ModelOperation {
  readonly permission: "EXECUTE_QUOTES" | "CREATE_TRANSFERS"
  readonly account: ModelAccount
  readonly amount: number
}

/** The model's usage of one agent: counters per currency and window, as the engine keeps them. */
export type ModelCounters = Map<string, number>

const spendKey = (agent: string, currency: string, window: string) => `spend|${agent}|${currency}|${window}`
const countKey = (agent: string, day: string) => `count|${agent}|${day}`

/** What the model says of an operation: refused with a reason, held, or run (with the amount it counts). */
export type ModelVerdict =
  | { readonly _tag: "Refuse"; readonly reason: string }
  | { readonly _tag: "Hold" }
  | { readonly _tag: "Run"; readonly counted: number }

/**
 * The policy's rules, written from the design's table (section 3) in the model's own terms: paused, the permission,
 * the allowed accounts, the per-transaction limit (the rule's own, in the account's currency, else the policy's),
 * the mode and threshold (unless approving; an approval then finds its quote expired or not), then the day's and
 * month's limits and the day's count.
 */
export const modelDecide = (
  agent: { readonly id: string; readonly policy: ModelPolicy; readonly paused: boolean },
  op: ModelOperation,
  counters: ModelCounters,
  now: string,
  approving: boolean,
  quoteExpired = false
): ModelVerdict => {
  const p = agent.policy
  if (agent.paused) return { _tag: "Refuse", reason: "AGENT_PAUSED" }
  if (!p.permissions.includes(op.permission)) return { _tag: "Refuse", reason: "PERMISSION_MISSING" }
  if (p.allowed !== undefined && p.allowed !== null && !p.allowed.includes(op.account)) {
    return { _tag: "Refuse", reason: "ACCOUNT_NOT_ALLOWED" }
  }
  const rule = p.rule?.account === op.account ? p.rule : undefined
  const ownLimit = rule?.perTransactionLimit
  const overLimit =
    ownLimit !== undefined && ownLimit !== null
      ? op.amount > ownLimit
      : modelConvert(op.amount, op.account, p.currency) > p.perTransactionLimit
  if (overLimit) return { _tag: "Refuse", reason: "PER_TRANSACTION_LIMIT_EXCEEDED" }
  // An approval finds the quote expired after the policy's checks, before it counts (AG-21).
  if (approving && quoteExpired) return { _tag: "Refuse", reason: "QUOTE_EXPIRED" }
  const counted = modelConvert(op.amount, op.account, p.currency)
  const day = now.slice(0, 10)
  const daySpend = counters.get(spendKey(agent.id, p.currency, day)) ?? 0
  const monthSpend = counters.get(spendKey(agent.id, p.currency, now.slice(0, 7))) ?? 0
  const count = counters.get(countKey(agent.id, day)) ?? 0
  const limits = (): ModelVerdict | undefined => {
    if (p.dailyLimit !== undefined && p.dailyLimit !== null && daySpend + counted > p.dailyLimit) {
      return { _tag: "Refuse", reason: "DAILY_LIMIT_EXCEEDED" }
    }
    if (p.monthlyLimit !== undefined && p.monthlyLimit !== null && monthSpend + counted > p.monthlyLimit) {
      return { _tag: "Refuse", reason: "MONTHLY_LIMIT_EXCEEDED" }
    }
    if (p.dailyTransactionLimit !== undefined && count + 1 > p.dailyTransactionLimit) {
      return { _tag: "Refuse", reason: "DAILY_TRANSACTION_LIMIT_EXCEEDED" }
    }
    return undefined
  }
  if (!approving) {
    const held =
      (rule?.mode ?? p.mode) === "APPROVAL_REQUIRED" ||
      (p.threshold !== undefined && modelConvert(op.amount, op.account, p.threshold.currency) > p.threshold.amount)
    // A hold reads the usage: a limit already passed refuses now.
    if (held) return limits() ?? { _tag: "Hold" }
  }
  return limits() ?? { _tag: "Run", counted }
}

/** Counts a run into the model's counters (the engine's keys, in the policy currency at that instant). */
export const modelCount = (
  counters: ModelCounters,
  agent: { readonly id: string; readonly policy: ModelPolicy },
  counted: number,
  now: string
) => {
  const add = (key: string, by: number) => counters.set(key, (counters.get(key) ?? 0) + by)
  add(spendKey(agent.id, agent.policy.currency, now.slice(0, 10)), counted)
  add(spendKey(agent.id, agent.policy.currency, now.slice(0, 7)), counted)
  add(countKey(agent.id, now.slice(0, 10)), 1)
}

/** The engine's counter key of a model key. */
export const engineCounterKey = (modelKey: string): string => {
  const [kind, agent, a, b] = modelKey.split("|")
  return kind === "count" ? `agent-count:${agent}:${a}` : `agent-spend:${agent}:${a}:${b}`
}
