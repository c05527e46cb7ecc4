import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import { rowCodecOf } from "./codec.ts"
import { uniqueViolation } from "./driver-errors.ts"
import { insertSql } from "./queries.ts"
import { affected, type Executor } from "./statements.ts"

const codec = rowCodecOf(tables.idempotency)
const putSql = insertSql(codec)
/** The port's name of the one unique key (the primary key). */
const keyTaken = tables.idempotency.unique[0]!.name
const counterAdd =
  `INSERT INTO counters AS c (key, value) VALUES ($1, $2) ON CONFLICT (key) ` +
  `DO UPDATE SET value = c.value + EXCLUDED.value RETURNING value`

/** Stored responses of idempotent requests, and running totals. */
export const idempotencyRepositories = (x: Executor): Pick<Repositories, "idempotency" | "counters"> => ({
  idempotency: {
    get: (key) =>
      Effect.map(x.query(`SELECT * FROM idempotency WHERE key = $1`, [key]), (rows) =>
        rows.length === 0 ? undefined : codec.decode(rows[0]!)
      ),
    // A key taken writes nothing (ON CONFLICT DO NOTHING): no statement fails, so the transaction goes on.
    put: (record) =>
      Effect.flatMap(x.write(putSql, codec.params(record)), (result) =>
        affected(result) > 0 ? Effect.void : Effect.fail(uniqueViolation(keyTaken))
      )
  },
  counters: {
    get: (key) =>
      Effect.map(x.query(`SELECT value FROM counters WHERE key = $1`, [key]), (rows) =>
        rows.length === 0 ? 0 : Number(rows[0]!.value)
      ),
    // Members of one group may add to one counter (one transaction: each sees the others' adds), so no key is noted.
    add: (key, amount) =>
      x.locking(
        [],
        Effect.map(x.query(counterAdd, [key, amount]), (rows) => Number(rows[0]!.value)),
        true
      )
  }
})
