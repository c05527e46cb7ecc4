/**
 * What each payout suffix does and when, in words computed from the timing table (`SETTLEMENT_SECONDS`,
 * `LONG_PAYMENT_SECONDS`, `RETURN_DELAY_SECONDS`) and the speed-up in force: the labels the sandbox dashboard's
 * "Pay" screen shows (the sandbox server serves them at `/dashboard/sandbox.json`), never written by hand.
 */
import { type PaymentRail, RailSelection } from "@paycore/core"
import { Layer } from "effect"
import {
  LONG_PAYMENT_SECONDS,
  type MagicOutcome,
  payoutFailure,
  RETURN_DELAY_SECONDS,
  SETTLEMENT_SECONDS
} from "./rail.ts"

/** The fastest of a payee's rails by the timing table (the first of equals): an instant one wherever it has one. */
export const fastestRail = (rails: ReadonlyArray<PaymentRail>): PaymentRail =>
  rails.reduce((best, rail) => (SETTLEMENT_SECONDS[rail] < SETTLEMENT_SECONDS[best] ? rail : best))

/** `RailSelection` of the sandbox (in `layer()`): a payment that names no rail goes over the payee's fastest. */
export const SandboxRailSelection: Layer.Layer<never> = Layer.succeed(RailSelection, { choose: fastestRail })

/** A delay of the table in words: `6 min`, `2 d`, `1.5 h`. */
export const tableDuration = (seconds: number): string => {
  const [unit, size] =
    seconds >= 86_400 ? ["d", 86_400] : seconds >= 3_600 ? ["h", 3_600] : seconds >= 60 ? ["min", 60] : ["s", 1]
  return `${Number((seconds / size).toFixed(1))} ${unit}`
}

/**
 * A delay of the table as it runs at `speedUp`: `after 6 min` at 1, `after 100 ms (6 min ÷ 3600)` at 3600 (the
 * rail's own delay: the worker notices an outcome on its next pass, within a second).
 */
export const scaledDuration = (seconds: number, speedUp: number): string => {
  if (speedUp === 1) return `after ${tableDuration(seconds)}`
  const scaled = seconds / speedUp
  const shown = scaled < 1 ? `${Math.max(1, Math.round(scaled * 1000))} ms` : tableDuration(scaled)
  return `after ${shown} (${tableDuration(seconds)} ÷ ${speedUp})`
}

const SUFFIXES: ReadonlyArray<MagicOutcome> = ["000", "002", "003", "004", "005", "006", "007", "008", "009"]

export interface OutcomeLabel {
  /** The last 3 digits of the payee's account number. */
  readonly suffix: string
  /** `003: long payment, settles after 0.1 s (6 min ÷ 3600)` */
  readonly label: string
}

/** A rail and its delay at `speedUp`: `ACH: settles after 48 s (2 d ÷ 3600)`. */
export const railLabel = (rail: PaymentRail, speedUp: number): string =>
  `${rail}: settles ${scaledDuration(SETTLEMENT_SECONDS[rail], speedUp)}`

/** What the dashboard's "Pay" screen shows for a payee with these rails at `speedUp` (`/dashboard/sandbox.json`). */
export interface PaymentTiming {
  readonly speedUp: number
  /** The rail the sandbox takes when none is named (`fastestRail`). */
  readonly defaultRail: PaymentRail
  /** Each of the payee's rails with its delay (`railLabel`). */
  readonly rails: ReadonlyArray<{ readonly rail: PaymentRail; readonly label: string }>
  /** The payout suffixes on each of those rails (`outcomeLabels`). */
  readonly outcomes: Readonly<Partial<Record<PaymentRail, ReadonlyArray<OutcomeLabel>>>>
}

export const paymentTiming = (rails: ReadonlyArray<PaymentRail>, speedUp: number): PaymentTiming => ({
  speedUp,
  defaultRail: fastestRail(rails),
  rails: rails.map((rail) => ({ rail, label: railLabel(rail, speedUp) })),
  outcomes: Object.fromEntries(rails.map((rail) => [rail, outcomeLabels(rail, speedUp)]))
})

/** The payout suffixes of a payment on `rail` at `speedUp`, each with what happens and when. */
export const outcomeLabels = (rail: PaymentRail, speedUp: number): ReadonlyArray<OutcomeLabel> => {
  const railTime = `${scaledDuration(SETTLEMENT_SECONDS[rail], speedUp)} on ${rail}`
  const describe = (suffix: MagicOutcome): string => {
    const failed = payoutFailure(suffix)
    if (failed !== undefined) {
      return failed.refundSucceeds
        ? `fails (${failed.reason}) ${railTime}, refunded`
        : `fails (${failed.reason}) ${railTime}, and its refund fails`
    }
    if (suffix === "003") return `long payment, settles ${scaledDuration(LONG_PAYMENT_SECONDS, speedUp)}`
    if (suffix === "005") return `settles ${railTime}, then returned ${scaledDuration(RETURN_DELAY_SECONDS, speedUp)}`
    return `succeeds ${railTime}`
  }
  return SUFFIXES.map((suffix) => ({ suffix, label: `${suffix}: ${describe(suffix)}` }))
}
