import { PGlite } from "@electric-sql/pglite"
import type {
  BeneficialOwnerFilter,
  BulkImportJobFilter,
  Collection,
  CustomerFilter,
  DocumentFilter,
  ExternalAccountFilter,
  InternalAccountFilter,
  LedgerBalance,
  LedgerTransfer,
  OutboxFilter,
  Page,
  PageRequest,
  QuoteFilter,
  Repositories,
  TokenFilter,
  TransactionFilter,
  UniqueViolation,
  VerificationFilter,
  WebhookSecretId
} from "@paycore/core"
import { Store, StoreError, toPage } from "@paycore/core"
import { Cause, Context, Effect, Exit, Layer } from "effect"
import { Kysely, PGliteDialect, PostgresDialect, type QueryResult, type Selectable } from "kysely"
import { type CustomTypesConfig, Pool, types as pgTypes } from "pg"
import * as codecs from "./codecs.ts"
import { type Codec, valuesOf } from "./codecs.ts"
import { field, isBrokenConnection, isRerunnable, UNIQUE_VIOLATION } from "./driver-errors.ts"
import type { Database, LedgerBalancesTable, LedgerTransfersTable } from "./schema.ts"
import { migrate } from "./schema.ts"
import { type Row, registerPool, type SqlTransaction, sqlClientOf } from "./sql.ts"

export * from "./document-store.ts"
export type * from "./schema.ts"
export { MIGRATION_LOCK_TABLE, MIGRATION_TABLE, migrate, migrations } from "./schema.ts"

// ---------------------------------------------------------------------------------------------
// Driver errors
// ---------------------------------------------------------------------------------------------

/**
 * A conflict with a concurrent transaction that running the whole transaction again resolves: a
 * serialization failure, a deadlock, or a second writer of the same ledger transfer id (the ledger numbers
 * transfers per reference, so a racing writer collides on the id; the rerun reads the winner's transfers).
 */
const isConflict = (error: unknown): boolean =>
  isRerunnable(error) ||
  (field(error, "code") === UNIQUE_VIOLATION && field(error, "constraint") === "ledger_transfers_pkey")

const storeError = (error: unknown): StoreError => {
  const code = field(error, "code")
  const message = field(error, "message") ?? String(error)
  return new StoreError({
    message: `PostgreSQL store: ${code === undefined ? "" : `[${code}] `}${message}`,
    retryable: isConflict(error)
  })
}

const uniqueViolation = (index: string): UniqueViolation => ({ _tag: "UniqueViolation", index })

/** Every statement of the store but a SELECT writes (its failure cannot be taken back without a rollback). */
const writes = (text: string): boolean => !text.startsWith("SELECT")

/** A member of a group locked a row another member holds: the group rolls back and its members run alone. */
const regroup = new StoreError({
  message: "PostgreSQL store: two transactions of one group locked the same row; each runs again alone",
  retryable: true
})

/** Maps a unique violation of one of `indexes` (constraint name → the port's index name) to the port's error. */
const failureOf = (error: unknown, indexes: ReadonlyMap<string, string> | undefined): StoreError | UniqueViolation => {
  if (indexes !== undefined && field(error, "code") === UNIQUE_VIOLATION) {
    const index = indexes.get(field(error, "constraint") ?? "")
    if (index !== undefined) return uniqueViolation(index)
  }
  return storeError(error)
}

// ---------------------------------------------------------------------------------------------
// Retries
// ---------------------------------------------------------------------------------------------

/** Rows a system account's balance spreads over (see `shardOf`): at least the pool size, so sessions rarely share one. */
const SYSTEM_BALANCE_SHARDS = 32

/** The most parameters PostgreSQL takes in one statement (the protocol counts them in 16 bits). */
const MAX_PARAMS = 65_535

/** Attempts of a transaction (or of a statement outside one) that keeps meeting conflicts. */
const MAX_ATTEMPTS = 8

/**
 * A random pause before attempt `attempt + 1` (full jitter, 2-160 ms ceiling), so the transactions that
 * collided do not collide again. Real timers on purpose: a store under a test clock must not stall.
 */
const backoffMs = (attempt: number): number => Math.random() * Math.min(160, 2 ** (attempt + 1))

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const pause = (ms: number): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

// ---------------------------------------------------------------------------------------------
// Filters and pages
// ---------------------------------------------------------------------------------------------

/** The WHERE clause of a list and its parameters (`$1`, `$2`, ... in the order they are added). */
class Filter {
  readonly conditions: Array<string> = []
  readonly params: Array<unknown> = []

  param(value: unknown): string {
    this.params.push(value)
    return `$${this.params.length}`
  }
  where(condition: string): void {
    this.conditions.push(condition)
  }
  eq(column: string, value: string | undefined): void {
    if (value !== undefined) this.conditions.push(`${column} = ${this.param(value)}`)
  }
  /** Strictly after / before, as the memory store's `inRange` (instants compare as strings). */
  between(column: string, after: string | undefined, before: string | undefined): void {
    if (after !== undefined) this.conditions.push(`${column} > ${this.param(after)}`)
    if (before !== undefined) this.conditions.push(`${column} < ${this.param(before)}`)
  }
}

/** Rows a statement changed (node-postgres and PGlite both report it for INSERT ... ON CONFLICT). */
const affected = (result: QueryResult<unknown>): number =>
  result.numAffectedRows === undefined ? 0 : Number(result.numAffectedRows)

/**
 * The rows of parallel array parameters, as a subquery: `(SELECT unnest($1::text[]) AS id, ...)`, arrays of one
 * length, rows in array order. Set-returning functions in the select list run in lockstep and stream their rows;
 * `FROM unnest(...)` materializes them in a tuplestore instead, whose allocation and release in every statement
 * made glibc grow and trim the backend's heap each time (`brk`, with a TLB flush on every CPU): about a tenth of
 * the server's CPU per execute, measured with `perf` (see docs/benchmarks.md).
 */
const arrayRows = (columns: ReadonlyArray<readonly [name: string, type: string]>, first: number): string =>
  `(SELECT ${columns.map(([name, type], i) => `unnest($${first + i}::${type}[]) AS ${name}`).join(", ")})`

// ---------------------------------------------------------------------------------------------
// The store
// ---------------------------------------------------------------------------------------------

/** A DB transaction: one caller's, or the shared one of a group (see `makePostgresStore`). */
interface Tx {
  readonly conn: SqlTransaction
  /** The first failed statement: PostgreSQL refuses every later one, and COMMIT would roll back. */
  failure: StoreError | undefined
  /** That failure was a conflict with a concurrent transaction: run the whole transaction again. */
  conflict: boolean
  /** Writes sent without waiting for their answer (see `run`); settled, never rejected. */
  readonly inFlight: Array<Promise<void>>
}

/** What a fiber in a transaction runs in: the DB transaction, and its place in a group when it has one. */
interface Member {
  readonly tx: Tx
  readonly group: Group | undefined
  /** It sent a statement that writes (any but SELECT): its failure cannot be taken back alone. */
  wrote: boolean
}

/**
 * Callers' transactions run together in one DB transaction on one connection (group commit): their statements
 * of one moment share a round trip, and they share BEGIN, COMMIT and its WAL flush. A group commits when every
 * member has ended; it is rolled back, and every member run again alone, when a member failed after writing,
 * a statement failed, or two members locked one row (a member would otherwise read what the other is about to
 * change, without waiting for it). A member that failed having only read ends with its failure once the
 * group committed.
 */
interface Group {
  readonly members: Array<(tx: Exit.Exit<Tx, StoreError>) => void>
  /** Members whose effect has not ended. */
  running: number
  /** Row locks taken so far (`table:id`, `balance:account`), by member. */
  readonly locks: Map<string, Member>
  /** Some member ended in a way that rolls the group back. */
  poisoned: boolean
  /** Set when the group began (its members then run; nobody joins a waiting group's list any more). */
  tx: Tx | undefined
  /** Settles when the group committed (true) or rolled back (false). */
  readonly outcome: Promise<boolean>
  readonly settle: (committed: boolean) => void
}

interface UniqueKey<T, U extends string> {
  /** The port's name of the key. */
  readonly index: U
  readonly column: string
  /** The unique index (a violation of it is a `UniqueViolation` of `index`). */
  readonly constraint: string
  /** The key's value in a row; `undefined` when the row does not hold it (a deleted customer). */
  readonly value: (row: T) => string | undefined
  /** Only rows meeting this condition hold the key (`alias` names the row). */
  readonly holds?: (alias: string) => string
}

let storeCount = 0

/** Group commit (see `Group`): on a pipelining connection (a pg pool) only. */
export interface GroupCommit {
  /** Groups in flight at once, each on its own connection (default 2; 0: every transaction alone). */
  readonly groups?: number | undefined
  /** Members of one group at most (default 32). */
  readonly members?: number | undefined
}

/** How a store on a server runs its transactions and writes. */
export interface StoreOptions {
  /** Group commit (default: 2 groups in flight). */
  readonly groupCommit?: GroupCommit | undefined
  /**
   * Record a rail's reference (`transactions.updateIf` outside a store transaction) as any other write: in a
   * group, acknowledged after the WAL flush. Default false: on a session of its own with `synchronous_commit =
   * off` (docs/operations.md). For an engine that refuses that setting, or to have every write flushed first.
   */
  readonly flushRailReferences?: boolean | undefined
}

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
    // One reference per store, so two stores in one process never see each other's transactions.
    const CurrentTx = Context.Reference<Member | undefined>(`@paycore/store-postgres/Transaction/${++storeCount}`, {
      defaultValue: () => undefined
    })

    const sql = sqlClientOf(db)
    const grouping = {
      groups: sql.pipelines ? Math.max(0, options.groupCommit?.groups ?? 2) : 0,
      members: Math.max(1, options.groupCommit?.members ?? 32)
    }

    /** A statement outside a transaction, run again (after a random pause) while `again` says so, 8 times at most. */
    const rerunning = async (
      run: () => Promise<QueryResult<Row>>,
      again: (error: unknown, attempt: number) => boolean
    ): Promise<QueryResult<Row>> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await run()
        } catch (error) {
          if (attempt >= MAX_ATTEMPTS || !again(error, attempt)) throw error
          await sleep(backoffMs(attempt))
        }
      }
    }

    /** Outside a transaction: one statement on a pooled connection, run again on a deadlock. */
    const executeRerunning = (text: string, params: ReadonlyArray<unknown>, prepare: boolean) =>
      rerunning(() => sql.query(text, params, prepare), isRerunnable)

    /**
     * Outside a transaction: one statement committed without waiting for the WAL flush (`sql.queryUnflushed`), run
     * again on a deadlock or once on a broken connection (the session reconnects; a statement that may have been
     * applied before the break must be one that is safe to run twice, as a compare-and-set is).
     */
    const executeUnflushed = (text: string, params: ReadonlyArray<unknown>) =>
      rerunning(
        () => sql.queryUnflushed(text, params),
        (error, attempt) => isRerunnable(error) || (attempt === 1 && isBrokenConnection(error))
      )

    /** The transaction's first failure (later statements only fail because of it). */
    const failTx = (tx: Tx, error: unknown, failure: StoreError | UniqueViolation): void => {
      if (tx.failure !== undefined) return
      tx.conflict = error !== undefined && isConflict(error)
      tx.failure =
        failure._tag === "StoreError"
          ? failure
          : new StoreError({ message: `transaction aborted by ${failure.index} taken`, retryable: false })
    }

    /**
     * Runs one statement in the fiber's transaction, or on the pool outside one. `indexes` maps the unique
     * indexes whose violation the caller reports as `UniqueViolation`. `prepare`: a statement of fixed text (a
     * named prepared statement on a pg pool); list queries, whose WHERE varies, are planned for their values.
     */
    const executeWith = (
      text: string,
      params: ReadonlyArray<unknown>,
      indexes: ReadonlyMap<string, string> | undefined,
      prepare: boolean
    ): Effect.Effect<QueryResult<Row>, StoreError | UniqueViolation> =>
      Effect.withFiber((fiber) => {
        const member = fiber.getRef(CurrentTx)
        // A write outside a transaction joins a group: it shares the group's round trips and COMMIT.
        if (member === undefined && grouping.groups > 0 && writes(text)) {
          return transaction(executeWith(text, params, indexes, prepare))
        }
        if (member === undefined) {
          return Effect.tryPromise({
            try: () => executeRerunning(text, params, prepare),
            catch: (e) => failureOf(e, indexes)
          })
        }
        const tx = member.tx
        if (tx.failure !== undefined) return Effect.fail(tx.failure)
        if (!member.wrote && writes(text)) member.wrote = true
        return Effect.tryPromise({
          try: () => {
            // A write sent before this statement may have failed first (this one then only found the transaction
            // aborted): those travel with it or earlier, so they are answered by now. Not the ones sent after it,
            // which wait for a statement or COMMIT that may never come.
            const sentBefore = tx.inFlight.length
            return tx.conn.query(text, params, prepare).catch(async (error: unknown) => {
              await Promise.all(tx.inFlight.slice(0, sentBefore))
              throw error
            })
          },
          catch: (e) => {
            const failure = failureOf(e, indexes)
            const first = tx.failure === undefined
            failTx(tx, e, failure)
            return first ? failure : tx.failure!
          }
        })
      })

    const execute = (
      text: string,
      params: ReadonlyArray<unknown>,
      indexes?: ReadonlyMap<string, string>
    ): Effect.Effect<QueryResult<Row>, StoreError | UniqueViolation> => executeWith(text, params, indexes, true)

    const query = (text: string, params: ReadonlyArray<unknown>): Effect.Effect<Array<Row>, StoreError> =>
      Effect.map(execute(text, params) as Effect.Effect<QueryResult<Row>, StoreError>, (result) => result.rows)

    /**
     * A write whose only possible failure is a StoreError. In a transaction on a pipelining connection it is sent
     * without waiting for the answer: it travels with the next statement or the COMMIT, and its failure fails
     * the transaction there (as a failed statement does anyway: PostgreSQL aborts the transaction).
     */
    const run = (text: string, params: ReadonlyArray<unknown>): Effect.Effect<void, StoreError> =>
      Effect.withFiber((fiber) => {
        const member = fiber.getRef(CurrentTx)
        const tx = member?.tx
        const answer = tx === undefined || tx.failure !== undefined ? undefined : tx.conn.send(text, params, true)
        if (answer === undefined)
          return Effect.asVoid(execute(text, params) as Effect.Effect<QueryResult<Row>, StoreError>)
        member!.wrote = true
        tx!.inFlight.push(answer.then(ignore, (error: unknown) => failTx(tx!, error, storeError(error))))
        return Effect.void
      })

    /**
     * Notes row locks a member of a group takes (before it takes them). A lock another member of its group
     * holds would not make it wait (they share the DB transaction): the group is rolled back instead, and
     * its members run again alone.
     */
    const locking = <A, E>(
      keys: ReadonlyArray<string>,
      effect: Effect.Effect<A, E>
    ): Effect.Effect<A, E | StoreError> =>
      Effect.withFiber((fiber): Effect.Effect<A, E | StoreError> => {
        const member = fiber.getRef(CurrentTx)
        const group = member?.group
        if (group === undefined) return effect
        for (const key of keys) {
          const holder = group.locks.get(key)
          if (holder === undefined) group.locks.set(key, member!)
          else if (holder !== member) {
            failTx(member!.tx, undefined, regroup)
            return Effect.fail(regroup)
          }
        }
        return effect
      })

    /** Rows of a list page: the filter's count and up to `limit + 1` rows after the cursor, in one statement. */
    const pageOf = <T extends { readonly id: string }>(
      table: string,
      decode: (row: any) => T,
      filter: Filter,
      page: PageRequest
    ): Effect.Effect<Page<T>, StoreError> => {
      const where = filter.conditions.length === 0 ? "true" : filter.conditions.join(" AND ")
      const asc = page.sortOrder === "asc"
      const cursor = page.after === undefined ? "" : ` AND id ${asc ? ">" : "<"} ${filter.param(page.after)}`
      const limit = filter.param(page.limit + 1)
      const text =
        `SELECT c.total, p.* FROM (SELECT count(*) AS total FROM ${table} WHERE ${where}) AS c ` +
        `LEFT JOIN LATERAL (SELECT * FROM ${table} WHERE ${where}${cursor} ` +
        `ORDER BY id ${asc ? "ASC" : "DESC"} LIMIT ${limit}) AS p ON true`
      const rowsOf = executeWith(text, filter.params, undefined, false) as Effect.Effect<QueryResult<Row>, StoreError>
      return Effect.map(rowsOf, ({ rows }) => {
        const first = rows[0]
        const total = first === undefined ? 0 : Number(first.total)
        const data = first === undefined || first.id === null ? [] : rows.map(decode)
        return toPage(data, page.limit, total)
      })
    }

    // ---- collections ----

    const collection = <T extends { readonly id: string }, F, U extends string = never, Table = unknown>(
      codec: Codec<T, Table>,
      filterOf: (filter: F, where: Filter) => void,
      uniques: ReadonlyArray<UniqueKey<T, U>> = []
    ): Collection<T, F, U> => {
      const { table, columns } = codec
      const decode = codec.decode as (row: Row) => T
      const placeholders = columns.map((_, i) => `$${i + 1}`).join(", ")
      const sets = columns
        .filter((c) => c !== "id")
        .map((c) => `${c} = EXCLUDED.${c}`)
        .join(", ")
      const keyTaken = (alias: string, other: string) =>
        uniques
          .map((u) =>
            [`${alias}.${u.column} = ${other}.${u.column}`, ...(u.holds ? [u.holds(alias), u.holds(other)] : [])].join(
              " AND "
            )
          )
          .join(" OR ")
      // A new row: any unique key taken (the id too) writes nothing, and the transaction goes on (as in memory).
      const insertSql = `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${placeholders}) ON CONFLICT DO NOTHING`
      // `update` writes the row whether or not it exists (as the memory store does); a unique key that
      // another row holds leaves the row as it was.
      const updateSql =
        `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${placeholders}) ON CONFLICT (id) DO UPDATE SET ${sets}` +
        (uniques.length === 0
          ? ""
          : ` WHERE NOT EXISTS (SELECT 1 FROM ${table} AS other WHERE other.id <> EXCLUDED.id AND (${keyTaken("other", "EXCLUDED")}))`)
      const getSql = `SELECT * FROM ${table} WHERE id = $1`
      const lockSql = `${getSql} FOR UPDATE`
      const idTakenSql = `SELECT 1 FROM ${table} WHERE id = $1`
      const byIndex = new Map(
        uniques.map((u) => {
          const holds = u.holds ? ` AND ${u.holds("r")}` : ""
          return [
            u.index as string,
            {
              key: u,
              findSql: `SELECT * FROM ${table} AS r WHERE r.${u.column} = $1${holds}`,
              takenSql: `SELECT 1 FROM ${table} AS r WHERE r.${u.column} = $1 AND r.id <> $2${holds} LIMIT 1`
            }
          ] as const
        })
      )
      const constraints: ReadonlyMap<string, string> = new Map([
        [`${table}_pkey`, "id"],
        ...uniques.map((u) => [u.constraint, u.index as string] as const)
      ])

      const first = (rows: Array<Row>): T | undefined => (rows.length === 0 ? undefined : decode(rows[0]!))

      /** Which key another row holds, after a write that wrote nothing. */
      const violation = (row: T, idToo: boolean): Effect.Effect<UniqueViolation | undefined, StoreError> =>
        Effect.gen(function* () {
          if (idToo && (yield* query(idTakenSql, [row.id])).length > 0) return uniqueViolation("id")
          for (const { key, takenSql } of byIndex.values()) {
            const value = key.value(row)
            if (value !== undefined && (yield* query(takenSql, [value, row.id])).length > 0) {
              return uniqueViolation(key.index)
            }
          }
          return undefined
        })

      const write = (
        text: string,
        row: T,
        idToo: boolean,
        attempt: number
      ): Effect.Effect<void, StoreError | UniqueViolation> =>
        Effect.flatMap(execute(text, valuesOf(codec, row), constraints), (result) => {
          if (affected(result) > 0) return Effect.void
          return Effect.flatMap(violation(row, idToo), (found) => {
            if (found !== undefined) return Effect.fail(found)
            // The row holding the key changed meanwhile (a customer deleted): write again.
            if (attempt < 3) return write(text, row, idToo, attempt + 1)
            return Effect.fail(new StoreError({ message: `${table} ${row.id}: write refused`, retryable: true }))
          })
        })

      // `insertMany`: rows in multi-row INSERTs of up to MAX_PARAMS parameters (one text, so one prepared statement,
      // per row count); a row whose key is taken writes nothing, and RETURNING says which rows were written.
      const rowsPerStatement = Math.floor(MAX_PARAMS / columns.length)
      const insertManyTexts = new Map<number, string>()
      const insertManySql = (rows: number): string => {
        let text = insertManyTexts.get(rows)
        if (text === undefined) {
          const tuples = Array.from(
            { length: rows },
            (_, r) => `(${columns.map((_, i) => `$${r * columns.length + i + 1}`).join(", ")})`
          )
          text = `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${tuples.join(", ")} ON CONFLICT DO NOTHING RETURNING id`
          insertManyTexts.set(rows, text)
        }
        return text
      }
      const deleteManySql = `DELETE FROM ${table} WHERE id = ANY($1::text[])`

      /** A key that two of `rows` hold (checked before anything is sent: the database would refuse it too). */
      const repeatedKey = (rows: ReadonlyArray<T>): UniqueViolation | undefined => {
        const keys = [{ index: "id", value: (row: T): string | undefined => row.id }, ...uniques]
        for (const key of keys) {
          const seen = new Set<string>()
          for (const row of rows) {
            const value = key.value(row)
            if (value === undefined) continue
            if (seen.has(value)) return uniqueViolation(key.index)
            seen.add(value)
          }
        }
        return undefined
      }

      /** In a transaction: the rows all written, or, when a key is taken, the rows written taken back. */
      const insertAll = (rows: ReadonlyArray<T>, attempt: number): Effect.Effect<void, StoreError | UniqueViolation> =>
        Effect.gen(function* () {
          const written = new Set<string>()
          for (let start = 0; start < rows.length; start += rowsPerStatement) {
            const chunk = rows.slice(start, start + rowsPerStatement)
            const params = chunk.flatMap((row) => valuesOf(codec, row))
            for (const row of (yield* execute(insertManySql(chunk.length), params, constraints)).rows) {
              written.add(row.id)
            }
          }
          if (written.size === rows.length) return
          yield* execute(deleteManySql, [[...written]])
          for (const row of rows) {
            if (written.has(row.id)) continue
            const found = yield* violation(row, true)
            if (found !== undefined) return yield* Effect.fail(found)
          }
          // The row holding the key changed meanwhile (a customer deleted): write again.
          if (attempt < 3) return yield* insertAll(rows, attempt + 1)
          return yield* new StoreError({ message: `${table}: write of ${rows.length} rows refused`, retryable: true })
        })

      return {
        get: (id) => Effect.map(query(getSql, [id]), first),
        getForUpdate: (id) => locking([`${table}:${id}`], Effect.map(query(lockSql, [id]), first)),
        findUnique: (index, value) => {
          const found = byIndex.get(index)
          return found === undefined ? Effect.succeed(undefined) : Effect.map(query(found.findSql, [value]), first)
        },
        insert: (row) => write(insertSql, row, true, 1),
        insertMany: (rows) => {
          if (rows.length === 0) return Effect.void
          const repeated = repeatedKey(rows)
          // Its own transaction outside one: the rows written before a taken key must be taken back unseen.
          return repeated === undefined ? transaction(insertAll(rows, 1)) : Effect.fail(repeated)
        },
        // Without a unique key but the id, which it writes over, nothing can refuse an update: no answer to wait for.
        update:
          uniques.length === 0
            ? (row) => run(updateSql, valuesOf(codec, row))
            : (row) => write(updateSql, row, false, 1),
        list: (filter, page) => {
          const where = new Filter()
          filterOf(filter, where)
          return pageOf(table, decode, where, page)
        }
      }
    }

    const tokens: Repositories["tokens"] = collection(
      codecs.tokens,
      (f: TokenFilter, w) => {
        if (!f.includeDeleted) w.where("deleted_at IS NULL")
        w.eq("name", f.name)
        w.between("created_at", f.createdAfter, f.createdBefore)
      },
      [{ index: "clientId", column: "client_id", constraint: "tokens_client_id_key", value: (t) => t.clientId }]
    )

    const notDeleted = (alias: string) => `NOT ${alias}.is_deleted`
    const customers: Repositories["customers"] = collection(
      codecs.customers,
      (f: CustomerFilter, w) => {
        if (!f.includeDeleted) w.where("NOT is_deleted")
        w.eq("platform_customer_id", f.platformCustomerId)
        w.eq("customer_type", f.customerType)
        w.eq("region", f.region)
        if (f.currency !== undefined) w.where(`currencies @> ARRAY[${w.param(f.currency)}]::text[]`)
        w.eq("uma_address", f.umaAddress)
        w.between("created_at", f.createdAfter, f.createdBefore)
        w.between("updated_at", f.updatedAfter, f.updatedBefore)
      },
      // A deleted customer frees its platform id and UMA address.
      [
        {
          index: "platformCustomerId",
          column: "platform_customer_id",
          constraint: "customers_platform_customer_id_key",
          value: (c) => (c.isDeleted ? undefined : c.platformCustomerId),
          holds: notDeleted
        },
        {
          index: "umaAddress",
          column: "uma_address",
          constraint: "customers_uma_address_key",
          value: (c) => (c.isDeleted ? undefined : c.umaAddress),
          holds: notDeleted
        }
      ]
    )

    const internalAccounts: Repositories["internalAccounts"] = collection(
      codecs.internalAccounts,
      (f: InternalAccountFilter, w) => {
        w.eq("customer_id", f.customerId)
        w.eq("currency", f.currency)
        w.eq("type", f.type)
      }
    )

    const externalAccounts: Repositories["externalAccounts"] = collection(
      codecs.externalAccounts,
      (f: ExternalAccountFilter, w) => {
        w.where("status <> 'INACTIVE'")
        w.eq("customer_id", f.customerId)
        w.eq("currency", f.currency)
      }
    )

    const quoteRows = collection(
      codecs.quotes,
      (f: QuoteFilter, w) => {
        w.eq("status", f.status)
        if (f.expiresAtOrBefore !== undefined) w.where(`expires_at <= ${w.param(f.expiresAtOrBefore)}`)
      },
      [
        {
          index: "transactionId",
          column: "transaction_id",
          constraint: "quotes_transaction_id_key",
          value: (q) => q.quote.transactionId
        }
      ]
    )

    const lockQuoteSql = `SELECT * FROM quotes WHERE id = $1 FOR UPDATE`
    const lockTransactionOfQuoteSql = `SELECT * FROM transactions WHERE id = (SELECT transaction_id FROM quotes WHERE id = $1) FOR UPDATE`
    const setQuoteStatusSql = `UPDATE quotes SET status = $2 WHERE id = $1`
    const quotes: Repositories["quotes"] = {
      ...quoteRows,
      // Both statements go out together; the second runs once the first holds the quote's lock.
      // The transaction's lock is noted under the quote's key too: only the quote leads to it here.
      getForUpdateWithTransaction: (id) =>
        locking(
          [`quotes:${id}`],
          Effect.flatMap(
            Effect.all([query(lockQuoteSql, [id]), query(lockTransactionOfQuoteSql, [id])], { concurrency: 2 }),
            ([quote, transaction]) => {
              if (quote.length === 0) return Effect.succeed(undefined)
              const found = {
                quote: codecs.quotes.decode(quote[0] as any),
                transaction: transaction.length === 0 ? undefined : codecs.transactions.decode(transaction[0] as any)
              }
              const held = found.transaction === undefined ? [] : [`transactions:${found.transaction.id}`]
              return locking(held, Effect.succeed(found))
            }
          )
        ),
      setStatus: (id, status) => run(setQuoteStatusSql, [id, status])
    }

    const transactionRows = collection(codecs.transactions, (f: TransactionFilter, w) => {
      w.eq("customer_id", f.customerId)
      w.eq("platform_customer_id", f.platformCustomerId)
      if (f.accountIdentifier !== undefined) {
        const account = w.param(f.accountIdentifier)
        w.where(`(source_account_id = ${account} OR destination_account_id = ${account})`)
      }
      w.eq("status", f.status)
      w.eq("type", f.type)
      w.eq("reconciliation_reference", f.reference)
      w.between("created_at", f.createdAfter, f.createdBefore)
      if (f.states !== undefined) w.where(`state = ANY(${w.param(f.states)}::text[])`)
      if (f.dueBy !== undefined) w.where(`due_at <= ${w.param(f.dueBy)}`)
    })

    // What `updateIf` compares (every write of a transaction changes one of these columns).
    const transactionColumns = codecs.transactions.columns
    const versionColumns = ["state", "updated_at", "rail_reference", "due_at", "attempts", "stalled_at"] as const
    const versionAt = versionColumns.map((c) => transactionColumns.indexOf(c))
    const updateIfSql =
      `UPDATE transactions SET ${transactionColumns.map((c, i) => `${c} = $${i + 1}`).join(", ")} WHERE id = $1 AND ` +
      versionColumns.map((c, i) => `${c} IS NOT DISTINCT FROM $${transactionColumns.length + i + 1}`).join(" AND ")
    const transactions: Repositories["transactions"] = {
      ...transactionRows,
      // Outside a transaction it commits without waiting for the WAL flush, on a session of its own: it neither
      // joins a group (whose COMMIT waits for every member) nor waits for the disk (see the port's contract),
      // unless `flushRailReferences`.
      updateIf: (row, expected) => {
        const was = valuesOf(codecs.transactions, expected)
        const params = [...valuesOf(codecs.transactions, row), ...versionAt.map((i) => was[i])]
        const written = Effect.withFiber((fiber) =>
          fiber.getRef(CurrentTx) === undefined && options.flushRailReferences !== true
            ? Effect.tryPromise({ try: () => executeUnflushed(updateIfSql, params), catch: storeError })
            : (execute(updateIfSql, params) as Effect.Effect<QueryResult<Row>, StoreError>)
        )
        return Effect.map(written, (result) => affected(result) > 0)
      }
    }

    // ---- onboarding ----

    const beneficialOwners: Repositories["beneficialOwners"] = collection(
      codecs.beneficialOwners,
      (f: BeneficialOwnerFilter, w) => {
        w.eq("customer_id", f.customerId)
      }
    )

    const verifications: Repositories["verifications"] = collection(
      codecs.verifications,
      (f: VerificationFilter, w) => {
        w.eq("customer_id", f.customerId)
        w.eq("verification_status", f.verificationStatus)
      }
    )

    const documents: Repositories["documents"] = collection(codecs.documents, (f: DocumentFilter, w) => {
      if (!f.includeDeleted) w.where("deleted_at IS NULL")
      w.eq("document_holder", f.documentHolder)
    })

    const bulkImportJobs: Repositories["bulkImportJobs"] = collection(
      codecs.bulkImportJobs,
      (f: BulkImportJobFilter, w) => {
        if (f.statuses !== undefined) w.where(`status = ANY(${w.param(f.statuses)}::text[])`)
      }
    )

    const challengeColumns = codecs.contactChallenges.columns
    const putChallengeSql =
      `INSERT INTO contact_challenges (${challengeColumns.join(", ")}) ` +
      `VALUES (${challengeColumns.map((_, i) => `$${i + 1}`).join(", ")}) ON CONFLICT (key) DO UPDATE SET ` +
      challengeColumns
        .filter((c) => c !== "key")
        .map((c) => `${c} = EXCLUDED.${c}`)
        .join(", ")
    const contactChallenges: Repositories["contactChallenges"] = {
      get: (key) =>
        Effect.map(query(`SELECT * FROM contact_challenges WHERE key = $1`, [key]), (rows) =>
          rows.length === 0 ? undefined : codecs.contactChallenges.decode(rows[0] as any)
        ),
      put: (challenge) => run(putChallengeSql, codecs.contactChallenges.encode(challenge)),
      delete: (key) => run(`DELETE FROM contact_challenges WHERE key = $1`, [key])
    }

    // ---- ledger ----

    /**
     * The balance row a write moves: shard 0 of a customer account; for a system account (the core's
     * `system:` prefix, see `isSystemAccount`) the shard of the writing session, its backend pid modulo
     * SYSTEM_BALANCE_SHARDS. Every payment in a currency moves the same system account, so one row would
     * queue all of them on its lock until they commit; a pool's sessions have distinct, mostly consecutive
     * pids, so they write distinct rows. System accounts have no balance check: reads sum their shards.
     */
    const shardOf = (account: string) =>
      `CASE WHEN starts_with(${account}, 'system:') THEN pg_backend_pid() % ${SYSTEM_BALANCE_SHARDS} ELSE 0 END`
    const lockBalancesSql = `SELECT * FROM ledger_balances WHERE account = ANY($1::text[]) ORDER BY account, shard FOR UPDATE`
    // One account (a payment from one source): PostgreSQL re-plans the array form on every execution (its generic
    // plan looks dearer than a plan for one value), but keeps one plan for this form.
    const lockBalanceSql = `SELECT * FROM ledger_balances WHERE account = $1 ORDER BY shard FOR UPDATE`
    const createBalancesSql =
      `INSERT INTO ledger_balances (account, shard, currency, posted, pending_debits, pending_credits) ` +
      `SELECT a, 0, c, 0, 0, 0 FROM ${arrayRows(
        [
          ["a", "text"],
          ["c", "text"]
        ],
        1
      )} AS u ON CONFLICT (account, shard) DO NOTHING`
    /** Adds the deltas, in the order given: sorted by account, so concurrent writers lock balance rows in one order. */
    const moves = arrayRows(
      [
        ["account", "text"],
        ["currency", "text"],
        ["posted", "bigint"],
        ["pending_debits", "bigint"],
        ["pending_credits", "bigint"]
      ],
      9
    )
    const moveBalances =
      `INSERT INTO ledger_balances AS b (account, shard, currency, posted, pending_debits, pending_credits) ` +
      `SELECT account, ${shardOf("account")}, currency, posted, pending_debits, pending_credits FROM ${moves} AS d ` +
      `ON CONFLICT (account, shard) DO UPDATE SET currency = EXCLUDED.currency, ` +
      `posted = b.posted + EXCLUDED.posted, pending_debits = b.pending_debits + EXCLUDED.pending_debits, ` +
      `pending_credits = b.pending_credits + EXCLUDED.pending_credits`
    // The transfers (numbered by `seq` in the order given) and the balance moves in one statement (one round trip).
    const transferColumns = [
      ["id", "text"],
      ["debit", "text"],
      ["credit", "text"],
      ["amount", "bigint"],
      ["currency", "text"],
      ["state", "text"],
      ["reference", "text"],
      ["created_at", "text"]
    ] as const
    const recordSql =
      `WITH recorded AS (INSERT INTO ledger_transfers (id, debit, credit, amount, currency, state, reference, created_at) ` +
      `SELECT * FROM ${arrayRows(transferColumns, 1)} AS t) ${moveBalances}`
    // Resolves the still-PENDING transfers and moves their balances in one statement; a transfer resolved
    // already (or concurrently: READ COMMITTED re-checks `state` after the row lock) is left alone.
    const resolveSql =
      `WITH resolved AS (UPDATE ledger_transfers SET state = $2 WHERE id = ANY($1::text[]) AND state = 'PENDING' ` +
      `RETURNING debit, credit, amount, currency), ` +
      `moves AS (SELECT debit AS account, currency, -amount * $3::bigint AS posted, -amount AS pending_debits, ` +
      `0::bigint AS pending_credits FROM resolved UNION ALL ` +
      `SELECT credit, currency, amount * $3::bigint, 0::bigint, -amount FROM resolved) ` +
      `INSERT INTO ledger_balances AS b (account, shard, currency, posted, pending_debits, pending_credits) ` +
      `SELECT account, ${shardOf("account")}, min(currency), sum(posted), sum(pending_debits), sum(pending_credits) ` +
      `FROM moves GROUP BY account ORDER BY account ON CONFLICT (account, shard) DO UPDATE SET posted = b.posted + EXCLUDED.posted, ` +
      `pending_debits = b.pending_debits + EXCLUDED.pending_debits, ` +
      `pending_credits = b.pending_credits + EXCLUDED.pending_credits`

    const allBalancesSql =
      `SELECT account, min(currency) AS currency, sum(posted)::bigint AS posted, sum(pending_debits)::bigint AS ` +
      `pending_debits, sum(pending_credits)::bigint AS pending_credits FROM ledger_balances GROUP BY account ORDER BY account`

    const byAccount = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

    const ledger: Repositories["ledger"] = {
      // Locks the balance rows in account order (creating the missing ones first), so two payments touching
      // the same accounts queue instead of deadlocking. Usually every row exists: one round trip.
      balances: (accounts) => {
        if (accounts.length === 0) return Effect.succeed([])
        const currencyOf = new Map<string, string>()
        for (const a of accounts) if (!currencyOf.has(a.account)) currencyOf.set(a.account, a.currency)
        const names = [...currencyOf.keys()].sort(byAccount)
        const answer = (rows: Array<Row>): ReadonlyArray<LedgerBalance> => {
          const found = new Map<string, LedgerBalance>()
          for (const row of rows) {
            const b = codecs.ledgerBalance(row as Selectable<LedgerBalancesTable>)
            const sum = found.get(b.account)
            found.set(
              b.account,
              sum === undefined
                ? b
                : {
                    ...sum,
                    posted: sum.posted + b.posted,
                    pendingDebits: sum.pendingDebits + b.pendingDebits,
                    pendingCredits: sum.pendingCredits + b.pendingCredits
                  }
            )
          }
          return accounts.map(
            (a) =>
              found.get(a.account) ?? {
                account: a.account,
                currency: a.currency,
                posted: 0,
                pendingDebits: 0,
                pendingCredits: 0
              }
          )
        }
        const locked = locking(
          names.map((name) => `balance:${name}`),
          names.length === 1 ? query(lockBalanceSql, names) : query(lockBalancesSql, [names])
        )
        return Effect.flatMap(locked, (rows) => {
          const have = new Set(rows.map((r) => r.account as string))
          if (have.size === names.length) return Effect.succeed(answer(rows))
          const missing = names.filter((n) => !have.has(n))
          return Effect.flatMap(
            Effect.andThen(
              run(createBalancesSql, [missing, missing.map((n) => currencyOf.get(n)!)]),
              query(lockBalancesSql, [missing])
            ),
            (created) => Effect.succeed(answer([...rows, ...created]))
          )
        })
      },
      record: (transfers) => {
        if (transfers.length === 0) return Effect.void
        const n = transfers.length
        const ids = new Array<string>(n)
        const debits = new Array<string>(n)
        const credits = new Array<string>(n)
        const amounts = new Array<number>(n)
        const currencies = new Array<string>(n)
        const states = new Array<string>(n)
        const references = new Array<string>(n)
        const createdAts = new Array<string>(n)
        const moves = new Map<
          string,
          { currency: string; posted: number; pendingDebits: number; pendingCredits: number }
        >()
        const move = (
          account: string,
          currency: string,
          posted: number,
          pendingDebits: number,
          pendingCredits: number
        ) => {
          const m = moves.get(account)
          if (m === undefined) moves.set(account, { currency, posted, pendingDebits, pendingCredits })
          else {
            m.currency = currency
            m.posted += posted
            m.pendingDebits += pendingDebits
            m.pendingCredits += pendingCredits
          }
        }
        for (let i = 0; i < n; i++) {
          const t = transfers[i]!
          ids[i] = t.id
          debits[i] = t.debit
          credits[i] = t.credit
          amounts[i] = t.amount
          currencies[i] = t.currency
          states[i] = t.state
          references[i] = t.reference
          createdAts[i] = t.createdAt
          if (t.state === "POSTED") {
            move(t.debit, t.currency, -t.amount, 0, 0)
            move(t.credit, t.currency, t.amount, 0, 0)
          } else if (t.state === "PENDING") {
            move(t.debit, t.currency, 0, t.amount, 0)
            move(t.credit, t.currency, 0, 0, t.amount)
          }
        }
        const accounts = [...moves.keys()].sort(byAccount)
        const m = accounts.map((a) => moves.get(a)!)
        return run(recordSql, [
          ids,
          debits,
          credits,
          amounts,
          currencies,
          states,
          references,
          createdAts,
          accounts,
          m.map((x) => x.currency),
          m.map((x) => x.posted),
          m.map((x) => x.pendingDebits),
          m.map((x) => x.pendingCredits)
        ])
      },
      resolve: (ids, outcome) =>
        ids.length === 0 ? Effect.void : run(resolveSql, [ids, outcome, outcome === "POSTED" ? 1 : 0]),
      transfers: (reference) =>
        Effect.map(query(`SELECT * FROM ledger_transfers WHERE reference = $1 ORDER BY seq`, [reference]), (rows) =>
          rows.map((r): LedgerTransfer => codecs.ledgerTransfer(r as Selectable<LedgerTransfersTable>))
        ),
      allBalances: () =>
        Effect.map(query(allBalancesSql, []), (rows) =>
          rows.map((r) => codecs.ledgerBalance(r as Selectable<LedgerBalancesTable>))
        )
    }

    // ---- outbox ----

    const outboxRows = collection(codecs.outbox, (f: OutboxFilter, w) => {
      w.eq("status", f.status)
      w.eq("subject", f.subject)
      w.eq("type", f.type)
      if (f.sequenceBelow !== undefined) w.where(`sequence < ${w.param(f.sequenceBelow)}`)
    })
    const outboxColumns =
      "id, type, subject, sequence, created_at, body, status, attempts, next_attempt_at, lease_until"
    /** An event's columns as array parameters $1-$10 (`sequence`: the subject's sequence, or `back` below). */
    const eventRows = (sequence: string) =>
      arrayRows(
        [
          ["id", "text"],
          ["type", "text"],
          ["subject", "text"],
          [sequence, "bigint"],
          ["created_at", "text"],
          ["body", "text"],
          ["status", "text"],
          ["attempts", "text"],
          ["next_attempt_at", "text"],
          ["lease_until", "text"]
        ],
        1
      )
    const appendSql =
      `INSERT INTO outbox (${outboxColumns}) SELECT id, type, subject, sequence, created_at, body, status, ` +
      `attempts::jsonb, next_attempt_at, lease_until FROM ${eventRows("sequence")} AS e`
    // Numbers the events after the last sequence of their subject and inserts them, in one statement: the
    // subject's counter row is locked until the transaction ends, so events of one subject never interleave.
    // `back` is how many later events of the same subject the batch holds.
    const appendEventsSql =
      `WITH e AS ${eventRows("back")}, ` +
      `n AS (INSERT INTO outbox_subjects AS s (subject, last_sequence) SELECT subject, count(*) FROM e ` +
      `GROUP BY subject ORDER BY subject ON CONFLICT (subject) DO UPDATE SET last_sequence = s.last_sequence + ` +
      `EXCLUDED.last_sequence RETURNING subject, last_sequence) ` +
      `INSERT INTO outbox (${outboxColumns}) SELECT e.id, e.type, e.subject, n.last_sequence - e.back, e.created_at, ` +
      `e.body, e.status, e.attempts::jsonb, e.next_attempt_at, e.lease_until FROM e JOIN n USING (subject)`
    // One event (a command's usual case) as plain parameters: no arrays to build and parse, the body above all.
    const appendEventSql =
      `WITH n AS (INSERT INTO outbox_subjects AS s (subject, last_sequence) VALUES ($3, 1) ON CONFLICT (subject) ` +
      `DO UPDATE SET last_sequence = s.last_sequence + 1 RETURNING last_sequence) ` +
      `INSERT INTO outbox (${outboxColumns}) SELECT $1, $2, $3, n.last_sequence, $4, $5, $6, $7::jsonb, $8, $9 FROM n`
    // Oldest first (by id) among the rows due by now and not leased; rows another dispatcher is claiming are skipped.
    const claimSql =
      `UPDATE outbox AS o SET lease_until = $3 FROM (SELECT id FROM outbox WHERE status = 'PENDING' ` +
      `AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1) ORDER BY id LIMIT $2 ` +
      `FOR UPDATE SKIP LOCKED) AS c WHERE o.id = c.id RETURNING o.*`
    const nextSequenceSql =
      `INSERT INTO outbox_subjects AS s (subject, last_sequence) VALUES ($1, 1) ON CONFLICT (subject) ` +
      `DO UPDATE SET last_sequence = s.last_sequence + 1 RETURNING last_sequence`

    const outbox: Repositories["outbox"] = {
      append: (records) => {
        if (records.length === 0) return Effect.void
        return run(appendSql, [
          records.map((r) => r.id),
          records.map((r) => r.type),
          records.map((r) => r.subject),
          records.map((r) => r.sequence),
          records.map((r) => r.createdAt),
          records.map((r) => r.body),
          records.map((r) => r.status),
          records.map((r) => JSON.stringify(r.attempts)),
          records.map((r) => r.nextAttemptAt),
          records.map((r) => r.leaseUntil ?? null)
        ])
      },
      appendEvents: (events) => {
        if (events.length === 0) return Effect.void
        if (events.length === 1) {
          const e = events[0]!
          return run(appendEventSql, [
            e.id,
            e.type,
            e.subject,
            e.createdAt,
            e.body,
            e.status,
            JSON.stringify(e.attempts),
            e.nextAttemptAt,
            e.leaseUntil ?? null
          ])
        }
        const later = new Map<string, number>()
        const back = new Array<number>(events.length)
        for (let i = events.length - 1; i >= 0; i--) {
          const subject = events[i]!.subject
          const count = later.get(subject) ?? 0
          back[i] = count
          later.set(subject, count + 1)
        }
        return run(appendEventsSql, [
          events.map((e) => e.id),
          events.map((e) => e.type),
          events.map((e) => e.subject),
          back,
          events.map((e) => e.createdAt),
          events.map((e) => e.body),
          events.map((e) => e.status),
          events.map((e) => JSON.stringify(e.attempts)),
          events.map((e) => e.nextAttemptAt),
          events.map((e) => e.leaseUntil ?? null)
        ])
      },
      claimDue: (now, limit, leaseUntil) => {
        if (limit <= 0) return Effect.succeed([])
        return Effect.map(query(claimSql, [now, limit, leaseUntil]), (rows) =>
          rows.map((r) => codecs.outbox.decode(r as any)).sort((a, b) => byAccount(a.id, b.id))
        )
      },
      // The outbox has no unique key but its id, which `update` writes over: no UniqueViolation can come.
      save: (record) => outboxRows.update(record) as Effect.Effect<void, StoreError>,
      get: outboxRows.get,
      list: outboxRows.list,
      nextSequence: (subject) => Effect.map(query(nextSequenceSql, [subject]), (rows) => Number(rows[0]!.last_sequence))
    }

    // ---- idempotency, counters, config ----

    const idempotencyPut = `INSERT INTO idempotency (${codecs.idempotency.columns.join(", ")}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`
    const counterAdd =
      `INSERT INTO counters AS c (key, value) VALUES ($1, $2) ON CONFLICT (key) ` +
      `DO UPDATE SET value = c.value + EXCLUDED.value RETURNING value`
    const configColumns = codecs.platformConfig.columns
    const configPut =
      `INSERT INTO platform_config (${configColumns.join(", ")}) VALUES (${configColumns.map((_, i) => `$${i + 1}`).join(", ")}) ` +
      `ON CONFLICT (singleton) DO UPDATE SET ${configColumns.map((c) => `${c} = EXCLUDED.${c}`).join(", ")}`

    const webhookSecretPut =
      `INSERT INTO webhook_secrets (id, secret, created_at, expires_at) VALUES ($1, $2, $3, $4) ` +
      `ON CONFLICT (id) DO UPDATE SET secret = EXCLUDED.secret, expires_at = EXCLUDED.expires_at`

    const repositories: Repositories = {
      tokens,
      customers,
      internalAccounts,
      externalAccounts,
      quotes,
      transactions,
      beneficialOwners,
      verifications,
      contactChallenges,
      documents,
      bulkImportJobs,
      ledger,
      outbox,
      idempotency: {
        get: (key) =>
          Effect.map(query(`SELECT * FROM idempotency WHERE key = $1`, [key]), (rows) =>
            rows.length === 0 ? undefined : codecs.idempotency.decode(rows[0] as any)
          ),
        put: (record) =>
          Effect.flatMap(
            execute(idempotencyPut, valuesOf(codecs.idempotency, record)) as Effect.Effect<
              QueryResult<Row>,
              StoreError
            >,
            (result) => (affected(result) > 0 ? Effect.void : Effect.fail(uniqueViolation("idempotencyKey")))
          )
      },
      counters: {
        get: (key) =>
          Effect.map(query(`SELECT value FROM counters WHERE key = $1`, [key]), (rows) =>
            rows.length === 0 ? 0 : Number(rows[0]!.value)
          ),
        add: (key, amount) => Effect.map(query(counterAdd, [key, amount]), (rows) => Number(rows[0]!.value))
      },
      config: {
        get: () =>
          Effect.map(query(`SELECT * FROM platform_config`, []), (rows) =>
            rows.length === 0 ? undefined : codecs.platformConfig.decode(rows[0] as any)
          ),
        put: (config) => run(configPut, valuesOf(codecs.platformConfig, config))
      },
      webhookSecrets: {
        list: () =>
          Effect.map(query(`SELECT * FROM webhook_secrets ORDER BY created_at, id`, []), (rows) =>
            rows.map((row) => ({
              id: row.id as WebhookSecretId,
              secret: row.secret as string,
              createdAt: row.created_at as string,
              ...(row.expires_at === null ? {} : { expiresAt: row.expires_at as string })
            }))
          ),
        put: (record) => run(webhookSecretPut, [record.id, record.secret, record.createdAt, record.expiresAt ?? null]),
        remove: (id) => run(`DELETE FROM webhook_secrets WHERE id = $1`, [id])
      }
    }

    // ---- transactions ----

    /** Takes a connection and BEGINs; an interruption while waiting for one gives the connection back. */
    const newTx = (conn: SqlTransaction): Tx => ({ conn, failure: undefined, conflict: false, inFlight: [] })
    const begin: Effect.Effect<Tx, StoreError> = Effect.callback<Tx, StoreError>((resume) => {
      let interrupted = false
      sql.begin().then(
        (conn) => {
          if (interrupted) conn.rollback().catch(ignore)
          else resume(Effect.succeed(newTx(conn)))
        },
        (error) => {
          if (!interrupted) resume(Effect.fail(storeError(error)))
        }
      )
      return Effect.sync(() => {
        interrupted = true
      })
    })

    /** ROLLBACK; gives the connection back (a broken one is discarded). */
    const rollback = (tx: Tx): Effect.Effect<void> => Effect.promise(() => tx.conn.rollback().catch(ignore))

    interface Outcome<A, E> {
      readonly exit: Exit.Exit<A, E | StoreError>
      /** Roll back happened because of a conflict: run the whole transaction again. */
      readonly again: boolean
    }

    /**
     * COMMIT (sent right behind the writes still in flight); `undefined` when it went through, else the error,
     * once every write in flight has settled (one of them may be the cause: see `tx.failure`).
     */
    const commit = (tx: Tx): Effect.Effect<{ readonly error: unknown } | undefined> =>
      Effect.promise(() =>
        tx.conn.commit().then(
          () => undefined,
          (error: unknown) => Promise.all(tx.inFlight).then(() => ({ error }))
        )
      )

    /** Ends the attempt: COMMIT after a success, ROLLBACK after anything else. */
    const finish = <A, E>(tx: Tx, exit: Exit.Exit<A, E>): Effect.Effect<Outcome<A, E>> => {
      if (Exit.isSuccess(exit) && tx.failure === undefined) {
        return Effect.flatMap(
          commit(tx),
          (failed): Effect.Effect<Outcome<A, E>> =>
            failed === undefined
              ? Effect.succeed({ exit, again: false })
              : // A COMMIT that failed leaves the connection in the transaction: ROLLBACK gives it back.
                Effect.as(
                  rollback(tx),
                  tx.failure === undefined
                    ? { exit: Exit.fail(storeError(failed.error)), again: isConflict(failed.error) }
                    : { exit: Exit.fail(tx.failure), again: tx.conflict }
                )
        )
      }
      const again = tx.conflict && !(Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause))
      // A statement failed but the effect went on (it caught the error): PostgreSQL has aborted the
      // transaction, so nothing of it can be committed.
      const outcome: Outcome<A, E> = { exit: Exit.isSuccess(exit) ? Exit.fail(tx.failure!) : exit, again }
      return Effect.as(rollback(tx), outcome)
    }

    /** One attempt: BEGIN, the effect with the transaction in its context, COMMIT or ROLLBACK. */
    const attempt = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<Outcome<A, E>, never, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(Effect.exit(restore(begin)), (begun): Effect.Effect<Outcome<A, E>, never, R> => {
          if (Exit.isFailure(begun)) return Effect.succeed({ exit: Exit.failCause(begun.cause), again: false })
          const tx = begun.value
          const member: Member = { tx, group: undefined, wrote: false }
          return Effect.flatMap(Effect.exit(restore(Effect.provideService(effect, CurrentTx, member))), (exit) =>
            finish(tx, exit)
          )
        })
      )

    const attempts = <A, E, R>(effect: Effect.Effect<A, E, R>, n: number): Effect.Effect<A, E | StoreError, R> =>
      Effect.flatMap(attempt(effect), ({ exit, again }) =>
        again && n < MAX_ATTEMPTS ? Effect.andThen(pause(backoffMs(n)), attempts(effect, n + 1)) : exit
      )

    // ---- groups (see `Group`) ----

    /** Groups begun and not yet ended (each holds a connection). */
    let groupsRunning = 0
    /** The group begun last, while none of its members has ended: newcomers join it at once. */
    let open: Group | undefined
    /** Groups waiting for one of the `groups` slots, oldest first; the last one takes newcomers. */
    const waiting: Array<Group> = []

    const newGroup = (): Group => {
      let settle!: (committed: boolean) => void
      const outcome = new Promise<boolean>((resolve) => {
        settle = resolve
      })
      return {
        members: [],
        running: 0,
        locks: new Map(),
        poisoned: false,
        tx: undefined,
        outcome,
        settle
      }
    }

    /** Begins a group: its members (those that joined and were not interrupted meanwhile) start together. */
    const startGroup = (group: Group): void => {
      groupsRunning++
      sql.begin().then(
        (conn) => {
          const tx = newTx(conn)
          group.tx = tx
          group.running = group.members.length
          open = group
          if (group.running === 0) void endGroup(group)
          for (const resume of group.members) resume(Exit.succeed(tx))
        },
        (error: unknown) => {
          groupsRunning--
          const failed = Exit.fail(storeError(error))
          for (const resume of group.members) resume(failed)
          group.settle(false)
          startWaiting()
        }
      )
    }

    const startWaiting = (): void => {
      while (groupsRunning < grouping.groups && waiting.length > 0) startGroup(waiting.shift()!)
    }

    /** COMMIT when no member spoiled the group, else ROLLBACK; then the next waiting group starts. */
    const endGroup = async (group: Group): Promise<void> => {
      const tx = group.tx!
      const commit = !group.poisoned && tx.failure === undefined
      const ended = commit
        ? tx.conn.commit().then(
            () => true,
            () => false
          )
        : Promise.resolve(false)
      // Its statements are all sent: the next group may begin while this one's COMMIT is flushed.
      groupsRunning--
      startWaiting()
      const committed = await ended
      if (!committed) await tx.conn.rollback().catch(ignore)
      group.settle(committed)
    }

    /** Joins the newest waiting group, or a new one (begun at once when a slot is free). */
    const joinGroup: Effect.Effect<{ readonly group: Group; readonly tx: Tx }, StoreError> = Effect.callback(
      (resume) => {
        // A group under way takes newcomers until its first member ends.
        // Not one that is failing already: its members will all run again.
        const current = open
        if (
          current?.tx !== undefined &&
          current.tx.failure === undefined &&
          !current.poisoned &&
          current.running < grouping.members
        ) {
          current.running++
          return void resume(Effect.succeed({ group: current, tx: current.tx }))
        }
        let group = waiting.at(-1)
        if (group === undefined || group.members.length >= grouping.members) {
          group = newGroup()
          waiting.push(group)
        }
        const joined = group
        const resumeWith = (tx: Exit.Exit<Tx, StoreError>) =>
          resume(Exit.isSuccess(tx) ? Effect.succeed({ group: joined, tx: tx.value }) : Effect.failCause(tx.cause))
        joined.members.push(resumeWith)
        startWaiting()
        return Effect.sync(() => {
          // Interrupted while waiting: leave the group unless it began (then the member runs and ends as a failure).
          if (joined.tx === undefined) joined.members.splice(joined.members.indexOf(resumeWith), 1)
        })
      }
    )

    /** A member's end: the group ends with its last member; the member's exit stands if the group committed. */
    const leaveGroup = <A, E>(
      member: Member,
      group: Group,
      exit: Exit.Exit<A, E>
    ): Effect.Effect<Exit.Exit<A, E> | undefined> => {
      if (open === group) open = undefined
      const interrupted = Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause)
      if (Exit.isFailure(exit) && (member.wrote || interrupted)) group.poisoned = true
      group.running--
      if (group.running === 0) void endGroup(group)
      // Interrupted: it ends so, and is not run again.
      if (interrupted) return Effect.succeed(exit)
      return Effect.promise(() => group.outcome.then((committed) => (committed ? exit : undefined)))
    }

    /** The effect as a member of a group; `undefined` when the group rolled back (the effect must run again alone). */
    const grouped = <A, E, R>(
      effect: Effect.Effect<A, E, R>
    ): Effect.Effect<Exit.Exit<A, E | StoreError> | undefined, never, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(
          Effect.exit(restore(joinGroup)),
          (joined): Effect.Effect<Exit.Exit<A, E | StoreError> | undefined, never, R> => {
            if (Exit.isFailure(joined)) return Effect.succeed(Exit.failCause(joined.cause))
            const { group, tx } = joined.value
            const member: Member = { tx, group, wrote: false }
            return Effect.flatMap(Effect.exit(restore(Effect.provideService(effect, CurrentTx, member))), (exit) =>
              leaveGroup(member, group, exit)
            )
          }
        )
      )

    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R> =>
      Effect.withFiber((fiber) => {
        // Nested (in this fiber or one it forked inside the transaction): join the outer transaction.
        if (fiber.getRef(CurrentTx) !== undefined) return effect
        if (grouping.groups === 0) return attempts(effect, 1)
        return Effect.flatMap(grouped(effect), (exit) => exit ?? attempts(effect, 1))
      })

    return Store.of({ ...repositories, transaction, pipelines: sql.pipelines })
  })

const ignore = (): void => undefined

// ---------------------------------------------------------------------------------------------
// Connections and layers
// ---------------------------------------------------------------------------------------------

/** `bigint` (int8) as a JS number: amounts stay below 2^53 (see MAX_AMOUNT in the core). */
const INT8_OID = 20
const int8 = (value: string): number => Number(value)

/**
 * Type parsers of this store's pool only (the process-wide `pg.types` stay untouched): int8 as a number,
 * every other type as node-postgres parses it by default.
 */
const pgTypeParsers: CustomTypesConfig = {
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
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  registerPool(db, pool)
  return db
}

export interface PgliteConfig {
  /** A directory to keep the database in; in memory when absent. */
  readonly dataDir?: string | undefined
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
        config.dataDir === undefined ? new PGlite(options) : new PGlite({ ...options, dataDir: config.dataDir })
    })
  })
}

/** Migrates `db`, as an Effect. */
export const migrateDatabase = (db: Kysely<any>): Effect.Effect<ReadonlyArray<string>, StoreError> =>
  Effect.tryPromise({
    try: () => migrate(db),
    catch: (error) => new StoreError({ message: `PostgreSQL store: ${String(error)}`, retryable: false })
  })

/** The Store over a database opened by `open`: migrated at start, closed when the layer's scope closes. */
export const layerFrom = (open: () => Kysely<Database>, options: StoreOptions = {}): Layer.Layer<Store, StoreError> =>
  Layer.effect(
    Store,
    Effect.gen(function* () {
      const db = yield* Effect.acquireRelease(
        Effect.try({
          try: open,
          catch: (error) => new StoreError({ message: `PostgreSQL store: ${String(error)}`, retryable: false })
        }),
        (db) => Effect.promise(() => db.destroy().catch(ignore))
      )
      yield* migrateDatabase(db)
      return yield* makePostgresStore(db, options)
    })
  )

/** The Store on a PostgreSQL server (node-postgres pool). */
export const layerPg = (config: PgConfig): Layer.Layer<Store, StoreError> =>
  layerFrom(() => makePgKysely(config), config)

/** The Store on an embedded PGlite: in memory, or kept in `dataDir`. */
export const layerPglite = (config: PgliteConfig = {}): Layer.Layer<Store, StoreError> =>
  layerFrom(() => makePgliteKysely(config))
