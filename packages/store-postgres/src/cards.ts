import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { makeCollection, makeQueue } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** Cards, card transactions, the network-event inbox and the reveal audit log. */
export const cardRepositories = (
  x: Executor
): Pick<Repositories, "cards" | "cardTransactions" | "cardNetworkEvents" | "cardReveals"> => ({
  cards: makeQueue(x, tables.cards),
  cardTransactions: makeCollection(x, tables.cardTransactions),
  cardNetworkEvents: makeQueue(x, tables.cardNetworkEvents),
  cardReveals: makeCollection(x, tables.cardReveals)
})
