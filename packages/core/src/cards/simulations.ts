import { Context, Effect, Layer } from "effect"
import { CardNetworkSimulator } from "../ports/card-network-simulator.ts"
import type { Ids } from "../ports/ids.ts"
import type { Store } from "../ports/store.ts"
import type { NotFound, Refused, StoreError } from "../shared/errors.ts"
import { cardsNotImplemented, noCardSimulator } from "./errors.ts"
import type { SandboxCardSimulationResponse, SimulationBodies, SimulationKind } from "./model.ts"
import type { CardNetwork } from "./network.ts"

/** 404 unknown card or transaction (or no simulator), 400 a parent in the wrong state (`Refused` `INVALID_INPUT`). */
export type CardSimulationError = NotFound | Refused | StoreError

/**
 * The ten `/sandbox/cards/{id}/simulate/*` routes (CD-45 … CD-52; slice C): the card (and the body's
 * `cardTransactionId`, which must be one of the card's) is looked up, the `CardNetworkSimulator` scripts the network
 * events, and they are delivered: an `Authorize` step to `CardNetwork.authorize`, a `Deliver` step to
 * `CardNetwork.reconcile` (due `afterSeconds` from now). Answers the script's `issuerTransactionToken` (202).
 * Without a simulator (production) every simulation is 404; a production token never gets here (403, auth.ts).
 */
export class CardSimulations extends Context.Service<
  CardSimulations,
  {
    readonly simulate: <K extends SimulationKind>(
      cardId: string,
      kind: K,
      body: SimulationBodies[K]
    ) => Effect.Effect<SandboxCardSimulationResponse, CardSimulationError>
  }
>()("paycore/cards/CardSimulations") {
  static readonly layer: Layer.Layer<CardSimulations, never, Store | Ids | CardNetwork> = Layer.effect(
    CardSimulations,
    Effect.gen(function* () {
      // Slice C builds it over `CardPorts` (Store, Ids, CardIssuer) and `CardNetwork`.
      const simulator = yield* CardNetworkSimulator
      return CardSimulations.of({
        simulate: Effect.fn("CardSimulations.simulate")(function* (_cardId: string, kind: SimulationKind) {
          if (simulator === undefined) return yield* noCardSimulator()
          return yield* cardsNotImplemented(`The ${kind} card simulation is not built yet`)
        })
      })
    })
  )
}
