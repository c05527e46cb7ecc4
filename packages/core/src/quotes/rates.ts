/** Market rates for quotes: asked of the `FxRates` port and kept in the `Quotes` layer's memory for `fxCacheSeconds`. */
import { BigDecimal, Effect } from "effect"
import type { FxRates } from "../ports/fx.ts"
import { type CommandEnv, commandEnv } from "../shared/engine-config.ts"
import { type QuoteError, quoteRequestFailed } from "./errors.ts"
import { parseRate } from "./pricing.ts"

/** One cached market rate. */
export interface CachedRate {
  readonly rate: BigDecimal.BigDecimal
  /** `rate` as a display number. */
  readonly multiplier: number
  readonly fetchedAtMs: number
}

const ONE = BigDecimal.fromBigInt(1n)

/** The rate cache of one `Quotes` layer over its `FxRates` (a field of its ports: `rateCache` makes one). */
export interface Rates {
  readonly fx: FxRates["Service"]
  readonly cache: Map<string, CachedRate>
}

export const rateCache = (fx: FxRates["Service"]): Rates => ({ fx, cache: new Map() })

const fetchRate = Effect.fnUntraced(function* ({ fx, cache }: Rates, from: string, to: string, nowMs: number) {
  const text = yield* fx.rate(from, to).pipe(Effect.mapError(() => quoteRequestFailed(from, to)))
  const rate = parseRate(text)
  if (rate === undefined) {
    yield* Effect.logWarning(`FxRates returned an unusable rate for ${from}/${to}: ${text}`)
    return yield* Effect.fail(quoteRequestFailed(from, to))
  }
  const entry: CachedRate = { rate, multiplier: BigDecimal.toNumberUnsafe(rate), fetchedAtMs: nowMs }
  cache.set(`${from}/${to}`, entry)
  return entry
})

/**
 * The market rate of a pair at `nowMs`, from the cache while it is younger than `fxCacheSeconds`
 * (a hit, or the same currency, is an already-computed Effect: no run-loop step).
 */
export const rateAt = (
  rates: Rates,
  from: string,
  to: string,
  { nowMs, settings }: CommandEnv
): Effect.Effect<CachedRate, QuoteError> => {
  if (from === to) return Effect.succeed({ rate: ONE, multiplier: 1, fetchedAtMs: nowMs })
  const hit = rates.cache.get(`${from}/${to}`)
  if (hit !== undefined && nowMs - hit.fetchedAtMs < settings.fxCacheSeconds * 1000) return Effect.succeed(hit)
  return fetchRate(rates, from, to, nowMs)
}

/** The market rate of a pair now (see `rateAt`). */
export const rateFor = (rates: Rates, from: string, to: string): Effect.Effect<CachedRate, QuoteError> =>
  Effect.flatMap(commandEnv, (env) => rateAt(rates, from, to, env))
