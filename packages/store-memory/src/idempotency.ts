import type { IdempotencyRecord, Repositories } from "@paycore/core"
import { Effect } from "effect"
import { uniqueViolation } from "./indexes.ts"
import type { UndoJournal } from "./transaction.ts"

/** Running totals by key, undone with their transaction: the `counters` port and the ledger's counts. */
export interface Counters {
  readonly value: (key: string) => number
  readonly add: (key: string, amount: number) => number
}

export const makeCounters = (journal: UndoJournal): Counters => {
  const totals = new Map<string, number>()
  return {
    value: (key) => totals.get(key) ?? 0,
    add: (key, amount) => {
      const before = totals.get(key)
      const next = (before ?? 0) + amount
      totals.set(key, next)
      journal.remember(() => (before === undefined ? totals.delete(key) : totals.set(key, before)))
      return next
    }
  }
}

/** Stored responses of idempotent requests, and running totals. */
export const idempotencyRepositories = (
  journal: UndoJournal,
  counters: Counters
): Pick<Repositories, "idempotency" | "counters"> => {
  const records = new Map<string, IdempotencyRecord>()
  return {
    idempotency: {
      get: (key) => Effect.sync(() => records.get(key)),
      put: (record) =>
        records.has(record.key)
          ? Effect.fail(uniqueViolation("idempotencyKey"))
          : Effect.sync(() => journal.write(records, record.key, record))
    },
    counters: {
      get: (key) => Effect.sync(() => counters.value(key)),
      add: (key, amount) => Effect.sync(() => counters.add(key, amount))
    }
  }
}
