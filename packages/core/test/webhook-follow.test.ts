/**
 * `followOutbox`, what `GET /webhooks/stream` sends (issue 18, docs/design/dashboard-cli.md section 2): every event
 * once, in id order, from a position; woken by a signal or a poll interval, never reading in a loop of its own.
 */
import { assert, describe, it } from "@effect/vitest"
import { type OutboxRecord, Store } from "@paycore/core"
import { layer as memoryStore } from "@paycore/store-memory"
import { Effect, Fiber, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { followOutbox } from "../src/webhooks/follow.ts"

const idOf = (n: number) => `Webhook:01970000-0000-7000-8000-${String(n).padStart(12, "0")}`

const row = (n: number): OutboxRecord => ({
  id: idOf(n) as OutboxRecord["id"],
  type: "TEST",
  subject: `subject-${n}`,
  sequence: 1,
  createdAt: "2025-06-01T12:00:00.000Z",
  body: JSON.stringify({ id: idOf(n), type: "TEST", timestamp: "2025-06-01T12:00:00.000Z", data: {} }),
  status: "PENDING",
  attempts: [],
  nextAttemptAt: "2025-06-01T12:00:00.000Z"
})

const commit = (...numbers: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    const store = yield* Store
    yield* store.transaction(store.outbox.append(numbers.map(row)))
  })

/** Follows the outbox from `after` into a queue; `wake` releases one read before the poll interval (60 s) is up. */
const follow = (after: string | undefined) =>
  Effect.gen(function* () {
    const store = yield* Store
    const wakes = yield* Queue.unbounded<void>()
    const received = yield* Queue.unbounded<string>()
    const events = yield* followOutbox(store, after, { wake: Queue.take(wakes), pollMillis: 60_000 })
    const fiber = yield* Effect.forkChild(Stream.runForEach(events, (r) => Queue.offer(received, r.id)))
    return {
      wake: Queue.offer(wakes, undefined),
      next: Queue.take(received),
      /** What arrived so far, once the stream has run as far as it can without the clock or a wake. */
      pending: Effect.andThen(Effect.repeat(Effect.yieldNow, { times: 20 }), Queue.size(received)),
      stop: Fiber.interrupt(fiber)
    }
  })

describe("followOutbox", () => {
  it.effect("from a position: the later events at once, then each new one when woken", () =>
    Effect.gen(function* () {
      yield* commit(1, 2, 3)
      const stream = yield* follow(idOf(1))
      assert.deepStrictEqual([yield* stream.next, yield* stream.next], [idOf(2), idOf(3)])
      yield* commit(4)
      assert.strictEqual(yield* stream.pending, 0, "no read before a wake or the poll interval")
      yield* stream.wake
      assert.strictEqual(yield* stream.next, idOf(4))
      yield* stream.stop
    }).pipe(Effect.provide(memoryStore))
  )

  it.effect("a backlog of several pages comes in order, page after page, without waiting", () =>
    Effect.gen(function* () {
      yield* commit(...Array.from({ length: 250 }, (_, i) => i + 1))
      const stream = yield* follow(idOf(0))
      const received: Array<string> = []
      for (let i = 0; i < 250; i++) received.push(yield* stream.next)
      assert.deepStrictEqual(
        received,
        Array.from({ length: 250 }, (_, i) => idOf(i + 1))
      )
      assert.strictEqual(yield* stream.pending, 0)
      yield* stream.stop
    }).pipe(Effect.provide(memoryStore))
  )

  it.effect("without a position: only what commits after it starts; the poll interval finds it unwoken", () =>
    Effect.gen(function* () {
      yield* commit(1)
      const stream = yield* follow(undefined)
      yield* commit(2)
      yield* TestClock.adjust("60 seconds")
      assert.strictEqual(yield* stream.next, idOf(2))
      assert.strictEqual(yield* stream.pending, 0)
      yield* stream.stop
    }).pipe(Effect.provide(memoryStore))
  )

  it.effect("an event committed after one with a higher id is still sent, and each event only once", () =>
    Effect.gen(function* () {
      const stream = yield* follow(idOf(0))
      yield* commit(3)
      yield* stream.wake
      assert.strictEqual(yield* stream.next, idOf(3))
      // Its id was taken before event 3's, its transaction committed after (PostgreSQL runs them side by side).
      yield* commit(2)
      yield* stream.wake
      assert.strictEqual(yield* stream.next, idOf(2))
      yield* stream.wake
      yield* commit(5)
      yield* stream.wake
      assert.strictEqual(yield* stream.next, idOf(5))
      assert.strictEqual(yield* stream.pending, 0, "3 and 2 are not sent again")
      yield* stream.stop
    }).pipe(Effect.provide(memoryStore))
  )
})
