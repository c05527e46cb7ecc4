import { Store } from "@paycore/core"
import { Effect, Layer } from "effect"
import { sql } from "kysely"
import { afterAll, describe, expect, it } from "vitest"
import { checkCardsProperty } from "../../core/test/cards-property.ts"
import { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, makePgliteKysely, makePostgresStore, migrate } from "../src/index.ts"

// The card property of the core (ledger, holds, limits and events consistent; returns complete after the close) over
// random command sequences, on PGlite: the SQL store's locks, counters and ledger under the same commands as the
// memory store. A fresh PGlite takes ~2 s to start, so the runs share one database and each starts from empty tables.
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

describe("card transactions (property) on PGlite", () => {
  it("CD-11, CD-12, CD-13, CD-22, CD-24, CD-29, CD-36 … CD-40, CD-49, CD-51, L-13, WH-13 … WH-16: ledger, holds, limits and events stay consistent over random card command sequences; in-flight returns complete after the close", async () => {
    const met = await checkCardsProperty({ numRuns: 5, maxCommands: 40, seed: 20_260_302, store: () => emptyStore })
    expect(met.get("return on EXPIRED (cleared in part): Applied")).toBeGreaterThan(0)
  }, 300_000)
})
