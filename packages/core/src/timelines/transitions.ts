import type { Effect } from "effect"
import type { Ids } from "../ports/ids.ts"
import type { Store } from "../ports/store.ts"
import type { StoreError } from "../shared/errors.ts"
import type { TimelineEntry, TransitionRecord } from "./model.ts"

/**
 * Timelines: every move of a payment's or a card transaction's machine, recorded by the one step that makes the move
 * (`moveTransactionSteps`, `moveCardTransactionSteps`, and the steps that create them) inside its store transaction,
 * so a timeline holds exactly the moves that committed. Read by `GET /transactions/{transactionId}/timeline`.
 */

/**
 * Records one move of `transactionId`'s machine, `from` (absent: the move that created it) to `state`, with the
 * first webhook type the move emitted, if any. A plain generator: `yield*` it inside the caller's store transaction.
 */
export function* recordTransitionSteps(
  store: Pick<Store["Service"], "transitions">,
  ids: Ids["Service"],
  transactionId: string,
  from: string | undefined,
  state: string,
  emits: ReadonlyArray<string>,
  at: string
): Generator<Effect.Effect<unknown, StoreError>, void, any> {
  const event = emits[0]
  const row: TransitionRecord = {
    id: yield* ids.make("Transition"),
    transactionId,
    ...(from === undefined ? {} : { from }),
    state,
    ...(event === undefined ? {} : { event }),
    at
  }
  yield* store.transitions.append(row)
}

/** A recorded move as the API shows it. */
export const toTimelineEntry = ({ at, from, state, event }: TransitionRecord): TimelineEntry => ({
  at,
  ...(from === undefined ? {} : { from }),
  state,
  ...(event === undefined ? {} : { event })
})
