import { observeTransactions, Store, StoreError } from "@paycore/core"
import { Effect, Layer } from "effect"
import type { Kysely } from "kysely"
import { accountRepositories } from "./accounts.ts"
import { agentRepositories } from "./agents.ts"
import { cardRepositories } from "./cards.ts"
import {
  detectTransactionPooling,
  makePgKysely,
  makePgliteKysely,
  type PgConfig,
  type PgliteConfig
} from "./connection.ts"
import { customerRepositories } from "./customers.ts"
import { idempotencyRepositories } from "./idempotency.ts"
import { invitationRepositories } from "./invitations.ts"
import { ledgerRepositories } from "./ledger.ts"
import { onboardingRepositories } from "./onboarding.ts"
import { platformRepositories } from "./platform.ts"
import { quoteRepositories } from "./quotes.ts"
import { withCustomerReadCache } from "./read-cache.ts"
import { scaRepositories } from "./sca.ts"
import { type Database, migrate } from "./schema.ts"
import { poolOf, sqlClientOf, stopPreparing } from "./sql.ts"
import { stablecoinRepositories } from "./stablecoins.ts"
import { makeExecutor } from "./statements.ts"
import { registerPoolGauges, transactionObserver } from "./telemetry.ts"
import { timelineRepositories } from "./timelines.ts"
import { ignore, makeCurrentTx, type StoreOptions } from "./transaction.ts"
import { transactionRepositories } from "./transactions.ts"
import { walletAuthRepositories } from "./wallet-auth.ts"
import { webhookRepositories } from "./webhooks.ts"

/**
 * The Store over a Kysely database whose schema is migrated (see `migrate`). The caller owns `db`
 * (the layers below destroy it on scope close); it must have no result-transforming plugin (rows are read
 * with their snake_case columns).
 *
 * - Statements have fixed shapes, built once per store; only list filters compose their WHERE per call.
 * - `transaction(effect)` runs `effect` on one connection between BEGIN (READ COMMITTED) and COMMIT, with
 *   row locks where the port asks for them (`getForUpdate`, `ledger.balances`). Any failure, defect or
 *   interruption rolls back. A conflict with a concurrent transaction (deadlock, serialization failure, a
 *   racing ledger transfer id) rolls back and runs the whole `effect` again, up to 8 times with a random
 *   pause: keep effects inside a transaction re-runnable (no side effect outside the store that must
 *   happen once).
 * - A statement that fails inside a transaction aborts it in PostgreSQL: later statements fail with the
 *   same StoreError and the transaction cannot commit, even when the effect catches the error. Unique
 *   keys are the exception: `insert`/`update`/`idempotency.put` check them without failing a statement,
 *   so a `UniqueViolation` leaves the transaction usable, as in the memory store.
 * - Outside a transaction every call is one autocommitted statement (run again on a deadlock).
 */
export const makePostgresStore = (db: Kysely<Database>, options: StoreOptions = {}): Effect.Effect<Store["Service"]> =>
  Effect.sync(() => {
    const sql = sqlClientOf(db)
    const grouping = {
      groups: sql.pipelines ? Math.max(0, options.groupCommit?.groups ?? 2) : 0,
      members: Math.max(1, options.groupCommit?.members ?? 32),
      lockTimeoutMs: options.groupCommit?.lockTimeoutMs ?? 200
    }
    const currentTx = makeCurrentTx()
    const x = makeExecutor(sql, grouping, currentTx, options.flushRailReferences === true)
    return Store.of({
      ...platformRepositories(x),
      ...customerRepositories(x),
      ...accountRepositories(x),
      ...quoteRepositories(x),
      ...transactionRepositories(x),
      ...onboardingRepositories(x),
      ...walletAuthRepositories(x),
      ...scaRepositories(x),
      ...cardRepositories(x),
      ...agentRepositories(x),
      ...invitationRepositories(x),
      ...stablecoinRepositories(x),
      ...timelineRepositories(x),
      ...ledgerRepositories(x),
      ...webhookRepositories(x),
      ...idempotencyRepositories(x),
      transaction: observeTransactions(x.transaction, transactionObserver(currentTx)),
      pipelines: sql.pipelines
    })
  })

/** Migrates `db`, as an Effect. */
export const migrateDatabase = (db: Kysely<any>): Effect.Effect<ReadonlyArray<string>, StoreError> =>
  Effect.tryPromise({
    try: () => migrate(db),
    catch: (error) => new StoreError({ message: `PostgreSQL store: ${String(error)}`, retryable: false })
  })

const startError = (error: unknown) =>
  new StoreError({
    message: `PostgreSQL store: ${error instanceof Error ? error.message : String(error)}`,
    retryable: false
  })

/** The Store over `open`'s database, after `check` (before the migrations). */
const layerChecked = (
  open: () => Kysely<Database>,
  options: StoreOptions,
  check: (db: Kysely<Database>) => Effect.Effect<void, StoreError>
): Layer.Layer<Store, StoreError> =>
  Layer.effect(
    Store,
    Effect.gen(function* () {
      const db = yield* Effect.acquireRelease(Effect.try({ try: open, catch: startError }), (db) =>
        Effect.promise(() => db.destroy().catch(ignore))
      )
      yield* check(db)
      yield* migrateDatabase(db)
      const pool = poolOf(db)
      if (pool !== undefined) yield* registerPoolGauges(pool)
      return yield* makePostgresStore(db, options)
    })
  )

/** The Store over a database opened by `open`: migrated at start, closed when the layer's scope closes. */
export const layerFrom = (open: () => Kysely<Database>, options: StoreOptions = {}): Layer.Layer<Store, StoreError> =>
  layerChecked(open, options, () => Effect.void)

/**
 * Unless `preparedStatements` is set: named prepared statements off when a pooler in transaction mode is found
 * (see `detectTransactionPooling`).
 */
const choosePreparing = (config: PgConfig) => (db: Kysely<Database>) => {
  const pool = poolOf(db)
  if (config.preparedStatements !== undefined || pool === undefined) return Effect.void
  return Effect.tryPromise({ try: () => detectTransactionPooling(pool), catch: startError }).pipe(
    Effect.flatMap((pooled) => (pooled ? Effect.sync(() => stopPreparing(db)) : Effect.void))
  )
}

/**
 * The Store on a PostgreSQL server (node-postgres pool). At start, unless `preparedStatements` is set, it checks
 * whether a pooler in transaction mode is in between, and then does without named prepared statements.
 */
export const layerPg = (config: PgConfig): Layer.Layer<Store, StoreError> =>
  layerChecked(() => makePgKysely(config), config, choosePreparing(config))

/**
 * The Store on an embedded PGlite: in memory, or kept in `dataDir`. Only this process writes it, so customers read
 * by id are cached, exactly (read-cache.ts).
 */
export const layerPglite = (config: PgliteConfig = {}): Layer.Layer<Store, StoreError> =>
  Layer.effect(
    Store,
    Effect.gen(function* () {
      return withCustomerReadCache(yield* Store)
    })
  ).pipe(Layer.provide(layerFrom(() => makePgliteKysely(config))))
