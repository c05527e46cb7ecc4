import { PGlite } from "@electric-sql/pglite"
import { Kysely, PGliteDialect, PostgresDialect } from "kysely"
import pg, { type CustomTypesConfig, Pool, types as pgTypes } from "pg"
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

/** How long a pool's connection stays idle before TCP keepalive probes it (then again at each such idle spell). */
export const KEEP_ALIVE_IDLE_MS = 60_000

export interface PgConfig extends StoreOptions {
  readonly connectionString: string
  /** Pool size (default 10). */
  readonly max?: number | undefined
  /**
   * Connections the pool keeps open however long they stay idle (default `max`: a pool of fixed size). Above this
   * many, a connection idle for 10 s is closed. A new server connection costs a backend process, its catalog caches
   * loaded again, and every statement prepared again and planned five times before PostgreSQL keeps a generic plan:
   * after a lull, a pool that had shrunk spends its first seconds of traffic on that (docs/operations.md, "Connections
   * stay open").
   */
  readonly minConnections?: number | undefined
  /**
   * A schema to work in (it must exist): the first of the connections' `search_path`, set by the `options` startup
   * parameter (which pgbouncer refuses: behind it, set the role's search_path instead, docs/operations.md).
   */
  readonly schema?: string | undefined
  /**
   * Named prepared statements, parsed once per server connection (the default, unless a pooler that moves a
   * session between server connections is found at start: see `detectTransactionPooling`). `false` behind such a
   * pooler (pgbouncer `pool_mode = transaction` before 1.21, or without `max_prepared_statements`): every
   * statement is parsed where it runs, and rail references are recorded flushed (as `flushRailReferences`).
   * `true` skips the check at start.
   */
  readonly preparedStatements?: boolean | undefined
}

/** How the store talks to a pool of your own (see `PgConfig.preparedStatements`; default true here). */
export interface PoolOptions {
  /** Named prepared statements (default true): `false` behind a pooler in transaction mode. Not checked at start. */
  readonly preparedStatements?: boolean | undefined
}

/**
 * A Kysely over your own node-postgres pool (not migrated: see `migrate`), which the store then talks to directly,
 * as to the pool of `makePgKysely`: named prepared statements, and transactions pipelined when the pool was made
 * with `pipeline: true`. The pool must parse int8 as a number (`types: pgTypeParsers`), or this throws; its
 * connection settings (ssl, `options` such as a `search_path`, timeouts, size) are yours. The store opens three more
 * connections beside the pool with the pool's settings (see `SqlClient.queryUnflushed` and `SqlClient.query`); the
 * Kysely's `destroy()` closes them and ends the pool.
 */
export const makePgKyselyFromPool = (pool: Pool, options: PoolOptions = {}): Kysely<Database> => {
  const int8Parser = pool.options.types?.getTypeParser(INT8_OID, "text") as ((value: string) => unknown) | undefined
  if (int8Parser?.("1") !== 1) {
    throw new Error("store-postgres: the pool must parse int8 as a number: new Pool({ ..., types: pgTypeParsers })")
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  registerPool(db, pool, options.preparedStatements ?? true)
  return db
}

/** A Kysely over a node-postgres pool (not migrated: see `migrate`). */
export const makePgKysely = (config: PgConfig): Kysely<Database> => {
  if (config.schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(config.schema)) {
    throw new Error(`store-postgres: schema name ${JSON.stringify(config.schema)} is not a plain identifier`)
  }
  const max = config.max ?? 10
  const pool = new Pool({
    connectionString: config.connectionString,
    max,
    min: Math.min(config.minConnections ?? max, max),
    // Connections kept through a lull must outlast the middleboxes' idle timeouts (NAT gateways, cloud balancers:
    // 4 to 6 minutes): a mapping dropped silently would make the next statement wait for TCP's own timeout.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_IDLE_MS,
    types: pgTypeParsers,
    // Statements sent before the answer to the previous one (see sql.ts): BEGIN with the first statement, writes
    // with the next statement or the COMMIT.
    pipeline: true,
    ...(config.schema === undefined ? {} : { options: `-c search_path=${config.schema}` })
  })
  return makePgKyselyFromPool(pool, config)
}

const backendOf = async (client: pg.Client): Promise<number> =>
  (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid

/** How long a session's own backend may take to answer `pg_backend_pid()` in the probe below. */
const PROBE_WAIT_MS = 3_000

const waited = (ms: number): Promise<undefined> =>
  new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref())

/** What a pooler says when it refuses the `options` startup parameter (pgbouncer before 1.20). */
const REFUSED_OPTIONS = /unsupported startup parameter: options/

/**
 * Whether the connections of `pool` reach PostgreSQL through a pooler that gives one client session a different
 * server connection from one transaction to the next (pgbouncer `pool_mode = transaction`, and others alike):
 * session A reads its backend, session B takes a backend in an open transaction (a pooler reuses the one A just
 * gave back), A reads its backend again. On a direct connection (or a pooler in session mode) A's backend never
 * changes; a pooler per transaction hands A another one as soon as B holds the first, or makes A wait for one
 * (a pool of one server connection: A waiting 3 s counts as pooled). Three tries; two connections with the pool's
 * settings, closed after.
 */
export const detectTransactionPooling = async (pool: Pool): Promise<boolean> => {
  const a = new pg.Client(pool.options as pg.ClientConfig)
  const b = new pg.Client(pool.options as pg.ClientConfig)
  a.on("error", () => undefined)
  b.on("error", () => undefined)
  try {
    await Promise.all([a.connect(), b.connect()])
    for (let attempt = 0; attempt < 3; attempt++) {
      const first = await backendOf(a)
      await b.query("BEGIN")
      await backendOf(b)
      const again = backendOf(a)
      // A pooler with no other server connection free makes A wait for B's: a session of its own never waits.
      const second = await Promise.race([again, waited(PROBE_WAIT_MS)])
      await b.query("ROLLBACK")
      await again
      if (second === undefined || first !== second) return true
    }
    return false
  } catch (error) {
    if (REFUSED_OPTIONS.test(String((error as { message?: unknown }).message))) {
      throw new Error(
        "store-postgres: the server (a connection pooler) refused the `options` startup parameter, which `schema` " +
          "uses to set the search_path: leave `schema` unset and set the search_path on the role " +
          "(ALTER ROLE … SET search_path = …) or in the pooler (docs/operations.md, Behind a connection pooler)"
      )
    }
    throw error
  } finally {
    await Promise.all([a.end().catch(() => undefined), b.end().catch(() => undefined)])
  }
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
