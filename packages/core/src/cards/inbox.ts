import { Effect } from "effect"
import { walkDue } from "../shared/due-walk.ts"
import type { NotFound, StoreError } from "../shared/errors.ts"
import type { Steps } from "../shared/tracing.ts"
import { cardNotFound, cardTransactionNotFound } from "./errors.ts"
import type { CardNetworkEventRecord, NetworkEvent, ReconcileOutcome } from "./model.ts"
import type { CardPorts } from "./ports.ts"
import { applyNetworkEventSteps, dieOnUniqueViolation } from "./reconcile.ts"

// The inbox of network events (docs/design/cards.md, section 3 "Reconciliation"): an issuer processor's webhooks come
// at least once, so each event is stored under its `issuerEventId` (unique) and applied once, now or when due. Its
// card transaction's row is locked first: two deliveries of one event (or two events of one transaction) queue on
// it, and the second finds the first in the inbox.

/** Rows of the inbox applied per page of a worker pass. */
const WORKER_PAGE = 100

/**
 * `CardNetwork.reconcile` inside its store transaction: 404 for an unknown card, or a transaction that is not the
 * card's; `Duplicate` for an event seen before; `Deferred` when it is due later than `now`; else applied now, its
 * outcome stored with it.
 */
export function* reconcileSteps(
  ports: CardPorts,
  event: NetworkEvent,
  dueAt: string | undefined,
  now: string
): Steps<ReconcileOutcome, NotFound | StoreError> {
  const { store } = ports
  const card = yield* store.cards.get(event.cardId)
  if (card === undefined) return yield* Effect.fail(cardNotFound(event.cardId))
  const found = yield* store.cardTransactions.findUnique("issuerTransactionToken", event.issuerTransactionToken)
  if (found === undefined || found.cardId !== card.id) {
    return yield* Effect.fail(cardTransactionNotFound(event.issuerTransactionToken))
  }
  const tx = yield* store.cardTransactions.getForUpdate(found.id)
  if (tx === undefined) return yield* Effect.fail(cardTransactionNotFound(event.issuerTransactionToken))
  if ((yield* store.cardNetworkEvents.findUnique("issuerEventId", event.issuerEventId)) !== undefined) {
    return { _tag: "Duplicate" }
  }
  const row: CardNetworkEventRecord = {
    id: yield* ports.ids.make("CardNetworkEvent"),
    issuerEventId: event.issuerEventId,
    cardId: card.id,
    cardTransactionId: tx.id,
    kind: event._tag,
    event,
    createdAt: now
  }
  if (dueAt !== undefined && dueAt > now) {
    yield* dieOnUniqueViolation(store.cardNetworkEvents.insert({ ...row, dueAt }))
    return { _tag: "Deferred", dueAt }
  }
  const outcome = yield* applyNetworkEventSteps(ports, tx, event, now)
  yield* dieOnUniqueViolation(store.cardNetworkEvents.insert({ ...row, appliedAt: now, outcome }))
  return outcome
}

/** One due event in its own store transaction: its transaction locked, then the event re-read (applied once). */
const applyDue = (ports: CardPorts, pending: CardNetworkEventRecord, now: string) =>
  ports.store.transaction(
    Effect.gen(function* () {
      const { store } = ports
      const tx =
        pending.cardTransactionId === undefined
          ? undefined
          : yield* store.cardTransactions.getForUpdate(pending.cardTransactionId)
      const current = yield* store.cardNetworkEvents.get(pending.id)
      if (current === undefined || current.appliedAt !== undefined) return false
      const outcome: ReconcileOutcome =
        tx === undefined
          ? { _tag: "Refused", reason: "the card transaction is gone" }
          : yield* applyNetworkEventSteps(ports, tx, current.event, now)
      const { dueAt: _due, ...rest } = current
      yield* dieOnUniqueViolation(store.cardNetworkEvents.update({ ...rest, appliedAt: now, outcome }))
      return true
    })
  )

/**
 * The cards worker's second pass: network events of the inbox due by `now` and not applied yet, oldest first, each
 * in its own store transaction as `CardNetwork.reconcile` would have applied it at once. A pass run twice or
 * concurrently applies nothing twice. Returns the events applied and the steps that failed (logged; retried next
 * pass).
 */
export const applyDueNetworkEvents = Effect.fnUntraced(function* (ports: CardPorts, now: string) {
  let applied = 0
  let errors = 0
  yield* walkDue(ports.store.cardNetworkEvents, { includeApplied: false, dueBy: now }, WORKER_PAGE, (events) =>
    Effect.forEach(events, (pending) =>
      Effect.flatMap(Effect.exit(applyDue(ports, pending, now)), (exit) => {
        if (exit._tag === "Success") {
          if (exit.value) applied++
          return Effect.void
        }
        errors++
        return Effect.logWarning("paycore cards worker: a network event failed to apply", exit.cause)
      })
    )
  )
  return { applied, errors }
})
