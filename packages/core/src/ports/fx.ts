import { Context, type Effect } from "effect"

export interface FxUnavailable {
  readonly _tag: "FxUnavailable"
  readonly from: string
  readonly to: string
}

/**
 * Market rates. `rate` is the number of `to` major units per one `from` major unit as a
 * decimal string (exact; no floating point touches money). The engine caches it ~5 minutes.
 */
export class FxRates extends Context.Service<
  FxRates,
  { readonly rate: (from: string, to: string) => Effect.Effect<string, FxUnavailable> }
>()("paycore/ports/FxRates") {}
