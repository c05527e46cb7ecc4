/**
 * `migrate`: brings the database `npm start` would use (DATABASE_URL, else the PGlite folder) to the latest schema.
 * The server also migrates at start; this lets an operator do it ahead of a deploy.
 */
import * as PostgresStore from "@paycore/store-postgres"
import { Effect } from "effect"
import { chooseStore, type StoreFlags } from "./store.ts"

export interface MigrationResult {
  /** Where the data lives, one line. */
  readonly store: string
  /** The migrations applied now, in order; undefined for a store without a schema (memory). */
  readonly applied: ReadonlyArray<string> | undefined
}

export const migrate = Effect.fnUntraced(function* (flags: StoreFlags = {}) {
  const store = yield* chooseStore(flags)
  if (store.open === undefined) return { store: store.description, applied: undefined } satisfies MigrationResult
  const db = yield* Effect.acquireRelease(Effect.sync(store.open), (db) => Effect.promise(() => db.destroy()))
  const applied = yield* PostgresStore.migrateDatabase(db)
  return { store: store.description, applied } satisfies MigrationResult
})

/** The result as `npm run migrate` says it. */
export const migrationSummary = ({ store, applied }: MigrationResult): string =>
  applied === undefined
    ? `${store}: nothing to migrate`
    : applied.length === 0
      ? `${store}: up to date`
      : `${store}: applied ${applied.join(", ")}`
