import type { IdempotencyRecord } from "@paycore/core"
import { bigint, instant, integer, table, text } from "./describe.ts"

export const idempotency = table<IdempotencyRecord, {}, "idempotencyKey">()({
  name: "idempotency",
  columns: {
    key: text("key"),
    fingerprint: text("fingerprint"),
    status: integer("status"),
    body: text("body"),
    createdAt: instant("created_at")
  },
  primaryKey: ["key"],
  // The key is the primary key: a second response under it is a `UniqueViolation` of `idempotencyKey`.
  unique: { idempotencyKey: { column: "key", index: "idempotency_pkey" } }
})

/** A running total (no record of the port: `counters.get` and `add` read and write the value by key). */
export interface Counter {
  readonly key: string
  readonly value: number
}

export const counters = table<Counter>()({
  name: "counters",
  columns: {
    key: text("key"),
    value: bigint("value")
  },
  primaryKey: ["key"]
})
