/**
 * The paycore part of a host server: its database (the host's own `pg` pool, or PGlite in memory without a database
 * URL), the migrations the host calls, the engine's ports and settings, and the HTTP binding with the background work
 * that comes with it. `server.ts` mounts the binding inside the host's own `node:http` server.
 */
import {
  DocumentStore,
  defaultEngineSettings,
  EngineConfig,
  type EngineSettings,
  Ids,
  Store,
  Tokens,
  WebhookSigner
} from "@paycore/core"
import { type App, fetchWebhookTransportLayer, makeApp } from "@paycore/http"
import * as Sandbox from "@paycore/sandbox"
import * as PostgresStore from "@paycore/store-postgres"
import { Context, Effect, Layer, type ManagedRuntime } from "effect"
import { type Kysely, sql } from "kysely"
import pg from "pg"

/** paycore's database, as the store sees it (the store sends SQL text: no table types). */
export type PaycoreDatabase = Kysely<PostgresStore.Database>

export interface DatabaseConfig {
  /** A PostgreSQL server; without it, an embedded PGlite in memory (development and tests: nothing is kept). */
  readonly databaseUrl?: string | undefined
  /** On a server, the schema paycore's tables live in, beside your own (default: the role's search_path). */
  readonly schema?: string | undefined
}

export const openDatabase = ({ databaseUrl, schema }: DatabaseConfig): PaycoreDatabase => {
  if (databaseUrl === undefined) return PostgresStore.makePgliteKysely()
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`not a schema name: ${schema}`)
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    types: PostgresStore.pgTypeParsers, // int8 amounts as numbers: the store requires it of a pool
    pipeline: true, // a transaction's statements share round trips
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` })
  })
  return PostgresStore.makePgKyselyFromPool(pool)
}

/**
 * Brings paycore's tables to this version: once per deployment, before the new version serves. Forward-only
 * migrations, all or none, under a lock: instances that run it at once wait, then find nothing to do.
 */
export const migrateDatabase = async (db: PaycoreDatabase, schema?: string): Promise<ReadonlyArray<string>> => {
  if (schema !== undefined) await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(db)
  const applied = await PostgresStore.migrate(db)
  await Effect.runPromise(PostgresStore.setupDocumentTables(db)) // uploaded files' tables, created when missing
  return applied
}

export interface EngineOptions {
  /** The key that signs webhooks (64 hex): from your secret store, the same on every instance. */
  readonly webhookPrivateKey: string
  /** Run the settlement worker and the webhook dispatcher in this instance (default: yes). */
  readonly workers?: boolean | undefined
  /** The engine's settings that differ from `defaultEngineSettings`. */
  readonly settings?: Partial<EngineSettings> | undefined
}

/** The ports: the store and the file store on your database, ids, the rails and providers, webhook delivery. */
const portsLayer = (db: PaycoreDatabase, options: EngineOptions) =>
  Layer.mergeAll(
    Layer.effect(Store, PostgresStore.makePostgresStore(db)),
    Layer.effect(DocumentStore, PostgresStore.makePostgresDocumentStore(db)),
    Ids.layer,
    // Rail, FxRates, Directory, Notifier, KycProvider and the card issuer: your providers' adapters in production.
    Sandbox.layer({ speedUp: 3600 }),
    fetchWebhookTransportLayer(),
    WebhookSigner.layerFromHex(options.webhookPrivateKey)
  )

/** The HTTP binding: `listener` serves `/2025-10-13/…`, `context` holds every engine service. */
export class PaycoreHttp extends Context.Service<PaycoreHttp, App>()("example-host-node-http/PaycoreHttp") {}

/**
 * paycore in the host: the binding, and (unless `workers: false`) the worker pass and the webhook dispatcher forked
 * into the layer's scope, every second. Disposing the runtime that holds the layer stops them.
 */
export const paycoreLayer = (db: PaycoreDatabase, options: EngineOptions) => {
  const everyMillis = options.workers === false ? 0 : 1000
  return Layer.effect(
    PaycoreHttp,
    makeApp({ workerIntervalMillis: everyMillis, webhookIntervalMillis: everyMillis })
  ).pipe(
    Layer.provide(portsLayer(db, options)),
    // Merged, not only provided: in-process calls through the runtime run with the same settings.
    Layer.provideMerge(Layer.succeed(EngineConfig, { ...defaultEngineSettings, ...options.settings }))
  )
}

export type PaycoreRuntime = ManagedRuntime.ManagedRuntime<Layer.Success<ReturnType<typeof paycoreLayer>>, never>

/**
 * The platform token the host's server speaks to the binding with, as an `Authorization` header: created at start,
 * or re-keyed when the secret changed. The secret comes from your secret store, the same on every instance.
 */
export const platformAuthorization = async (runtime: PaycoreRuntime, clientSecret: string): Promise<string> => {
  const clientId = "host-server"
  await runtime.runPromise(
    Effect.gen(function* () {
      const { context } = yield* PaycoreHttp
      yield* Context.get(context, Tokens).createWithCredentials({
        clientId,
        clientSecret,
        name: "the host's server",
        permissions: ["VIEW", "TRANSACT", "MANAGE"],
        environment: "SANDBOX" // PRODUCTION on your live deployment: the /sandbox routes refuse it
      })
    })
  )
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`
}
