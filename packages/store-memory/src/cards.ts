import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** Cards, card transactions, the network-event inbox and the reveal audit log. */
export const cardRepositories = (
  collection: Collections
): Pick<Repositories, "cards" | "cardTransactions" | "cardNetworkEvents" | "cardReveals"> => ({
  // The cards worker lists cards, transactions and network events due by now.
  cards: collection({ table: tables.cards, due: { key: (r) => r.dueAt, bound: (f) => f.dueBy } }),
  cardTransactions: collection({
    table: tables.cardTransactions,
    due: { key: (r) => r.dueAt, bound: (f) => f.dueBy }
  }),
  cardNetworkEvents: collection({
    table: tables.cardNetworkEvents,
    due: { key: (r) => r.dueAt, bound: (f) => f.dueBy }
  }),
  cardReveals: collection({ table: tables.cardReveals })
})
