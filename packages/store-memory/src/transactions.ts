import type { Repositories, TransactionFilter, TransactionRecord } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import type { Collections, MemoryCollection } from "./collection.ts"

/** What `updateIf` compares: the fields every write of a transaction changes one of. */
const sameVersion = (a: TransactionRecord, b: TransactionRecord): boolean =>
  a.state === b.state &&
  a.transaction.updatedAt === b.transaction.updatedAt &&
  a.railReference === b.railReference &&
  a.dueAt === b.dueAt &&
  a.attempts === b.attempts &&
  a.stalledAt === b.stalledAt

/** Transactions, and their rows for the quotes' combined read (`getForUpdateWithTransaction`). */
export const transactionRepositories = (
  collection: Collections
): Pick<Repositories, "transactions"> & {
  readonly transactionRows: MemoryCollection<TransactionRecord, TransactionFilter>
} => {
  const transactionRows = collection({
    table: tables.transactions,
    // The settlement worker lists transactions due by now.
    due: { key: (r) => r.dueAt, bound: (f) => f.dueBy }
  })

  return {
    transactionRows,
    transactions: {
      ...transactionRows,
      updateIf: (row, expected) =>
        Effect.sync(() => {
          const current = transactionRows.getNow(row.id)
          if (current === undefined || !sameVersion(current, expected)) return false
          transactionRows.updateNow(row)
          return true
        })
    }
  }
}
