import { Store } from "@paycore/core"
import { Effect, Layer } from "effect"
import { sql } from "kysely"
import { afterAll, describe, it } from "vitest"
import { checkPaymentsProperty } from "../../core/test/payments-property.ts"
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, makePgliteKysely, makePostgresStore, migrate } from "../src/index.ts"

// The payments property of the core (ledger sums to zero, no overdraft, machine-ordered events, each failed
// payout refunded once) over random command sequences, on PGlite. A fresh PGlite takes ~2 s to start, so the
// runs share one database and each starts from empty tables.
const db = makePgliteKysely()
afterAll(() => db.destroy())

const emptyStore = Layer.effect(
  Store,
  Effect.gen(function* () {
    yield* Effect.promise(async () => {
      await migrate(db)
      const tables = await sql<{ tablename: string }>`
        select tablename from pg_tables
        where schemaname = current_schema() and tablename not in (${MIGRATION_TABLE}, ${MIGRATION_LOCK_TABLE})`.execute(
        db
      )
      const names = tables.rows.map((row) => `"${row.tablename}"`).join(", ")
      await sql.raw(`truncate ${names}`).execute(db)
    })
    return yield* makePostgresStore(db)
  })
)

describe("payments (property) on PGlite", () => {
  it("ledger, events and refunds stay consistent over random command sequences", async () => {
    await checkPaymentsProperty({ numRuns: 25, store: () => emptyStore })
  }, 300_000)
})
