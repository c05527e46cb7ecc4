/**
 * Which store `npm start` runs on (a flag of `paycore serve` / `paycore migrate` wins over its variable):
 *
 *   DATABASE_URL=postgres://…   a PostgreSQL server (production); PAYCORE_FLUSH_RAIL_REFERENCES=true records a
 *                               rail's reference after the WAL flush too; PAYCORE_PG_PREPARED_STATEMENTS=false
 *                               behind a pooler in transaction mode (found at start when unset; docs/operations.md)
 *   PAYCORE_STORE=memory        the in-memory store (nothing survives a stop)
 *   otherwise                   embedded PGlite in PAYCORE_DATA_DIR (default ./.paycore-data), fsync off:
 *                               the development and sandbox default, not for production; one process per
 *                               folder (data-dir-lock.ts)
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import type { DocumentStore, Store, StoreError } from "@paycore/core"
import { folderDocumentStoreLayer } from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import * as PostgresStore from "@paycore/store-postgres"
import { Config, Effect, type Layer, Option, Redacted } from "effect"
import type { Kysely } from "kysely"
import { lockDataDir } from "./data-dir-lock.ts"

export interface StoreChoice {
  readonly layer: Layer.Layer<Store, StoreError>
  /** Where uploaded files (documents, bulk-import CSVs) live: beside the data. */
  readonly documents: Layer.Layer<DocumentStore, StoreError>
  /** The database itself, for `npm run migrate` (none for the memory store). */
  readonly open: (() => Kysely<PostgresStore.Database>) | undefined
  /** One line for the console: where the data lives. */
  readonly description: string
  /** A folder for the sandbox's own files (its generated credentials and webhook key), when there is one. */
  readonly dataDir: string | undefined
  /** A PostgreSQL server, which other instances may share (they must share its keys too: shared-keys.ts). */
  readonly shared: boolean
}

export interface StoreFlags {
  /** A PostgreSQL server; wins over `DATABASE_URL` and the data folder. */
  readonly databaseUrl?: Redacted.Redacted<string> | undefined
  /** Embedded PGlite in this folder; wins over `PAYCORE_DATA_DIR` and `PAYCORE_STORE`. */
  readonly dataDir?: string | undefined
}

export const chooseStore = Effect.fnUntraced(function* (flags: StoreFlags) {
  const databaseUrl =
    flags.databaseUrl !== undefined
      ? Option.some(flags.databaseUrl)
      : flags.dataDir !== undefined
        ? Option.none()
        : yield* Config.option(Config.Redacted("DATABASE_URL"))
  if (Option.isSome(databaseUrl)) {
    const config = { connectionString: Redacted.value(databaseUrl.value) }
    const flushRailReferences = yield* Config.Boolean("PAYCORE_FLUSH_RAIL_REFERENCES").pipe(Config.withDefault(false))
    // Unset: found at start (a pooler in transaction mode turns them off; docs/operations.md).
    const prepared = yield* Config.option(Config.Boolean("PAYCORE_PG_PREPARED_STATEMENTS"))
    const preparedStatements = Option.getOrUndefined(prepared)
    return {
      layer: PostgresStore.layerPg({ ...config, flushRailReferences, preparedStatements }),
      documents: PostgresStore.documentStoreLayerPg(config),
      open: () => PostgresStore.makePgKysely(config),
      description: `PostgreSQL server (${flags.databaseUrl === undefined ? "DATABASE_URL" : "--database-url"})`,
      dataDir: undefined,
      shared: true
    } satisfies StoreChoice
  }
  const kind =
    flags.dataDir !== undefined ? "pglite" : yield* Config.String("PAYCORE_STORE").pipe(Config.withDefault("pglite"))
  if (kind === "memory") {
    return {
      layer: MemoryStore.layer,
      documents: MemoryStore.documentStoreLayer,
      open: undefined,
      description: "in-memory store: data is lost when it stops",
      dataDir: undefined,
      shared: false
    } satisfies StoreChoice
  }
  const dataDir = resolve(
    flags.dataDir ?? (yield* Config.String("PAYCORE_DATA_DIR").pipe(Config.withDefault(".paycore-data")))
  )
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  // Before anything is read or written there: a second process on the folder stops here (DataDirInUse).
  yield* lockDataDir(dataDir)
  const config = { dataDir: join(dataDir, "pglite") }
  return {
    layer: PostgresStore.layerPglite(config),
    // One process opens a PGlite folder once: files go to a folder of their own.
    documents: folderDocumentStoreLayer({ root: join(dataDir, "documents") }),
    open: () => PostgresStore.makePgliteKysely(config),
    description: `embedded PGlite in ${dataDir} (fsync off: for development, not production)`,
    dataDir,
    shared: false
  } satisfies StoreChoice
})

/**
 * A value the sandbox generates once and keeps in its data folder (owner-only), so a restart keeps the same
 * credentials and webhook key; without a folder it is generated per start.
 */
export const keptInDataDir = (dataDir: string | undefined, name: string, generate: () => string): string => {
  if (dataDir === undefined) return generate()
  const file = join(dataDir, name)
  try {
    return readFileSync(file, "utf8").trim()
  } catch {
    const value = generate()
    writeFileSync(file, `${value}\n`, { mode: 0o600 })
    return value
  }
}
