import { CompiledQuery, type Kysely, type QueryResult } from "kysely"
import pg, { type QueryResult as PgQueryResult, type Pool, type PoolClient, type QueryConfig } from "pg"
import { canCompile } from "./codec.ts"
import { isBrokenConnection } from "./driver-errors.ts"

/**
 * How the store reaches its database: one statement on the pool, or a connection in a transaction. The store
 * sends SQL text only (no query builder), so this is all it needs of a driver.
 *
 * - On a node-postgres pool made by `makePgKysely` (see `registerPool`) the store talks to the pool directly:
 *   its fixed statements are named prepared statements (parsed and planned once per connection, as
 *   `pgbench -M prepared` does: that halves the server's CPU per statement), and the connections pipeline:
 *   the statements of a transaction issued at one moment go out as one `Batch` (one Sync, one answer), BEGIN
 *   travels with the first of them, and writes whose answer nobody waits for travel with the statements
 *   after them (see `SqlTransaction.send`).
 * - On any other Kysely (PGlite, in process) every statement goes through Kysely and is awaited.
 */
export interface SqlClient {
  /**
   * One autocommitted statement; `prepare`: a fixed statement worth a named prepared statement (on a pg pool a
   * prepared SELECT runs on one of the read sessions beside the pool, see `pgClient`).
   */
  readonly query: (text: string, params: ReadonlyArray<unknown>, prepare: boolean) => Promise<QueryResult<Row>>
  /**
   * One autocommitted statement whose COMMIT is acknowledged before its WAL is flushed (`synchronous_commit =
   * off`): every session sees it at once, and it is durable within the WAL writer's delay, unless the database
   * server crashes first (then it is lost whole). For writes a retry redoes; see `TransactionCollection.updateIf`.
   */
  readonly queryUnflushed: (text: string, params: ReadonlyArray<unknown>) => Promise<QueryResult<Row>>
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

/**
 * The pool behind a Kysely made by `makePgKysely`, the session of its unflushed statements, the sessions of its
 * autocommitted reads, and how it talks.
 */
interface Registered {
  readonly pool: Pool
  readonly unflushed: PipelinedSession
  readonly reads: ReadonlyArray<PipelinedSession>
  /**
   * Named prepared statements (and the unflushed and read sessions beside the pool). Off behind a pooler that moves a session
   * between server connections (pgbouncer `pool_mode = transaction`): every statement is parsed where it runs, and
   * unflushed writes go through the pool as any other (flushed) write. See `PgConfig.preparedStatements`.
   */
  prepared: boolean
}

const pools = new WeakMap<Kysely<any>, Registered>()

const ignoreError = (): void => undefined

/**
 * Registers `pool` as `db`'s; ending the pool (Kysely's `destroy`) also closes the sessions beside it. A connection
 * that breaks (a server restart, a failover) fails the statements on it, never the process: pg emits `error` on
 * the pool for an idle connection and on a checked-out client between statements, which throw when nobody listens.
 */
export const registerPool = (db: Kysely<any>, pool: Pool, prepared = true): void => {
  const unflushed = new PipelinedSession(pool, "-c synchronous_commit=off")
  const reads = Array.from({ length: READ_SESSIONS }, () => new PipelinedSession(pool))
  const end = pool.end.bind(pool)
  pool.end = (() =>
    Promise.all([unflushed, ...reads].map((session) => session.close())).then(() => end())) as Pool["end"]
  // Kysely ends the pool only if it ran a statement itself (its driver takes the pool at its first): a store that
  // reached the database only through this module would keep its connections, and node its process, open.
  const destroy = db.destroy.bind(db)
  db.destroy = async () => {
    await destroy()
    if (!pool.ending) await pool.end()
  }
  pool.on("error", ignoreError)
  pool.on("connect", (client) => client.on("error", ignoreError))
  pools.set(db, { pool, unflushed, reads, prepared })
}

/** The pool of a Kysely made by `makePgKysely` (or `makePgKyselyFromPool`). */
export const poolOf = (db: Kysely<any>): Pool | undefined => pools.get(db)?.pool

/** Turns named prepared statements off for `db`'s pool (before a store is made on it). */
export const stopPreparing = (db: Kysely<any>): void => {
  const registered = pools.get(db)
  if (registered !== undefined) registered.prepared = false
}

/**
 * A connection beside the pool in pipeline mode, each write its own implicit transaction (its own Sync) and the reads
 * of a turn one (see `read`): the statements issued in one turn of the event loop (the requests of one I/O batch) go
 * out in one socket write when the loop reaches its check phase, and a named statement whose row shape is known is
 * sent without Describe. Each write costs both processes a system call and a wake-up, which on a VM costs more than
 * the statement itself.
 * Opened at first use, again after it broke (or after a prepared statement went stale under it).
 */
class PipelinedSession {
  private readonly pool: Pool
  /** Startup options added to the pool's (`-c synchronous_commit=off`). */
  private readonly extra: string | undefined
  private client: Promise<pg.Client> | undefined
  /** Statements were issued this turn: their write goes out at the check phase (`setImmediate`). */
  writing = false
  /** The sockets corked this turn (one, unless the session reconnected meanwhile). */
  private corked: Array<Wire["stream"]> = []
  /** Statements sent and not answered yet (how busy the session is). */
  inFlight = 0

  constructor(pool: Pool, extra?: string) {
    this.pool = pool
    this.extra = extra
  }

  private connect(): Promise<pg.Client> {
    const options = this.pool.options as pg.PoolConfig & { readonly options?: string }
    const client = new pg.Client({
      ...options,
      pipeline: true,
      options: [options.options, this.extra].filter(Boolean).join(" ") || undefined
    } as pg.ClientConfig)
    // A broken session (server restart, idle timeout) is dropped; the next statement opens another.
    const drop = () => {
      if (this.client === connected) this.client = undefined
    }
    client.on("error", drop)
    client.on("end", drop)
    const connected = client.connect().then(
      () => client,
      (error: unknown) => {
        drop()
        throw error
      }
    )
    this.client = connected
    return connected
  }

  /** Ends the session (a statement of it went stale or half prepared): the next statement opens another. */
  private discard(client: pg.Client): void {
    void this.client?.then((c) => {
      if (c === client) this.client = undefined
    })
    void client.end().catch(ignoreError)
  }

  /** The turn's reads (see `read`), sent at its check phase. */
  private reads: Array<Queued> = []

  /** Statements were issued this turn: at its check phase, the turn's reads go out and the corked sockets write. */
  private schedule(): void {
    if (this.writing) return
    this.writing = true
    setImmediate(() => {
      this.writing = false
      if (this.reads.length > 0) this.sendReads()
      for (const stream of this.corked.splice(0)) stream.uncork()
    })
  }

  /**
   * A SELECT: the reads of one turn go out as one batch with one Sync, so the server runs them in one implicit
   * transaction and answers one ReadyForQuery (each still reads what was committed when it starts: read committed).
   * A failed read skips the rest of its batch (PostgreSQL skips to the Sync): those run again alone.
   */
  read(config: QueryConfig): Promise<Answer> {
    this.inFlight++
    return new Promise<Answer>((resolve, reject) => {
      const settle = () => this.inFlight--
      this.reads.push({
        config,
        resolve: (answer) => {
          settle()
          resolve(answer)
        },
        reject: (error) => {
          settle()
          if (error instanceof NotRun) this.query(config).then(resolve, reject)
          else reject(error)
        }
      })
      this.schedule()
    })
  }

  private sendReads(): void {
    const reads = this.reads
    this.reads = []
    ;(this.client ?? this.connect()).then(
      (client) => {
        const batch: Batch = new Batch(undefined, reads, (error) => this.afterBatch(client, batch, error))
        client.query(batch)
      },
      (error: unknown) => {
        for (const read of reads) read.reject(error)
      }
    )
  }

  /**
   * A session the server ended (its FATAL answers the statement before the socket closes) is dropped at once, so
   * that the statement's rerun opens another instead of writing to the closing one.
   */
  private afterBatch(client: pg.Client, batch: Batch, error: unknown): void {
    if (batch.suspect || isStalePlan(error) || (error !== undefined && isBrokenConnection(error))) {
      this.discard(client)
    }
  }

  async query(config: QueryConfig): Promise<Answer> {
    this.inFlight++
    this.schedule()
    try {
      const client = await (this.client ?? this.connect())
      const stream = (client as unknown as { connection: { stream: Wire["stream"] } }).connection.stream
      // A statement whose connection came after the turn's write (a connect) goes out at once.
      if (this.writing && !this.corked.includes(stream)) {
        this.corked.push(stream)
        stream.cork()
      }
      return await new Promise<Answer>((resolve, reject) => {
        const batch: Batch = new Batch(undefined, [{ config, resolve, reject }], (error) =>
          this.afterBatch(client, batch, error)
        )
        client.query(batch)
      })
    } finally {
      this.inFlight--
    }
  }

  async close(): Promise<void> {
    const client = this.client
    this.client = undefined
    if (client !== undefined) await client.then((c) => c.end()).catch(() => undefined)
  }
}

/**
 * How many sessions share a pool's autocommitted reads (`SqlClient.query` of a prepared SELECT). A read joins the
 * session whose write is already due this turn while fewer than `READ_SPILL` statements wait on it (one write for
 * all of them); else it goes to the session with fewer unanswered statements, so a read that takes long holds up
 * only the reads behind it on its own session, and the server can run two at once.
 */
const READ_SESSIONS = 2
const READ_SPILL = 16

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

/** A statement's rows and changed-row count, and its command (`COMMIT` answers `ROLLBACK` after a failure). */
type Answer = QueryResult<Row> & { readonly command: string }

/** A statement's answer: its rows, and for a write the rows it changed (Kysely's `numAffectedRows`). */
const resultOf = (command: string, rowCount: number, rows: Array<Row>): Answer => {
  const changes = command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE"
  return changes ? { command, numAffectedRows: BigInt(rowCount), rows } : { command, rows }
}

// ---------------------------------------------------------------------------------------------
// Batches: several statements, one Sync
// ---------------------------------------------------------------------------------------------

/** A statement of a batch, and who waits for its answer. */
interface Queued {
  readonly config: QueryConfig
  readonly resolve: (result: Answer) => void
  readonly reject: (error: unknown) => void
}

/** The part of pg's Connection a batch writes to (the extended-query protocol messages). */
interface Wire {
  readonly stream: { readonly cork: () => void; readonly uncork: () => void }
  readonly parsedStatements: Record<string, string>
  readonly parse: (query: { text: string; name: string; types: Array<number> }) => void
  readonly bind: (config: {
    portal: string
    statement: string
    values: Array<unknown>
    valueMapper: (value: unknown) => unknown
  }) => void
  readonly describe: (message: { type: "P"; name: string }) => void
  readonly execute: (config: { portal: string; rows: number }) => void
  readonly sync: () => void
}

interface FieldDescription {
  readonly name: string
  readonly dataTypeID: number
  readonly format: "text" | "binary"
}

/** What a statement's rows look like: its column names and their parsers, and how a row is read with them. */
interface RowShape {
  readonly names: ReadonlyArray<string>
  readonly parsers: ReadonlyArray<(raw: string) => unknown>
  readonly row: (raw: ReadonlyArray<string | null>) => Row
}

type TypeParsers = { getTypeParser: (oid: number, format: "text" | "binary") => (raw: string) => unknown }

/**
 * The row shapes of named statements, learned from the first answer to each (Describe). Process-wide like the
 * names: a named statement's text fixes its shape while the schema stays; a migration that changes it makes
 * PostgreSQL refuse the prepared statement (`isStalePlan`), which forgets the shape.
 */
const shapes = new Map<string, RowShape>()

/** A row read column by column: one keyed store per column, each through a site that sees every name. */
const interpretedRow =
  (names: ReadonlyArray<string>, parsers: RowShape["parsers"]) =>
  (raw: ReadonlyArray<string | null>): Row => {
    const row: Row = {}
    for (let i = 0; i < raw.length; i++) {
      const value = raw[i]
      row[names[i]!] = value === null || value === undefined ? null : parsers[i]!(value)
    }
    return row
  }

/**
 * A named statement's rows read by straight-line code made once for its shape: one object literal (every row of it
 * gets the same hidden class at once) and a parser call site per column. A wide row (a customer's 36 columns) read
 * column by column was a tenth of `GET /customers/{id}`'s CPU on PostgreSQL.
 */
const compiledRow = (names: ReadonlyArray<string>, parsers: RowShape["parsers"]): RowShape["row"] => {
  const columns = names.map(
    (name, i) => `${JSON.stringify(name)}: (v = r[${i}]) === null || v === undefined ? null : p[${i}](v)`
  )
  return new Function("p", `return (r) => { let v; return { ${columns.join(", ")} } }`)(parsers)
}

const NO_ROWS: RowShape = { names: [], parsers: [], row: () => ({}) }

const shapeOf = (fields: ReadonlyArray<FieldDescription>, types: TypeParsers): RowShape => {
  const names = fields.map((f) => f.name)
  const parsers = fields.map((f) => types.getTypeParser(f.dataTypeID, f.format || "text"))
  return { names, parsers, row: interpretedRow(names, parsers) }
}

/**
 * The shape kept for a named statement: its rows read by compiled code where code can be compiled (and no column is
 * named `__proto__`, which a literal would take as the object's prototype).
 */
const keptShape = (shape: RowShape): RowShape =>
  canCompile && shape.names.length > 0 && !shape.names.includes("__proto__")
    ? { ...shape, row: compiledRow(shape.names, shape.parsers) }
    : shape

const COMMAND = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/

/** The answer to one statement of a batch, from its CommandComplete text (`INSERT 0 3`, `UPDATE 1`, `SELECT 2`). */
const answerOf = (commandComplete: string, rows: Array<Row>): Answer => {
  const match = COMMAND.exec(commandComplete)
  // The count is the last number (INSERT gives an oid first).
  return resultOf(match?.[1] ?? "", Number(match?.[3] ?? match?.[2] ?? 0), rows)
}

const BEGIN_TEXT = "BEGIN ISOLATION LEVEL READ COMMITTED"
const BEGIN = queryConfig(BEGIN_TEXT, [], true)
const BEGIN_UNNAMED = queryConfig(BEGIN_TEXT, [], false)

/** A statement after the one that failed: PostgreSQL skipped it (the transaction is aborted). */
class NotRun extends Error {
  constructor() {
    super("not run: an earlier statement of its batch failed")
  }
}

/** How pg writes a JS value as a parameter (dates, arrays, buffers, objects as JSON). */
const prepareValue = (pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }).utils.prepareValue

/**
 * Statements sent together with one Sync at the end, as pg's pipelining would send them with one Sync each:
 * PostgreSQL then answers the whole batch in one write instead of one per statement, and a named statement
 * whose row shape is known is sent without Describe (no RowDescription comes back). The first failure
 * fails its statement; PostgreSQL skips the rest up to the Sync, so they fail with `NotRun`.
 *
 * It is a `pg.Query` (by its prototype, see below) only so that a pipelining client accepts it; it answers through
 * the handlers a client calls on its active query (see pg's client.js).
 */
class Batch {
  /** Where the client puts its type parsers before submitting a query (the pool's `types`). */
  readonly _result: { _types: TypeParsers | undefined } = { _types: undefined }
  private readonly statements: ReadonlyArray<Queued>
  private readonly onDone: (error: unknown) => void
  private readonly begin: QueryConfig | undefined
  /** The statement being answered (-1: BEGIN). */
  private index: number
  private shape: RowShape | undefined
  private received: Array<Row> = []
  /** Statements this batch prepared (their Parse was sent here). */
  private readonly prepared = new Set<number>()
  /** The connection may hold a statement half prepared: close it instead of reusing it. */
  suspect = false
  private done = false

  /** `begin`: BEGIN goes first (statement -1); its failure (a broken connection) is every statement's. */
  constructor(begin: QueryConfig | undefined, statements: ReadonlyArray<Queued>, onDone: (error: unknown) => void) {
    this.begin = begin
    this.index = begin === undefined ? 0 : -1
    this.statements = statements
    this.onDone = onDone
  }

  private get parsers(): TypeParsers {
    return this._result._types ?? (pg.types as unknown as TypeParsers)
  }

  submit(connection: unknown): Error | null {
    const wire = connection as Wire
    // One write to the socket for the whole batch.
    wire.stream.cork()
    try {
      this.write(wire)
    } finally {
      wire.stream.uncork()
    }
    return null
  }

  /** The texts sent, BEGIN included (for diagnostics: bench/postgres.ts counts statements by them). */
  get texts(): ReadonlyArray<string> {
    const texts = this.statements.map((s) => s.config.text)
    return this.begin === undefined ? texts : [this.begin.text, ...texts]
  }

  private write(wire: Wire): void {
    for (let i = this.begin === undefined ? 0 : -1; i < this.statements.length; i++) {
      const { name, text, values } = i < 0 ? this.begin! : this.statements[i]!.config
      const statement = name ?? ""
      if (name === undefined) wire.parse({ text, name: "", types: [] })
      else if (wire.parsedStatements[name] === undefined) {
        wire.parse({ text, name, types: [] })
        wire.parsedStatements[name] = text
        this.prepared.add(i)
      }
      wire.bind({ portal: "", statement, values: values ?? [], valueMapper: prepareValue })
      if (name === undefined || !shapes.has(name)) wire.describe({ type: "P", name: "" })
      wire.execute({ portal: "", rows: 0 })
    }
    wire.sync()
  }

  private statementName(): string | undefined {
    return this.index < 0 ? this.begin?.name : this.statements[this.index]?.config.name
  }

  handleRowDescription(message: { fields: Array<FieldDescription> }): void {
    this.shape = shapeOf(message.fields, this.parsers)
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    const shape = this.shape ?? shapes.get(this.statementName() ?? "") ?? NO_ROWS
    this.received.push(shape.row(message.fields))
  }

  handleCommandComplete(message: { text: string }): void {
    const name = this.statementName()
    if (name !== undefined && !shapes.has(name))
      shapes.set(name, this.shape === undefined ? NO_ROWS : keptShape(this.shape))
    if (this.index >= 0) this.statements[this.index]?.resolve(answerOf(message.text, this.received))
    this.index++
    this.shape = undefined
    this.received = []
  }

  handleEmptyQuery(): void {
    if (this.index >= 0) this.statements[this.index]?.resolve({ command: "", rows: [] })
    this.index++
  }

  handleError(error: unknown): void {
    if (this.done) return
    this.done = true
    const failed = this.index
    const name = this.statementName()
    if (isStalePlan(error) && name !== undefined) shapes.delete(name)
    // A statement prepared here at or after the failure may or may not exist on the connection.
    for (const i of this.prepared) if (i >= failed) this.suspect = true
    this.statements[failed]?.reject(error)
    const skipped = failed < 0 ? error : new NotRun()
    for (let i = failed + 1; i < this.statements.length; i++) this.statements[i]!.reject(skipped)
    this.onDone(error)
  }

  handleReadyForQuery(): void {
    if (this.done) return
    this.done = true
    this.onDone(undefined)
  }
}

// A pipelining client takes only a `pg.Query` or an instance of it; pg's constructor is not run (it copies a config
// through property descriptors and builds a result the batch never uses: 4 % of a `GET /customers/{id}`'s CPU).
Object.setPrototypeOf(Batch.prototype, pg.Query.prototype)

/**
 * A connection in a transaction. Statements wait in `queue` until the end of the current synchronous run, then go
 * out as one `Batch` (BEGIN first, for the first batch): statements issued together (fibers of one `Effect.all`,
 * started at once) share one write to the socket and one answer, and writes `send` holds travel with the next
 * statement or the COMMIT. Each write costs both processes a system call and a wake-up.
 */
const pgTransaction = (client: PoolClient, prepared: boolean): SqlTransaction => {
  let begun = false
  let broken = false
  let queue: Array<Queued> = []
  let scheduled = false
  const submit = (): void => {
    scheduled = false
    if (queue.length === 0) return
    const batch = new Batch(begun ? undefined : prepared ? BEGIN : BEGIN_UNNAMED, queue, (error) => {
      if (batch.suspect || isStalePlan(error)) broken = true
    })
    begun = true
    queue = []
    client.query(batch)
  }
  const enqueue = (config: QueryConfig, now: boolean): Promise<Answer> =>
    new Promise((resolve, reject) => {
      queue.push({ config, resolve, reject })
      if (now && !scheduled) {
        scheduled = true
        process.nextTick(submit)
      }
    })
  return {
    query: (text, params, prepare) => enqueue(queryConfig(text, params, prepare && prepared), true),
    send: (text, params, prepare) => enqueue(queryConfig(text, params, prepare && prepared), false),
    commit: async () => {
      if (begun || queue.length > 0) {
        const answer = await enqueue(prepared ? COMMIT : COMMIT_UNNAMED, true)
        // COMMIT of a transaction that a failed statement aborted answers ROLLBACK, without an error.
        if (answer.command !== "COMMIT") throw new Error("the transaction was rolled back instead of committed")
      }
      client.release()
    },
    rollback: async () => {
      const unsent = queue
      queue = []
      for (const statement of unsent) statement.reject(new Error("rolled back before it was sent"))
      try {
        if (begun) await client.query("ROLLBACK")
      } catch {
        broken = true
      }
      client.release(broken)
    }
  }
}

const COMMIT = queryConfig("COMMIT", [], true)
const COMMIT_UNNAMED = queryConfig("COMMIT", [], false)

/**
 * pg-pool closes the connection of an autocommitted statement that failed (a stale plan included). Without
 * prepared statements (a pooler in transaction mode) an unflushed write is an ordinary one: the unflushed session
 * sets `synchronous_commit` for the session, which a pooler refuses (pgbouncer: the `options` startup parameter)
 * or would leave on a server connection other clients then use; and reads go through the pool too (a session in
 * pipeline mode behind such a pooler is not one server connection).
 *
 * A prepared autocommitted SELECT (a read by id or by a unique key, outside a transaction) goes to the read session
 * with fewer unanswered statements instead of a pooled connection: the reads of one I/O batch then share one write
 * and one wake-up of the server per session instead of one each, and one implicit transaction (see
 * `PipelinedSession.read`). Each is still its own statement on the database itself: nothing is cached. Statements
 * whose text varies (lists) stay on the pool, so a long one holds up no other.
 */
const pgClient = ({ pool, unflushed, reads, prepared }: Registered): SqlClient => {
  const onPool: SqlClient["query"] = (text, params, prepare) =>
    pool
      .query(queryConfig(text, params, prepare && prepared))
      .then((result: PgQueryResult<Row>) => resultOf(result.command, result.rowCount ?? 0, result.rows))
  const read = (text: string, params: ReadonlyArray<unknown>): Promise<Answer> => {
    let session = reads[0]!
    for (const other of reads) {
      if (other.writing && other.inFlight < READ_SPILL) {
        session = other
        break
      }
      if (other.inFlight < session.inFlight) session = other
    }
    return session.read(queryConfig(text, params, true))
  }
  return {
    queryUnflushed: prepared
      ? (text, params) => unflushed.query(queryConfig(text, params, true))
      : (text, params) => onPool(text, params, false),
    query:
      prepared && reads.length > 0
        ? (text, params, prepare) =>
            prepare && text.startsWith("SELECT") ? read(text, params) : onPool(text, params, prepare)
        : onPool,
    begin: () => pool.connect().then((client) => pgTransaction(client, prepared)),
    pipelines: true
  }
}

// ---------------------------------------------------------------------------------------------
// Kysely (PGlite, or any Kysely the caller made)
// ---------------------------------------------------------------------------------------------

const kyselyClient = (db: Kysely<any>): SqlClient => {
  const query = (text: string, params: ReadonlyArray<unknown>) =>
    db.executeQuery<Row>(CompiledQuery.raw(text, params as Array<unknown>))
  return {
    query,
    // PGlite has one connection, and runs with fsync off anyway.
    queryUnflushed: query,
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
  }
}

/** The client of `db`: its pool directly when `makePgKysely` made it, else Kysely. */
export const sqlClientOf = (db: Kysely<any>): SqlClient => {
  const registered = pools.get(db)
  return registered === undefined ? kyselyClient(db) : pgClient(registered)
}
