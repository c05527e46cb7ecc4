import type { QuoteFilter, Repositories } from "@paycore/core"
import { Effect } from "effect"
import * as codecs from "./codecs.ts"
import { makeCodecCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

const lockQuoteSql = `SELECT * FROM quotes WHERE id = $1 FOR UPDATE`
const lockTransactionOfQuoteSql = `SELECT * FROM transactions WHERE id = (SELECT transaction_id FROM quotes WHERE id = $1) FOR UPDATE`
const setQuoteStatusSql = `UPDATE quotes SET status = $2 WHERE id = $1`

export const quoteRepositories = (x: Executor): Pick<Repositories, "quotes"> => {
  const quoteRows = makeCodecCollection(
    x,
    codecs.quotes,
    (f: QuoteFilter, w) => {
      w.eq("status", f.status)
      if (f.expiresAtOrBefore !== undefined) w.where(`expires_at <= ${w.param(f.expiresAtOrBefore)}`)
    },
    [
      {
        index: "transactionId",
        column: "transaction_id",
        constraint: "quotes_transaction_id_key",
        value: (q) => q.quote.transactionId
      }
    ]
  )
  return {
    quotes: {
      ...quoteRows,
      // Both statements go out together; the second runs once the first holds the quote's lock.
      // The transaction's lock is noted under the quote's key too: only the quote leads to it here.
      getForUpdateWithTransaction: (id) =>
        x.locking(
          [`quotes:${id}`],
          Effect.flatMap(
            Effect.all([x.query(lockQuoteSql, [id]), x.query(lockTransactionOfQuoteSql, [id])], { concurrency: 2 }),
            ([quote, transaction]) => {
              if (quote.length === 0) return Effect.succeed(undefined)
              const found = {
                quote: codecs.quotes.decode(quote[0] as any),
                transaction: transaction.length === 0 ? undefined : codecs.transactions.decode(transaction[0] as any)
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
