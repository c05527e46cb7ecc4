import { readFileSync } from "node:fs"
import { type DocumentStore, Store, type StoreError } from "@paycore/core"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { type Kysely, sql } from "kysely"
import pg from "pg"
import { afterAll, beforeAll, inject } from "vitest"
import { makeEnv, type TestEnv } from "../../core/test/fixtures.ts"
import {
  type Database,
  documentStoreLayerPg,
  documentStoreLayerPglite,
  layerPg,
  layerPglite,
  MIGRATION_TABLE,
  makePgKysely,
  makePgliteKysely,
  makePostgresStore,
  migrate,
  type PgliteConfig
} from "../src/index.ts"

const templates = new Map<string, Blob | null>()
/** The global setup's dump of that name, read once per worker; null when there is none. */
const templateOf = (name: "paycorePgliteTemplate" | "paycorePgliteMigratedTemplate"): Blob | null => {
  if (!templates.has(name)) {
    let file: string | undefined
    try {
      file = inject(name)
    } catch {
      file = undefined
    }
    templates.set(name, file === undefined ? null : new Blob([new Uint8Array(readFileSync(file))]))
  }
  return templates.get(name)!
}

/**
 * The configuration of a test database on PGlite: it starts from the run's template (pglite-template-setup.ts) when
 * the global setup made one, else from initdb.
 */
export const pgliteConfig = (): PgliteConfig => {
  const template = templateOf("paycorePgliteTemplate")
  return template === null ? {} : { template }
}

/**
 * A test database on PGlite with every migration of this checkout applied (the global setup's migrated template),
 * for a store whose migrate() at start is not what the test is about; else as `pgliteConfig()`.
 */
export const pgliteMigratedConfig = (): PgliteConfig => {
  const template = templateOf("paycorePgliteMigratedTemplate")
  return template === null ? pgliteConfig() : { template }
}

export interface TestDatabase {
  /** `pg` on the server named by DATABASE_URL, else an in-memory PGlite. */
  readonly kind: "pg" | "pglite"
  /** A Store layer on this file's database (migrated at start). */
  readonly layer: () => Layer.Layer<Store, StoreError>
  /** A DocumentStore layer on this file's database (PGlite: its own in-memory database). */
  readonly documentStoreLayer: () => Layer.Layer<DocumentStore, StoreError>
  /** A raw Kysely on this file's database (PGlite: a new, separate in-memory database each time). */
  readonly open: () => Kysely<Database>
  /** The server's schema of this file (undefined on PGlite). */
  readonly schema?: string | undefined
}

/**
 * A fresh, isolated database for one test file. With DATABASE_URL, a uniquely named schema on that server
 * (created before the file's tests, dropped after them); without it, an in-memory PGlite.
 */
export const testDatabase = (name: string): TestDatabase => {
  const url = process.env.DATABASE_URL
  if (url === undefined || url === "") {
    return {
      kind: "pglite",
      layer: () => layerPglite(pgliteConfig()),
      documentStoreLayer: () => documentStoreLayerPglite(pgliteConfig()),
      open: () => makePgliteKysely(pgliteConfig())
    }
  }
  const schema = `test_${name}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  beforeAll(() => admin(`CREATE SCHEMA ${schema}`))
  // Registered first, so it runs after the layers' own teardown (after-hooks run in reverse order).
  afterAll(() => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))
  return {
    kind: "pg",
    schema,
    layer: () => layerPg({ connectionString: url, schema, max: 10 }),
    documentStoreLayer: () => documentStoreLayerPg({ connectionString: url, schema, max: 4 }),
    open: () => makePgKysely({ connectionString: url, schema, max: 4 })
  }
}

/**
 * A Store on one PGlite database for a property test file, each layer built from empty tables (every table but the
 * migrations' is truncated). A fresh PGlite takes ~2 s to start, so the runs share it; it closes after the file.
 */
export const emptyPgliteStore = (): (() => Layer.Layer<Store>) => {
  const db = makePgliteKysely(pgliteConfig())
  afterAll(() => db.destroy())
  const layer = Layer.effect(
    Store,
    Effect.gen(function* () {
      yield* Effect.promise(async () => {
        await migrate(db)
        const tables = await sql<{ tablename: string }>`
          select tablename from pg_tables
          where schemaname = current_schema() and tablename <> ${MIGRATION_TABLE}`.execute(db)
        const names = tables.rows.map((row) => `"${row.tablename}"`).join(", ")
        await sql.raw(`truncate ${names}`).execute(db)
      })
      return yield* makePostgresStore(db)
    })
  )
  return () => layer
}

/**
 * Runs `effect` on `db` with the core's test engine (its services and test ports) on a TestClock: the races of this
 * folder. `seed` keeps each test's ids apart.
 */
export const runOnEngine = <A, E>(
  db: TestDatabase,
  seed: number,
  effect: Effect.Effect<A, E, Layer.Success<TestEnv["layer"]>>
): Promise<A> =>
  Effect.runPromise(
    effect.pipe(Effect.provide(makeEnv(seed, { storeLayer: db.layer() }).layer), Effect.provide(TestClock.layer()))
  )

/** Ids of the engine's form `<Type>:<uuid v7>`, ordered by `n`. */
export const idOf = <T extends string>(type: string, n: number): T =>
  `${type}:0190a000-0000-7000-8000-${n.toString(16).padStart(12, "0")}` as T

/** A fresh suffix so tests sharing one database never collide on keys. */
let counter = 0
export const unique = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${++counter}`

/** A pause of wall-clock time (`Effect.sleep` would wait on the tests' TestClock). */
export const wallClockPause = (ms: number): Effect.Effect<void> =>
  Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))
