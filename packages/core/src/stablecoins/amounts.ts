// Stablecoin amounts (pure; C-05, L-20, design Q2): a digit string in the coin's smallest unit, 1 … 9·10^15, that is a
// whole number of the base currency's smallest unit (USDB has 6 decimals, USD 2: a multiple of 10^4), so the
// base-currency equivalent `f` is exact.

export const MAX_STABLECOIN_AMOUNT = 9_000_000_000_000_000n

export type ParsedAmount =
  | { readonly _tag: "Ok"; readonly minor: number; readonly base: number }
  | { readonly _tag: "OutOfRange" }
  | { readonly _tag: "NotWholeBaseUnits"; readonly multipleOf: string }

/** `amount` (digits) of a coin with `decimals` against a base currency with `baseDecimals`. */
export const parseStablecoinAmount = (amount: string, decimals: number, baseDecimals: number): ParsedAmount => {
  const minor = BigInt(amount)
  if (minor <= 0n || minor > MAX_STABLECOIN_AMOUNT) return { _tag: "OutOfRange" }
  if (decimals >= baseDecimals) {
    const step = 10n ** BigInt(decimals - baseDecimals)
    if (minor % step !== 0n) return { _tag: "NotWholeBaseUnits", multipleOf: step.toString() }
    return { _tag: "Ok", minor: Number(minor), base: Number(minor / step) }
  }
  const base = minor * 10n ** BigInt(baseDecimals - decimals)
  if (base > MAX_STABLECOIN_AMOUNT) return { _tag: "OutOfRange" }
  return { _tag: "Ok", minor: Number(minor), base: Number(base) }
}
