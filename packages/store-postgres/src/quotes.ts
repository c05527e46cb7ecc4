import type { LockedQuoteRows, Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import { rowCodecOf } from "./codec.ts"
import { makeCollection, makeQueue } from "./collection.ts"
import type { Executor } from "./statements.ts"

const lockQuoteSql = `SELECT * FROM quotes WHERE id = $1 FOR UPDATE`
const lockTransactionOfQuoteSql = `SELECT * FROM transactions WHERE id = (SELECT transaction_id FROM quotes WHERE id = $1) FOR UPDATE`
const customerOfQuoteSql = `SELECT * FROM customers WHERE id = (SELECT customer_id FROM quotes WHERE id = $1)`
const setQuoteStatusSql = `UPDATE quotes SET status = $2 WHERE id = $1`
const quoteCodec = rowCodecOf(tables.quotes)
const transactionCodec = rowCodecOf(tables.transactions)
const customerCodec = rowCodecOf(tables.customers)

/** Quotes and receiver lookups. */
export const quoteRepositories = (x: Executor): Pick<Repositories, "quotes" | "lookups"> => {
  const quoteRows = makeQueue(x, tables.quotes)
  return {
    lookups: makeCollection(x, tables.lookups),
    quotes: {
      ...quoteRows,
      // The statements go out together; the later ones run once the first holds the quote's lock.
      // The transaction's lock is noted under the quote's key too: only the quote leads to it here.
      getForUpdateWithTransaction: (id, withCustomer) =>
        x.locking(
          [`quotes:${id}`],
          Effect.flatMap(
            Effect.all(
              [
                x.query(lockQuoteSql, [id]),
                x.query(lockTransactionOfQuoteSql, [id]),
                withCustomer === true ? x.query(customerOfQuoteSql, [id]) : Effect.succeed([])
              ],
              { concurrency: 3 }
            ),
            ([quote, transaction, customer]) => {
              if (quote.length === 0) return Effect.succeed(undefined)
              const found: LockedQuoteRows = {
                quote: quoteCodec.decode(quote[0]!),
                transaction: transaction.length === 0 ? undefined : transactionCodec.decode(transaction[0]!),
                ...(withCustomer === true
                  ? { customer: customer.length === 0 ? undefined : customerCodec.decode(customer[0]!) }
                  : {})
              }
              const held = found.transaction === undefined ? [] : [`transactions:${found.transaction.id}`]
              return x.locking(held, Effect.succeed(found))
            }
          )
        ),
      setStatus: (id, status) => x.run(setQuoteStatusSql, [id, status])
    }
  }
}
