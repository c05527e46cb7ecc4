/**
 * An agent's policy as rules (docs/design/agents.md, sections 2 "Policy rules" and 3 "Policy evaluation"; design Q8,
 * Q14): pure. What an operation may do (`evaluate`), whether the day's and month's usage has room (`limitVerdict`),
 * the effective per-transaction limit of an account, a policy's validation and a PATCH's merge.
 *
 * Amounts in other currencies are converted at market rates given as data (`MarketRates`, read through
 * `Quotes.marketRate` before the store transaction for the pairs `ratePairs` names): rounded UP when counted or
 * compared with a limit or a threshold (a conversion never lets an agent spend more), rounded DOWN when a currency
 * change recasts the limits themselves (Q8: never looser). Equal to a limit is allowed; above a threshold (strictly)
 * needs approval.
 */
import type { BigDecimal } from "effect"
import { minorUnitRate, pow10 } from "../quotes/pricing.ts"
import { currency, currencyCodes, isKnownCurrency } from "../shared/currency.ts"
import type { FieldError, InvalidInput } from "../shared/errors.ts"
import { invalidInput } from "../shared/validation.ts"
import type { RefusalDetails } from "./errors.ts"
import type {
  AgentAccountRule,
  AgentPermission,
  AgentPolicy,
  AgentPolicyUpdateRequest,
  AgentRefusalReason,
  AgentSpendingLimits,
  AgentSpendingLimitsUpdate,
  ApprovalReason
} from "./model.ts"

// ---- market rates ----

/**
 * Market rates as data: major units of `to` per one major unit of `from`, exact (the `FxRates` port's meaning).
 * `undefined` for a pair that was not read.
 */
export type MarketRates = (from: string, to: string) => BigDecimal.BigDecimal | undefined

/** `MarketRates` over a table keyed `FROM/TO` (`{ "EUR/USD": rate }`). */
export const marketRates =
  (table: Readonly<Record<string, BigDecimal.BigDecimal>>): MarketRates =>
  (from, to) =>
    table[`${from}/${to}`]

/** Which way a conversion rounds to the smallest unit. */
export type Rounding = "UP" | "DOWN"

/**
 * `amount` (smallest unit of `from`) in the smallest unit of `to`, exact then rounded. A pair `rates` does not hold is
 * a defect of the caller: it reads the pairs `ratePairs` names before evaluating.
 */
export const convertAmount = (
  amount: number,
  from: string,
  to: string,
  rates: MarketRates,
  rounding: Rounding
): number => {
  if (from === to) return amount
  const rate = rates(from, to)
  if (rate === undefined) throw new Error(`No market rate ${from}/${to} was read for the agent's policy`)
  const minor = minorUnitRate(rate, currency(from).decimals, currency(to).decimals)
  const [num, den] = minor.scale >= 0 ? [minor.value, pow10(minor.scale)] : [minor.value * pow10(-minor.scale), 1n]
  const product = BigInt(amount) * num
  return Number(rounding === "UP" ? (product + den - 1n) / den : product / den)
}

// ---- operations ----

/** What an agent asks for; `CREATE_QUOTE` creates no action (it is never held). */
export type AgentOperationType = "EXECUTE_QUOTE" | "TRANSFER_OUT" | "TRANSFER_IN" | "CREATE_QUOTE"

/** The permission each operation needs (AG-30, design Q15). */
export const permissionFor: { readonly [K in AgentOperationType]: AgentPermission } = {
  EXECUTE_QUOTE: "EXECUTE_QUOTES",
  TRANSFER_OUT: "CREATE_TRANSFERS",
  TRANSFER_IN: "CREATE_TRANSFERS",
  CREATE_QUOTE: "CREATE_QUOTES"
}

/** One operation as the policy sees it. */
export interface AgentOperation {
  readonly type: AgentOperationType
  /** In the smallest unit of `currency`: a quote's `totalSendingAmount`, a transfer's `amount`. */
  readonly amount: number
  readonly currency: string
  /** Every internal account the operation touches: the source, or the destination of a transfer-in. */
  readonly internalAccountIds: ReadonlyArray<string>
  /** An account's currency where it is not `currency` (an account rule's limit is in its account's currency). */
  readonly accountCurrencies?: Readonly<Record<string, string>> | undefined
}

/** The policy refuses (403 `FORBIDDEN`, `details.reason`; `agentForbidden` makes the error). */
export interface PolicyRefusal {
  readonly _tag: "Refuse"
  readonly reason: AgentRefusalReason
  readonly details: RefusalDetails
}

/** The operation runs now. `policyAmount`: its amount in the policy currency, rounded up (what usage counts). */
export interface PolicyRun {
  readonly _tag: "Run"
  readonly policyAmount: number
}

/** The operation waits for the platform (`PENDING_APPROVAL`), for `approvalReason`. */
export interface PolicyHold {
  readonly _tag: "Hold"
  readonly approvalReason: ApprovalReason
  readonly policyAmount: number
}

export type PolicyDecision = PolicyRefusal | PolicyRun | PolicyHold

const refuse = (reason: AgentRefusalReason, details: RefusalDetails = {}): PolicyRefusal => ({
  _tag: "Refuse",
  reason,
  details
})

const ruleOf = (policy: AgentPolicy, accountId: string): AgentAccountRule | undefined =>
  policy.accountRestrictions?.accountRules?.find((rule) => rule.accountId === accountId)

const accountCurrencyOf = (op: AgentOperation, accountId: string): string =>
  op.accountCurrencies?.[accountId] ?? op.currency

/**
 * The per-transaction limit on an account (design Q14): its rule's `perTransactionLimit` in the account's currency
 * when set (looser or stricter than the policy's), else the policy's in the policy currency.
 */
export const effectivePerTransactionLimit = (
  policy: AgentPolicy,
  accountId: string,
  accountCurrency: string
): { readonly limit: number; readonly currency: string; readonly accountId?: string } => {
  const own = ruleOf(policy, accountId)?.perTransactionLimit
  return own === undefined || own === null
    ? { limit: policy.spendingLimits.perTransactionLimit, currency: policy.spendingLimits.currency }
    : { limit: own, currency: accountCurrency, accountId }
}

/**
 * The market-rate pairs `evaluate` converts with for this operation: into the policy currency, the threshold's, and
 * each account's with its own per-transaction limit. Same-currency pairs are left out.
 */
export const ratePairs = (
  policy: AgentPolicy,
  op: AgentOperation
): ReadonlyArray<readonly [from: string, to: string]> => {
  const targets = new Set([policy.spendingLimits.currency])
  const threshold = policy.approvalThresholds
  if (threshold?.amount !== undefined && threshold.amount !== null) {
    targets.add(threshold.currency ?? policy.spendingLimits.currency)
  }
  for (const id of op.internalAccountIds) {
    const limit = effectivePerTransactionLimit(policy, id, accountCurrencyOf(op, id))
    targets.add(limit.currency)
  }
  targets.delete(op.currency)
  return [...targets].map((to) => [op.currency, to] as const)
}

/** Options of `evaluate`. */
export interface EvaluateOptions {
  /** An approval re-checks everything but the mode and the threshold: the platform decided those (design 3). */
  readonly skipMode?: boolean | undefined
}

/** Why the mode holds the operation, if it does: an account rule's mode first, then the default's. */
const modeHold = (policy: AgentPolicy, op: AgentOperation): ApprovalReason | undefined => {
  const modes = op.internalAccountIds.map((id) => ruleOf(policy, id)?.executionMode)
  if (modes.includes("APPROVAL_REQUIRED")) return "ACCOUNT_RULE"
  const defaulted = op.internalAccountIds.length === 0 || modes.includes(undefined)
  return defaulted && policy.defaultExecutionMode === "APPROVAL_REQUIRED" ? "MODE" : undefined
}

/**
 * What the policy says of an operation (design section 3, in this order): paused (AG-10), the permission (AG-30),
 * every account in `allowedAccountIds` when that is set (AG-31), the amount within each account's effective
 * per-transaction limit (AG-06), then the mode: `APPROVAL_REQUIRED` by an account rule or the default, or an amount
 * strictly above `approvalThresholds.amount` (AG-19), holds it; else it runs. A quote creation is never held, and an
 * approval (`skipMode`) is not held again. The day's and month's limits are `limitVerdict`'s, when counting.
 */
export const evaluate = (
  policy: AgentPolicy,
  isPaused: boolean,
  op: AgentOperation,
  rates: MarketRates,
  options: EvaluateOptions = {}
): PolicyDecision => {
  if (isPaused) return refuse("AGENT_PAUSED")
  const permission = permissionFor[op.type]
  if (!policy.permissions.includes(permission)) return refuse("PERMISSION_MISSING", { permission })
  const allowed = policy.accountRestrictions?.allowedAccountIds
  if (allowed !== undefined && allowed !== null) {
    const outside = op.internalAccountIds.find((id) => !allowed.includes(id))
    if (outside !== undefined) return refuse("ACCOUNT_NOT_ALLOWED", { accountId: outside })
  }
  const limits = policy.spendingLimits
  const policyAmount = convertAmount(op.amount, op.currency, limits.currency, rates, "UP")
  const accountLimits = op.internalAccountIds.map((id) =>
    effectivePerTransactionLimit(policy, id, accountCurrencyOf(op, id))
  )
  const effective =
    accountLimits.length === 0 ? [{ limit: limits.perTransactionLimit, currency: limits.currency }] : accountLimits
  for (const limit of effective) {
    const amount = convertAmount(op.amount, op.currency, limit.currency, rates, "UP")
    if (amount > limit.limit) return refuse("PER_TRANSACTION_LIMIT_EXCEEDED", { ...limit, amount })
  }
  if (options.skipMode === true || op.type === "CREATE_QUOTE") return { _tag: "Run", policyAmount }
  const byMode = modeHold(policy, op)
  if (byMode !== undefined) return { _tag: "Hold", approvalReason: byMode, policyAmount }
  const threshold = policy.approvalThresholds
  if (threshold?.amount !== undefined && threshold.amount !== null) {
    const amount = convertAmount(op.amount, op.currency, threshold.currency ?? limits.currency, rates, "UP")
    if (amount > threshold.amount) return { _tag: "Hold", approvalReason: "THRESHOLD", policyAmount }
  }
  return { _tag: "Run", policyAmount }
}

// ---- usage limits ----

/** The usage the limits are checked against, in the policy currency (`AgentUsage` has these). */
export interface UsageTotals {
  readonly dailySpend: number
  readonly monthlySpend: number
  readonly dailyTransactionCount: number
}

/**
 * Whether one more execution of `amount` (in the policy currency, rounded up) fits the day's and month's limits and
 * the day's count (AG-06), given the usage before it; a refusal names the limit, what was used and the amount.
 * Reaching a limit exactly is allowed. Unset (or null) limits do not limit.
 */
export const limitVerdict = (policy: AgentPolicy, usage: UsageTotals, amount: number): PolicyRefusal | undefined => {
  const { currency, dailyLimit, monthlyLimit, dailyTransactionLimit } = policy.spendingLimits
  if (dailyLimit !== undefined && dailyLimit !== null && usage.dailySpend + amount > dailyLimit) {
    return refuse("DAILY_LIMIT_EXCEEDED", { limit: dailyLimit, used: usage.dailySpend, amount, currency })
  }
  if (monthlyLimit !== undefined && monthlyLimit !== null && usage.monthlySpend + amount > monthlyLimit) {
    return refuse("MONTHLY_LIMIT_EXCEEDED", { limit: monthlyLimit, used: usage.monthlySpend, amount, currency })
  }
  if (dailyTransactionLimit !== undefined && usage.dailyTransactionCount + 1 > dailyTransactionLimit) {
    return refuse("DAILY_TRANSACTION_LIMIT_EXCEEDED", {
      limit: dailyTransactionLimit,
      used: usage.dailyTransactionCount
    })
  }
  return undefined
}

// ---- validation ----

const isLimitAmount = (n: number): boolean => Number.isSafeInteger(n) && n >= 0

/**
 * Every broken rule of a policy at once (design section 2 "Policy rules"), as field errors under `prefix` (`"policy."`
 * in a create body, `""` for the policy PATCH): a known currency, limits and thresholds integers ≥ 0, the threshold's
 * currency when it has an amount, every account in `allowedAccountIds` and `accountRules` one of `customerAccountIds`
 * (the customer's internal accounts, read by the service), at most one rule per account.
 */
export const policyErrors = (
  policy: AgentPolicy,
  customerAccountIds: ReadonlyArray<string>,
  prefix = ""
): Array<FieldError> => {
  const errors: Array<FieldError> = []
  const add = (field: string, constraint: Record<string, unknown>, message: string): void => {
    errors.push({ field: `${prefix}${field}`, constraint, message })
  }
  const knownCurrency = (field: string, code: string) => {
    if (!isKnownCurrency(code)) add(field, { enum: currencyCodes }, `${code} is not a currency this service knows`)
  }
  const limitAmount = (field: string, value: number | null | undefined) => {
    if (value !== undefined && value !== null && !isLimitAmount(value)) {
      add(field, { integer: true, minimum: 0 }, `${field} is an integer amount in the smallest unit, at least 0`)
    }
  }
  const limits = policy.spendingLimits
  knownCurrency("spendingLimits.currency", limits.currency)
  limitAmount("spendingLimits.perTransactionLimit", limits.perTransactionLimit)
  limitAmount("spendingLimits.dailyLimit", limits.dailyLimit)
  limitAmount("spendingLimits.dailyTransactionLimit", limits.dailyTransactionLimit)
  limitAmount("spendingLimits.monthlyLimit", limits.monthlyLimit)
  const threshold = policy.approvalThresholds
  if (threshold !== undefined) {
    limitAmount("approvalThresholds.amount", threshold.amount)
    if (threshold.currency !== undefined) knownCurrency("approvalThresholds.currency", threshold.currency)
    else if (threshold.amount !== undefined && threshold.amount !== null) {
      add("approvalThresholds.currency", { required: true }, "An approval threshold amount needs its currency")
    }
  }
  const owned = new Set(customerAccountIds)
  const ownAccount = (field: string, id: string) => {
    if (!owned.has(id)) {
      add(field, { internalAccountOfCustomer: true }, `${id} is not an internal account of the agent's customer`)
    }
  }
  const restrictions = policy.accountRestrictions
  restrictions?.allowedAccountIds?.forEach((id, i) => {
    ownAccount(`accountRestrictions.allowedAccountIds.${i}`, id)
  })
  const ruled = new Set<string>()
  restrictions?.accountRules?.forEach((rule, i) => {
    const field = `accountRestrictions.accountRules.${i}`
    ownAccount(`${field}.accountId`, rule.accountId)
    if (ruled.has(rule.accountId)) add(`${field}.accountId`, { unique: true }, "At most one rule per account")
    ruled.add(rule.accountId)
    limitAmount(`${field}.perTransactionLimit`, rule.perTransactionLimit)
  })
  return errors
}

/** `policyErrors` as the 400 `INVALID_INPUT` a request gets, or `undefined` when the policy is valid. */
export const policyRefusal = (
  policy: AgentPolicy,
  customerAccountIds: ReadonlyArray<string>,
  prefix = ""
): InvalidInput | undefined => {
  const errors = policyErrors(policy, customerAccountIds, prefix)
  return errors.length === 0 ? undefined : invalidInput(errors)
}

/** A policy as stored: permissions once each, in the order first given (AG-04). */
export const canonicalPolicy = (policy: AgentPolicy): AgentPolicy => ({
  ...policy,
  permissions: [...new Set(policy.permissions)]
})

// ---- PATCH ----

/** The policy currency a PATCH moves from and to, when it changes it (Q8: limits and usage are recast). */
export const currencyChangeOf = (
  policy: AgentPolicy,
  patch: AgentPolicyUpdateRequest
): { readonly from: string; readonly to: string } | undefined => {
  const to = patch.spendingLimits?.currency
  const from = policy.spendingLimits.currency
  return to === undefined || to === from ? undefined : { from, to }
}

const mergeLimits = (
  current: AgentSpendingLimits,
  patch: AgentSpendingLimitsUpdate,
  rates: MarketRates
): AgentSpendingLimits => {
  const to = patch.currency ?? current.currency
  // Q8: a limit the PATCH does not give is recast into the new currency, rounded down (never looser).
  const recast = (amount: number) => convertAmount(amount, current.currency, to, rates, "DOWN")
  const nullable = (given: boolean, value: number | null | undefined, old: number | null | undefined) =>
    given ? value : old === undefined || old === null ? old : recast(old)
  const dailyLimit = nullable("dailyLimit" in patch, patch.dailyLimit, current.dailyLimit)
  const monthlyLimit = nullable("monthlyLimit" in patch, patch.monthlyLimit, current.monthlyLimit)
  const dailyTransactionLimit = patch.dailyTransactionLimit ?? current.dailyTransactionLimit
  return {
    currency: to,
    perTransactionLimit: patch.perTransactionLimit ?? recast(current.perTransactionLimit),
    ...(dailyLimit === undefined ? {} : { dailyLimit }),
    ...(dailyTransactionLimit === undefined ? {} : { dailyTransactionLimit }),
    ...(monthlyLimit === undefined ? {} : { monthlyLimit })
  }
}

/**
 * The policy after `PATCH /agents/{agentId}/policy` (AG-12): a top-level field given replaces the old one,
 * `spendingLimits` merges field by field (`null` clears a nullable limit), omitted fields keep their values. A new
 * policy currency recasts the limits not given in the same PATCH at the market rate, rounded down (Q8); `rates` needs
 * the pair of `currencyChangeOf`. The result still has to pass `policyErrors`.
 */
export const mergePolicy = (policy: AgentPolicy, patch: AgentPolicyUpdateRequest, rates: MarketRates): AgentPolicy => {
  const accountRestrictions = patch.accountRestrictions ?? policy.accountRestrictions
  const approvalThresholds = patch.approvalThresholds ?? policy.approvalThresholds
  return canonicalPolicy({
    permissions: patch.permissions ?? policy.permissions,
    defaultExecutionMode: patch.defaultExecutionMode ?? policy.defaultExecutionMode,
    spendingLimits:
      patch.spendingLimits === undefined
        ? policy.spendingLimits
        : mergeLimits(policy.spendingLimits, patch.spendingLimits, rates),
    ...(accountRestrictions === undefined ? {} : { accountRestrictions }),
    ...(approvalThresholds === undefined ? {} : { approvalThresholds })
  })
}
