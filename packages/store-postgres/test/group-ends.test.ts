/**
 * A commit group whose every member left while it waited for a slot (interrupted: a request gone, a worker step's
 * sibling that crashed) begins, finds nobody, and ends at once. It must take no newcomer then: a transaction that
 * joined it would send its statements on a connection given back to the pool after the group's COMMIT, outside any
 * transaction (its writes autocommitted one by one, a failure after them undoing nothing), and end the group a second
 * time, giving back a connection another caller holds (pg-pool: "Release called on client which has already been
 * released to the pool", thrown where nothing catches it). Seen once in the PostgreSQL fault simulation under CI load.
 * Group commit needs a pipelining connection: skipped without DATABASE_URL.
 */
import { StoreError } from "@paycore/core"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { makePostgresStore, migrate } from "../src/index.ts"
import { testDatabase, unique, wallClockPause } from "./helpers.ts"

const db = testDatabase("group_ends")

describe.skipIf(db.kind !== "pg")("a commit group that lost all its members before it began", () => {
  const k = db.open()
  afterAll(() => k.destroy())

  it("ends alone: the next transaction runs in a group of its own, whole or not at all", async () => {
    await migrate(k)
    // One group at a time, so that a second one waits for the slot.
    const store = await Effect.runPromise(makePostgresStore(k, { groupCommit: { groups: 1 } }))
    const counted = unique("counter")
    const undone = unique("undone")
    const uncaught: Array<unknown> = []
    const onUncaught = (error: unknown) => uncaught.push(error)
    process.on("uncaughtException", onUncaught)
    try {
      await Effect.runPromise(
        Effect.gen(function* () {
          // The first group holds the slot until `release`; a member of it that ends at once closes it to newcomers.
          const release = yield* Deferred.make<void>()
          const holding = yield* Effect.forkChild(
            store.transaction(Effect.andThen(store.counters.add(counted, 1), Deferred.await(release)))
          )
          yield* wallClockPause(50)
          const quick = yield* Effect.forkChild(store.transaction(store.counters.add(counted, 1)))
          yield* wallClockPause(50)
          // The second waits for the slot in a group of its own, and leaves it before it begins.
          const leaving = yield* Effect.forkChild(store.transaction(store.counters.add(counted, 100)))
          yield* wallClockPause(50)
          yield* Fiber.interrupt(leaving)
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(holding)
          yield* Fiber.join(quick)
          // The emptied group has begun and ended meanwhile; a transaction that fails after a write leaves nothing.
          yield* wallClockPause(50)
          const failed = yield* Effect.exit(
            store.transaction(
              Effect.andThen(
                store.counters.add(undone, 5),
                Effect.fail(new StoreError({ message: "then it fails", retryable: false }))
              )
            )
          )
          expect(Exit.isFailure(failed)).toBe(true)
          expect(yield* store.counters.get(undone)).toBe(0)
          // And one that commits does, once.
          yield* store.transaction(store.counters.add(counted, 10))
          expect(yield* store.counters.get(counted)).toBe(12)
        })
      )
      // Whatever a double give-back would throw comes out on a later turn.
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(uncaught).toEqual([])
    } finally {
      process.off("uncaughtException", onUncaught)
    }
  })
})
