import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import type { Collections } from "./collection.ts"

/** The moves of payments' and card transactions' machines (timelines). */
export const timelineRepositories = (collection: Collections): Pick<Repositories, "transitions"> => {
  const rows = collection({ table: tables.transitions })
  return {
    transitions: {
      ...rows,
      append: (row) =>
        Effect.sync(() => {
          // A fresh id on a table without unique keys: a violation is a bug of the caller.
          const violation = rows.insertNow(row)
          if (violation !== undefined) throw new Error(`memory store: transition ${row.id} exists`)
        })
    }
  }
}
