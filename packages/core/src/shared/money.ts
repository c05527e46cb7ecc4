import { Schema } from "effect"
import { Currency, currency } from "./currency.ts"

/** Upstream bound for any amount in the smallest unit; below 2^53 so a JS number holds it exactly. */
export const MAX_AMOUNT = 9_000_000_000_000_000

/** An amount in the smallest unit of its currency: a safe non-negative integer. */
export const MinorUnits = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_AMOUNT }))

/** A strictly positive amount in the smallest unit. */
export const PositiveMinorUnits = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_AMOUNT }))

export const Amount = Schema.Struct({
  amount: Schema.Int,
  currency: Currency
})
export type Amount = typeof Amount.Type

export const amountOf = (amount: number, code: string): Amount => ({ amount, currency: currency(code) })
