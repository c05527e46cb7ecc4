import { assert, describe, it } from "@effect/vitest"
import { Conflict, emit, Idempotency, Ids, Refused, requestFingerprint, Store } from "@paycore/core"
import { makeMemoryStore, layer as memoryStore } from "@paycore/store-memory"
import { Effect, Layer } from "effect"

const env = Layer.mergeAll(memoryStore, Ids.layerSeeded(11))

/** A command with a visible effect: bumps a counter and writes an outbox event, in the caller's transaction. */
const createThing = (name: string) =>
  Effect.gen(function* () {
    const store = yield* Store
    return yield* store.transaction(
      Effect.gen(function* () {
        const n = yield* store.counters.add("things", 1)
        yield* emit("THING.CREATED", `Thing:${n}`, { name })
        return { id: `Thing:${n}`, name }
      })
    )
  })

const render = (thing: { id: string; name: string }) => ({ status: 201, body: thing })

const counted = Effect.gen(function* () {
  const store = yield* Store
  const outbox = yield* store.outbox.list({}, { limit: 100, sortOrder: "asc" })
  return { counter: yield* store.counters.get("things"), events: outbox.totalCount }
})

const fp = requestFingerprint("POST", "/things", '{"name":"a"}')

describe("idempotency", () => {
  it.effect("same key and same request: the stored response, the effect once", () =>
    Effect.gen(function* () {
      const first = yield* Idempotency.run("platform", "key-1", fp, createThing("a"), render)
      const second = yield* Idempotency.run("platform", "key-1", fp, createThing("a"), render)
      assert.deepStrictEqual(first, { status: 201, body: { id: "Thing:1", name: "a" }, replayed: false })
      assert.deepStrictEqual(second, { ...first, replayed: true })
      assert.deepStrictEqual(yield* counted, { counter: 1, events: 1 })

      // Another key, or the same key in another scope, is another command.
      yield* Idempotency.run("platform", "key-2", fp, createThing("a"), render)
      yield* Idempotency.run("other-platform", "key-1", fp, createThing("a"), render)
      assert.deepStrictEqual(yield* counted, { counter: 3, events: 3 })
    }).pipe(Effect.provide(env))
  )

  it.effect("same key with a different request is refused with IDEMPOTENCY_KEY_REUSED (409)", () =>
    Effect.gen(function* () {
      yield* Idempotency.run("platform", "key-1", fp, createThing("a"), render)
      const other = requestFingerprint("POST", "/things", '{"name":"b"}')
      const error = yield* Idempotency.run("platform", "key-1", other, createThing("b"), render).pipe(Effect.flip)
      assert.instanceOf(error, Conflict)
      assert.strictEqual((error as Conflict).code, "IDEMPOTENCY_KEY_REUSED")
      assert.include((error as Conflict).message, "key-1")
      assert.deepStrictEqual(yield* counted, { counter: 1, events: 1 })
      assert.notStrictEqual(requestFingerprint("POST", "/things", "{}"), requestFingerprint("PUT", "/things", "{}"))
    }).pipe(Effect.provide(env))
  )

  it.effect("a failing effect stores nothing: the retry executes", () =>
    Effect.gen(function* () {
      const failing = Effect.flatMap(createThing("a"), () =>
        Effect.fail(new Refused({ code: "NOPE", message: "refused after writing" }))
      )
      const error = yield* Idempotency.run("platform", "key-1", fp, failing, render).pipe(Effect.flip)
      assert.strictEqual((error as Refused).code, "NOPE")
      // The command's writes rolled back with it, and no response was stored.
      assert.deepStrictEqual(yield* counted, { counter: 0, events: 0 })
      const store = yield* Store
      assert.isUndefined(yield* store.idempotency.get("platform:key-1"))

      const retry = yield* Idempotency.run("platform", "key-1", fp, createThing("a"), render)
      assert.isFalse(retry.replayed)
      assert.deepStrictEqual(yield* counted, { counter: 1, events: 1 })
    }).pipe(Effect.provide(env))
  )

  it.effect("concurrent requests with one key run the effect once", () =>
    Effect.gen(function* () {
      const slow = Effect.flatMap(Effect.yieldNow, () => createThing("a"))
      const results = yield* Effect.all(
        Array.from({ length: 8 }, () => Idempotency.run("platform", "race", fp, slow, render)),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter((r) => !r.replayed).length, 1)
      assert.isTrue(results.every((r) => r.status === 201 && (r.body as { id: string }).id === "Thing:1"))
      assert.deepStrictEqual(yield* counted, { counter: 1, events: 1 })
    }).pipe(Effect.provide(env))
  )

  it.effect("a lost insert race (no lock, as on PostgreSQL) rolls back and replays the winner", () => {
    // The first lookup misses although the winner already stored the key: the put hits the unique key.
    const racyStore = Layer.effect(
      Store,
      Effect.map(makeMemoryStore, (store) => {
        let misses = 1
        return Store.of({
          ...store,
          idempotency: {
            ...store.idempotency,
            get: (key) => (misses-- > 0 ? Effect.succeed(undefined) : store.idempotency.get(key))
          }
        })
      })
    )
    return Effect.gen(function* () {
      const store = yield* Store
      yield* store.transaction(
        store.idempotency.put({
          key: "platform:key-1",
          fingerprint: fp,
          status: 201,
          body: '{"id":"Thing:winner"}',
          createdAt: "2025-01-01T00:00:00.000Z"
        })
      )
      const result = yield* Idempotency.run("platform", "key-1", fp, createThing("a"), render)
      assert.deepStrictEqual(result, { status: 201, body: { id: "Thing:winner" }, replayed: true })
      assert.deepStrictEqual(yield* counted, { counter: 0, events: 0 })
    }).pipe(Effect.provide(Layer.mergeAll(racyStore, Ids.layerSeeded(3))))
  })

  it.effect("keys longer than 255 characters are invalid input on Idempotency-Key", () =>
    Effect.gen(function* () {
      const ok = yield* Idempotency.run("platform", "k".repeat(255), fp, createThing("a"), render)
      assert.isFalse(ok.replayed)
      const error = yield* Idempotency.run("platform", "k".repeat(256), fp, createThing("a"), render).pipe(Effect.flip)
      assert.strictEqual(error._tag, "InvalidInput")
      if (error._tag === "InvalidInput") assert.strictEqual(error.errors[0]!.field, "Idempotency-Key")
      assert.deepStrictEqual(yield* counted, { counter: 1, events: 1 })
    }).pipe(Effect.provide(env))
  )

  it.effect("an empty response body is stored and replayed as undefined", () =>
    Effect.gen(function* () {
      const noContent = () => ({ status: 204, body: undefined })
      const first = yield* Idempotency.run("platform", "k", fp, createThing("a"), noContent)
      const again = yield* Idempotency.run("platform", "k", fp, createThing("a"), noContent)
      assert.deepStrictEqual(first, { status: 204, body: undefined, replayed: false })
      assert.deepStrictEqual(again, { status: 204, body: undefined, replayed: true })
    }).pipe(Effect.provide(env))
  )

  // Design section 0: a prepared command's provider call runs outside the store transaction.
  describe("runPrepared", () => {
    const request = { scope: "platform", key: "prepared-1", fingerprint: fp }

    it.effect("a stored answer is replayed without preparing again; another body under the key is 409", () =>
      Effect.gen(function* () {
        let prepared = 0
        const prepare = Effect.sync(() => ++prepared)
        const first = yield* Idempotency.runPrepared(request, prepare, () => createThing("a"), render)
        const second = yield* Idempotency.runPrepared(request, prepare, () => createThing("a"), render)
        assert.deepStrictEqual(second, { ...first, replayed: true })
        assert.strictEqual(prepared, 1)
        assert.deepStrictEqual(yield* counted, { counter: 1, events: 1 })
        const other = yield* Effect.flip(
          Idempotency.runPrepared({ ...request, fingerprint: "other" }, prepare, () => createThing("b"), render)
        )
        assert.instanceOf(other, Conflict)
        assert.strictEqual(prepared, 1)
      }).pipe(Effect.provide(env))
    )

    it.effect("a failing prepare (a provider outage) stores nothing: the same key then runs", () =>
      Effect.gen(function* () {
        const down = new Refused({ code: "SERVICE_UNAVAILABLE", message: "down" })
        const failed = yield* Effect.flip(
          Idempotency.runPrepared(request, Effect.fail(down), () => createThing("a"), render)
        )
        assert.strictEqual(failed, down)
        assert.deepStrictEqual(yield* counted, { counter: 0, events: 0 })
        const ok = yield* Idempotency.runPrepared(request, Effect.succeed(1), () => createThing("a"), render)
        assert.strictEqual(ok.replayed, false)
        assert.deepStrictEqual(yield* counted, { counter: 1, events: 1 })
      }).pipe(Effect.provide(env))
    )

    it.effect("racing twins prepare each, commit once: one answer, the other replayed", () =>
      Effect.gen(function* () {
        const answers = yield* Effect.all(
          Array.from({ length: 5 }, () =>
            Idempotency.runPrepared(request, Effect.yieldNow, () => createThing("a"), render)
          ),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(answers.filter((a) => !a.replayed).length, 1)
        assert.deepStrictEqual(yield* counted, { counter: 1, events: 1 })
      }).pipe(Effect.provide(env))
    )
  })
})
