/**
 * An agent's policy as rules (docs/design/agents.md, section 3 "Policy evaluation", section 2 "Policy rules", Q8,
 * Q14): every row of the check table in its order, limits equal-to allowed and thresholds strict, account rules that
 * override looser and stricter, null clearing a limit, conversions rounded up when counted and down when a currency
 * change recasts the limits, validation of every rule at once, and the PATCH merge.
 */
import { BigDecimal } from "effect"
import { describe, expect, it } from "vitest"
import type { AgentPolicy } from "../src/agents/model.ts"
import {
  type AgentOperation,
  type AgentOperationType,
  canonicalPolicy,
  convertAmount,
  currencyChangeOf,
  effectivePerTransactionLimit,
  evaluate,
  limitVerdict,
  marketRates,
  mergePolicy,
  type PolicyDecision,
  permissionFor,
  policyErrors,
  policyRefusal,
  ratePairs
} from "../src/agents/policy.ts"
import { InvalidInput } from "../src/shared/errors.ts"

const USD_ACCOUNT = "InternalAccount:usd"
const EUR_ACCOUNT = "InternalAccount:eur"
const OTHER_ACCOUNT = "InternalAccount:other"
const CUSTOMER_ACCOUNTS = [USD_ACCOUNT, EUR_ACCOUNT, OTHER_ACCOUNT]

const decimal = (text: string) => BigDecimal.fromStringUnsafe(text)
/** 1 EUR = 1.085 USD; 1 USD = 0.9215 EUR; 1 USD = 150.5 JPY. */
const rates = marketRates({
  "EUR/USD": decimal("1.085"),
  "USD/EUR": decimal("0.9215"),
  "USD/JPY": decimal("150.5"),
  "JPY/USD": decimal("0.0066"),
  "USDC/USD": decimal("0.9999")
})

const ALL_PERMISSIONS = [
  "VIEW_TRANSACTIONS",
  "CREATE_TRANSFERS",
  "CREATE_QUOTES",
  "EXECUTE_QUOTES",
  "MANAGE_EXTERNAL_ACCOUNTS"
] as const

/** AUTO, USD limits: 100.00 a payment, 500.00 a day, 5 a day, 2 000.00 a month. */
const base: AgentPolicy = {
  permissions: ALL_PERMISSIONS,
  defaultExecutionMode: "AUTO",
  spendingLimits: {
    currency: "USD",
    perTransactionLimit: 10_000,
    dailyLimit: 50_000,
    dailyTransactionLimit: 5,
    monthlyLimit: 200_000
  }
}

const policyWith = (over: Partial<AgentPolicy>): AgentPolicy => ({ ...base, ...over })

const op = (over: Partial<AgentOperation> = {}): AgentOperation => ({
  type: "EXECUTE_QUOTE",
  amount: 5_000,
  currency: "USD",
  internalAccountIds: [USD_ACCOUNT],
  ...over
})

const eurOp = (amount: number): AgentOperation =>
  op({ amount, currency: "EUR", internalAccountIds: [EUR_ACCOUNT], accountCurrencies: { [EUR_ACCOUNT]: "EUR" } })

const run = (policyAmount: number): PolicyDecision => ({ _tag: "Run", policyAmount })

describe("evaluate: the check table in order (design section 3)", () => {
  it("AG-06: within every limit in AUTO, the operation runs; its amount in the policy currency is given", () => {
    expect(evaluate(base, false, op(), rates)).toEqual(run(5_000))
  })

  it("AG-10: a paused agent is refused first, whatever else is wrong", () => {
    const broken = policyWith({ permissions: [], defaultExecutionMode: "APPROVAL_REQUIRED" })
    expect(evaluate(broken, true, op({ amount: 1_000_000 }), rates)).toEqual({
      _tag: "Refuse",
      reason: "AGENT_PAUSED",
      details: {}
    })
  })

  const types: ReadonlyArray<AgentOperationType> = ["EXECUTE_QUOTE", "TRANSFER_OUT", "TRANSFER_IN", "CREATE_QUOTE"]
  it.each(types)("AG-30: %s needs its permission; without it, PERMISSION_MISSING names it", (type) => {
    const permission = permissionFor[type]
    const without = policyWith({ permissions: ALL_PERMISSIONS.filter((p) => p !== permission) })
    expect(evaluate(without, false, op({ type }), rates)).toEqual({
      _tag: "Refuse",
      reason: "PERMISSION_MISSING",
      details: { permission }
    })
    expect(evaluate(policyWith({ permissions: [permission] }), false, op({ type }), rates)._tag).toBe("Run")
  })

  it("AG-30, design Q15: the permissions each operation needs", () => {
    expect(permissionFor).toEqual({
      EXECUTE_QUOTE: "EXECUTE_QUOTES",
      TRANSFER_OUT: "CREATE_TRANSFERS",
      TRANSFER_IN: "CREATE_TRANSFERS",
      CREATE_QUOTE: "CREATE_QUOTES"
    })
  })

  it("AG-31: an account outside allowedAccountIds is refused (ACCOUNT_NOT_ALLOWED names it); null or absent allows all", () => {
    const restricted = policyWith({ accountRestrictions: { allowedAccountIds: [USD_ACCOUNT] } })
    expect(evaluate(restricted, false, op(), rates)._tag).toBe("Run")
    expect(evaluate(restricted, false, eurOp(1_000), rates)).toEqual({
      _tag: "Refuse",
      reason: "ACCOUNT_NOT_ALLOWED",
      details: { accountId: EUR_ACCOUNT }
    })
    // Every account the operation touches is checked (a transfer-in's destination, an internal transfer's two sides).
    expect(
      evaluate(restricted, false, op({ type: "TRANSFER_IN", internalAccountIds: [USD_ACCOUNT, OTHER_ACCOUNT] }), rates)
    ).toMatchObject({ reason: "ACCOUNT_NOT_ALLOWED", details: { accountId: OTHER_ACCOUNT } })
    const none = policyWith({ accountRestrictions: { allowedAccountIds: [] } })
    expect(evaluate(none, false, op(), rates)).toMatchObject({ reason: "ACCOUNT_NOT_ALLOWED" })
    const open = policyWith({ accountRestrictions: { allowedAccountIds: null } })
    expect(evaluate(open, false, eurOp(1_000), rates)._tag).toBe("Run")
    expect(evaluate(policyWith({ accountRestrictions: {} }), false, eurOp(1_000), rates)._tag).toBe("Run")
  })

  it("AG-06: the per-transaction limit allows an amount equal to it and refuses one unit more, with the amounts", () => {
    expect(evaluate(base, false, op({ amount: 10_000 }), rates)).toEqual(run(10_000))
    expect(evaluate(base, false, op({ amount: 10_001 }), rates)).toEqual({
      _tag: "Refuse",
      reason: "PER_TRANSACTION_LIMIT_EXCEEDED",
      details: { limit: 10_000, amount: 10_001, currency: "USD" }
    })
  })

  it("AG-06: an amount in another currency is converted at the market rate, rounded up, before the comparison", () => {
    // 1 000 EUR cents = 1 085 USD cents exactly; 1 001 EUR cents = 1 086.085, counted as 1 087.
    const tight = policyWith({ spendingLimits: { ...base.spendingLimits, perTransactionLimit: 1_086 } })
    expect(evaluate(tight, false, eurOp(1_000), rates)).toEqual(run(1_085))
    expect(evaluate(tight, false, eurOp(1_001), rates)).toEqual({
      _tag: "Refuse",
      reason: "PER_TRANSACTION_LIMIT_EXCEEDED",
      details: { limit: 1_086, amount: 1_087, currency: "USD" }
    })
  })

  it("design Q14: an account rule's perTransactionLimit replaces the policy's for its account, looser or stricter", () => {
    const looser = policyWith({
      accountRestrictions: { accountRules: [{ accountId: USD_ACCOUNT, perTransactionLimit: 20_000 }] }
    })
    expect(evaluate(looser, false, op({ amount: 15_000 }), rates)).toEqual(run(15_000))
    expect(evaluate(looser, false, op({ amount: 20_001 }), rates)).toMatchObject({
      reason: "PER_TRANSACTION_LIMIT_EXCEEDED",
      details: { limit: 20_000, amount: 20_001, currency: "USD", accountId: USD_ACCOUNT }
    })
    const stricter = policyWith({
      accountRestrictions: { accountRules: [{ accountId: USD_ACCOUNT, perTransactionLimit: 1_000 }] }
    })
    expect(evaluate(stricter, false, op({ amount: 1_000 }), rates)._tag).toBe("Run")
    expect(evaluate(stricter, false, op({ amount: 1_001 }), rates)).toMatchObject({
      reason: "PER_TRANSACTION_LIMIT_EXCEEDED",
      details: { limit: 1_000, accountId: USD_ACCOUNT }
    })
    // The rule binds its account only: another account keeps the policy's limit.
    expect(evaluate(stricter, false, op({ amount: 5_000, internalAccountIds: [OTHER_ACCOUNT] }), rates)._tag).toBe(
      "Run"
    )
  })

  it("design Q14: a rule's limit is in its account's currency; a null one inherits the policy's", () => {
    const eurRule = policyWith({
      spendingLimits: { ...base.spendingLimits, perTransactionLimit: 1_000 },
      accountRestrictions: { accountRules: [{ accountId: EUR_ACCOUNT, perTransactionLimit: 1_000 }] }
    })
    // 1 000 EUR cents is 1 085 USD cents: over the policy's 1 000 USD, within the account's own 1 000 EUR.
    expect(evaluate(eurRule, false, eurOp(1_000), rates)).toEqual(run(1_085))
    expect(evaluate(eurRule, false, eurOp(1_001), rates)).toMatchObject({
      details: { limit: 1_000, amount: 1_001, currency: "EUR", accountId: EUR_ACCOUNT }
    })
    const inherits = policyWith({
      spendingLimits: { ...base.spendingLimits, perTransactionLimit: 1_000 },
      accountRestrictions: { accountRules: [{ accountId: EUR_ACCOUNT, perTransactionLimit: null }] }
    })
    expect(evaluate(inherits, false, eurOp(1_000), rates)).toMatchObject({
      details: { limit: 1_000, amount: 1_085, currency: "USD" }
    })
    expect(effectivePerTransactionLimit(eurRule, EUR_ACCOUNT, "EUR")).toEqual({
      limit: 1_000,
      currency: "EUR",
      accountId: EUR_ACCOUNT
    })
    expect(effectivePerTransactionLimit(inherits, EUR_ACCOUNT, "EUR")).toEqual({ limit: 1_000, currency: "USD" })
  })

  it("AG-19: APPROVAL_REQUIRED holds the operation (MODE); an account rule's mode holds it (ACCOUNT_RULE)", () => {
    const held = policyWith({ defaultExecutionMode: "APPROVAL_REQUIRED" })
    expect(evaluate(held, false, op(), rates)).toEqual({ _tag: "Hold", approvalReason: "MODE", policyAmount: 5_000 })
    const ruled = policyWith({
      accountRestrictions: { accountRules: [{ accountId: USD_ACCOUNT, executionMode: "APPROVAL_REQUIRED" }] }
    })
    expect(evaluate(ruled, false, op(), rates)).toEqual({
      _tag: "Hold",
      approvalReason: "ACCOUNT_RULE",
      policyAmount: 5_000
    })
    expect(evaluate(ruled, false, op({ internalAccountIds: [OTHER_ACCOUNT] }), rates)._tag).toBe("Run")
  })

  it("design Q14: an AUTO rule frees its account from an APPROVAL_REQUIRED default; a rule without a mode does not", () => {
    const autoRule = policyWith({
      defaultExecutionMode: "APPROVAL_REQUIRED",
      accountRestrictions: { accountRules: [{ accountId: USD_ACCOUNT, executionMode: "AUTO" }] }
    })
    expect(evaluate(autoRule, false, op(), rates)._tag).toBe("Run")
    expect(evaluate(autoRule, false, op({ internalAccountIds: [OTHER_ACCOUNT] }), rates)).toMatchObject({
      approvalReason: "MODE"
    })
    const limitOnly = policyWith({
      defaultExecutionMode: "APPROVAL_REQUIRED",
      accountRestrictions: { accountRules: [{ accountId: USD_ACCOUNT, perTransactionLimit: 20_000 }] }
    })
    expect(evaluate(limitOnly, false, op(), rates)).toMatchObject({ approvalReason: "MODE" })
  })

  it("AG-19: an amount strictly above the approval threshold is held (THRESHOLD); equal to it runs", () => {
    const threshold = policyWith({ approvalThresholds: { currency: "USD", amount: 5_000 } })
    expect(evaluate(threshold, false, op({ amount: 5_000 }), rates)).toEqual(run(5_000))
    expect(evaluate(threshold, false, op({ amount: 5_001 }), rates)).toEqual({
      _tag: "Hold",
      approvalReason: "THRESHOLD",
      policyAmount: 5_001
    })
    // A threshold without an amount, or with a null one, holds nothing.
    expect(evaluate(policyWith({ approvalThresholds: { currency: "USD" } }), false, op(), rates)._tag).toBe("Run")
    expect(
      evaluate(policyWith({ approvalThresholds: { currency: "USD", amount: null } }), false, op(), rates)._tag
    ).toBe("Run")
  })

  it("AG-19: a threshold in another currency compares the amount converted into it, rounded up", () => {
    // 5 000 USD cents = 4 607.5 EUR cents, counted 4 608.
    const atEur = (amount: number) => policyWith({ approvalThresholds: { currency: "EUR", amount } })
    expect(evaluate(atEur(4_608), false, op(), rates)._tag).toBe("Run")
    expect(evaluate(atEur(4_607), false, op(), rates)).toMatchObject({ approvalReason: "THRESHOLD" })
  })

  it("design Q14: a threshold still holds an operation on an account whose rule is AUTO", () => {
    const policy = policyWith({
      approvalThresholds: { currency: "USD", amount: 1_000 },
      accountRestrictions: { accountRules: [{ accountId: USD_ACCOUNT, executionMode: "AUTO" }] }
    })
    expect(evaluate(policy, false, op(), rates)).toMatchObject({ _tag: "Hold", approvalReason: "THRESHOLD" })
  })

  it("the checks come in the table's order: permission, then accounts, then the per-transaction limit, then the mode", () => {
    const everything = policyWith({
      permissions: ["VIEW_TRANSACTIONS"],
      defaultExecutionMode: "APPROVAL_REQUIRED",
      accountRestrictions: { allowedAccountIds: [OTHER_ACCOUNT] }
    })
    const big = op({ amount: 1_000_000 })
    expect(evaluate(everything, false, big, rates)).toMatchObject({ reason: "PERMISSION_MISSING" })
    const permitted = { ...everything, permissions: ALL_PERMISSIONS }
    expect(evaluate(permitted, false, big, rates)).toMatchObject({ reason: "ACCOUNT_NOT_ALLOWED" })
    const allowed = { ...permitted, accountRestrictions: { allowedAccountIds: [USD_ACCOUNT] } }
    expect(evaluate(allowed, false, big, rates)).toMatchObject({ reason: "PER_TRANSACTION_LIMIT_EXCEEDED" })
    expect(evaluate(allowed, false, op(), rates)).toMatchObject({ _tag: "Hold", approvalReason: "MODE" })
  })

  it("AG-10, AG-20: an approval re-checks all but the mode and the threshold (skipMode)", () => {
    const held = policyWith({
      defaultExecutionMode: "APPROVAL_REQUIRED",
      approvalThresholds: { currency: "USD", amount: 1 }
    })
    expect(evaluate(held, false, op(), rates, { skipMode: true })).toEqual(run(5_000))
    expect(evaluate(held, true, op(), rates, { skipMode: true })).toMatchObject({ reason: "AGENT_PAUSED" })
    expect(evaluate({ ...held, permissions: [] }, false, op(), rates, { skipMode: true })).toMatchObject({
      reason: "PERMISSION_MISSING"
    })
    expect(evaluate(held, false, op({ amount: 10_001 }), rates, { skipMode: true })).toMatchObject({
      reason: "PER_TRANSACTION_LIMIT_EXCEEDED"
    })
  })

  it("AG-31: a quote creation is checked for permission, accounts and the per-transaction limit, never held", () => {
    const held = policyWith({
      defaultExecutionMode: "APPROVAL_REQUIRED",
      approvalThresholds: { currency: "USD", amount: 1 },
      accountRestrictions: { allowedAccountIds: [USD_ACCOUNT] }
    })
    expect(evaluate(held, false, op({ type: "CREATE_QUOTE" }), rates)).toEqual(run(5_000))
    expect(evaluate(held, false, op({ type: "CREATE_QUOTE", amount: 10_001 }), rates)).toMatchObject({
      reason: "PER_TRANSACTION_LIMIT_EXCEEDED"
    })
    expect(evaluate(held, false, { ...eurOp(100), type: "CREATE_QUOTE" }, rates)).toMatchObject({
      reason: "ACCOUNT_NOT_ALLOWED"
    })
  })

  it("ratePairs names every pair evaluate converts with; a pair not read is a defect, not a silent pass", () => {
    const policy = policyWith({
      approvalThresholds: { currency: "JPY", amount: 100 },
      accountRestrictions: { accountRules: [{ accountId: EUR_ACCOUNT, perTransactionLimit: 500 }] }
    })
    const payment = op({
      amount: 100,
      currency: "USDC",
      internalAccountIds: [USD_ACCOUNT, EUR_ACCOUNT],
      accountCurrencies: { [EUR_ACCOUNT]: "EUR" }
    })
    expect(ratePairs(policy, payment)).toEqual([
      ["USDC", "USD"],
      ["USDC", "JPY"],
      ["USDC", "EUR"]
    ])
    expect(ratePairs(base, op())).toEqual([])
    expect(() => evaluate(policy, false, payment, rates)).toThrow(/No market rate USDC\//)
    // With the named pairs read: 100 USDC units (0.0001 USDC) are less than a cent or a yen, each counted as 1.
    const read = marketRates({
      "USDC/USD": decimal("0.9999"),
      "USDC/JPY": decimal("150.5"),
      "USDC/EUR": decimal("0.92")
    })
    expect(evaluate(policy, false, payment, read)).toEqual(run(1))
  })
})

describe("convertAmount", () => {
  it("converts between smallest units of any decimals, exactly, then rounds the way it is asked", () => {
    // 1 USD cent = 1.505 JPY.
    expect(convertAmount(1, "USD", "JPY", rates, "UP")).toBe(2)
    expect(convertAmount(1, "USD", "JPY", rates, "DOWN")).toBe(1)
    expect(convertAmount(200, "USD", "JPY", rates, "UP")).toBe(301)
    // 1 JPY = 0.66 USD cents; 150 JPY = 99 cents exactly.
    expect(convertAmount(150, "JPY", "USD", rates, "UP")).toBe(99)
    expect(convertAmount(151, "JPY", "USD", rates, "UP")).toBe(100)
    expect(convertAmount(151, "JPY", "USD", rates, "DOWN")).toBe(99)
    // 1 000 000 USDC units (1 USDC) = 99.99 USD cents.
    expect(convertAmount(1_000_000, "USDC", "USD", rates, "UP")).toBe(100)
    expect(convertAmount(1_000_000, "USDC", "USD", rates, "DOWN")).toBe(99)
    expect(convertAmount(0, "EUR", "USD", rates, "UP")).toBe(0)
    expect(convertAmount(123, "EUR", "EUR", rates, "UP")).toBe(123)
  })
})

describe("limitVerdict: the day's and month's room (AG-06)", () => {
  const usage = { dailySpend: 40_000, monthlySpend: 150_000, dailyTransactionCount: 3 }

  it.each([
    ["DAILY_LIMIT_EXCEEDED", usage, 10_000, 50_000, 40_000],
    ["MONTHLY_LIMIT_EXCEEDED", { ...usage, dailySpend: 0, monthlySpend: 195_000 }, 5_000, 200_000, 195_000]
  ] as const)(
    "AG-06: reaching a limit exactly is allowed; one unit more is %s with the amounts",
    (reason, used, room, limit, spent) => {
      expect(limitVerdict(base, used, room)).toBeUndefined()
      expect(limitVerdict(base, used, room + 1)).toEqual({
        _tag: "Refuse",
        reason,
        details: { limit, used: spent, amount: room + 1, currency: "USD" }
      })
    }
  )

  it("AG-06: the daily count allows the limit-th execution and refuses the next (DAILY_TRANSACTION_LIMIT_EXCEEDED)", () => {
    expect(limitVerdict(base, { ...usage, dailyTransactionCount: 4 }, 1)).toBeUndefined()
    expect(limitVerdict(base, { ...usage, dailyTransactionCount: 5 }, 1)).toEqual({
      _tag: "Refuse",
      reason: "DAILY_TRANSACTION_LIMIT_EXCEEDED",
      details: { limit: 5, used: 5 }
    })
  })

  it("the daily limit is checked before the monthly one, and both before the count", () => {
    const over = { dailySpend: 50_000, monthlySpend: 200_000, dailyTransactionCount: 5 }
    expect(limitVerdict(base, over, 1)?.reason).toBe("DAILY_LIMIT_EXCEEDED")
    const noDaily = policyWith({ spendingLimits: { ...base.spendingLimits, dailyLimit: null } })
    expect(limitVerdict(noDaily, over, 1)?.reason).toBe("MONTHLY_LIMIT_EXCEEDED")
  })

  it("AG-12: null (or absent) limits do not limit", () => {
    const unlimited = policyWith({
      spendingLimits: { currency: "USD", perTransactionLimit: 10_000, dailyLimit: null, monthlyLimit: null }
    })
    const huge = { dailySpend: 1e12, monthlySpend: 1e13, dailyTransactionCount: 1e6 }
    expect(limitVerdict(unlimited, huge, 10_000)).toBeUndefined()
  })
})

describe("policy rules (design section 2)", () => {
  it("AG-03: a valid policy has no errors", () => {
    const full = policyWith({
      accountRestrictions: {
        allowedAccountIds: [USD_ACCOUNT, EUR_ACCOUNT],
        accountRules: [
          { accountId: USD_ACCOUNT, executionMode: "APPROVAL_REQUIRED" },
          { accountId: EUR_ACCOUNT, perTransactionLimit: null }
        ]
      },
      approvalThresholds: { currency: "EUR", amount: 0 }
    })
    expect(policyErrors(full, CUSTOMER_ACCOUNTS)).toEqual([])
    expect(policyRefusal(full, CUSTOMER_ACCOUNTS)).toBeUndefined()
    expect(policyErrors(base, [])).toEqual([])
  })

  it("AG-03, AG-01: every broken rule at once, as field errors under the body's path", () => {
    const broken: AgentPolicy = {
      permissions: ["EXECUTE_QUOTES"],
      defaultExecutionMode: "AUTO",
      spendingLimits: { currency: "XYZ" as "USD", perTransactionLimit: -1, dailyLimit: 1.5, monthlyLimit: null },
      accountRestrictions: {
        allowedAccountIds: [USD_ACCOUNT, "InternalAccount:someone-else"],
        accountRules: [
          { accountId: USD_ACCOUNT, perTransactionLimit: 10 },
          { accountId: "InternalAccount:someone-else" },
          { accountId: USD_ACCOUNT, executionMode: "AUTO", perTransactionLimit: -5 }
        ]
      },
      approvalThresholds: { amount: 1_000 }
    }
    const errors = policyErrors(broken, CUSTOMER_ACCOUNTS, "policy.")
    expect(errors.map((e) => [e.field, e.constraint])).toEqual([
      ["policy.spendingLimits.currency", { enum: expect.arrayContaining(["USD", "EUR"]) }],
      ["policy.spendingLimits.perTransactionLimit", { integer: true, minimum: 0 }],
      ["policy.spendingLimits.dailyLimit", { integer: true, minimum: 0 }],
      ["policy.approvalThresholds.currency", { required: true }],
      ["policy.accountRestrictions.allowedAccountIds.1", { internalAccountOfCustomer: true }],
      ["policy.accountRestrictions.accountRules.1.accountId", { internalAccountOfCustomer: true }],
      ["policy.accountRestrictions.accountRules.2.accountId", { unique: true }],
      ["policy.accountRestrictions.accountRules.2.perTransactionLimit", { integer: true, minimum: 0 }]
    ])
    const refusal = policyRefusal(broken, CUSTOMER_ACCOUNTS, "policy.")
    expect(refusal).toBeInstanceOf(InvalidInput)
    expect(refusal?.errors).toEqual(errors)
    expect(refusal?.message).toContain("policy.spendingLimits.currency")
  })

  it("AG-19: a threshold's currency is required only with an amount, and must be known", () => {
    expect(policyErrors(policyWith({ approvalThresholds: {} }), [])).toEqual([])
    expect(policyErrors(policyWith({ approvalThresholds: { amount: null } }), [])).toEqual([])
    expect(
      policyErrors(policyWith({ approvalThresholds: { currency: "ABC" as "USD", amount: 1 } }), []).map((e) => e.field)
    ).toEqual(["approvalThresholds.currency"])
  })

  it("AG-04: permissions are kept once each, in the order first given", () => {
    expect(
      canonicalPolicy(policyWith({ permissions: ["EXECUTE_QUOTES", "CREATE_QUOTES", "EXECUTE_QUOTES"] })).permissions
    ).toEqual(["EXECUTE_QUOTES", "CREATE_QUOTES"])
  })
})

describe("mergePolicy: PATCH /agents/{agentId}/policy (AG-12)", () => {
  const current = policyWith({
    accountRestrictions: { allowedAccountIds: [USD_ACCOUNT] },
    approvalThresholds: { currency: "USD", amount: 2_500 }
  })

  it("AG-12: omitted fields keep their values; an empty PATCH changes nothing", () => {
    expect(mergePolicy(current, {}, rates)).toEqual(current)
    expect(mergePolicy(current, { defaultExecutionMode: "APPROVAL_REQUIRED" }, rates)).toEqual({
      ...current,
      defaultExecutionMode: "APPROVAL_REQUIRED"
    })
  })

  it("AG-12: top-level fields replace whole; permissions are deduplicated", () => {
    const merged = mergePolicy(
      current,
      {
        permissions: ["CREATE_QUOTES", "CREATE_QUOTES"],
        accountRestrictions: { accountRules: [{ accountId: EUR_ACCOUNT, executionMode: "AUTO" }] },
        approvalThresholds: { currency: "EUR", amount: null }
      },
      rates
    )
    expect(merged.permissions).toEqual(["CREATE_QUOTES"])
    expect(merged.accountRestrictions).toEqual({ accountRules: [{ accountId: EUR_ACCOUNT, executionMode: "AUTO" }] })
    expect(merged.approvalThresholds).toEqual({ currency: "EUR", amount: null })
    expect(merged.spendingLimits).toEqual(current.spendingLimits)
  })

  it("AG-12: spendingLimits merge field by field", () => {
    const merged = mergePolicy(current, { spendingLimits: { dailyLimit: 70_000, dailyTransactionLimit: 9 } }, rates)
    expect(merged.spendingLimits).toEqual({ ...current.spendingLimits, dailyLimit: 70_000, dailyTransactionLimit: 9 })
  })

  it("AG-12: null clears a limit, which then limits nothing", () => {
    const merged = mergePolicy(current, { spendingLimits: { dailyLimit: null, monthlyLimit: null } }, rates)
    expect(merged.spendingLimits).toEqual({ ...current.spendingLimits, dailyLimit: null, monthlyLimit: null })
    const spent = { dailySpend: 1e9, monthlySpend: 1e10, dailyTransactionCount: 0 }
    expect(limitVerdict(merged, spent, 10_000)).toBeUndefined()
    expect(limitVerdict(current, spent, 10_000)?.reason).toBe("DAILY_LIMIT_EXCEEDED")
  })

  it("design Q8: a new currency recasts the limits not given in the PATCH at the market rate, rounded down", () => {
    expect(currencyChangeOf(current, { spendingLimits: { currency: "EUR" } })).toEqual({ from: "USD", to: "EUR" })
    expect(currencyChangeOf(current, { spendingLimits: { currency: "USD" } })).toBeUndefined()
    expect(currencyChangeOf(current, { spendingLimits: { dailyLimit: 1 } })).toBeUndefined()
    // USD → EUR at 0.9215: 10 000 → 9 215; 50 000 → 46 075; 200 001 → 184 300.9215, kept 184 300.
    const limits = { ...current.spendingLimits, monthlyLimit: 200_001 }
    const merged = mergePolicy({ ...current, spendingLimits: limits }, { spendingLimits: { currency: "EUR" } }, rates)
    expect(merged.spendingLimits).toEqual({
      currency: "EUR",
      perTransactionLimit: 9_215,
      dailyLimit: 46_075,
      dailyTransactionLimit: 5,
      monthlyLimit: 184_300
    })
    // The account rules (in their accounts' currencies) and the threshold (its own currency) are not recast.
    expect(merged.approvalThresholds).toEqual(current.approvalThresholds)
    expect(merged.accountRestrictions).toEqual(current.accountRestrictions)
  })

  it("design Q8: limits given with the new currency are taken as given; a cleared one stays cleared", () => {
    const merged = mergePolicy(
      current,
      { spendingLimits: { currency: "JPY", perTransactionLimit: 15_000, monthlyLimit: null } },
      rates
    )
    // The daily limit, not given, is recast: 50 000 USD cents = 75 250 JPY.
    expect(merged.spendingLimits).toEqual({
      currency: "JPY",
      perTransactionLimit: 15_000,
      dailyLimit: 75_250,
      dailyTransactionLimit: 5,
      monthlyLimit: null
    })
  })
})
