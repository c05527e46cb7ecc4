/**
 * What the agents' property test (memory and PGlite) and the PostgreSQL races run on (docs/design/agents.md,
 * "Property test", "Races"): the engine with the agents' services over a test env, a seeded agent's principal, the
 * model — the policy's rules written again here in plain arithmetic, apart from `policy.ts`, so the test checks one
 * against the other — and the property's commands, run and checker.
 */
import { seedAgent } from "@paycore/testkit"
import { Clock, Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { Accounts } from "../src/accounts/service.ts"
import type { AgentPolicy, AgentRecord } from "../src/agents/model.ts"
import { AgentActions, Agents } from "../src/agents/service.ts"
import { toAgentPrincipal } from "../src/agents/views.ts"
import { Store } from "../src/ports/store.ts"
import { Quotes } from "../src/quotes/service.ts"
import type { AgentActionId, AgentId } from "../src/shared/ids.ts"
import { isoOf } from "../src/shared/time.ts"
import { Transactions } from "../src/transactions/service.ts"
import {
  ledgerViolations,
  makeEnv,
  payeeQuote,
  seedCustomer,
  seedExternalAccount,
  seedInternalAccount,
  type TestEnv
} from "./fixtures.ts"

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
export const principalOf = toAgentPrincipal

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

// ---- the property: random command sequences checked against the model ----

type Command =
  | { readonly t: "execute"; readonly agent: number; readonly account: ModelAccount; readonly amount: number }
  | { readonly t: "transferOut"; readonly agent: number; readonly account: ModelAccount; readonly amount: number }
  | { readonly t: "transferIn"; readonly agent: number; readonly amount: number }
  /** `pending`: among the actions still waiting (else any, a decided one answers 409). */
  | { readonly t: "approve" | "reject"; readonly action: number; readonly pending: boolean }
  | { readonly t: "pause"; readonly agent: number; readonly paused: boolean }
  | { readonly t: "policy"; readonly agent: number; readonly policy: ModelPolicy }
  | { readonly t: "advance"; readonly seconds: number }
  | { readonly t: "worker" }

const account = fc.constantFrom<ModelAccount>("USD", "EUR")
const amount = fc.integer({ min: 1, max: 3_000 })
const limit = fc.integer({ min: 0, max: 8_000 })

const policy: fc.Arbitrary<ModelPolicy> = fc.record({
  // Mostly permitted, allowed and within the per-transaction limit, so runs reach holds, approvals and limits.
  permissions: fc.oneof(
    { weight: 4, arbitrary: fc.constant(["EXECUTE_QUOTES", "CREATE_TRANSFERS"] as const) },
    { weight: 1, arbitrary: fc.subarray(["EXECUTE_QUOTES", "CREATE_TRANSFERS", "CREATE_QUOTES"] as const) }
  ),
  mode: fc.constantFrom("AUTO" as const, "APPROVAL_REQUIRED" as const),
  currency: account,
  perTransactionLimit: fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 3_000, max: 4_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 3_000 }) }
  ),
  dailyLimit: fc.option(fc.option(limit, { nil: null }), { nil: undefined }),
  monthlyLimit: fc.option(fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: null }), { nil: undefined }),
  dailyTransactionLimit: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
  threshold: fc.option(fc.record({ currency: account, amount: fc.integer({ min: 0, max: 3_000 }) }), {
    nil: undefined
  }),
  allowed: fc.option(fc.option(fc.subarray(["USD", "EUR"] as const), { nil: null }), { nil: undefined, freq: 2 }),
  rule: fc.option(
    fc.record({
      account,
      mode: fc.option(fc.constantFrom("AUTO" as const, "APPROVAL_REQUIRED" as const), { nil: undefined }),
      perTransactionLimit: fc.option(fc.option(fc.integer({ min: 0, max: 4_000 }), { nil: null }), { nil: undefined })
    }),
    { nil: undefined }
  )
})

const agentIndex = fc.nat(1)

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant("execute" as const), agent: agentIndex, account, amount }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("transferOut" as const), agent: agentIndex, account, amount }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("transferIn" as const), agent: agentIndex, amount }) },
  {
    weight: 6,
    arbitrary: fc.record({ t: fc.constant("approve" as const), action: fc.nat(30), pending: fc.boolean() })
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant("reject" as const), action: fc.nat(30), pending: fc.boolean() })
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("pause" as const), agent: agentIndex, paused: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("policy" as const), agent: agentIndex, policy }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("advance" as const),
      seconds: fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 3_600, max: 40 * 3_600 }))
    })
  },
  { weight: 1, arbitrary: fc.constant({ t: "worker" as const }) }
)

// ---- one run ----

/** The month's last evening: a few advances cross a UTC day and the month's end. */
const START = Date.parse("2026-03-31T18:00:00.000Z")

interface ModelAgent {
  readonly id: string
  policy: ModelPolicy
  paused: boolean
}

interface ModelAction {
  readonly id: AgentActionId
  readonly agent: number
  readonly op: {
    readonly permission: "EXECUTE_QUOTES" | "CREATE_TRANSFERS"
    readonly account: ModelAccount
    readonly amount: number
  }
  /** When its quote can no longer be executed (a transfer-in has none). */
  readonly quoteExpiresAt: string | undefined
  status: string
  failureReason: string | undefined
}

/** A refusal's policy reason (403), else its code. */
export const answerOf = (
  exit: Exit.Exit<{ readonly status: string; readonly failureReason?: string }, unknown>
): string => {
  if (Exit.isSuccess(exit)) {
    return exit.value.failureReason === undefined
      ? exit.value.status
      : `${exit.value.status} ${exit.value.failureReason}`
  }
  const error = (exit.cause.reasons[0] as { error?: { details?: { reason?: string }; code?: string } })?.error
  return error?.details?.reason ?? error?.code ?? `defect: ${String(exit.cause)}`
}

const scenario = (
  initial: readonly [ModelPolicy, ModelPolicy],
  commands: ReadonlyArray<Command>,
  tally: (key: string) => void
) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(START)
    const store = yield* Store
    const actions = yield* AgentActions
    const transactions = yield* Transactions
    const customer = yield* seedCustomer({ currencies: ["USD", "EUR"] })
    const accounts = {
      USD: (yield* seedInternalAccount(customer.id, "USD")).id,
      EUR: (yield* seedInternalAccount(customer.id, "EUR")).id
    }
    const payees = {
      USD: (yield* seedExternalAccount(customer.id, "USD")).id,
      EUR: (yield* seedExternalAccount(customer.id, "EUR")).id
    }
    yield* transactions.fundSandbox(accounts.USD, 100_000_000)
    yield* transactions.fundSandbox(accounts.EUR, 100_000_000)

    const records: Array<AgentRecord> = []
    const agents: Array<ModelAgent> = []
    for (const p of initial) {
      const record = yield* agentOf(customer.id, toAgentPolicy(p, accounts))
      records.push(record)
      agents.push({ id: record.id, policy: p, paused: false })
    }
    const counters: ModelCounters = new Map()
    const held: Array<ModelAction> = []
    const problems: Array<string> = []
    const now = () => Effect.map(Clock.currentTimeMillis, isoOf)

    for (const [step, c] of commands.entries()) {
      const at = yield* now()
      const compare = (what: string, got: string, want: string) => {
        if (!what.includes(" ")) tally(`${c.t} ${got}`)
        if (got !== want) problems.push(`step ${step} ${JSON.stringify(c)}: ${what} ${got}, model ${want}`)
      }
      /** Submits an operation and compares the answer with the model's verdict. */
      const submit = (
        agentIndex: number,
        op: ModelAction["op"],
        call: Effect.Effect<{ readonly id: AgentActionId; readonly status: string }, unknown>,
        quoteExpiresAt: string | undefined
      ) =>
        Effect.gen(function* () {
          const agent = agents[agentIndex]!
          const verdict = modelDecide(agent, op, counters, at, false)
          const exit = yield* Effect.exit(call)
          const want =
            verdict._tag === "Refuse" ? verdict.reason : verdict._tag === "Hold" ? "PENDING_APPROVAL" : "APPROVED"
          compare("answer", answerOf(exit), want)
          if (verdict._tag === "Run") modelCount(counters, agent, verdict.counted, at)
          if (Exit.isSuccess(exit)) {
            held.push({
              id: exit.value.id,
              agent: agentIndex,
              op,
              quoteExpiresAt,
              status: exit.value.status,
              failureReason: undefined
            })
          }
        })

      switch (c.t) {
        case "execute": {
          const agent = records[c.agent]!
          const quote = yield* agentQuoteOf(agent.id as AgentId, accounts[c.account], payees[c.account], c.amount)
          const principal = principalOf({ ...agent, isPaused: agents[c.agent]!.paused })
          yield* submit(
            c.agent,
            { permission: "EXECUTE_QUOTES", account: c.account, amount: quote.totalSendingAmount },
            actions.executeQuote(principal, quote.id, undefined),
            quote.expiresAt
          )
          break
        }
        case "transferOut": {
          const agent = records[c.agent]!
          yield* submit(
            c.agent,
            { permission: "CREATE_TRANSFERS", account: c.account, amount: c.amount },
            actions.transferOut(principalOf(agent), {
              source: { accountId: accounts[c.account] as never },
              destination: { accountId: payees[c.account] as never },
              amount: c.amount
            }),
            isoOf(Date.parse(at) + 86_400_000)
          )
          break
        }
        case "transferIn": {
          const agent = records[c.agent]!
          yield* submit(
            c.agent,
            { permission: "CREATE_TRANSFERS", account: "USD", amount: c.amount },
            actions.transferIn(principalOf(agent), {
              source: { accountId: payees.USD as never },
              destination: { accountId: accounts.USD as never },
              amount: c.amount
            }),
            undefined
          )
          break
        }
        case "approve":
        case "reject": {
          const among = c.pending ? held.filter((a) => a.status === "PENDING_APPROVAL") : held
          const action = among[c.action % Math.max(1, among.length)]
          if (action === undefined) break
          const agent = agents[action.agent]!
          if (action.status !== "PENDING_APPROVAL") {
            const exit = yield* Effect.exit(
              c.t === "approve" ? actions.approve(agent.id, action.id) : actions.reject(agent.id, action.id, {})
            )
            compare("decided", answerOf(exit), "CONFLICT")
            break
          }
          if (c.t === "reject") {
            const exit = yield* Effect.exit(actions.reject(agent.id, action.id, { reason: "no" }))
            compare("reject", answerOf(exit), "REJECTED")
            action.status = "REJECTED"
            break
          }
          const expired = action.quoteExpiresAt !== undefined && at >= action.quoteExpiresAt
          const verdict = modelDecide(agent, action.op, counters, at, true, expired)
          const exit = yield* Effect.exit(actions.approve(agent.id, action.id))
          const want = verdict._tag === "Refuse" ? `FAILED ${verdict.reason}` : "APPROVED"
          compare("approve", answerOf(exit), want)
          if (verdict._tag === "Run") modelCount(counters, agent, verdict.counted, at)
          action.status = verdict._tag === "Refuse" ? "FAILED" : "APPROVED"
          action.failureReason = verdict._tag === "Refuse" ? verdict.reason : undefined
          break
        }
        case "pause": {
          yield* changeAgent(agents[c.agent]!.id, { isPaused: c.paused })
          agents[c.agent]!.paused = c.paused
          break
        }
        case "policy": {
          const next = yield* changeAgent(agents[c.agent]!.id, { policy: toAgentPolicy(c.policy, accounts) })
          records[c.agent] = next
          agents[c.agent]!.policy = c.policy
          break
        }
        case "advance":
          yield* TestClock.adjust(c.seconds * 1000)
          break
        case "worker":
          yield* transactions.processDue()
          break
      }

      // ---- after every step ----
      for (const action of held) {
        const stored = yield* store.agentActions.get(action.id)
        compare(
          `${action.id} status`,
          `${stored?.status} ${stored?.failureReason}`,
          `${action.status} ${action.failureReason}`
        )
        if (stored === undefined) continue
        if (stored.status === "APPROVED") {
          const tx = yield* store.transactions.get(stored.transactionId ?? "")
          compare(`${action.id} transaction's agent`, `${tx?.transaction.agentId}`, agents[action.agent]!.id)
          continue
        }
        // A held, rejected or failed action moved nothing: no transaction of its own, its quote's unexecuted.
        compare(`${action.id} transaction`, `${stored.transactionId}`, "undefined")
        if (stored.quoteId === undefined) continue
        const quote = yield* store.quotes.get(stored.quoteId)
        const tx = yield* store.transactions.get(quote?.quote.transactionId ?? "")
        compare(`${action.id} quote's transaction`, `${tx?.state === "EXPIRED" ? "PENDING" : tx?.state}`, "PENDING")
      }
      for (const [key, value] of counters) {
        compare(`counter ${key}`, String(yield* store.counters.get(engineCounterKey(key))), String(value))
      }
      if (problems.length > 0) return problems
    }
    const violations = yield* ledgerViolations
    return violations.length > 0 ? violations.map(String) : problems
  })

/** What a property run is given: how many runs and commands, the seed, and the store each run starts on. */
export interface AgentsPropertyOptions {
  readonly numRuns: number
  readonly maxCommands: number
  readonly seed: number
  /** A fresh store per run (PGlite emptied); the memory store when absent. */
  readonly store?: (() => Layer.Layer<Store>) | undefined
}

/** Runs the property; throws with the problems of the first failing run. Returns how often each answer was met. */
export const checkAgentsProperty = async (options: AgentsPropertyOptions): Promise<ReadonlyMap<string, number>> => {
  const met = new Map<string, number>()
  const tally = (key: string) => met.set(key, (met.get(key) ?? 0) + 1)
  await fc.assert(
    fc.asyncProperty(
      fc.tuple(policy, policy),
      fc.array(command, { minLength: 5, maxLength: options.maxCommands }),
      async (initial, commands) => {
        const env = makeAgentEnv(16, options.store === undefined ? {} : { storeLayer: options.store() })
        const problems = await Effect.runPromise(
          scenario(initial, commands, tally).pipe(Effect.provide(env.layer), Effect.provide(TestClock.layer()))
        )
        if (problems.length > 0) throw new Error(problems.join("\n"))
      }
    ),
    { numRuns: options.numRuns, seed: options.seed }
  )
  if (process.env.PAYCORE_STATS) console.log([...met.entries()].sort())
  return met
}
