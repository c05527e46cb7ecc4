/**
 * An agent's commands racing each other on PostgreSQL (docs/design/agents.md, "Races"; the real server with
 * DATABASE_URL, else PGlite, where they serialize): every agent command locks the agent's row first, so limits are
 * never passed, an action is decided once, and no deadlock or serialization error reaches a caller.
 */
import { AgentActions, type AgentPolicy, type AgentRecord, Agents, agentCounters, Store, utcDay } from "@paycore/core"
import { openAgentPolicy, seedAgent } from "@paycore/testkit"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { agentOf, agentQuoteOf, changeAgent, makeAgentEnv, principalOf } from "../../core/test/agents-property.ts"
import { balance, ledgerViolations, seedPayer, T0 } from "../../core/test/fixtures.ts"
import { testDatabase } from "./helpers.ts"

const db = testDatabase("agent_races")

/** A refusal's policy reason (403), else its code. */
const codeOf = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = (exit.cause.reasons[0] as any)?.error
  return error?.details?.reason ?? error?.code ?? String(exit.cause)
}

const runOnAgents = <A, E>(seed: number, effect: Effect.Effect<A, E, any>): Promise<A> =>
  Effect.runPromise(
    effect.pipe(
      Effect.provide(makeAgentEnv(seed, { storeLayer: db.layer() }).layer),
      Effect.provide(TestClock.layer())
    ) as Effect.Effect<A, E>
  )

const policy = (limits: Partial<AgentPolicy["spendingLimits"]>, mode: AgentPolicy["defaultExecutionMode"] = "AUTO") => {
  const open = openAgentPolicy()
  return { ...open, defaultExecutionMode: mode, spendingLimits: { ...open.spendingLimits, ...limits } }
}

/** The agent's counters of the test's day (T0). */
const countersOf = (agentId: string) =>
  Effect.gen(function* () {
    const store = yield* Store
    const day = utcDay(new Date(T0).toISOString())
    return {
      day: yield* store.counters.get(agentCounters.daySpend(agentId, "USD", day)),
      month: yield* store.counters.get(agentCounters.monthSpend(agentId, "USD", day.slice(0, 7))),
      count: yield* store.counters.get(agentCounters.dayCount(agentId, day))
    }
  })

/** A funded customer and an agent of it with `agentPolicy`. */
const payerWithAgent = (funding: number, agentPolicy: AgentPolicy) =>
  Effect.gen(function* () {
    const { customer, account, usdPayee } = yield* seedPayer(funding)
    return { account, usdPayee, agent: yield* agentOf(customer.id, agentPolicy) }
  })

/** A quote of `amount` for the agent, executed by it (held, under APPROVAL_REQUIRED). */
const submitted = (agent: AgentRecord, account: string, payee: string, amount: number) =>
  Effect.gen(function* () {
    const q = yield* agentQuoteOf(agent.id, account, payee, amount)
    return yield* (yield* AgentActions).executeQuote(principalOf(agent), q.id, undefined)
  })

/** Runs `calls` at once: what they answered, and the agent's counters, the account's balance and the ledger after. */
const raced = (
  calls: ReadonlyArray<Effect.Effect<{ readonly status: string }, unknown>>,
  agentId: string,
  accountId: string
) =>
  Effect.gen(function* () {
    const exits = yield* Effect.forEach(calls, Effect.exit, { concurrency: "unbounded" })
    return {
      ran: exits.filter(Exit.isSuccess).length,
      approved: exits.filter((e) => Exit.isSuccess(e) && e.value.status === "APPROVED").length,
      codes: exits.map(codeOf).filter((c) => c !== undefined),
      counters: yield* countersOf(agentId),
      balance: yield* balance(accountId, "USD"),
      violations: yield* ledgerViolations
    }
  })

describe(`agent races (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("50 AUTO executes of 10 under dailyLimit 200: exactly 20 APPROVED, 30 DAILY_LIMIT_EXCEEDED; counted 200", async () => {
    const outcome = await runOnAgents(
      2001,
      Effect.gen(function* () {
        const actions = yield* AgentActions
        const { account, usdPayee, agent } = yield* payerWithAgent(1_000, policy({ dailyLimit: 200 }))
        const calls = []
        for (let i = 0; i < 50; i++) {
          const q = yield* agentQuoteOf(agent.id, account.id, usdPayee.id, 10)
          calls.push(actions.executeQuote(principalOf(agent), q.id, undefined))
        }
        return yield* raced(calls, agent.id, account.id)
      })
    )
    expect(outcome.approved).toBe(20)
    expect(outcome.codes).toEqual(Array(30).fill("DAILY_LIMIT_EXCEEDED"))
    expect(outcome.counters).toEqual({ day: 200, month: 200, count: 20 })
    expect(outcome.balance.available).toBe(800)
    expect(outcome.violations).toEqual([])
  }, 120_000)

  it("executes and transfer-outs mixed under dailyTransactionLimit 7: exactly 7 run", async () => {
    const outcome = await runOnAgents(
      2002,
      Effect.gen(function* () {
        const actions = yield* AgentActions
        const { account, usdPayee, agent } = yield* payerWithAgent(10_000, policy({ dailyTransactionLimit: 7 }))
        const principal = principalOf(agent)
        const calls = []
        for (let i = 0; i < 10; i++) {
          const q = yield* agentQuoteOf(agent.id, account.id, usdPayee.id, 10)
          calls.push(actions.executeQuote(principal, q.id, undefined))
          calls.push(
            actions.transferOut(principal, {
              source: { accountId: account.id },
              destination: { accountId: usdPayee.id as never },
              amount: 10
            })
          )
        }
        return yield* raced(calls, agent.id, account.id)
      })
    )
    expect(outcome.ran).toBe(7)
    expect(outcome.codes).toEqual(Array(13).fill("DAILY_TRANSACTION_LIMIT_EXCEEDED"))
    expect(outcome.counters).toEqual({ day: 70, month: 70, count: 7 })
    expect(outcome.violations).toEqual([])
  }, 120_000)

  it("two agents of one customer, dailyLimit 100 each, 20 executes of 10 each: exactly 10 per agent", async () => {
    const outcome = await runOnAgents(
      2003,
      Effect.gen(function* () {
        const actions = yield* AgentActions
        const { customer, account, usdPayee } = yield* seedPayer(10_000)
        const agents = [
          yield* agentOf(customer.id, policy({ dailyLimit: 100 })),
          yield* agentOf(customer.id, policy({ dailyLimit: 100 }))
        ]
        const calls = []
        for (const agent of agents) {
          for (let i = 0; i < 20; i++) {
            const q = yield* agentQuoteOf(agent.id, account.id, usdPayee.id, 10)
            calls.push(Effect.map(actions.executeQuote(principalOf(agent), q.id, undefined), (a) => a.agentId))
          }
        }
        const exits = yield* Effect.forEach(calls, Effect.exit, { concurrency: "unbounded" })
        const ran = exits.filter(Exit.isSuccess).map((e) => e.value)
        return agents.map((a) => ran.filter((id) => id === a.id).length)
      })
    )
    expect(outcome).toEqual([10, 10])
  }, 120_000)

  it("20 executes of one quote by its agent: one action, 19 × 409", async () => {
    const outcome = await runOnAgents(
      2004,
      Effect.gen(function* () {
        const actions = yield* AgentActions
        const store = yield* Store
        const { account, usdPayee, agent } = yield* payerWithAgent(10_000, policy({}, "APPROVAL_REQUIRED"))
        const q = yield* agentQuoteOf(agent.id, account.id, usdPayee.id, 10)
        const exits = yield* Effect.forEach(
          Array.from({ length: 20 }, () => actions.executeQuote(principalOf(agent), q.id, undefined)),
          Effect.exit,
          { concurrency: "unbounded" }
        )
        return {
          held: exits.filter(Exit.isSuccess).length,
          codes: exits.map(codeOf).filter((c) => c !== undefined),
          stored: (yield* store.agentActions.list({ agentId: agent.id }, { limit: 100, sortOrder: "asc" })).data.length
        }
      })
    )
    expect(outcome).toEqual({ held: 1, codes: Array(19).fill("CONFLICT"), stored: 1 })
  }, 120_000)

  it("20 concurrent approvals of one action: one APPROVED, 19 × 409; executed, counted and debited once", async () => {
    const outcome = await runOnAgents(
      2005,
      Effect.gen(function* () {
        const actions = yield* AgentActions
        const { account, usdPayee, agent } = yield* payerWithAgent(10_000, policy({}, "APPROVAL_REQUIRED"))
        const held = yield* submitted(agent, account.id, usdPayee.id, 250)
        const approvals = Array.from({ length: 20 }, () => actions.approve(agent.id, held.id))
        return yield* raced(approvals, agent.id, account.id)
      })
    )
    expect(outcome.approved).toBe(1)
    expect(outcome.codes).toEqual(Array(19).fill("CONFLICT"))
    expect(outcome.counters).toEqual({ day: 250, month: 250, count: 1 })
    expect(outcome.balance.available).toBe(10_000 - 250)
    expect(outcome.violations).toEqual([])
  }, 120_000)

  it("approve racing reject: exactly one wins, the other is 409", async () => {
    const outcome = await runOnAgents(
      2006,
      Effect.gen(function* () {
        const actions = yield* AgentActions
        const { account, usdPayee, agent } = yield* payerWithAgent(10_000, policy({}, "APPROVAL_REQUIRED"))
        const results = []
        for (let i = 0; i < 5; i++) {
          const held = yield* submitted(agent, account.id, usdPayee.id, 10)
          const [approve, reject] = yield* Effect.all(
            [Effect.exit(actions.approve(agent.id, held.id)), Effect.exit(actions.reject(agent.id, held.id, {}))],
            { concurrency: "unbounded" }
          )
          results.push([approve, reject].map((e) => (Exit.isSuccess(e) ? e.value.status : codeOf(e))).sort())
        }
        return { results, counters: yield* countersOf(agent.id) }
      })
    )
    for (const result of outcome.results) {
      expect([
        ["APPROVED", "CONFLICT"],
        ["CONFLICT", "REJECTED"]
      ]).toContainEqual(result)
    }
    const approvedCount = outcome.results.filter((r) => r.includes("APPROVED")).length
    expect(outcome.counters.count).toBe(approvedCount)
  }, 120_000)

  it("30 approvals of different actions under a daily limit for 10: exactly 10 APPROVED, 20 FAILED, nothing counted for them", async () => {
    const outcome = await runOnAgents(
      2007,
      Effect.gen(function* () {
        const actions = yield* AgentActions
        const { account, usdPayee, agent } = yield* payerWithAgent(
          10_000,
          policy({ dailyLimit: 100 }, "APPROVAL_REQUIRED")
        )
        const held = []
        for (let i = 0; i < 30; i++) {
          held.push(yield* submitted(agent, account.id, usdPayee.id, 10))
        }
        const decided = yield* Effect.forEach(held, (a) => actions.approve(agent.id, a.id), {
          concurrency: "unbounded"
        })
        return {
          statuses: decided.map((a) => `${a.status}${a.failureReason === undefined ? "" : ` ${a.failureReason}`}`),
          counters: yield* countersOf(agent.id),
          balance: yield* balance(account.id, "USD"),
          violations: yield* ledgerViolations
        }
      })
    )
    expect(outcome.statuses.filter((s) => s === "APPROVED")).toHaveLength(10)
    expect(outcome.statuses.filter((s) => s === "FAILED DAILY_LIMIT_EXCEEDED")).toHaveLength(20)
    expect(outcome.counters).toEqual({ day: 100, month: 100, count: 10 })
    expect(outcome.balance.available).toBe(10_000 - 100)
    expect(outcome.violations).toEqual([])
  }, 120_000)

  it("approve racing a pause: FAILED AGENT_PAUSED, or APPROVED committed before the pause; never after it", async () => {
    const outcome = await runOnAgents(
      2008,
      Effect.gen(function* () {
        const actions = yield* AgentActions
        const { account, usdPayee, agent } = yield* payerWithAgent(10_000, policy({}, "APPROVAL_REQUIRED"))
        const results = []
        for (let i = 0; i < 5; i++) {
          yield* changeAgent(agent.id, { isPaused: false })
          const q = yield* agentQuoteOf(agent.id, account.id, usdPayee.id, 10)
          const held = yield* actions.executeQuote(principalOf({ ...agent, isPaused: false }), q.id, undefined)
          const [approved] = yield* Effect.all(
            [actions.approve(agent.id, held.id), changeAgent(agent.id, { isPaused: true })],
            {
              concurrency: "unbounded"
            }
          )
          results.push(`${approved.status}${approved.failureReason === undefined ? "" : ` ${approved.failureReason}`}`)
        }
        return results
      })
    )
    for (const result of outcome) expect(["APPROVED", "FAILED AGENT_PAUSED"]).toContain(result)
  }, 120_000)
  it("AG-12: approve racing a policy PATCH cutting dailyLimit to 50: APPROVED counted 100 before the cut, or FAILED DAILY_LIMIT_EXCEEDED", async () => {
    const rounds = await runOnAgents(
      2009,
      Effect.gen(function* () {
        const actions = yield* AgentActions
        const agents = yield* Agents
        const { customer, account, usdPayee } = yield* seedPayer(10_000)
        const results = []
        for (let i = 0; i < 10; i++) {
          // A fresh agent each round: its day's usage starts at 0, so a count of 100 passes only the old limit.
          const agent = yield* agentOf(customer.id, policy({ dailyLimit: 1_000 }, "APPROVAL_REQUIRED"))
          const held = yield* submitted(agent, account.id, usdPayee.id, 100)
          const [approved, patched] = yield* Effect.all(
            [actions.approve(agent.id, held.id), agents.updatePolicy(agent.id, { spendingLimits: { dailyLimit: 50 } })],
            { concurrency: "unbounded" }
          )
          results.push({
            outcome: `${approved.status}${approved.failureReason === undefined ? "" : ` ${approved.failureReason}`}`,
            limit: patched.policy.spendingLimits.dailyLimit,
            counted: (yield* countersOf(agent.id)).day
          })
        }
        return { results, balance: yield* balance(account.id, "USD"), violations: yield* ledgerViolations }
      })
    )
    for (const round of rounds.results) {
      expect([
        { outcome: "APPROVED", limit: 50, counted: 100 },
        { outcome: "FAILED DAILY_LIMIT_EXCEEDED", limit: 50, counted: 0 }
      ]).toContainEqual(round)
    }
    const approved = rounds.results.filter((r) => r.outcome === "APPROVED").length
    expect(rounds.balance.available).toBe(10_000 - 100 * approved)
    expect(rounds.violations).toEqual([])
  }, 120_000)

  it("AG-11: 20 executes racing DELETE: each held before the delete (then failed by it) or 401; nothing held after; the token dead", async () => {
    const outcome = await runOnAgents(
      2010,
      Effect.gen(function* () {
        const actions = yield* AgentActions
        const agents = yield* Agents
        const store = yield* Store
        const { customer, account, usdPayee } = yield* seedPayer(10_000)
        // Under APPROVAL_REQUIRED an execute holds: an action created after the delete would stay PENDING_APPROVAL.
        const seeded = yield* seedAgent({ customerId: customer.id, policy: policy({}, "APPROVAL_REQUIRED") })
        const principal = principalOf(seeded.record)
        const calls: Array<Effect.Effect<unknown, unknown>> = []
        for (let i = 0; i < 20; i++) {
          const q = yield* agentQuoteOf(seeded.agentId, account.id, usdPayee.id, 10)
          calls.push(actions.executeQuote(principal, q.id, undefined))
        }
        // Started last, so some executes commit before it.
        calls.push(agents.delete(seeded.agentId))
        const exits = yield* Effect.forEach(calls, Effect.exit, { concurrency: "unbounded" })
        const deleted = exits.pop()!
        const stored = yield* store.agentActions.list({ agentId: seeded.agentId }, { limit: 100, sortOrder: "asc" })
        return {
          deleted: Exit.isSuccess(deleted),
          held: exits.filter(Exit.isSuccess).length,
          codes: [...new Set(exits.map(codeOf).filter((c) => c !== undefined))],
          stored: stored.data.map((a) => `${a.status} ${a.failureReason}`),
          token: yield* agents.authenticate(seeded.accessToken)
        }
      })
    )
    expect(outcome.deleted).toBe(true)
    expect(outcome.stored).toEqual(Array(outcome.held).fill("FAILED AGENT_DELETED"))
    expect(outcome.codes).toEqual(outcome.held === 20 ? [] : ["UNAUTHORIZED"])
    expect(outcome.token).toBeUndefined()
  }, 120_000)
})
