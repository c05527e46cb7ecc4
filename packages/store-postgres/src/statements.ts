import type { StoreError, UniqueViolation } from "@paycore/core"
import { Context, Effect } from "effect"
import type { QueryResult } from "kysely"
import { failureOf, isBrokenConnection, isRerunnable, storeError } from "./driver-errors.ts"
import type { Row, SqlClient } from "./sql.ts"
import {
  backoffMs,
  type CurrentTx,
  failTx,
  type Group,
  type Grouping,
  ignore,
  MAX_ATTEMPTS,
  type Member,
  makeTransaction,
  regroup,
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
   * what the other is still changing: so this member waits for that one to end first, then runs `effect` and reads
   * what it wrote. Two members that would wait for each other fail the group (`regroup`): it rolls back and its
   * members run again alone. Rows of other transactions are waited for in PostgreSQL (a group's wait bounded, see
   * `GroupCommit.lockTimeoutMs`). `writes`: the effect writes (an upsert), and outside a transaction joins a group as
   * any write does.
   */
  readonly locking: <A, E>(
    keys: ReadonlyArray<string>,
    effect: Effect.Effect<A, E>,
    writes?: boolean
  ) => Effect.Effect<A, E | StoreError>
  /** The store's `transaction` (see transaction.ts). */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
}

/**
 * The fiber runs the statements of a member's turn (see `Member.blocked`): they go out, where the member's other
 * statements wait for the turn to end.
 */
const HoldsTurn = Context.Reference<boolean>("@paycore/store-postgres/HoldsTurn", { defaultValue: () => false })

/**
 * Ends `member`'s turn (see `Member.blocked`) once its lock is sent: statements sent after it on the connection run
 * after it, so the member's other statements may follow at once.
 */
const endTurn = (member: Member): void => {
  const end = member.endTurn
  member.blocked = undefined
  member.endTurn = undefined
  end?.()
}

/** Waits for `member`'s turn to end (see `Member.blocked`). */
const awaitTurn = (member: Member): Effect.Effect<void> => Effect.promise(() => member.blocked ?? Promise.resolve())

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
      const turn = fiber.getRef(HoldsTurn)
      if (member.blocked !== undefined && !turn) {
        return Effect.andThen(awaitTurn(member), statement(text, params, prepare, failure))
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
          const answer = tx.conn.query(text, params, prepare).catch(async (error: unknown) => {
            await Promise.all(tx.inFlight.slice(0, sentBefore))
            throw error
          })
          if (turn) endTurn(member)
          return answer
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
      const turn = fiber.getRef(HoldsTurn)
      if (member?.blocked !== undefined && !turn) {
        return Effect.andThen(awaitTurn(member), run(text, params))
      }
      const tx = member?.tx
      const answer = tx === undefined || tx.failure !== undefined ? undefined : tx.conn.send(text, params, true)
      if (answer === undefined) return Effect.asVoid(write(text, params))
      if (turn) endTurn(member!)
      member!.wrote = true
      tx!.inFlight.push(answer.then(ignore, (error: unknown) => failTx(tx!, error, storeError(error))))
      return Effect.void
    })

  const writeUnflushed: Executor["writeUnflushed"] = (text, params) =>
    Effect.withFiber((fiber) =>
      fiber.getRef(CurrentTx) === undefined && !flushRailReferences
        ? Effect.tryPromise({ try: () => executeUnflushed(text, params), catch: storeError })
        : write(text, params)
    )

  /** The member of `group` (not `member`, and not ended) that locked one of `keys` first, if any. */
  const holderOf = (member: Member, group: Group, keys: ReadonlyArray<string>): Member | undefined => {
    for (const key of keys) {
      const taken = group.locks.get(key)
      if (taken !== undefined && taken !== member && !taken.done) return taken
    }
    return undefined
  }

  /** Waits until `member` may hold `keys` in its group (see `Executor.locking`), then notes them as its own. */
  const takeKeys = (member: Member, group: Group, keys: ReadonlyArray<string>): Effect.Effect<void, StoreError> =>
    Effect.suspend(() => {
      if (member.tx.failure !== undefined) return Effect.fail(member.tx.failure)
      const holder = holderOf(member, group, keys)
      if (holder === undefined) {
        for (const key of keys) group.locks.set(key, member)
        return Effect.void
      }
      // Waiting for a member that (through others) waits for this one would never end.
      for (let next: Member | undefined = holder; next !== undefined; next = next.waitingFor) {
        if (next === member) {
          failTx(member.tx, undefined, regroup)
          return Effect.fail(regroup)
        }
      }
      member.waitingFor = holder
      return Effect.andThen(
        Effect.promise(() => holder.ended),
        Effect.suspend(() => {
          member.waitingFor = undefined
          return takeKeys(member, group, keys)
        })
      )
    })

  const locking: Executor["locking"] = <A, E>(
    keys: ReadonlyArray<string>,
    effect: Effect.Effect<A, E>,
    writes = false
  ): Effect.Effect<A, E | StoreError> =>
    Effect.withFiber((fiber): Effect.Effect<A, E | StoreError> => {
      const member = fiber.getRef(CurrentTx)
      if (member === undefined && writes && grouping.groups > 0) return transaction(locking(keys, effect))
      const group = member?.group
      if (member === undefined || group === undefined || keys.length === 0) return effect
      if (member.blocked !== undefined && !fiber.getRef(HoldsTurn)) {
        return Effect.andThen(awaitTurn(member), locking(keys, effect, writes))
      }
      if (holderOf(member, group, keys) === undefined) {
        for (const key of keys) group.locks.set(key, member)
        return effect
      }
      // Another member locked one of the rows first: this member's turn waits for it, and so do its statements
      // sent alongside (they follow the lock, as they would in a transaction alone).
      member.blocked = new Promise<void>((resolve) => {
        member.endTurn = resolve
      })
      return Effect.ensuring(
        Effect.provideService(Effect.andThen(takeKeys(member, group, keys), effect), HoldsTurn, true),
        Effect.sync(() => endTurn(member))
      )
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
