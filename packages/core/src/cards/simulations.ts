import { Context, Effect, Layer } from "effect"
import { CardNetworkSimulator } from "../ports/card-network-simulator.ts"
import type { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { InvalidInput, type NotFound, type Refused, type StoreError } from "../shared/errors.ts"
import { allows } from "../shared/machine.ts"
import { addSeconds, nowIso } from "../shared/time.ts"
import { cardNotFound, cardTransactionNotFound, noCardSimulator, simulationNotApplicable } from "./errors.ts"
import { cardTransactionMachine } from "./machine.ts"
import type {
  CardRecord,
  CardTransactionRecord,
  SandboxCardSimulationResponse,
  SimulationBodies,
  SimulationBody,
  SimulationKind
} from "./model.ts"
import { CardNetwork } from "./network.ts"
import { cardTransactionStatus } from "./views.ts"

/**
 * 404 unknown card or transaction (or no simulator), 400 a body the card cannot take (`InvalidInput`: another
 * currency) or a parent in the wrong state (`Refused` `INVALID_INPUT` with `details.status`, design Q17).
 */
export type CardSimulationError = NotFound | Refused | InvalidInput | StoreError

/**
 * Why a simulation about an earlier transaction does not apply to it (design section 1, rows 9-12; CD-48 … CD-51),
 * or `undefined` when it does. The states come from the machine (the move the event would make); the amounts are
 * the guards the machine leaves to code. Pure.
 */
export const simulationRefusal = (
  kind: SimulationKind,
  parent: CardTransactionRecord,
  amount: number
): string | undefined => {
  const net = parent.settledAmount - parent.refundedAmount
  switch (kind) {
    case "CLEARING":
      return allows(cardTransactionMachine, parent.state, "CLEAR_ALL")
        ? undefined
        : "A clearing needs an open authorization (AUTHORIZED or PARTIALLY_SETTLED)"
    case "AUTHORIZATION_ADVICE":
      if (!allows(cardTransactionMachine, parent.state, "RESIZE")) {
        return "An authorization advice needs an open authorization (AUTHORIZED or PARTIALLY_SETTLED)"
      }
      return amount < parent.settledAmount
        ? `The new total ${amount} is below the ${parent.settledAmount} already settled`
        : undefined
    case "RETURN":
      if (!allows(cardTransactionMachine, parent.state, "RETURN") || parent.settledAmount === 0) {
        return "A return needs a transaction with a settled clearing"
      }
      return amount > net ? `The return ${amount} is more than the ${net} settled and not yet returned` : undefined
    case "RETURN_REVERSAL":
      return allows(cardTransactionMachine, parent.state, "RETURN_REVERSAL") && parent.refundedAmount > 0
        ? undefined
        : "A return reversal needs a transaction with a posted return (refundedAmount above 0)"
    default:
      return undefined
  }
}

/** The parent a follow-up simulation names (`cardTransactionId`), when the kind has one. */
const parentIdOf = (body: SimulationBody): string | undefined =>
  "cardTransactionId" in body ? body.cardTransactionId : undefined

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
      const simulator = yield* CardNetworkSimulator
      const store = yield* Store
      const network = yield* CardNetwork

      /** The card and the parent transaction, each 404 when unknown (a parent of another card too: CD-52). */
      const lookUp = Effect.fnUntraced(function* (cardId: string, parentId: string | undefined) {
        const card: CardRecord | undefined = yield* store.cards.get(cardId)
        if (card === undefined) return yield* cardNotFound(cardId)
        if (parentId === undefined) return { card, parent: undefined }
        const parent = yield* store.cardTransactions.get(parentId)
        if (parent === undefined || parent.cardId !== card.id) return yield* cardTransactionNotFound(parentId)
        return { card, parent }
      })

      return CardSimulations.of({
        simulate: Effect.fn("CardSimulations.simulate")(function* (
          cardId: string,
          kind: SimulationKind,
          body: SimulationBody
        ) {
          if (simulator === undefined) return yield* noCardSimulator()
          const { card, parent } = yield* lookUp(cardId, parentIdOf(body))
          // Design Q9: no FX on cards; the network speaks the card's currency.
          if ("currency" in body && body.currency.code !== card.currency) {
            return yield* InvalidInput.one(
              "currency.code",
              { enum: [card.currency] },
              `Card ${card.id} is in ${card.currency}; a simulation in ${body.currency.code} cannot reach it`
            )
          }
          if (parent !== undefined) {
            const why = simulationRefusal(kind, parent, "amount" in body ? body.amount : 0)
            if (why !== undefined) return yield* simulationNotApplicable(cardTransactionStatus[parent.state], why)
          }
          const script = yield* simulator.script(kind, card, parent, body as SimulationBodies[typeof kind])
          const now = yield* nowIso
          for (const step of script.events) {
            if (step._tag === "Authorize") {
              const decision = yield* network.authorize(step.request)
              // A declined authorization pulled nothing: no pull result follows it.
              if (decision._tag === "Declined") break
            } else {
              yield* network.reconcile(
                step.event,
                step.afterSeconds > 0 ? { dueAt: addSeconds(now, step.afterSeconds) } : undefined
              )
            }
          }
          return { issuerTransactionToken: script.issuerTransactionToken }
        })
      })
    })
  )
}
