import type { IdempotencyRecord, Repositories } from "@paycore/core"
import { Effect } from "effect"
import { uniqueViolation } from "./indexes.ts"
import type { UndoJournal } from "./transaction.ts"

/** Stored responses of idempotent requests, and running totals. */
export const idempotencyRepositories = (journal: UndoJournal): Pick<Repositories, "idempotency" | "counters"> => {
  const records = new Map<string, IdempotencyRecord>()
  const counters = new Map<string, number>()
  return {
    idempotency: {
      get: (key) => Effect.sync(() => records.get(key)),
      put: (record) =>
        records.has(record.key)
          ? Effect.fail(uniqueViolation("idempotencyKey"))
          : Effect.sync(() => journal.write(records, record.key, record))
    },
    counters: {
      get: (key) => Effect.sync(() => counters.get(key) ?? 0),
      add: (key, amount) =>
        Effect.sync(() => {
          const before = counters.get(key)
          const next = (before ?? 0) + amount
          counters.set(key, next)
          journal.remember(() => (before === undefined ? counters.delete(key) : counters.set(key, before)))
          return next
        })
    }
  }
}
