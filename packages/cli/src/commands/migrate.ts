/** `paycore migrate`: what `npm run migrate` does (@paycore/server's `migrate`). */
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { emit } from "../output.ts"
import { loadServer } from "./serve.ts"

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
    const { migrate: migrateStore, migrationSummary } = yield* loadServer
    const result = yield* migrateStore({
      dataDir: Option.getOrUndefined(dataDir),
      databaseUrl: Option.getOrUndefined(databaseUrl)
    })
    yield* emit(result, (r) => [migrationSummary(r)])
  }, Effect.scoped)
).pipe(Command.withDescription("Bring the database to the latest schema (what npm run migrate does)"))
