import type { StoreError } from "@paycore/core"
import { Context, Effect } from "effect"

/** Undo actions of the running transaction, replayed backwards on failure. */
export type UndoLog = Array<() => void>

/** A map the journal can put a key's old value back into (`Map`, `ChunkedMap`). */
interface KeyedValues<V> {
  get(key: string): V | undefined
  set(key: string, value: V): unknown
  delete(key: string): boolean
}

/**
 * The undo log of the running transaction, shared by every part of one store: each write remembers how to take
 * itself back. Outside a transaction (`log` undefined) a write is not remembered.
 */
export class UndoJournal {
  log: UndoLog | undefined = undefined

  remember(action: () => void): void {
    if (this.log !== undefined) this.log.push(action)
  }

  /** Sets `key` to `value` (removes it when `value` is undefined), remembering its old value. */
  write<V>(map: KeyedValues<V>, key: string, value: V | undefined): void {
    const before = map.get(key)
    if (value === undefined) map.delete(key)
    else map.set(key, value)
    this.remember(() => (before === undefined ? map.delete(key) : map.set(key, before)))
  }
}

/** Set while a fiber runs inside `transaction`; nested calls join it. */
const InTransaction = Context.Reference<boolean>("paycore/store-memory/InTransaction", {
  defaultValue: () => false
})

/**
 * The store's `transaction`: one transaction at a time. JavaScript runs one fiber at a time, so the lock is a flag:
 * taking it is a plain check-and-set when it is free (the usual case: a command's body rarely suspends), and a
 * fiber that finds it taken waits for its release. Each transaction keeps an undo log (in `journal`) that a failure
 * (or an interruption) replays backwards, so a failed command leaves no partial write and no outbox event.
 */
export const makeTransaction = (journal: UndoJournal) => {
  let held = false
  const waiters = new Set<() => void>()

  /** Wakes every waiting fiber; each tries again (the first to run takes the lock, the others wait again). */
  const wakeAll = () => {
    if (waiters.size === 0) return
    const woken = [...waiters]
    waiters.clear()
    for (const wake of woken) wake()
  }

  /** Waits until the lock is free (an interrupted waiter leaves the queue). */
  const lockReleased: Effect.Effect<void> = Effect.callback<void>((resume) => {
    const wake = () => resume(Effect.void)
    waiters.add(wake)
    return Effect.sync(() => {
      waiters.delete(wake)
    })
  })

  // The context marked as inside, for the last context seen outside: a fiber runs its commands with one
  // context, so consecutive transactions reuse the marked one (contexts are immutable) instead of adding anew.
  let lastOutside: Context.Context<never> | undefined
  let lastInside: Context.Context<never> | undefined
  const insideOf = (outside: Context.Context<never>): Context.Context<never> => {
    if (outside !== lastOutside) {
      lastOutside = outside
      lastInside = Context.add(outside, InTransaction, true)
    }
    return lastInside!
  }

  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R> =>
    Effect.withFiber((fiber) => {
      // Nested (in this fiber or one it forked inside the transaction): join the outer transaction.
      if (fiber.getRef(InTransaction)) return effect
      let log: UndoLog | undefined
      let outside: Context.Context<never> | undefined
      const begin: Effect.Effect<A, E, R> = Effect.suspend(() => {
        if (held) return Effect.flatMap(lockReleased, () => begin)
        held = true
        log = []
        journal.log = log
        // Mark the fiber (and the fibers it forks) as inside, as `provideService` would, without its extra steps.
        outside = fiber.context
        fiber.setContext(insideOf(outside))
        return effect
      })
      // The finalizer is registered before the lock is taken, so an interruption at any point releases it.
      return Effect.onExitPrimitive(begin, (exit) => {
        const taken = log
        if (taken === undefined) return undefined
        log = undefined
        journal.log = undefined
        fiber.setContext(outside!)
        if (exit._tag === "Failure") for (let i = taken.length - 1; i >= 0; i--) taken[i]!()
        held = false
        wakeAll()
        return undefined
      })
    })
}
