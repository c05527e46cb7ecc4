import type { Store } from "@paycore/core"
import type { Effect } from "effect"

/** A customer the simulation created, with its USD account and its payees. */
export interface SimCustomer {
  readonly customerId: string
  readonly accountId: string
  readonly payees: Array<{ readonly id: string; readonly fate: "SETTLES" | "FAILS" }>
}

export interface SimQuote {
  readonly id: string
  readonly customer: number
  executed: boolean
}

/** A payment a client executed under `key`; `transactionId` once an answer reached the client. */
export interface SimPayment {
  readonly key: string
  readonly quoteId: string
  transactionId?: string | undefined
}

export interface SimCard {
  readonly cardId: string
  readonly accountId: string
}

export interface SimAuthorization {
  readonly cardId: string
  readonly token: string
  readonly amount: number
  cardTransactionId?: string | undefined
  events: number
}

/** An acknowledged write: what the client was told, and a read that must find it (undefined: found). */
export interface Ack {
  readonly what: string
  readonly check: Effect.Effect<string | undefined, unknown, Store>
}

/** What the simulation's clients know: the entities they were told about, and every acknowledged write. */
export interface SimState {
  readonly customers: Array<SimCustomer>
  readonly quotes: Array<SimQuote>
  readonly payments: Array<SimPayment>
  readonly cards: Array<SimCard>
  readonly authorizations: Array<SimAuthorization>
  readonly acks: Array<Ack>
  /** Acknowledged sandbox fundings per `account/amount`. */
  readonly fundings: Map<string, number>
  keys: number
}

export const initialState = (): SimState => ({
  customers: [],
  quotes: [],
  payments: [],
  cards: [],
  authorizations: [],
  acks: [],
  fundings: new Map(),
  keys: 0
})
