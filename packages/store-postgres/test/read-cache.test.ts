/**
 * The PGlite store's customer read cache (read-cache.ts) answers what the database holds: after a write outside a
 * transaction, after a committed one and after one rolled back; a transaction reads its own writes.
 */
import { Store } from "@paycore/core"
import { Effect } from "effect"
import { assert, it } from "vitest"
import { layerPglite } from "../src/index.ts"
import { pgliteConfig } from "./helpers.ts"
import { individual } from "./records.ts"

it("customers read by id are what the database holds, whatever was written since", async () => {
  const customer = individual(1)
  const renamed = (name: string) => ({ ...customer, email: `${name.replace(" ", "-")}@example.com` })
  await Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const store = yield* Store
        const read = () =>
          Effect.map(store.customers.get(customer.id), (found) =>
            found?.email?.replace("@example.com", "").replace("-", " ")
          )

        assert.strictEqual(yield* read(), undefined)
        yield* store.customers.insert(renamed("first"))
        assert.strictEqual(yield* read(), "first")
        assert.strictEqual(yield* read(), "first")

        yield* store.customers.update(renamed("outside"))
        assert.strictEqual(yield* read(), "outside")

        // Committed: read after; inside, the transaction reads its own write.
        const inside = yield* store.transaction(
          Effect.gen(function* () {
            yield* store.customers.update(renamed("committed"))
            return yield* read()
          })
        )
        assert.strictEqual(inside, "committed")
        assert.strictEqual(yield* read(), "committed")

        // Rolled back after its own read: the read does not outlive it.
        const failed = yield* Effect.flip(
          store.transaction(
            Effect.gen(function* () {
              yield* store.customers.update(renamed("rolled back"))
              assert.strictEqual(yield* read(), "rolled back")
              return yield* Effect.fail("abort" as const)
            })
          )
        )
        assert.strictEqual(failed, "abort")
        assert.strictEqual(yield* read(), "committed")

        // A nested transaction joins the outer one: its write counts when the outer one ends.
        yield* store.transaction(store.transaction(store.customers.update(renamed("nested"))))
        assert.strictEqual(yield* read(), "nested")
      }),
      layerPglite(pgliteConfig())
    )
  )
}, 60_000)
