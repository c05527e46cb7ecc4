import { Effect } from "effect"
import type { Store } from "../ports/store.ts"
import { InvalidInput } from "../shared/errors.ts"
import { allows } from "../shared/machine.ts"
import { addSeconds, nowIso } from "../shared/time.ts"
import { cardNotFound, cardTransactionNotFound, noCardSimulator, simulationNotApplicable } from "./errors.ts"
import { cardTransactionMachine } from "./machine.ts"
import type { CardRecord, CardTransactionRecord, SimulationBodies, SimulationBody, SimulationKind } from "./model.ts"
import type { CardSimulationPorts } from "./ports.ts"
import { cardTransactionStatus } from "./views.ts"

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

/** The card and the parent transaction, each 404 when unknown (a parent of another card too: CD-52). */
const lookUp = Effect.fnUntraced(function* (store: Store["Service"], cardId: string, parentId: string | undefined) {
  const card: CardRecord | undefined = yield* store.cards.get(cardId)
  if (card === undefined) return yield* cardNotFound(cardId)
  if (parentId === undefined) return { card, parent: undefined }
  const parent = yield* store.cardTransactions.get(parentId)
  if (parent === undefined || parent.cardId !== card.id) return yield* cardTransactionNotFound(parentId)
  return { card, parent }
})

/**
 * One `/sandbox/cards/{id}/simulate/*` route (`CardSimulations.simulate`): the card and the parent looked up, the
 * simulator's script delivered to the network, its `issuerTransactionToken` answered.
 */
export const simulateCard = Effect.fnUntraced(function* (
  ports: CardSimulationPorts,
  cardId: string,
  kind: SimulationKind,
  body: SimulationBody
) {
  const { store, simulator, network } = ports
  if (simulator === undefined) return yield* noCardSimulator()
  const { card, parent } = yield* lookUp(store, cardId, parentIdOf(body))
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
