import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { ChunkedMap } from "../src/chunked-map.ts"

type Op =
  | { readonly op: "set"; readonly key: string; readonly value: number }
  | { readonly op: "delete"; readonly key: string }

// Keys from a small alphabet, so sets, overwrites, deletes and lookups of the same keys mix; mostly increasing
// runs (like time-ordered ids) interleaved with arbitrary keys.
const key = fc.string({ unit: fc.constantFrom("a", "b", "c", "d", "e"), maxLength: 4 })
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("set" as const), key, value: fc.integer() }),
  fc.record({ op: fc.constant("delete" as const), key })
)

describe("ChunkedMap", () => {
  it("behaves like a Map for any keys, order and chunk size", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), fc.integer({ min: 1, max: 8 }), (ops, chunkSize) => {
        const chunked = new ChunkedMap<number>(chunkSize)
        const model = new Map<string, number>()
        const keys = new Set<string>()
        for (const o of ops) {
          keys.add(o.key)
          if (o.op === "set") {
            chunked.set(o.key, o.value)
            model.set(o.key, o.value)
          } else {
            assert.strictEqual(chunked.delete(o.key), model.delete(o.key))
          }
          for (const k of keys) {
            assert.strictEqual(chunked.get(k), model.get(k))
            assert.strictEqual(chunked.has(k), model.has(k))
          }
        }
      })
    )
  })

  it("keeps increasing keys in many chunks and finds every one", () => {
    const chunked = new ChunkedMap<number>(16)
    const ids = Array.from({ length: 1000 }, (_, i) => `Webhook:${String(i).padStart(6, "0")}`)
    // Mostly appended, with a few late (smaller) keys as time-ordered ids from several writers would give.
    for (let i = 0; i < ids.length; i++) if (i % 97 !== 5) chunked.set(ids[i]!, i)
    for (let i = 0; i < ids.length; i++) if (i % 97 === 5) chunked.set(ids[i]!, i)
    for (let i = 0; i < ids.length; i++) assert.strictEqual(chunked.get(ids[i]!), i)
    assert.isUndefined(chunked.get("Webhook:"))
    assert.isUndefined(chunked.get("Webhook:999999"))
  })
})
