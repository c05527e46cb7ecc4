/**
 * An agent's usage and views (docs/design/agents.md, sections 2 and 3; AG-02, AG-05, AG-06, AG-17, design Q3, Q8):
 * the UTC windows and reset dates, the counting step inside a store transaction (counted, then checked, rolled back
 * over a limit), the usage carried over a currency change, the records rendered as resources, and the 403's body.
 */
import { assert, describe, it } from "@effect/vitest"
import { makeMemoryStore } from "@paycore/store-memory"
import { BigDecimal, Effect, Schema } from "effect"
import { agentForbidden } from "../src/agents/errors.ts"
import {
  Agent,
  AgentAction,
  type AgentActionRecord,
  type AgentPolicy,
  type AgentRecord,
  agentCounters
} from "../src/agents/model.ts"
import { marketRates } from "../src/agents/policy.ts"
import {
  convertUsageSteps,
  countUsageSteps,
  dailyResetDate,
  monthlyResetMonth,
  readUsageSteps,
  usageKeys,
  utcMonth
} from "../src/agents/usage.ts"
import { toAgent, toAgentAction, toAgentDeviceCode } from "../src/agents/views.ts"
import type { Quote } from "../src/quotes/model.ts"
import { Forbidden, type StoreError } from "../src/shared/errors.ts"
import type { Transaction } from "../src/transactions/model.ts"

const AGENT = "Agent:01234567-89ab-7def-8123-456789abcdef" as AgentRecord["id"]
const NOW = "2026-03-31T23:59:59.999Z"

const policy: AgentPolicy = {
  permissions: ["EXECUTE_QUOTES"],
  defaultExecutionMode: "AUTO",
  spendingLimits: {
    currency: "USD",
    perTransactionLimit: 10_000,
    dailyLimit: 25_000,
    dailyTransactionLimit: 3,
    monthlyLimit: 40_000
  }
}

type MemoryStore = Effect.Success<typeof makeMemoryStore>

/** One execution counted in its own store transaction (rolled back when refused). */
const counting =
  (store: MemoryStore) =>
  (amount: number, iso = NOW) =>
    store.transaction(
      Effect.gen(function* () {
        return yield* countUsageSteps(store, AGENT, policy, amount, iso)
      })
    )

/** The 403's details of a count the limits refuse. */
const refusalOf = <A>(effect: Effect.Effect<A, Forbidden | StoreError>) =>
  Effect.map(Effect.flip(effect), (error) => {
    assert.instanceOf(error, Forbidden)
    return (error as Forbidden).details
  })

describe("usage windows (AG-05)", () => {
  it("the counters of an instant are its UTC day's and month's, spend per currency", () => {
    assert.deepStrictEqual(usageKeys(AGENT, "USD", NOW), {
      daySpend: `agent-spend:${AGENT}:USD:2026-03-31`,
      monthSpend: `agent-spend:${AGENT}:USD:2026-03`,
      dayCount: `agent-count:${AGENT}:2026-03-31`
    })
    assert.strictEqual(usageKeys(AGENT, "USD", NOW).daySpend, agentCounters.daySpend(AGENT, "USD", "2026-03-31"))
    assert.strictEqual(utcMonth(NOW), "2026-03")
  })

  it.each([
    ["2026-03-02T12:00:00.000Z", "2026-03-03", "2026-04"],
    ["2026-03-31T23:59:59.999Z", "2026-04-01", "2026-04"],
    ["2026-04-01T00:00:00.000Z", "2026-04-02", "2026-05"],
    ["2026-12-31T23:59:59.999Z", "2027-01-01", "2027-01"],
    ["2028-02-28T10:00:00.000Z", "2028-02-29", "2028-03"],
    ["2028-02-29T10:00:00.000Z", "2028-03-01", "2028-03"],
    ["2026-09-30T00:00:00.000Z", "2026-10-01", "2026-10"]
  ])("AG-05: at %s the daily counters reset on %s and the monthly ones in %s", (iso, day, month) => {
    assert.strictEqual(dailyResetDate(iso), day)
    assert.strictEqual(monthlyResetMonth(iso), month)
  })
})

describe("counting (AG-06, design Q3)", () => {
  it.effect("AG-06: executions are counted up to each limit exactly; the next one is refused and counts nothing", () =>
    Effect.gen(function* () {
      const store = yield* makeMemoryStore
      const count = counting(store)
      assert.deepStrictEqual(yield* count(10_000), {
        dailyTransactionCount: 1,
        dailySpend: 10_000,
        dailyResetDate: "2026-04-01",
        monthlySpend: 10_000,
        monthlyResetMonth: "2026-04"
      })
      yield* count(10_000)
      // 20 000 spent of 25 000: 5 001 is one unit over.
      assert.deepStrictEqual(yield* refusalOf(count(5_001)), {
        reason: "DAILY_LIMIT_EXCEEDED",
        limit: 25_000,
        used: 20_000,
        amount: 5_001,
        currency: "USD"
      })
      const unchanged = yield* readUsageSteps(store, AGENT, "USD", NOW)
      assert.deepStrictEqual(
        [unchanged.dailySpend, unchanged.monthlySpend, unchanged.dailyTransactionCount],
        [20_000, 20_000, 2]
      )
      // Reaching the limit exactly is allowed; then the count limit (3) refuses a fourth.
      assert.strictEqual((yield* count(5_000)).dailySpend, 25_000)
      assert.strictEqual((yield* refusalOf(count(0)))?.reason, "DAILY_TRANSACTION_LIMIT_EXCEEDED")
    })
  )

  it.effect(
    "AG-05, AG-06: a new UTC day starts the daily counters again; the month goes on (MONTHLY_LIMIT_EXCEEDED)",
    () =>
      Effect.gen(function* () {
        const store = yield* makeMemoryStore
        const count = counting(store)
        yield* count(10_000, "2026-03-30T23:59:59.999Z")
        yield* count(10_000, "2026-03-30T23:59:59.999Z")
        const nextDay = yield* count(10_000, "2026-03-31T00:00:00.000Z")
        assert.deepStrictEqual(
          [nextDay.dailySpend, nextDay.dailyTransactionCount, nextDay.monthlySpend],
          [10_000, 1, 30_000]
        )
        yield* count(10_000, "2026-03-31T12:00:00.000Z")
        assert.deepStrictEqual(yield* refusalOf(count(1, "2026-03-31T13:00:00.000Z")), {
          reason: "MONTHLY_LIMIT_EXCEEDED",
          limit: 40_000,
          used: 40_000,
          amount: 1,
          currency: "USD"
        })
        const april = yield* count(10_000, "2026-04-01T00:00:00.000Z")
        assert.deepStrictEqual(
          [april.dailySpend, april.monthlySpend, april.monthlyResetMonth],
          [10_000, 10_000, "2026-05"]
        )
      })
  )

  it.effect(
    "design Q8: a currency change carries the day's and month's spend over, rounded up, never lowering it",
    () =>
      Effect.gen(function* () {
        const store = yield* makeMemoryStore
        const rates = marketRates({
          "USD/EUR": BigDecimal.fromStringUnsafe("0.9215"),
          "EUR/USD": BigDecimal.fromStringUnsafe("1.085")
        })
        const keys = usageKeys(AGENT, "USD", NOW)
        yield* store.counters.add(keys.daySpend, 1_001)
        yield* store.counters.add(keys.monthSpend, 20_000)
        yield* store.counters.add(keys.dayCount, 2)
        const convert = (from: string, to: string) =>
          store.transaction(
            Effect.gen(function* () {
              yield* convertUsageSteps(store, AGENT, { from, to }, rates, NOW)
            })
          )
        yield* convert("USD", "EUR")
        // 1 001 × 0.9215 = 922.4215 → 923; 20 000 × 0.9215 = 18 430.
        const eur = yield* readUsageSteps(store, AGENT, "EUR", NOW)
        assert.deepStrictEqual([eur.dailySpend, eur.monthlySpend, eur.dailyTransactionCount], [923, 18_430, 2])
        // Back to USD: 923 × 1.085 = 1 001.455 → 1 002 (more than the USD counter's 1 001); 18 430 → 19 996.55 → 19 997,
        // less than the 20 000 already there, which stays.
        yield* convert("EUR", "USD")
        const usd = yield* readUsageSteps(store, AGENT, "USD", NOW)
        assert.deepStrictEqual([usd.dailySpend, usd.monthlySpend, usd.dailyTransactionCount], [1_002, 20_000, 2])
      })
  )
})

const record: AgentRecord = {
  id: AGENT,
  name: "Treasury bot",
  customerId: "Customer:01234567-89ab-7def-8123-456789abcdef" as AgentRecord["customerId"],
  platformCustomerId: "cus-1",
  policy,
  isPaused: false,
  createdAt: "2026-03-01T00:00:00.000Z",
  updatedAt: "2026-03-01T00:00:00.000Z"
}
const usage = {
  dailyTransactionCount: 0,
  dailySpend: 0,
  dailyResetDate: "2026-03-02",
  monthlySpend: 0,
  monthlyResetMonth: "2026-04"
}

describe("views", () => {
  it("AG-02: an agent is connected while it holds a token; the view is a valid Agent and shows no token part", () => {
    const agent = toAgent(record, usage)
    assert.isFalse(agent.isConnected)
    Schema.decodeUnknownSync(Agent)(agent)
    const connected = toAgent(
      { ...record, tokenSelector: "0123456789abcdef", tokenVerifierSha256: "ab".repeat(32) },
      usage
    )
    assert.isTrue(connected.isConnected)
    assert.notInclude(JSON.stringify(connected), "0123456789abcdef")
    assert.notInclude(JSON.stringify(connected), "abab")
  })

  const action: AgentActionRecord = {
    id: "AgentAction:01234567-89ab-7def-8123-456789abcdef" as AgentActionRecord["id"],
    agentId: AGENT,
    customerId: record.customerId,
    platformCustomerId: "cus-1",
    type: "EXECUTE_QUOTE",
    status: "PENDING_APPROVAL",
    amount: 5_000,
    currency: "USD",
    approvalReason: "MODE",
    openSlot: "Quote:x",
    walletSignature: "secret-stamp",
    createdAt: "2026-03-01T00:00:00.000Z",
    updatedAt: "2026-03-01T00:00:00.000Z"
  }
  const quote = { id: "Quote:x" } as unknown as Quote
  const transaction = { id: "Transaction:x" } as unknown as Transaction

  it("AG-17, AG-19: a pending action shows its quote but no transaction; an approved one both", () => {
    const pending = toAgentAction(action, quote, transaction)
    assert.strictEqual(pending.quote, quote)
    assert.isUndefined(pending.transaction)
    const approved = toAgentAction({ ...action, status: "APPROVED" }, quote, transaction)
    assert.strictEqual(approved.transaction, transaction)
    // What the record keeps for the engine (the reason, the slot, the stamp) is not shown.
    const bare = toAgentAction(action)
    assert.deepStrictEqual(Object.keys(bare).sort(), [
      "agentId",
      "createdAt",
      "customerId",
      "id",
      "platformCustomerId",
      "status",
      "type",
      "updatedAt"
    ])
    Schema.decodeUnknownSync(AgentAction)(bare)
  })

  it("AG-17, design Q10: a transfer shows its details, no quote; a decided action its reasons", () => {
    const transferDetails = {
      amount: 1_000,
      currency: "USD",
      sourceAccountId: "InternalAccount:a",
      destinationAccountId: "ExternalAccount:b"
    } as const
    const transfer = toAgentAction(
      { ...action, type: "TRANSFER_OUT", status: "FAILED", transferDetails, failureReason: "DAILY_LIMIT_EXCEEDED" },
      quote
    )
    assert.isUndefined(transfer.quote)
    assert.deepStrictEqual(transfer.transferDetails, transferDetails)
    assert.strictEqual(transfer.failureReason, "DAILY_LIMIT_EXCEEDED")
    assert.strictEqual(toAgentAction({ ...action, status: "REJECTED", rejectionReason: "no" }).rejectionReason, "no")
    Schema.decodeUnknownSync(AgentAction)(transfer)
  })

  it("AG-01, AG-13: a device code is shown with its code only at issue; redeemed only when REDEEMED", () => {
    const code = {
      id: "AgentDeviceCode:01234567-89ab-7def-8123-456789abcdef" as const,
      agentId: AGENT,
      codeSha256: "00",
      state: "ISSUED" as const,
      expiresAt: "2026-03-02T00:00:00.000Z",
      createdAt: "2026-03-01T00:00:00.000Z",
      updatedAt: "2026-03-01T00:00:00.000Z"
    }
    assert.deepStrictEqual(toAgentDeviceCode(code as never, "PAYCORE-AGENT-BCDF-2345"), {
      code: "PAYCORE-AGENT-BCDF-2345",
      agentId: AGENT,
      expiresAt: "2026-03-02T00:00:00.000Z",
      redeemed: false
    })
    assert.isTrue(toAgentDeviceCode({ ...code, state: "REDEEMED" } as never, "x").redeemed)
    assert.isFalse(toAgentDeviceCode({ ...code, state: "INVALIDATED" } as never, "x").redeemed)
  })
})

describe("the policy's 403 (design Q2)", () => {
  it("AG-06, AG-10, AG-30: FORBIDDEN with details.reason, and a limit's numbers beside it", () => {
    const paused = agentForbidden({ reason: "AGENT_PAUSED" })
    assert.strictEqual(paused.code, "FORBIDDEN")
    assert.deepStrictEqual(paused.details, { reason: "AGENT_PAUSED" })
    const limit = agentForbidden({
      reason: "PER_TRANSACTION_LIMIT_EXCEEDED",
      details: { limit: 100, amount: 101, currency: "USD" }
    })
    assert.deepStrictEqual(limit.details, {
      reason: "PER_TRANSACTION_LIMIT_EXCEEDED",
      limit: 100,
      amount: 101,
      currency: "USD"
    })
    assert.strictEqual(limit.message, "101 USD is above the per-transaction limit of 100 USD")
    const permission = agentForbidden({ reason: "PERMISSION_MISSING", details: { permission: "EXECUTE_QUOTES" } })
    assert.include(permission.message, "EXECUTE_QUOTES")
  })
})
