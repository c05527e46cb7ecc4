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

/** The rate cache of one `Quotes` layer over its `FxRates`. */
export const makeRates = (fx: FxRates["Service"]) => {
  const cache = new Map<string, CachedRate>()

  const fetchRate = Effect.fnUntraced(function* (from: string, to: string, nowMs: number) {
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
  const rateAt = (from: string, to: string, { nowMs, settings }: CommandEnv): Effect.Effect<CachedRate, QuoteError> => {
    if (from === to) return Effect.succeed({ rate: ONE, multiplier: 1, fetchedAtMs: nowMs })
    const hit = cache.get(`${from}/${to}`)
    if (hit !== undefined && nowMs - hit.fetchedAtMs < settings.fxCacheSeconds * 1000) return Effect.succeed(hit)
    return fetchRate(from, to, nowMs)
  }

  /** The market rate of a pair now (see `rateAt`). */
  const rateFor = (from: string, to: string) => Effect.flatMap(commandEnv, (env) => rateAt(from, to, env))

  return { rateAt, rateFor }
}

export type Rates = ReturnType<typeof makeRates>
