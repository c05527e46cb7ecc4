import {
  type Customer,
  type CustomerFilter,
  expirableQuoteStates,
  type Repositories,
  type TransactionFilter,
  type TransactionRecord
} from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import type { Collections, MemoryCollection } from "./collection.ts"

/** The quote states the expiry worker looks in (read off the quote machine). */
const expirable: ReadonlySet<string> = new Set(expirableQuoteStates)

/** Quotes and receiver lookups; `transactionRows` and `customerRows` for the read of a quote with its transaction. */
export const quoteRepositories = (
  collection: Collections,
  transactionRows: MemoryCollection<TransactionRecord, TransactionFilter>,
  customerRows: MemoryCollection<Customer, CustomerFilter>
): Pick<Repositories, "quotes" | "lookups"> => {
  const quoteRows = collection({
    table: tables.quotes,
    // The expiry worker lists waiting quotes past `expiresAt`; only quotes that can expire are in the index.
    due: {
      key: (q) => (expirable.has(q.quote.status) ? q.quote.expiresAt : undefined),
      bound: (f) =>
        f.expiresAtOrBefore !== undefined && f.status !== undefined && expirable.has(f.status)
          ? f.expiresAtOrBefore
          : undefined
    }
  })

  return {
    lookups: collection({ table: tables.lookups }),
    quotes: {
      ...quoteRows,
      // Each in one step (no chain of store calls): the payment's hot path uses them.
      getForUpdateWithTransaction: (id, withCustomer) =>
        Effect.sync(() => {
          const quote = quoteRows.getNow(id)
          if (quote === undefined) return undefined
          const transaction = transactionRows.getNow(quote.quote.transactionId)
          if (withCustomer !== true) return { quote, transaction }
          const customerId = quote.quote.customerId
          return {
            quote,
            transaction,
            customer: customerId === undefined ? undefined : customerRows.getNow(customerId)
          }
        }),
      setStatus: (id, status) =>
        Effect.sync(() => {
          const quote = quoteRows.getNow(id)
          // Only the status changes, so no unique key can be taken.
          if (quote !== undefined) quoteRows.updateNow({ ...quote, quote: { ...quote.quote, status } })
        })
    }
  }
}
