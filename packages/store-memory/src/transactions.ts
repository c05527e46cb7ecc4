import type { Repositories, TransactionFilter, TransactionRecord } from "@paycore/core"
import { Effect } from "effect"
import { type Collections, inRange, type MemoryCollection } from "./collection.ts"

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
  const transactionRows = collection<TransactionRecord, TransactionFilter>({
    matches: (r, f) => {
      const t = r.transaction
      return (
        (f.customerId === undefined || t.customerId === f.customerId) &&
        (f.platformCustomerId === undefined || t.platformCustomerId === f.platformCustomerId) &&
        (f.accountIdentifier === undefined ||
          t.source.accountId === f.accountIdentifier ||
          t.destination.accountId === f.accountIdentifier) &&
        (f.status === undefined || t.status === f.status) &&
        (f.type === undefined || t.type === f.type) &&
        (f.reference === undefined || t.reconciliationInstructions?.reference === f.reference) &&
        inRange(t.createdAt, f.createdAfter, f.createdBefore) &&
        (f.states === undefined || f.states.includes(r.state)) &&
        (f.dueBy === undefined || (r.dueAt !== undefined && r.dueAt <= f.dueBy))
      )
    },
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
