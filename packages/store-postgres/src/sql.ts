import { CompiledQuery, type Kysely, type QueryResult } from "kysely"
import type { QueryResult as PgQueryResult, Pool, PoolClient, QueryConfig } from "pg"

/**
 * How the store reaches its database: one statement on the pool, or a connection in a transaction. The store
 * sends SQL text only (no query builder), so this is all it needs of a driver.
 *
 * - On a node-postgres pool made by `makePgKysely` (see `registerPool`) the store talks to the pool directly:
 *   its fixed statements are named prepared statements (parsed and planned once per connection, as
 *   `pgbench -M prepared` does: that halves the server's CPU per statement), and the connections pipeline,
 *   so BEGIN travels with the first statement of a transaction and writes whose answer nobody waits for
 *   travel with the statements after them (see `SqlTransaction.send`).
 * - On any other Kysely (PGlite, in process) every statement goes through Kysely and is awaited.
 */
export interface SqlClient {
  /** One autocommitted statement; `prepare`: a fixed statement worth a named prepared statement. */
  readonly query: (text: string, params: ReadonlyArray<unknown>, prepare: boolean) => Promise<QueryResult<Row>>
  /** A connection in a READ COMMITTED transaction. */
  readonly begin: () => Promise<SqlTransaction>
  /** Whether statements issued at once share round trips (a pg connection in pipeline mode; not Kysely). */
  readonly pipelines: boolean
}

export interface SqlTransaction {
  readonly query: (text: string, params: ReadonlyArray<unknown>, prepare: boolean) => Promise<QueryResult<Row>>
  /**
   * A statement whose answer the caller does not wait for, when the connection pipelines (else `undefined`:
   * the caller runs it with `query`). It goes out with the next statement or the COMMIT, in order, and its
   * answer comes before theirs, so its failure is known before the transaction's outcome is.
   */
  readonly send: (
    text: string,
    params: ReadonlyArray<unknown>,
    prepare: boolean
  ) => Promise<QueryResult<Row>> | undefined
  /**
   * COMMIT, and gives the connection back. Fails when the server rolled back instead (a statement of the
   * transaction failed): then `rollback` gives the connection back.
   */
  readonly commit: () => Promise<void>
  /** ROLLBACK, and gives the connection back (a broken one is closed); never fails. */
  readonly rollback: () => Promise<void>
}

export type Row = Record<string, any>

// ---------------------------------------------------------------------------------------------
// node-postgres
// ---------------------------------------------------------------------------------------------

/** The pool behind a Kysely made by `makePgKysely`. */
const pools = new WeakMap<Kysely<any>, Pool>()

export const registerPool = (db: Kysely<any>, pool: Pool): void => {
  pools.set(db, pool)
}

/**
 * Names of the prepared statements, per statement text, for the whole process: a connection refuses one
 * name for two texts, and stores sharing a pool share its connections.
 */
const statementNames = new Map<string, string>()

const queryConfig = (text: string, params: ReadonlyArray<unknown>, prepare: boolean): QueryConfig => {
  if (!prepare) return { text, values: params as Array<unknown> }
  let name = statementNames.get(text)
  if (name === undefined) {
    name = `paycore_${statementNames.size + 1}`
    statementNames.set(text, name)
  }
  return { name, text, values: params as Array<unknown> }
}

const FEATURE_NOT_SUPPORTED = "0A000"

/**
 * A prepared statement whose result columns changed under it (a migration by another process added a column):
 * PostgreSQL refuses it on this connection until it is prepared again, so the connection is closed.
 */
const isStalePlan = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === FEATURE_NOT_SUPPORTED

const resultOf = (result: PgQueryResult<Row>): QueryResult<Row> => {
  const { command, rowCount, rows } = result
  const changes = command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE"
  return changes ? { numAffectedRows: BigInt(rowCount ?? 0), rows } : { rows }
}

interface Unsent {
  readonly config: QueryConfig
  readonly resolve: (result: QueryResult<Row>) => void
  readonly reject: (error: unknown) => void
}

const uncork = (stream: PoolClient["connection"]["stream"]): void => stream.uncork()

const pgTransaction = (client: PoolClient): SqlTransaction => {
  let begun = false
  let broken = false
  /** Writes `send` holds until the next statement, to go out with it in one write to the socket. */
  let unsent: Array<Unsent> = []
  const answerOf = (config: QueryConfig): Promise<QueryResult<Row>> =>
    client.query(config).then(resultOf, (error: unknown) => {
      if (isStalePlan(error)) broken = true
      throw error
    })
  /**
   * Sends BEGIN (before the first statement), the held writes and `last` in one write to the socket (the
   * connection pipelines, so none waits for the answer before it). BEGIN's failure (a broken connection) is
   * `last`'s. The socket is uncorked after the current synchronous run, so statements issued together
   * (fibers of one `Effect.all`, started at once) share that write too: each write costs both processes a
   * system call and a wake-up.
   */
  const flush = <A>(last: () => Promise<A>): Promise<A> => {
    const stream = client.connection.stream
    stream.cork()
    process.nextTick(uncork, stream)
    const begin = begun ? undefined : client.query("BEGIN ISOLATION LEVEL READ COMMITTED")
    begun = true
    const held = unsent
    unsent = []
    for (const w of held) answerOf(w.config).then(w.resolve, w.reject)
    const answer = last()
    return begin === undefined ? answer : Promise.all([begin, answer]).then(([, result]) => result)
  }
  return {
    query: (text, params, prepare) => flush(() => answerOf(queryConfig(text, params, prepare))),
    send: (text, params, prepare) =>
      new Promise((resolve, reject) => {
        unsent.push({ config: queryConfig(text, params, prepare), resolve, reject })
      }),
    commit: async () => {
      if (begun || unsent.length > 0) {
        const result = await flush(() => client.query("COMMIT"))
        // COMMIT of a transaction that a failed statement aborted answers ROLLBACK, without an error.
        if (result.command !== "COMMIT") throw new Error("the transaction was rolled back instead of committed")
      }
      client.release()
    },
    rollback: async () => {
      const held = unsent
      unsent = []
      for (const w of held) w.reject(new Error("rolled back before it was sent"))
      try {
        if (begun) await client.query("ROLLBACK")
      } catch {
        broken = true
      }
      client.release(broken)
    }
  }
}

/** pg-pool closes the connection of an autocommitted statement that failed (a stale plan included). */
const pgClient = (pool: Pool): SqlClient => ({
  query: (text, params, prepare) => pool.query(queryConfig(text, params, prepare)).then(resultOf),
  begin: () => pool.connect().then(pgTransaction),
  pipelines: true
})

// ---------------------------------------------------------------------------------------------
// Kysely (PGlite, or any Kysely the caller made)
// ---------------------------------------------------------------------------------------------

const kyselyClient = (db: Kysely<any>): SqlClient => ({
  query: (text, params) => db.executeQuery<Row>(CompiledQuery.raw(text, params as Array<unknown>)),
  pipelines: false,
  begin: async () => {
    const trx = await db.startTransaction().setIsolationLevel("read committed").execute()
    return {
      query: (text, params) => trx.executeQuery<Row>(CompiledQuery.raw(text, params as Array<unknown>)),
      send: () => undefined,
      commit: () => trx.commit().execute(),
      rollback: () =>
        trx
          .rollback()
          .execute()
          .catch(() => undefined)
    }
  }
})

/** The client of `db`: its pool directly when `makePgKysely` made it, else Kysely. */
export const sqlClientOf = (db: Kysely<any>): SqlClient => {
  const pool = pools.get(db)
  return pool === undefined ? kyselyClient(db) : pgClient(pool)
}
