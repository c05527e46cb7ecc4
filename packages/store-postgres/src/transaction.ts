import { StoreError, type UniqueViolation } from "@paycore/core"
import { Cause, Context, Effect, Exit } from "effect"
import { isConflict, isUnavailable, storeError } from "./driver-errors.ts"
import type { SqlClient, SqlTransaction } from "./sql.ts"

/*
 * The store's transactions: BEGIN, the effect, COMMIT or ROLLBACK, run again on a conflict; and group commit, where
 * the transactions of one moment share one DB transaction.
 */

/** Attempts of a transaction (or of a statement outside one) that keeps meeting conflicts. */
export const MAX_ATTEMPTS = 8

/**
 * A random pause before attempt `attempt + 1` (full jitter, 2-160 ms ceiling), so the transactions that
 * collided do not collide again. Real timers on purpose: a store under a test clock must not stall.
 */
export const backoffMs = (attempt: number): number => Math.random() * Math.min(160, 2 ** (attempt + 1))

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const pause = (ms: number): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/** A DB transaction: one caller's, or the shared one of a group (see `Group`). */
export interface Tx {
  readonly conn: SqlTransaction
  /** The first failed statement: PostgreSQL refuses every later one, and COMMIT would roll back. */
  failure: StoreError | undefined
  /** That failure was a conflict with a concurrent transaction: run the whole transaction again. */
  conflict: boolean
  /** Writes sent without waiting for their answer (see `run`); settled, never rejected. */
  readonly inFlight: Array<Promise<void>>
}

/** What a fiber in a transaction runs in: the DB transaction, and its place in a group when it has one. */
export interface Member {
  readonly tx: Tx
  readonly group: Group | undefined
  /** It sent a statement that writes (any but SELECT): its failure cannot be taken back alone. */
  wrote: boolean
}

/**
 * Callers' transactions run together in one DB transaction on one connection (group commit): their statements
 * of one moment share a round trip, and they share BEGIN, COMMIT and its WAL flush. A group commits when every
 * member has ended; it is rolled back, and every member run again alone, when a member failed after writing, a
 * statement failed, or two members locked one row (a member would otherwise read what the other is about to
 * change, without waiting for it), unless each did so only to read it or in a statement that checks and changes the
 * row itself (`Executor.locking`'s `shared`: a card's authorizations, a hold on one account). A member that failed
 * having only read ends with its failure once the group committed.
 * A group waits for a row another transaction holds at most `lockTimeoutMs` (see `GroupCommit`).
 */
export interface Group {
  readonly members: Array<(tx: Exit.Exit<Tx, StoreError>) => void>
  /** Members whose effect has not ended. */
  running: number
  /** Row locks taken so far (`table:id`, `balance:account`), by member (see `RowHeld`). */
  readonly locks: Map<string, RowHeld>
  /** Some member ended in a way that rolls the group back. */
  poisoned: boolean
  /** Set when the group began (its members then run; nobody joins a waiting group's list any more). */
  tx: Tx | undefined
  /** Settles when the group committed (true) or rolled back (false). */
  readonly outcome: Promise<boolean>
  readonly settle: (committed: boolean) => void
  /** The COMMIT's answer was lost with the connection: it may have committed, so no member runs again. */
  lost: StoreError | undefined
}

/** A row a member of a group locked (see `Executor.locking`). */
export interface RowHeld {
  /** The member that holds it; `undefined`: several, each sharing it. */
  by: Member | undefined
  /** Every lock taken of it was shared (to read it, or in a statement that checks and changes the row itself). */
  shared: boolean
}

/** Group commit (see `Group`): on a pipelining connection (a pg pool) only. */
export interface GroupCommit {
  /** Groups in flight at once, each on its own connection (default 2; 0: every transaction alone). */
  readonly groups?: number | undefined
  /** Members of one group at most (default 32). */
  readonly members?: number | undefined
  /**
   * How long a group waits for a row another transaction holds before it rolls back and its members run again
   * alone (`lock_timeout`, default 200 ms; keep it below the server's `deadlock_timeout`, 1 s by default). A group
   * holds its members' rows while it waits: bounding the wait means no cycle of waits lasts, so the server never
   * has to break a deadlock (docs/operations.md, "No deadlocks").
   */
  readonly lockTimeoutMs?: number | undefined
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

/** How many groups run at once, and how many members each takes (0 groups: every transaction alone). */
export interface Grouping {
  readonly groups: number
  readonly members: number
  readonly lockTimeoutMs: number
}

/** The transaction a fiber runs in (`undefined`: none); one reference per store, so two stores never see each other's. */
export type CurrentTx = Context.Reference<Member | undefined>

let storeCount = 0

export const makeCurrentTx = (): CurrentTx =>
  Context.Reference<Member | undefined>(`@paycore/store-postgres/Transaction/${++storeCount}`, {
    defaultValue: () => undefined
  })

/** A member of a group locked a row another member holds: the group rolls back and its members run alone. */
export const regroup = new StoreError({
  message: "PostgreSQL store: two transactions of one group locked the same row; each runs again alone",
  retryable: true
})

/** The transaction's first failure (later statements only fail because of it). */
export const failTx = (tx: Tx, error: unknown, failure: StoreError | UniqueViolation): void => {
  if (tx.failure !== undefined) return
  tx.conflict = error !== undefined && isConflict(error)
  tx.failure =
    failure._tag === "StoreError"
      ? failure
      : new StoreError({ message: `transaction aborted by ${failure.index} taken`, retryable: false })
}

export const ignore = (): void => undefined

/** A write sent without waiting for its answer: its failure becomes the transaction's (see `Tx.inFlight`). */
export const sentUnawaited = (tx: Tx, answer: Promise<unknown>): void => {
  tx.inFlight.push(answer.then(ignore, (error: unknown) => failTx(tx, error, storeError(error))))
}

const newTx = (conn: SqlTransaction): Tx => ({ conn, failure: undefined, conflict: false, inFlight: [] })

interface Outcome<A, E> {
  readonly exit: Exit.Exit<A, E | StoreError>
  /** Roll back happened because of a conflict: run the whole transaction again. */
  readonly again: boolean
}

/** Transactions each on a connection of their own: `attempts(effect, 1)` runs `effect` until it commits or fails for good. */
const soloTransactions = (sql: SqlClient, CurrentTx: CurrentTx) => {
  /** Takes a connection and BEGINs; an interruption while waiting for one gives the connection back. */
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

  return attempts
}

/** Group commit (see `Group`): `grouped(effect)` runs `effect` as a member of a group of up to `grouping.members`. */
const groupCommit = (sql: SqlClient, grouping: Grouping, CurrentTx: CurrentTx) => {
  const lockTimeoutSql = `SET LOCAL lock_timeout = ${Math.max(1, Math.round(grouping.lockTimeoutMs))}`
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
      settle,
      lost: undefined
    }
  }

  /** Begins a group: its members (those that joined and were not interrupted meanwhile) start together. */
  const startGroup = (group: Group): void => {
    groupsRunning++
    sql.begin().then(
      (conn) => {
        const tx = newTx(conn)
        // Sent with the members' first statements: no round trip of its own.
        const bounded = conn.send(lockTimeoutSql, [], true)
        if (bounded !== undefined) sentUnawaited(tx, bounded)
        group.tx = tx
        group.running = group.members.length
        // Every member left while it waited: it ends at once, and takes no newcomer (test/group-ends.test.ts).
        if (group.running === 0) return void endGroup(group)
        open = group
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
    // A group that ends takes no newcomer: its COMMIT gives its connection back.
    if (open === group) open = undefined
    const tx = group.tx!
    const commit = !group.poisoned && tx.failure === undefined
    const ended = commit
      ? tx.conn.commit().then(
          () => true,
          (error: unknown) => {
            if (isUnavailable(error)) group.lost = storeError(error)
            return false
          }
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
  const joinGroup: Effect.Effect<{ readonly group: Group; readonly tx: Tx }, StoreError> = Effect.callback((resume) => {
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
  })

  /** A member's end: the group ends with its last member; the member's exit stands if the group committed. */
  const leaveGroup = <A, E>(
    member: Member,
    group: Group,
    exit: Exit.Exit<A, E>
  ): Effect.Effect<Exit.Exit<A, E | StoreError> | undefined> => {
    if (open === group) open = undefined
    const interrupted = Exit.isFailure(exit) && Cause.hasInterrupts(exit.cause)
    if (Exit.isFailure(exit) && (member.wrote || interrupted)) group.poisoned = true
    group.running--
    if (group.running === 0) void endGroup(group)
    // Interrupted: it ends so, and is not run again.
    if (interrupted) return Effect.succeed(exit)
    return Effect.promise(() =>
      group.outcome.then((committed) =>
        committed ? exit : group.lost === undefined ? undefined : Exit.fail(group.lost)
      )
    )
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

  return grouped
}

/**
 * The store's `transaction(effect)`: nested calls join the outer transaction; with group commit the effect runs as a
 * member of a group, and alone when its group rolled back.
 */
export const makeTransaction = (sql: SqlClient, grouping: Grouping, CurrentTx: CurrentTx) => {
  const attempts = soloTransactions(sql, CurrentTx)
  const grouped = groupCommit(sql, grouping, CurrentTx)
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R> =>
    Effect.withFiber((fiber) => {
      // Nested (in this fiber or one it forked inside the transaction): join the outer transaction.
      if (fiber.getRef(CurrentTx) !== undefined) return effect
      if (grouping.groups === 0) return attempts(effect, 1)
      return Effect.flatMap(grouped(effect), (exit) => exit ?? attempts(effect, 1))
    })
}
