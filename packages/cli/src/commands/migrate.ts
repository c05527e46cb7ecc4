/** `paycore migrate`: what `npm run migrate` does (examples/server's `migrate`). */
import { migrate as migrateStore, migrationSummary } from "@paycore/example-server"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { emit } from "../output.ts"

export const migrate = Command.make(
  "migrate",
  {
    dataDir: Flag.String("data-dir").pipe(
      Flag.withDescription("Embedded PGlite in this folder (else PAYCORE_DATA_DIR, else .paycore-data)"),
      Flag.optional
    ),
    databaseUrl: Flag.Redacted("database-url").pipe(
      Flag.withDescription("A PostgreSQL server (else DATABASE_URL)"),
      Flag.optional
    )
  },
  Effect.fnUntraced(function* ({ dataDir, databaseUrl }) {
    const result = yield* migrateStore({
      dataDir: Option.getOrUndefined(dataDir),
      databaseUrl: Option.getOrUndefined(databaseUrl)
    })
    yield* emit(result, (r) => [migrationSummary(r)])
  }, Effect.scoped)
).pipe(Command.withDescription("Bring the database to the latest schema (what npm run migrate does)"))
