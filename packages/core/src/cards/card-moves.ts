import { Effect, Result } from "effect"
import type { StoreError } from "../shared/errors.ts"
import { transition } from "../shared/machine.ts"
import type { Steps } from "../shared/tracing.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { closeOutSteps } from "./close-out.ts"
import { detachSteps, dieOnUnique } from "./funding-sources.ts"
import { type CardEvent, cardMachine, closedReasonOf } from "./machine.ts"
import { type CardRecord, type CardState, cardCounters } from "./model.ts"
import type { CardPorts } from "./ports.ts"
import { toCard } from "./views.ts"

/**
 * The state `event` moves a card in `from` to, or `undefined` when the card machine has no such move (409
 * `INVALID_STATE_TRANSITION` for a PATCH, CD-25).
 */
export const cardMoveTarget = (from: CardState, event: CardEvent): CardState | undefined => {
  const move = transition(cardMachine, from, event)
  return Result.isFailure(move) ? undefined : move.success.to
}

/**
 * One move of a card (section 2's table) with `changes` made beside it, inside the caller's store transaction, the
 * card locked and the move checked by the caller (`cardMoveTarget`): the row saved and `card.state_change` emitted
 * with the card as it now is (WH-12). A move to `CLOSED` (CD-21, CD-24) also sets `stateReason` by the closing event,
 * frees a live-card slot (L-12), detaches every binding and revokes its delegated key, and has the card's open
 * authorizations closed out (`closeOutSteps`). The issuer learns of it through `issuerSync`, which the caller sets.
 */
export function* moveCardSteps(
  ports: CardPorts,
  current: CardRecord,
  event: CardEvent,
  changes: Partial<CardRecord>,
  now: string
): Steps<CardRecord, StoreError> {
  const move = transition(cardMachine, current.state, event)
  if (Result.isFailure(move)) return yield* Effect.die(move.failure)
  const to: CardState = move.success.to
  let next: CardRecord = { ...current, ...changes, state: to, updatedAt: now }
  if (to === "CLOSED") {
    const reason = closedReasonOf[event as keyof typeof closedReasonOf]
    // A closed card keeps its last fundingSources for audit; the bindings are gone (CD-24).
    next = { ...next, stateReason: reason, bindings: [] }
    yield* ports.store.counters.add(cardCounters.live, -1)
    yield* detachSteps(ports.store, current.bindings, now)
  }
  yield* dieOnUnique(ports.store.cards.update(next))
  yield* emitSteps(ports.store, ports.ids, move.success.emits, next.id, toCard(next), now)
  if (to === "CLOSED") yield* closeOutSteps(ports, next, now)
  return next
}
