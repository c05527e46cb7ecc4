import { PGlite } from "@electric-sql/pglite"
import { Kysely, PGliteDialect, PostgresDialect } from "kysely"
import { type CustomTypesConfig, Pool, types as pgTypes } from "pg"
import type { Database } from "./schema.ts"
import { registerPool } from "./sql.ts"
import type { StoreOptions } from "./transaction.ts"

/** `bigint` (int8) as a JS number: amounts stay below 2^53 (see MAX_AMOUNT in the core). */
const INT8_OID = 20
const int8 = (value: string): number => Number(value)

/**
 * Type parsers of this store's pool only (the process-wide `pg.types` stay untouched): int8 as a number,
 * every other type as node-postgres parses it by default. A pool of your own that the store runs on takes them
 * too (`new Pool({ ..., types: pgTypeParsers })`, see `makePgKyselyFromPool`): amounts are int8 columns.
 */
export const pgTypeParsers: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? int8 : pgTypes.getTypeParser(oid, format)) as CustomTypesConfig["getTypeParser"]
}

export interface PgConfig extends StoreOptions {
  readonly connectionString: string
  /** Pool size (default 10). */
  readonly max?: number | undefined
  /** A schema to work in (it must exist): the first of the connections' `search_path`. */
  readonly schema?: string | undefined
}

/**
 * A Kysely over your own node-postgres pool (not migrated: see `migrate`), which the store then talks to directly,
 * as to the pool of `makePgKysely`: named prepared statements, and transactions pipelined when the pool was made
 * with `pipeline: true`. The pool must parse int8 as a number (`types: pgTypeParsers`), or this throws; its
 * connection settings (ssl, `options` such as a `search_path`, timeouts, size) are yours. The store opens one more
 * connection beside the pool with the pool's settings (see `SqlClient.queryUnflushed`); the Kysely's `destroy()`
 * closes it and ends the pool.
 */
export const makePgKyselyFromPool = (pool: Pool): Kysely<Database> => {
  const int8Parser = pool.options.types?.getTypeParser(INT8_OID, "text") as ((value: string) => unknown) | undefined
  if (int8Parser?.("1") !== 1) {
    throw new Error("store-postgres: the pool must parse int8 as a number: new Pool({ ..., types: pgTypeParsers })")
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  registerPool(db, pool)
  return db
}

/** A Kysely over a node-postgres pool (not migrated: see `migrate`). */
export const makePgKysely = (config: PgConfig): Kysely<Database> => {
  if (config.schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(config.schema)) {
    throw new Error(`store-postgres: schema name ${JSON.stringify(config.schema)} is not a plain identifier`)
  }
  const pool = new Pool({
    connectionString: config.connectionString,
    max: config.max ?? 10,
    types: pgTypeParsers,
    // Statements sent before the answer to the previous one (see sql.ts): BEGIN with the first statement, writes
    // with the next statement or the COMMIT.
    pipeline: true,
    ...(config.schema === undefined ? {} : { options: `-c search_path=${config.schema}` })
  })
  return makePgKyselyFromPool(pool)
}

export interface PgliteConfig {
  /** A directory to keep the database in; in memory when absent. */
  readonly dataDir?: string | undefined
  /**
   * A dumped data directory (`PGlite.dumpDataDir()`) an in-memory database starts from instead of running initdb:
   * two to three times faster to start, for test suites that start hundreds of databases.
   */
  readonly template?: Blob | undefined
}

/**
 * A Kysely over an embedded PGlite (not migrated: see `migrate`). Durability: PGlite starts PostgreSQL with
 * `-F` (fsync off) among its default start parameters, which we keep (passing `startParams` would replace them
 * all). In Node the data folder is a real directory: every write reaches the operating system before the
 * query returns, so killing the process loses nothing committed (examples/server/test/crash.test.ts); an
 * operating-system crash or power loss can lose the last commits. For tests, development, the sandbox and
 * single-process embedding; production runs on a PostgreSQL server.
 */
export const makePgliteKysely = (config: PgliteConfig = {}): Kysely<Database> => {
  const options = { parsers: { [INT8_OID]: int8 } }
  return new Kysely<Database>({
    dialect: new PGliteDialect({
      pglite: () =>
        config.dataDir !== undefined
          ? new PGlite({ ...options, dataDir: config.dataDir })
          : new PGlite(config.template === undefined ? options : { ...options, loadDataDir: config.template })
    })
  })
}
