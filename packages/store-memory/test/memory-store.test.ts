import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Store, type TokenRecord } from "@paycore/core"
import { layer } from "@paycore/store-memory"

const token = (n: number): TokenRecord => ({
  id: `Token:00000000-0000-7000-8000-${String(n).padStart(12, "0")}` as TokenRecord["id"],
  name: `t${n}`,
  permissions: ["VIEW"],
  environment: "SANDBOX",
  clientId: `client-${n}`,
  secretHash: "h",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z"
})

describe("memory store", () => {
  it.effect("rolls back every write of a failed transaction", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const result = yield* store
        .transaction(
          Effect.gen(function* () {
            yield* store.tokens.insert(token(1))
            yield* store.counters.add("k", 5)
            return yield* Effect.fail("boom" as const)
          })
        )
        .pipe(Effect.flip)
      assert.strictEqual(result, "boom")
      assert.isUndefined(yield* store.tokens.get(token(1).id))
      assert.isUndefined(yield* store.tokens.findUnique("clientId", "client-1"))
      assert.strictEqual(yield* store.counters.get("k"), 0)
    }).pipe(Effect.provide(layer))
  )

  it.effect("refuses a second row with the same unique key", () =>
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.tokens.insert(token(1))
      const err = yield* store.tokens.insert({ ...token(2), clientId: "client-1" }).pipe(Effect.flip)
      assert.deepStrictEqual(err, { _tag: "UniqueViolation", index: "clientId" })
    }).pipe(Effect.provide(layer))
  )

  it.effect("pages newest first without skipping or repeating rows added meanwhile", () =>
    Effect.gen(function* () {
      const store = yield* Store
      for (let i = 1; i <= 5; i++) yield* store.tokens.insert(token(i))
      const first = yield* store.tokens.list({}, { limit: 2, sortOrder: "asc" })
      assert.deepStrictEqual(first.data.map((t) => t.name), ["t1", "t2"])
      assert.isTrue(first.hasMore)
      yield* store.tokens.insert(token(6))
      const second = yield* store.tokens.list({}, { limit: 10, sortOrder: "asc", after: first.data[1]!.id })
      assert.deepStrictEqual(second.data.map((t) => t.name), ["t3", "t4", "t5", "t6"])
      assert.strictEqual(second.totalCount, 6)
    }).pipe(Effect.provide(layer))
  )
})
