/**
 * `npm run migrate`: brings the database `npm start` would use (DATABASE_URL, else the PGlite folder) to the
 * latest schema and says which migrations it applied. The server also migrates at start; this command lets
 * an operator do it ahead of a deploy.
 */
import { NodeRuntime } from "@effect/platform-node"
import * as PostgresStore from "@paycore/store-postgres"
import { Effect } from "effect"
import { chooseStore } from "./store.ts"

const program = Effect.gen(function* () {
  const store = yield* chooseStore
  if (store.open === undefined) {
    process.stdout.write(`${store.description}: nothing to migrate\n`)
    return
  }
  const db = yield* Effect.acquireRelease(Effect.sync(store.open), (db) => Effect.promise(() => db.destroy()))
  const applied = yield* PostgresStore.migrateDatabase(db)
  process.stdout.write(
    applied.length === 0
      ? `${store.description}: up to date\n`
      : `${store.description}: applied ${applied.join(", ")}\n`
  )
})

NodeRuntime.runMain(Effect.scoped(program))
