/**
 * An agent's usage (AG-05, AG-06; docs/design/agents.md, sections 2 "Numbers" and 3; design Q3, Q8): the UTC day
 * and month of an execution instant, the counters' keys, the usage view, and the counting step. Usage is counted at
 * execution only (an `AUTO` submit or an approval), in the policy currency at that instant, and never given back.
 * The counters live per currency: a policy currency change carries the day's and month's spend over
 * (`convertUsageSteps`), so a currency flip cannot reset it.
 */
import type { Effect } from "effect"
import { type Store, together } from "../ports/store.ts"
import type { Forbidden, StoreError } from "../shared/errors.ts"
import { isoOf, utcDay } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { agentForbidden } from "./errors.ts"
import { type AgentPolicy, type AgentUsage, agentCounters } from "./model.ts"
import { convertAmount, limitVerdict, type MarketRates } from "./policy.ts"

const DAY_MS = 86_400_000

/** The UTC month `YYYY-MM` of an ISO instant (monthly limits reset then). */
export const utcMonth = (iso: string): string => iso.slice(0, 7)

/** `dailyResetDate`: the UTC day after the instant's (`YYYY-MM-DD`), when the daily counters start again. */
export const dailyResetDate = (iso: string): string =>
  utcDay(isoOf(Date.parse(`${utcDay(iso)}T00:00:00.000Z`) + DAY_MS))

/** `monthlyResetMonth`: the UTC month after the instant's (`YYYY-MM`). */
export const monthlyResetMonth = (iso: string): string => {
  const year = Number(iso.slice(0, 4))
  const month = Number(iso.slice(5, 7))
  return month === 12 ? `${year + 1}-01` : `${iso.slice(0, 4)}-${String(month + 1).padStart(2, "0")}`
}

/** The counter keys of an agent's usage at an instant: spend in `currency` for its UTC day and month, and the count. */
export const usageKeys = (agentId: string, currency: string, iso: string) => ({
  daySpend: agentCounters.daySpend(agentId, currency, utcDay(iso)),
  monthSpend: agentCounters.monthSpend(agentId, currency, utcMonth(iso)),
  dayCount: agentCounters.dayCount(agentId, utcDay(iso))
})

type Counters = Pick<Store["Service"], "counters" | "pipelines">

const usageOf = (iso: string, dailySpend: number, monthlySpend: number, dailyTransactionCount: number): AgentUsage => ({
  dailyTransactionCount,
  dailySpend,
  dailyResetDate: dailyResetDate(iso),
  monthlySpend,
  monthlyResetMonth: monthlyResetMonth(iso)
})

/** The three counters of `keys` through `step` (a read, or an add of `spend` and of 1), together where it pipelines. */
const countersSteps = (
  store: Counters,
  keys: ReturnType<typeof usageKeys>,
  step: (key: string, by: number) => Effect.Effect<number, StoreError>,
  spend: number
) =>
  together(
    store,
    () =>
      together(
        store,
        () => step(keys.daySpend, spend),
        () => step(keys.monthSpend, spend)
      ),
    () => step(keys.dayCount, 1)
  )

/** The usage `GET /agents/{id}` and `/agents/me` show (AG-05): the counters of the instant's day and month. */
export function* readUsageSteps(
  store: Pick<Store["Service"], "counters" | "pipelines">,
  agentId: string,
  currency: string,
  iso: string
): Steps<AgentUsage, StoreError> {
  const [[daySpend, monthSpend], dayCount] = yield* countersSteps(
    store,
    usageKeys(agentId, currency, iso),
    (key) => store.counters.get(key),
    0
  )
  return usageOf(iso, daySpend, monthSpend, dayCount)
}

/**
 * Counts one execution of `amount` (in the policy currency, rounded up: `PolicyRun.policyAmount`) at `iso`, inside
 * the caller's store transaction, after the agent's row lock. Counted first, checked after (as the platform's daily
 * volume in `reserveSteps`): `add` is atomic, so two executions at once cannot both see room. Over a limit it fails
 * with the 403 (AG-06) and the caller's transaction rolls the counts back; else the usage after it.
 */
export function* countUsageSteps(
  store: Counters,
  agentId: string,
  policy: AgentPolicy,
  amount: number,
  iso: string
): Steps<AgentUsage, StoreError | Forbidden> {
  const [[daySpend, monthSpend], dayCount] = yield* countersSteps(
    store,
    usageKeys(agentId, policy.spendingLimits.currency, iso),
    (key, by) => store.counters.add(key, by),
    amount
  )
  const before = {
    dailySpend: daySpend - amount,
    monthlySpend: monthSpend - amount,
    dailyTransactionCount: dayCount - 1
  }
  const refusal = limitVerdict(policy, before, amount)
  if (refusal !== undefined) return yield* agentForbidden(refusal)
  return usageOf(iso, daySpend, monthSpend, dayCount)
}

/**
 * Carries the day's and month's spend over to a new policy currency (design Q8), inside the policy PATCH's
 * transaction: each becomes at least the old currency's spend at the market rate, rounded up (`rates` holds
 * `from/to`). Counters only grow, so a flip back and forth never lowers the spend.
 */
export function* convertUsageSteps(
  store: Counters,
  agentId: string,
  change: { readonly from: string; readonly to: string },
  rates: MarketRates,
  iso: string
): Steps<void, StoreError> {
  const from = usageKeys(agentId, change.from, iso)
  const to = usageKeys(agentId, change.to, iso)
  for (const key of ["daySpend", "monthSpend"] as const) {
    const [old, current] = yield* together(
      store,
      () => store.counters.get(from[key]),
      () => store.counters.get(to[key])
    )
    const carried = convertAmount(old, change.from, change.to, rates, "UP")
    if (carried > current) yield* store.counters.add(to[key], carried - current)
  }
}
