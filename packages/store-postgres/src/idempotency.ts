import type { Repositories } from "@paycore/core"
import { Effect } from "effect"
import * as codecs from "./codecs.ts"
import { valuesOf } from "./codecs.ts"
import { uniqueViolation } from "./driver-errors.ts"
import { affected, type Executor } from "./statements.ts"

const idempotencyPut = `INSERT INTO idempotency (${codecs.idempotency.columns.join(", ")}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`
const counterAdd =
  `INSERT INTO counters AS c (key, value) VALUES ($1, $2) ON CONFLICT (key) ` +
  `DO UPDATE SET value = c.value + EXCLUDED.value RETURNING value`

/** Stored responses of idempotent requests, and running totals. */
export const idempotencyRepositories = (x: Executor): Pick<Repositories, "idempotency" | "counters"> => ({
  idempotency: {
    get: (key) =>
      Effect.map(x.query(`SELECT * FROM idempotency WHERE key = $1`, [key]), (rows) =>
        rows.length === 0 ? undefined : codecs.idempotency.decode(rows[0] as any)
      ),
    // A key taken writes nothing (ON CONFLICT DO NOTHING): no statement fails, so the transaction goes on.
    put: (record) =>
      Effect.flatMap(x.write(idempotencyPut, valuesOf(codecs.idempotency, record)), (result) =>
        affected(result) > 0 ? Effect.void : Effect.fail(uniqueViolation("idempotencyKey"))
      )
  },
  counters: {
    get: (key) =>
      Effect.map(x.query(`SELECT value FROM counters WHERE key = $1`, [key]), (rows) =>
        rows.length === 0 ? 0 : Number(rows[0]!.value)
      ),
    add: (key, amount) => Effect.map(x.query(counterAdd, [key, amount]), (rows) => Number(rows[0]!.value))
  }
})
