import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterEach, vi } from "vitest"
import { Ids } from "../src/ports/ids.ts"

describe("Ids.layer", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it.effect("draws the uuid v7 random bits from crypto.getRandomValues, buffered, never Math.random", () => {
    const fromCrypto = vi.spyOn(globalThis.crypto, "getRandomValues")
    const fromMath = vi.spyOn(Math, "random")
    return Effect.gen(function* () {
      const ids = yield* Ids
      const made = new Set<string>()
      for (let i = 0; i < 2_000; i++) made.add(yield* ids.make("Transaction"))
      assert.strictEqual(made.size, 2_000)
      for (const id of made)
        assert.match(id, /^Transaction:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      assert.strictEqual(fromMath.mock.calls.length, 0)
      // Buffered: far fewer crypto calls than ids.
      assert.isAbove(fromCrypto.mock.calls.length, 0)
      assert.isBelow(fromCrypto.mock.calls.length, 20)
      assert.match(yield* ids.randomHex(16), /^[0-9a-f]{32}$/)
    }).pipe(Effect.provide(Ids.layer))
  })
})
