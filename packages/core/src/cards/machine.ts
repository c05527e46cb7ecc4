import { defineMachine } from "../shared/machine.ts"
import type { CardTargetState } from "./model.ts"

/**
 * A card (CD-19 … CD-25; docs/design/cards.md, section 2). `POST /cards` stores it `PROCESSING`; the issuer's answer
 * (the worker's provisioning pass) `ACTIVATE`s or `REJECT`s it (`stateReason` `ISSUER_REJECTED`); `PATCH` moves it
 * with the event of its target (`cardEventOf`); `CLOSE_BY_SERVICE` is the service's own close (compliance, in-process
 * only). Every move emits the spec's `card.state_change`; `CLOSED` is terminal. Any other pair is 409
 * `INVALID_STATE_TRANSITION`.
 */
export const cardMachine = defineMachine({
  name: "Card",
  states: ["PROCESSING", "ACTIVE", "FROZEN", "CLOSED"],
  events: ["ACTIVATE", "REJECT", "FREEZE", "UNFREEZE", "CLOSE", "CLOSE_BY_SERVICE"],
  initial: "PROCESSING",
  terminal: ["CLOSED"],
  transitions: {
    PROCESSING: {
      ACTIVATE: { to: "ACTIVE", emits: ["card.state_change"] },
      REJECT: { to: "CLOSED", emits: ["card.state_change"] }
    },
    ACTIVE: {
      FREEZE: { to: "FROZEN", emits: ["card.state_change"] },
      CLOSE: { to: "CLOSED", emits: ["card.state_change"] },
      CLOSE_BY_SERVICE: { to: "CLOSED", emits: ["card.state_change"] }
    },
    FROZEN: {
      UNFREEZE: { to: "ACTIVE", emits: ["card.state_change"] },
      CLOSE: { to: "CLOSED", emits: ["card.state_change"] },
      CLOSE_BY_SERVICE: { to: "CLOSED", emits: ["card.state_change"] }
    },
    CLOSED: {}
  }
})
export type CardMachineState = (typeof cardMachine.states)[number]
export type CardEvent = (typeof cardMachine.events)[number]

/** The event `PATCH /cards/{id}` asks the machine for, by target state (`ACTIVE → ACTIVE` is then illegal). */
export const cardEventOf: { readonly [K in CardTargetState]: CardEvent } = {
  ACTIVE: "UNFREEZE",
  FROZEN: "FREEZE",
  CLOSED: "CLOSE"
}

/** Why a card is `CLOSED`, by the event that closed it. */
export const closedReasonOf = {
  REJECT: "ISSUER_REJECTED",
  CLOSE: "CLOSED_BY_PLATFORM",
  CLOSE_BY_SERVICE: "CLOSED_BY_SERVICE"
} as const

/**
 * A card transaction (CD-34 … CD-40; design section 2). `REQUESTED` is never stored: a new row is the result of its
 * first move (`APPROVE`, `DECLINE`, or `POST` for a single-message financial authorization or credit). An advice
 * re-sizes an open authorization (`RESIZE`), clearings post it in parts or whole, a zero clearing or the card's close
 * `EXPIRE`s it (public `SETTLED`), a failed funding pull makes it `PULL_FAILED` (public `DECLINED`: the network
 * settled, the service fronted the money). A delayed pull result (`005`) may come after a clearing or an expiry, so
 * `PULL_CONFIRM` and `PULL_FAIL` are taken wherever a pull can still be pending (a confirmation moves no money).
 * Returns and their reversals re-fire the state's event with the new amounts (CD-40); an `EXPIRED` purchase that
 * cleared in part before its card closed takes them too (CD-24: in-flight refunds still complete; the amount guard,
 * return ≤ settled − refunded, stays in code, so one that settled nothing takes none). Only `DECLINED` is terminal:
 * `SETTLED`, `EXPIRED` and `PULL_FAILED` still take late events. No move emits `EXCEPTION` or `REFUNDED` (V-04, V-05,
 * WH-16). Guards on amounts stay in code.
 */
export const cardTransactionMachine = defineMachine({
  name: "CardTransaction",
  states: ["REQUESTED", "AUTHORIZED", "PARTIALLY_SETTLED", "SETTLED", "DECLINED", "EXPIRED", "PULL_FAILED"],
  events: [
    "APPROVE",
    "DECLINE",
    "POST",
    "RESIZE",
    "CLEAR_PART",
    "CLEAR_ALL",
    "CLEAR_UNFUNDED",
    "EXPIRE",
    "CLEAR_LATE",
    "PULL_FAIL",
    "PULL_CONFIRM",
    "RETURN",
    "RETURN_REVERSAL"
  ],
  initial: "REQUESTED",
  terminal: ["DECLINED"],
  transitions: {
    REQUESTED: {
      APPROVE: { to: "AUTHORIZED", emits: ["CARD_TRANSACTION.AUTHORIZED"] },
      DECLINE: { to: "DECLINED", emits: ["CARD_TRANSACTION.DECLINED"] },
      POST: { to: "SETTLED", emits: ["CARD_TRANSACTION.SETTLED"] }
    },
    AUTHORIZED: {
      RESIZE: { to: "AUTHORIZED", emits: ["CARD_TRANSACTION.AUTHORIZED"] },
      CLEAR_PART: { to: "PARTIALLY_SETTLED", emits: ["CARD_TRANSACTION.PARTIALLY_SETTLED"] },
      CLEAR_ALL: { to: "SETTLED", emits: ["CARD_TRANSACTION.SETTLED"] },
      CLEAR_UNFUNDED: { to: "PULL_FAILED", emits: ["CARD_TRANSACTION.DECLINED"] },
      EXPIRE: { to: "EXPIRED", emits: ["CARD_TRANSACTION.SETTLED"] },
      PULL_FAIL: { to: "PULL_FAILED", emits: ["CARD_TRANSACTION.DECLINED"] },
      PULL_CONFIRM: { to: "AUTHORIZED", emits: [] }
    },
    PARTIALLY_SETTLED: {
      RESIZE: { to: "PARTIALLY_SETTLED", emits: ["CARD_TRANSACTION.PARTIALLY_SETTLED"] },
      CLEAR_PART: { to: "PARTIALLY_SETTLED", emits: ["CARD_TRANSACTION.PARTIALLY_SETTLED"] },
      CLEAR_ALL: { to: "SETTLED", emits: ["CARD_TRANSACTION.SETTLED"] },
      CLEAR_UNFUNDED: { to: "PULL_FAILED", emits: ["CARD_TRANSACTION.DECLINED"] },
      EXPIRE: { to: "EXPIRED", emits: ["CARD_TRANSACTION.SETTLED"] },
      PULL_FAIL: { to: "PULL_FAILED", emits: ["CARD_TRANSACTION.DECLINED"] },
      PULL_CONFIRM: { to: "PARTIALLY_SETTLED", emits: [] },
      RETURN: { to: "PARTIALLY_SETTLED", emits: ["CARD_TRANSACTION.PARTIALLY_SETTLED"] },
      RETURN_REVERSAL: { to: "PARTIALLY_SETTLED", emits: ["CARD_TRANSACTION.PARTIALLY_SETTLED"] }
    },
    SETTLED: {
      PULL_FAIL: { to: "PULL_FAILED", emits: ["CARD_TRANSACTION.DECLINED"] },
      PULL_CONFIRM: { to: "SETTLED", emits: [] },
      RETURN: { to: "SETTLED", emits: ["CARD_TRANSACTION.SETTLED"] },
      RETURN_REVERSAL: { to: "SETTLED", emits: ["CARD_TRANSACTION.SETTLED"] }
    },
    DECLINED: {},
    EXPIRED: {
      CLEAR_UNFUNDED: { to: "PULL_FAILED", emits: ["CARD_TRANSACTION.DECLINED"] },
      CLEAR_LATE: { to: "SETTLED", emits: ["CARD_TRANSACTION.SETTLED"] },
      PULL_FAIL: { to: "PULL_FAILED", emits: ["CARD_TRANSACTION.DECLINED"] },
      PULL_CONFIRM: { to: "EXPIRED", emits: [] },
      RETURN: { to: "EXPIRED", emits: ["CARD_TRANSACTION.SETTLED"] },
      RETURN_REVERSAL: { to: "EXPIRED", emits: ["CARD_TRANSACTION.SETTLED"] }
    },
    PULL_FAILED: {
      CLEAR_UNFUNDED: { to: "PULL_FAILED", emits: ["CARD_TRANSACTION.DECLINED"] }
    }
  }
})
export type CardTransactionState = (typeof cardTransactionMachine.states)[number]
export type CardTransactionEvent = (typeof cardTransactionMachine.events)[number]
