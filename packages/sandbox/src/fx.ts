import { FxRates, type FxUnavailable } from "@paycore/core"
import { BigDecimal, Effect, Layer, Option } from "effect"

/**
 * Fixed sandbox market: units of each currency per one US dollar (exact decimal strings).
 * Cross rates divide two entries exactly; nothing here is a real-time quote.
 */
export const SANDBOX_RATES_PER_USD: Readonly<Record<string, string>> = {
  USD: "1",
  EUR: "0.92",
  GBP: "0.79",
  MXN: "17.25",
  BRL: "5.05",
  INR: "83.2",
  PHP: "56.5",
  NGN: "1550",
  CAD: "1.36",
  COP: "3950",
  KES: "129.5",
  JPY: "151.25",
  AED: "3.6725",
  BDT: "110",
  BWP: "13.6",
  CNY: "7.2",
  DKK: "6.87",
  EGP: "48.5",
  GHS: "15.5",
  GTQ: "7.75",
  HKD: "7.82",
  HTG: "132",
  IDR: "15800",
  JMD: "156",
  MWK: "1735",
  MYR: "4.7",
  PKR: "278",
  RWF: "1300",
  SGD: "1.35",
  THB: "36.5",
  TZS: "2600",
  UGX: "3800",
  VND: "25000",
  XAF: "605",
  XOF: "605",
  ZAR: "18.5",
  ZMW: "26.5",
  USDC: "1",
  USDT: "1",
  USDB: "1",
  // 1 BTC = 100 000 USD
  BTC: "0.00001"
}

/** Significant digits kept in a non-terminating cross rate (rounded half-even). */
export const CROSS_RATE_SIGNIFICANT_DIGITS = 24

const perUsd: ReadonlyMap<string, BigDecimal.BigDecimal> = new Map(
  Object.entries(SANDBOX_RATES_PER_USD).map(([code, rate]) => [code, BigDecimal.fromStringUnsafe(rate)])
)

/** Plain decimal text (never exponent notation), trailing zeros removed. */
export const toPlainString = (n: BigDecimal.BigDecimal): string => {
  const { value, scale } = BigDecimal.normalize(n)
  const negative = value < 0n
  const digits = `${negative ? -value : value}`
  let text: string
  if (scale <= 0) {
    text = digits + "0".repeat(-scale)
  } else {
    const padded = digits.padStart(scale + 1, "0")
    text = `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`
  }
  return negative ? `-${text}` : text
}

const roundSignificant = (n: BigDecimal.BigDecimal, significant: number): BigDecimal.BigDecimal => {
  const normalized = BigDecimal.normalize(n)
  if (normalized.value === 0n) return normalized
  const digits = `${normalized.value < 0n ? -normalized.value : normalized.value}`.length
  const integerDigits = digits - normalized.scale
  return BigDecimal.round(normalized, { scale: significant - integerDigits, mode: "half-even" })
}

/** `to` major units per one `from` major unit, or `undefined` when either currency is not in the table. */
export const crossRate = (from: string, to: string): string | undefined => {
  const f = perUsd.get(from)
  const t = perUsd.get(to)
  if (f === undefined || t === undefined) return undefined
  if (from === to) return "1"
  return Option.match(BigDecimal.divide(t, f), {
    onNone: () => undefined,
    onSome: (q) => toPlainString(roundSignificant(q, CROSS_RATE_SIGNIFICANT_DIGITS))
  })
}

/** Fixed-table `FxRates`: unknown pairs fail with `FxUnavailable`. */
export const SandboxFxRates: Layer.Layer<FxRates> = Layer.succeed(
  FxRates,
  FxRates.of({
    rate: (from, to) => {
      const rate = crossRate(from, to)
      return rate === undefined ? Effect.fail<FxUnavailable>({ _tag: "FxUnavailable", from, to }) : Effect.succeed(rate)
    }
  })
)
