import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import { rowCodecOf } from "./codec.ts"
import { makeQueue } from "./collection.ts"
import { affected, type Executor } from "./statements.ts"

// What `updateIf` compares (every write of a transaction changes one of these columns).
const codec = rowCodecOf(tables.transactions)
const transactionColumns = codec.columns
const versionColumns = ["state", "updated_at", "rail_reference", "due_at", "attempts", "stalled_at"] as const
const versionAt = versionColumns.map((c) => transactionColumns.indexOf(c))
const updateIfSql =
  `UPDATE transactions SET ${transactionColumns.map((c, i) => `${c} = $${i + 1}`).join(", ")} WHERE id = $1 AND ` +
  versionColumns.map((c, i) => `${c} IS NOT DISTINCT FROM $${transactionColumns.length + i + 1}`).join(" AND ")

export const transactionRepositories = (x: Executor): Pick<Repositories, "transactions"> => {
  const transactionRows = makeQueue(x, tables.transactions)
  return {
    transactions: {
      ...transactionRows,
      // Outside a transaction it commits without waiting for the WAL flush (see `Executor.writeUnflushed` and the
      // port's contract), unless the store flushes rail references.
      updateIf: (row, expected) => {
        const was = codec.params(expected)
        const params = [...codec.params(row), ...versionAt.map((i) => was[i])]
        return Effect.map(x.writeUnflushed(updateIfSql, params), (result) => affected(result) > 0)
      }
    }
  }
}
