import type { Repositories, TransactionFilter } from "@paycore/core"
import { Effect } from "effect"
import * as codecs from "./codecs.ts"
import { valuesOf } from "./codecs.ts"
import { makeCodecCollection } from "./collection.ts"
import { affected, type Executor } from "./statements.ts"

// What `updateIf` compares (every write of a transaction changes one of these columns).
const transactionColumns = codecs.transactions.columns
const versionColumns = ["state", "updated_at", "rail_reference", "due_at", "attempts", "stalled_at"] as const
const versionAt = versionColumns.map((c) => transactionColumns.indexOf(c))
const updateIfSql =
  `UPDATE transactions SET ${transactionColumns.map((c, i) => `${c} = $${i + 1}`).join(", ")} WHERE id = $1 AND ` +
  versionColumns.map((c, i) => `${c} IS NOT DISTINCT FROM $${transactionColumns.length + i + 1}`).join(" AND ")

export const transactionRepositories = (x: Executor): Pick<Repositories, "transactions"> => {
  const transactionRows = makeCodecCollection(x, codecs.transactions, (f: TransactionFilter, w) => {
    w.eq("customer_id", f.customerId)
    w.eq("platform_customer_id", f.platformCustomerId)
    if (f.accountIdentifier !== undefined) {
      const account = w.param(f.accountIdentifier)
      w.where(`(source_account_id = ${account} OR destination_account_id = ${account})`)
    }
    w.eq("status", f.status)
    w.eq("type", f.type)
    w.eq("reconciliation_reference", f.reference)
    w.between("created_at", f.createdAfter, f.createdBefore)
    if (f.states !== undefined) w.where(`state = ANY(${w.param(f.states)}::text[])`)
    if (f.dueBy !== undefined) w.where(`due_at <= ${w.param(f.dueBy)}`)
  })
  return {
    transactions: {
      ...transactionRows,
      // Outside a transaction it commits without waiting for the WAL flush (see `Executor.writeUnflushed` and the
      // port's contract), unless the store flushes rail references.
      updateIf: (row, expected) => {
        const was = valuesOf(codecs.transactions, expected)
        const params = [...valuesOf(codecs.transactions, row), ...versionAt.map((i) => was[i])]
        return Effect.map(x.writeUnflushed(updateIfSql, params), (result) => affected(result) > 0)
      }
    }
  }
}
