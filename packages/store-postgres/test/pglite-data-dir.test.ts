import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Store } from "@paycore/core"
import { Effect } from "effect"
import { sql } from "kysely"
import { afterAll, assert, it } from "vitest"
import { layerPglite, makePgliteKysely, migrate } from "../src/index.ts"
import { token } from "./records.ts"

const dataDir = mkdtempSync(join(tmpdir(), "paycore-pglite-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

it("keeps what it wrote in dataDir across a close and a reopen", async () => {
  const layer = layerPglite({ dataDir })
  await Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const store = yield* Store
        yield* store.transaction(
          Effect.gen(function* () {
            yield* store.tokens.insert(token(1))
            yield* store.counters.add("kept", 42)
          })
        )
      }),
      layer
    )
  )
  // A second layer: a new PGlite on the same directory (migrations find nothing to do).
  const reopened = await Effect.runPromise(
    Effect.provide(
      Effect.gen(function* () {
        const store = yield* Store
        return { token: yield* store.tokens.get(token(1).id), counter: yield* store.counters.get("kept") }
      }),
      layer
    )
  )
  assert.deepStrictEqual(reopened, { token: token(1), counter: 42 })

  // Migrated already; and PGlite runs with fsync off (its default `-F` start parameter, which we keep).
  const raw = makePgliteKysely({ dataDir })
  try {
    assert.deepStrictEqual(await migrate(raw), [])
    const { rows } = await sql<{ fsync: string }>`SHOW fsync`.execute(raw)
    assert.deepStrictEqual(rows, [{ fsync: "off" }])
  } finally {
    await raw.destroy()
  }
}, 60_000)
