import { Effect } from "effect"
import type { StoreError } from "../shared/errors.ts"
import type { CardPorts } from "./card-ports.ts"

/**
 * The cards worker's second pass (slice B; design section 3, "Reconciliation"): network events of the inbox due by
 * `now` and not applied yet, each applied in its own store transaction as `CardNetwork.reconcile` would have applied
 * it at once. Returns the events applied and the steps that failed. Until slice B builds it: nothing is due.
 */
export const applyDueNetworkEvents = (
  _ports: CardPorts,
  _now: string
): Effect.Effect<{ readonly applied: number; readonly errors: number }, StoreError> =>
  Effect.succeed({ applied: 0, errors: 0 })
