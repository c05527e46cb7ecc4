import type { StoreError, UniqueViolation } from "@paycore/core"
import { Effect } from "effect"
import type { QueryResult } from "kysely"
import { failureOf, isBrokenConnection, isRerunnable, storeError } from "./driver-errors.ts"
import type { Row, SqlClient } from "./sql.ts"
import {
  backoffMs,
  type CurrentTx,
  failTx,
  type Grouping,
  MAX_ATTEMPTS,
  makeTransaction,
  regroup,
  sentUnawaited,
  sleep
} from "./transaction.ts"

/** How the store's modules run statements: in the fiber's transaction, or alone on the pool. */
export interface Executor {
  /**
   * Runs one prepared statement (a named prepared statement on a pg pool) in the fiber's transaction, or on the pool
   * outside one. `indexes` maps the unique indexes whose violation the caller reports as `UniqueViolation`.
   */
  readonly execute: (
    text: string,
    params: ReadonlyArray<unknown>,
    indexes: ReadonlyMap<string, string>
  ) => Effect.Effect<QueryResult<Row>, StoreError | UniqueViolation>
  /** A prepared statement whose only possible failure is a StoreError. */
  readonly write: (text: string, params: ReadonlyArray<unknown>) => Effect.Effect<QueryResult<Row>, StoreError>
  /** The rows of a prepared statement. */
  readonly query: (text: string, params: ReadonlyArray<unknown>) => Effect.Effect<Array<Row>, StoreError>
  /** The rows of a statement whose text varies (a list's WHERE): not prepared, planned for its values. */
  readonly queryAdHoc: (text: string, params: ReadonlyArray<unknown>) => Effect.Effect<Array<Row>, StoreError>
  /**
   * A write whose only possible failure is a StoreError. In a transaction on a pipelining connection it is sent
   * without waiting for the answer: it travels with the next statement or the COMMIT, and its failure fails
   * the transaction there (as a failed statement does anyway: PostgreSQL aborts the transaction).
   */
  readonly run: (text: string, params: ReadonlyArray<unknown>) => Effect.Effect<void, StoreError>
  /**
   * Outside a transaction (unless the store flushes rail references) one statement committed without waiting for
   * the WAL flush, on a session of its own: it neither joins a group (whose COMMIT waits for every member) nor
   * waits for the disk. In a transaction, as `write`. For writes a retry redoes (see `TransactionCollection.updateIf`).
   */
  readonly writeUnflushed: (text: string, params: ReadonlyArray<unknown>) => Effect.Effect<QueryResult<Row>, StoreError>
  /**
   * Runs statements that lock rows (`keys`: the rows' keys, `table:id`, `balance:account`). In a group, a row another
   * member of the group locked first would not make this one wait (they share the DB transaction), and it would read
   * what the other is still changing: the group fails (`regroup`), rolls back and its members run again alone. Rows
   * of other transactions are waited for in PostgreSQL (a group's wait bounded, see `GroupCommit.lockTimeoutMs`).
   * `writes`: the effect writes (an upsert), and outside a transaction joins a group as any write does.
   * `shared`: the effect only reads the rows under lock (`getForShare`), or is one statement that locks, checks and
   * changes them itself (a conditional update, ordered by the connection after the other members' and seeing what
   * they changed): members that lock a row only so share it; a member locking it otherwise still fails the group.
   */
  readonly locking: <A, E>(
    keys: ReadonlyArray<string>,
    effect: Effect.Effect<A, E>,
    writes?: boolean,
    shared?: boolean
  ) => Effect.Effect<A, E | StoreError>
  /** The store's `transaction` (see transaction.ts). */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
}

/** Every statement of the store but a SELECT writes (its failure cannot be taken back without a rollback). */
const writes = (text: string): boolean => !text.startsWith("SELECT")

/** Rows a statement changed (node-postgres and PGlite both report it for INSERT ... ON CONFLICT). */
export const affected = (result: QueryResult<unknown>): number =>
  result.numAffectedRows === undefined ? 0 : Number(result.numAffectedRows)

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

export const makeExecutor = (
  sql: SqlClient,
  grouping: Grouping,
  CurrentTx: CurrentTx,
  flushRailReferences: boolean
): Executor => {
  const transaction = makeTransaction(sql, grouping, CurrentTx)

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

  /**
   * Runs one statement in the fiber's transaction, or on the pool outside one; `failure` maps a driver error to the
   * caller's error. `prepare`: a statement of fixed text (a named prepared statement on a pg pool).
   */
  const statement = <E extends StoreError | UniqueViolation>(
    text: string,
    params: ReadonlyArray<unknown>,
    prepare: boolean,
    failure: (error: unknown) => E
  ): Effect.Effect<QueryResult<Row>, E | StoreError> =>
    Effect.withFiber((fiber) => {
      const member = fiber.getRef(CurrentTx)
      // A write outside a transaction joins a group: it shares the group's round trips and COMMIT.
      if (member === undefined && grouping.groups > 0 && writes(text)) {
        return transaction(statement(text, params, prepare, failure))
      }
      if (member === undefined) {
        return Effect.tryPromise({ try: () => executeRerunning(text, params, prepare), catch: failure })
      }
      const tx = member.tx
      if (tx.failure !== undefined) return Effect.fail(tx.failure)
      if (writes(text)) member.wrote = true
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
        catch: (e): E | StoreError => {
          const first = failure(e)
          if (tx.failure !== undefined) return tx.failure
          failTx(tx, e, first)
          return first
        }
      })
    })

  const execute: Executor["execute"] = (text, params, indexes) =>
    statement(text, params, true, (e) => failureOf(e, indexes))

  const write: Executor["write"] = (text, params) => statement(text, params, true, storeError)

  const query: Executor["query"] = (text, params) => Effect.map(write(text, params), (result) => result.rows)

  const queryAdHoc: Executor["queryAdHoc"] = (text, params) =>
    Effect.map(statement(text, params, false, storeError), (result) => result.rows)

  const run: Executor["run"] = (text, params) =>
    Effect.withFiber((fiber) => {
      const member = fiber.getRef(CurrentTx)
      const tx = member?.tx
      const answer = tx === undefined || tx.failure !== undefined ? undefined : tx.conn.send(text, params, true)
      if (answer === undefined) return Effect.asVoid(write(text, params))
      member!.wrote = true
      sentUnawaited(tx!, answer)
      return Effect.void
    })

  const writeUnflushed: Executor["writeUnflushed"] = (text, params) =>
    Effect.withFiber((fiber) =>
      fiber.getRef(CurrentTx) === undefined && !flushRailReferences
        ? Effect.tryPromise({ try: () => executeUnflushed(text, params), catch: storeError })
        : write(text, params)
    )

  const locking: Executor["locking"] = <A, E>(
    keys: ReadonlyArray<string>,
    effect: Effect.Effect<A, E>,
    writes = false,
    shared = false
  ): Effect.Effect<A, E | StoreError> =>
    Effect.withFiber((fiber): Effect.Effect<A, E | StoreError> => {
      const member = fiber.getRef(CurrentTx)
      if (member === undefined && writes && grouping.groups > 0)
        return transaction(locking(keys, effect, false, shared))
      const group = member?.group
      if (member === undefined || group === undefined) return effect
      for (const key of keys) {
        const held = group.locks.get(key)
        if (held === undefined) group.locks.set(key, { by: member, shared })
        else if (held.by === member) held.shared &&= shared
        else if (shared && held.shared) held.by = undefined
        else {
          failTx(member.tx, undefined, regroup)
          return Effect.fail(regroup)
        }
      }
      return effect
    })

  return { execute, write, query, queryAdHoc, run, writeUnflushed, locking, transaction }
}

/**
 * The rows of parallel array parameters, as a subquery: `(SELECT unnest($1::text[]) AS id, ...)`, arrays of one
 * length, rows in array order. Set-returning functions in the select list run in lockstep and stream their rows;
 * `FROM unnest(...)` materializes them in a tuplestore instead, whose allocation and release in every statement
 * made glibc grow and trim the backend's heap each time (`brk`, with a TLB flush on every CPU): about a tenth of
 * the server's CPU per execute, measured with `perf` (see docs/benchmarks.md).
 */
export const arrayRows = (columns: ReadonlyArray<readonly [name: string, type: string]>, first: number): string =>
  `(SELECT ${columns.map(([name, type], i) => `unnest($${first + i}::${type}[]) AS ${name}`).join(", ")})`
