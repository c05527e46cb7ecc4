import { Context, Effect, Layer } from "effect"
import { CardIssuer } from "../ports/card-issuer.ts"
import { Ids } from "../ports/ids.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { Store } from "../ports/store.ts"
import type { StoreError } from "../shared/errors.ts"
import { nowIso } from "../shared/time.ts"
import type { CardPorts } from "./card-ports.ts"
import { applyDueNetworkEvents } from "./inbox.ts"
import { provisionDueCards } from "./provisioning.ts"

export interface CardsWorkerReport {
  /** Cards provisioned, polled or synced with the issuer (pass A). */
  readonly cards: number
  /** Deferred network events applied (pass B). */
  readonly events: number
  /** Steps that failed unexpectedly (logged; retried next pass). */
  readonly errors: number
}

/**
 * The cards' time-based work, one pass per call (the example server runs it every second beside
 * `Transactions.processDue`; tests call `server.processDue()`): issuer provisioning and syncs, then the network
 * events whose time has come. A pass run twice or concurrently does nothing twice (each step re-reads its row).
 */
export class CardsWorker extends Context.Service<
  CardsWorker,
  { readonly processDue: () => Effect.Effect<CardsWorkerReport, StoreError> }
>()("paycore/cards/CardsWorker") {
  static readonly layer: Layer.Layer<CardsWorker, never, Store | Ids> = Layer.effect(
    CardsWorker,
    Effect.gen(function* () {
      const ports: CardPorts = { store: yield* Store, ids: yield* Ids, issuer: yield* CardIssuer }
      const vault = yield* KeyVault
      return CardsWorker.of({
        processDue: Effect.fn("CardsWorker.processDue")(function* () {
          const now = yield* nowIso
          const cards = yield* provisionDueCards(ports, vault, now)
          const events = yield* applyDueNetworkEvents(ports, now)
          return { cards: cards.stepped, events: events.applied, errors: cards.errors + events.errors }
        })
      })
    })
  )
}
