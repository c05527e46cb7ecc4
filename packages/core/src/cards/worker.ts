import { Effect } from "effect"
import type { KeyVaultService } from "../ports/key-vault.ts"
import { nowIso } from "../shared/time.ts"
import { applyDueNetworkEvents } from "./inbox.ts"
import type { CardPorts } from "./ports.ts"
import { provisionDueCards } from "./provisioning.ts"

export interface CardsWorkerReport {
  /** Cards provisioned, polled or synced with the issuer (pass A). */
  readonly cards: number
  /** Deferred network events applied (pass B). */
  readonly events: number
  /** Steps that failed unexpectedly (logged; retried next pass). */
  readonly errors: number
}

/** One pass of the cards' time-based work (`CardsWorker.processDue`): issuer provisioning and syncs, then due events. */
export const processDueCards = Effect.fnUntraced(function* (ports: CardPorts, vault: KeyVaultService) {
  const now = yield* nowIso
  const cards = yield* provisionDueCards(ports, vault, now)
  const events = yield* applyDueNetworkEvents(ports, now)
  return { cards: cards.stepped, events: events.applied, errors: cards.errors + events.errors }
})
