/**
 * Pricing of a quote: pure and exact (bigint and `BigDecimal`), no Effects. The rounding rule is on `priceQuote`;
 * docs/architecture.md ("Pricing and FX") says the same for readers of the docs.
 */
import { BigDecimal, Option, Result } from "effect"
import type { PlatformConfig } from "../platform/model.ts"
import { currency } from "../shared/currency.ts"
import { InvalidInput } from "../shared/errors.ts"
import { MAX_AMOUNT } from "../shared/money.ts"
import type { LockedCurrencySide, PlatformFeeOverride } from "./model.ts"

const POW10_BIGINT = Array.from({ length: 64 }, (_, i) => 10n ** BigInt(i))
/** 10^n as a bigint (cached up to 10^63). */
export const pow10 = (n: number): bigint => POW10_BIGINT[n] ?? 10n ** BigInt(n)
/** ⌈a / b⌉ for a ≥ 0, b > 0. */
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b
const BPS = 10_000n

/** A positive finite decimal rate, normalized; `undefined` for anything else. */
export const parseRate = (rate: string): BigDecimal.BigDecimal | undefined => {
  const parsed = Option.getOrUndefined(BigDecimal.fromString(rate.trim()))
  return parsed !== undefined && BigDecimal.isPositive(parsed) ? BigDecimal.normalize(parsed) : undefined
}

/** Plain decimal text (never exponent notation). */
export const decimalString = (n: BigDecimal.BigDecimal): string => {
  const { value, scale } = BigDecimal.normalize(n)
  const negative = value < 0n
  const digits = `${negative ? -value : value}`
  let text: string
  if (scale <= 0) text = digits + "0".repeat(-scale)
  else {
    const padded = digits.padStart(scale + 1, "0")
    text = `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`
  }
  return negative ? `-${text}` : text
}

/** Receiving minor units per sending minor unit: `rate × 10^(receiving decimals − sending decimals)`, exact. */
export const minorUnitRate = (rate: BigDecimal.BigDecimal, sendingDecimals: number, receivingDecimals: number) =>
  BigDecimal.normalize(BigDecimal.make(rate.value, rate.scale + sendingDecimals - receivingDecimals))

/** A decimal as the exact fraction num / den. */
const fraction = (d: BigDecimal.BigDecimal): { readonly num: bigint; readonly den: bigint } =>
  d.scale >= 0 ? { num: d.value, den: pow10(d.scale) } : { num: d.value * pow10(-d.scale), den: 1n }

interface MinorRate {
  readonly num: bigint
  readonly den: bigint
  /** `decimalString` of the minor-unit rate. */
  readonly text: string
}

/** Minor-unit rates per market rate (rates are cached and reused) and pair of decimals. */
const minorRates = new WeakMap<BigDecimal.BigDecimal, Map<number, MinorRate>>()

/** `minorUnitRate` as an exact fraction and as text, computed once per rate and pair of decimals. */
const minorRateOf = (rate: BigDecimal.BigDecimal, sendingDecimals: number, receivingDecimals: number): MinorRate => {
  let byDecimals = minorRates.get(rate)
  if (byDecimals === undefined) {
    byDecimals = new Map()
    minorRates.set(rate, byDecimals)
  }
  const key = sendingDecimals * 1024 + receivingDecimals
  let found = byDecimals.get(key)
  if (found === undefined) {
    const minor = minorUnitRate(rate, sendingDecimals, receivingDecimals)
    found = { ...fraction(minor), text: decimalString(minor) }
    byDecimals.set(key, found)
  }
  return found
}

const SIGNIFICANT_DIGITS = 12

/** Exact powers of ten as doubles (every one up to 1e22 is exactly representable). */
const POW10_NUMBER = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
  1e21, 1e22
]
const decimalDigits = (n: bigint): number => `${n}`.length

/**
 * A display number: `numerator / denominator` rounded half-even to 12 significant digits. Exact
 * integer arithmetic: the quotient scaled to 12 digits, rounded, then one correctly rounded
 * division by a power of ten (the same double as parsing the rounded decimal text).
 */
export const displayRatio = (numerator: bigint, denominator: bigint): number => {
  if (numerator === 0n || denominator === 0n) return 0
  if (numerator < 0n || denominator < 0n) return displayRatioDecimal(numerator, denominator)
  // integerDigits: 10^(k-1) <= q < 10^k.
  let k = decimalDigits(numerator) - decimalDigits(denominator)
  if (k >= 0 ? numerator >= denominator * pow10(k) : numerator * pow10(-k) >= denominator) k++
  const scale = SIGNIFICANT_DIGITS - k
  if (scale < -22 || scale > 22) return displayRatioDecimal(numerator, denominator)
  const n = scale >= 0 ? numerator * pow10(scale) : numerator
  const d = scale >= 0 ? denominator : denominator * pow10(-scale)
  let q = n / d
  const twice = (n - q * d) * 2n
  if (twice > d || (twice === d && (q & 1n) === 1n)) q++
  return scale >= 0 ? Number(q) / POW10_NUMBER[scale]! : Number(q) * POW10_NUMBER[-scale]!
}

/** `displayRatio` through `BigDecimal` (the general case: negative or extreme ratios). */
const displayRatioDecimal = (numerator: bigint, denominator: bigint): number => {
  const q = Option.getOrUndefined(
    BigDecimal.divide(BigDecimal.fromBigInt(numerator), BigDecimal.fromBigInt(denominator))
  )
  if (q === undefined) return 0
  const n = BigDecimal.normalize(q)
  if (n.value === 0n) return 0
  const integerDigits = `${n.value < 0n ? -n.value : n.value}`.length - n.scale
  return Number(decimalString(BigDecimal.round(n, { scale: SIGNIFICANT_DIGITS - integerDigits, mode: "half-even" })))
}

/** Fees a quote carries, as fractions of the total sending amount. */
export interface FeeSchedule {
  /** The service's own fee (`EngineConfig.serviceFeeBps`; 0 for same-currency quotes). */
  readonly serviceBps: number
  /** The platform's variable fee (config `feeConfigs` or the quote's `platformFeeOverride`). */
  readonly platformBps: number
  /** The platform's fixed fee, in the sending currency's smallest unit. */
  readonly platformFixed: number
}

export const noFees: FeeSchedule = { serviceBps: 0, platformBps: 0, platformFixed: 0 }

export interface PricingInput {
  readonly sendingCurrency: string
  readonly receivingCurrency: string
  readonly lockedCurrencySide: LockedCurrencySide
  readonly lockedCurrencyAmount: number
  /** Market rate: receiving major units per one sending major unit (1 for the same currency). */
  readonly marketRate: BigDecimal.BigDecimal
  readonly fees: FeeSchedule
}

export interface Pricing {
  /** Debited from the source: net + fees. */
  readonly totalSendingAmount: number
  /** Credited to the destination. */
  readonly totalReceivingAmount: number
  /** What is converted (or, same-currency, delivered): total − fees. */
  readonly netSendingAmount: number
  readonly serviceFee: number
  /** Fixed plus variable platform fee. */
  readonly platformFee: number
  readonly platformVariableFee: number
  readonly serviceVariableFee: number
  /** serviceFee + platformFee. */
  readonly feesIncluded: number
  readonly platformFeesIncluded: number
  /** Display only: receiving major units per net sending major unit (after fees); exactly 1 for one currency. */
  readonly exchangeRate: number
  /** The exact rate in smallest units (receiving minor per sending minor), decimal text. */
  readonly minorRate: string
}

/** The fees on a total sending amount `gross`, each variable part rounded up. */
export const feesOn = (gross: bigint, fees: FeeSchedule) => {
  const serviceVariable = ceilDiv(gross * BigInt(fees.serviceBps), BPS)
  const platformVariable = ceilDiv(gross * BigInt(fees.platformBps), BPS)
  const platform = BigInt(fees.platformFixed) + platformVariable
  return { serviceVariable, platformVariable, service: serviceVariable, platform, total: serviceVariable + platform }
}

const amountField = "lockedCurrencyAmount"

/**
 * Prices a quote exactly: integers in smallest units, the rate as an exact decimal (no floating
 * point touches money; `exchangeRate` is a display number only).
 *
 * Rounding rule:
 * - Fees are fractions of the total sending amount (what the source is debited): the service fee
 *   (`serviceFeeBps`, cross-currency only) and the platform fee (fixed amount plus basis points;
 *   USD source only). Each variable part is rounded UP to the sending currency's smallest unit.
 * - SENDING locked: total = the locked amount; net = total − fees; the receiving amount is
 *   net × rate rounded DOWN to the receiving currency's smallest unit.
 * - RECEIVING locked: the receiving amount is the locked amount; the net sending amount is
 *   receiving ÷ rate rounded UP; then fees are added: the total is the smallest amount whose net
 *   after its own fees (rounded up as above) covers that net. Locking the receiving side is thus
 *   never cheaper than locking the sending side at the same rate.
 * - Every leftover of rounding stays with the FX liquidity account: it always receives at least
 *   the value it pays out.
 * - Units follow each currency's decimals (USD 2, JPY 0, USDC 6, BTC 8): the rate is scaled by
 *   10^(receiving decimals − sending decimals) before rounding.
 *
 * Fails with InvalidInput on `lockedCurrencyAmount` when nothing would be delivered (net ≤ 0 or a
 * receiving amount of 0), or an amount would exceed 9 000 000 000 000 000.
 */
export const priceQuote = (input: PricingInput): Result.Result<Pricing, InvalidInput> => {
  const send = currency(input.sendingCurrency)
  const receive = currency(input.receivingCurrency)
  const sameCurrency = send.code === receive.code
  const { num, den, text: minorRate } = minorRateOf(input.marketRate, send.decimals, receive.decimals)
  const locked = BigInt(input.lockedCurrencyAmount)
  const max = BigInt(MAX_AMOUNT)

  let gross: bigint
  let received: bigint
  if (input.lockedCurrencySide === "SENDING") {
    gross = locked
    const net = gross - feesOn(gross, input.fees).total
    if (net <= 0n) {
      return Result.fail(
        InvalidInput.one(
          amountField,
          { minimum: minimumSendingAmount(input) },
          `${input.lockedCurrencyAmount} ${send.code} (smallest unit) does not cover the fees of this quote`
        )
      )
    }
    received = (net * num) / den
    if (received <= 0n) {
      return Result.fail(
        InvalidInput.one(
          amountField,
          { minimum: minimumSendingAmount(input) },
          `${input.lockedCurrencyAmount} ${send.code} (smallest unit) is too small to deliver any ${receive.code}`
        )
      )
    }
  } else {
    received = locked
    const netNeeded = ceilDiv(received * den, num)
    const variableBps = BigInt(input.fees.serviceBps + input.fees.platformBps)
    if (variableBps >= BPS) {
      return Result.fail(InvalidInput.one(amountField, { valid: true }, "The fees of this quote take the whole amount"))
    }
    // A lower bound (the fees before rounding up); step up to the first total that covers the net.
    gross = ceilDiv((netNeeded + BigInt(input.fees.platformFixed)) * BPS, BPS - variableBps)
    while (gross - feesOn(gross, input.fees).total < netNeeded) gross += 1n
  }
  if (gross > max || received > max) {
    return Result.fail(
      InvalidInput.one(amountField, { maximum: MAX_AMOUNT }, "The amounts of this quote would exceed 9000000000000000")
    )
  }
  const fees = feesOn(gross, input.fees)
  const net = gross - fees.total
  const exchangeRate = sameCurrency ? 1 : displayRatio(received * pow10(send.decimals), net * pow10(receive.decimals))
  return Result.succeed({
    totalSendingAmount: Number(gross),
    totalReceivingAmount: Number(received),
    netSendingAmount: Number(net),
    serviceFee: Number(fees.service),
    platformFee: Number(fees.platform),
    platformVariableFee: Number(fees.platformVariable),
    serviceVariableFee: Number(fees.serviceVariable),
    feesIncluded: Number(fees.total),
    platformFeesIncluded: Number(fees.platform),
    exchangeRate,
    minorRate
  })
}

/** The smallest sending amount that delivers one smallest unit of the receiving currency. */
export const minimumSendingAmount = (
  input: Omit<PricingInput, "lockedCurrencySide" | "lockedCurrencyAmount">
): number => {
  const priced = priceQuote({ ...input, lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: 1 })
  return Result.isSuccess(priced) ? priced.success.totalSendingAmount : MAX_AMOUNT
}

/**
 * The platform's fee for a quote: the request's `platformFeeOverride` (USD source only; its fixed
 * fee must be in the source currency) replaces the configured fee; the configured
 * `CROSS_CURRENCY_TRANSACTION` fee applies to cross-currency quotes from USD. Otherwise none.
 */
export const platformFeeFor = (
  sendingCurrency: string,
  receivingCurrency: string,
  config: PlatformConfig | undefined,
  override: PlatformFeeOverride | undefined
): Result.Result<{ readonly bps: number; readonly fixed: number }, InvalidInput> => {
  if (override !== undefined) {
    if (sendingCurrency !== "USD") {
      return Result.fail(
        InvalidInput.one(
          "platformFeeOverride",
          { sourceCurrency: "USD" },
          `platformFeeOverride requires a USD source currency; this quote sends ${sendingCurrency}`
        )
      )
    }
    if (override.platformFixedFee.currency !== sendingCurrency) {
      return Result.fail(
        InvalidInput.one(
          "platformFeeOverride.platformFixedFee.currency",
          { enum: [sendingCurrency] },
          `The fixed platform fee must be in the source currency ${sendingCurrency}`
        )
      )
    }
    return Result.succeed({ bps: override.platformVariableFeeBps, fixed: override.platformFixedFee.amount })
  }
  if (sendingCurrency === receivingCurrency || sendingCurrency !== "USD") return Result.succeed({ bps: 0, fixed: 0 })
  const fee = config?.feeConfigs.find((f) => f.feeType === "CROSS_CURRENCY_TRANSACTION" && f.sourceCurrency === "USD")
  if (fee === undefined) return Result.succeed({ bps: 0, fixed: 0 })
  return Result.succeed({
    bps: fee.variableFeeBps ?? 0,
    fixed: fee.fixedFee !== undefined && fee.fixedFee.currency === sendingCurrency ? fee.fixedFee.amount : 0
  })
}

/** The fee schedule of a quote: service fee on cross-currency quotes, plus the platform fee. */
export const feeScheduleFor = (
  sendingCurrency: string,
  receivingCurrency: string,
  serviceFeeBps: number,
  platform: { readonly bps: number; readonly fixed: number }
): FeeSchedule => ({
  serviceBps: sendingCurrency === receivingCurrency ? 0 : serviceFeeBps,
  platformBps: platform.bps,
  platformFixed: platform.fixed
})
