import { assert, describe, it } from "@effect/vitest"
import { Store } from "@paycore/core"
import { Effect } from "effect"
import pg from "pg"
import { layerPg } from "../src/index.ts"
import { testDatabase } from "./helpers.ts"
import { transaction } from "./records.ts"

// `transactions.updateIf` outside a store transaction commits on a session of its own, without waiting for the WAL
// flush (the rail's reference of a payout: see the port's contract). A server-only path: PGlite has one session.
const db = testDatabase("unflushed")
const url = process.env.DATABASE_URL

/** A session of the test's own to the server: it terminates the store's sessions as soon as asked. */
const admin = Effect.acquireRelease(
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    return client
  }),
  (client) => Effect.promise(() => client.end())
)

/** The sessions of one application name on the server. */
const sessions = (client: pg.Client, applicationName: string) =>
  Effect.promise(async () => {
    const { rows } = await client.query<{ pid: number; query: string }>(
      "SELECT pid, query FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
      [applicationName]
    )
    return rows
  })

const terminate = (client: pg.Client, pids: ReadonlyArray<number>) =>
  Effect.promise(async () => {
    for (const pid of pids) await client.query("SELECT pg_terminate_backend($1)", [pid])
  })

/** A store on this file's schema whose sessions carry `applicationName`. */
const storeNamed = (applicationName: string, flushRailReferences = false) => {
  const u = new URL(url!)
  u.searchParams.set("application_name", applicationName)
  return layerPg({ connectionString: u.toString(), schema: db.schema, max: 2, flushRailReferences })
}

/** A transaction row waiting for its rail's reference, stored; and the same row with reference `rail-<n>-a`. */
const awaitingReference = (base: number) =>
  Effect.gen(function* () {
    const store = yield* Store
    const n = base + Math.floor(Math.random() * 1_000)
    const stored = transaction(n, { railReference: undefined })
    yield* store.transactions.insert(stored)
    return { store, n, stored, referenced: { ...stored, railReference: `rail-${n}-a`, attempts: 0 } }
  })

/** The sessions of `applicationName` whose last statement was a compare-and-set of a transaction. */
const compareAndSetSessions = (client: pg.Client, applicationName: string) =>
  Effect.map(sessions(client, applicationName), (rows) =>
    rows.filter((row) => row.query.startsWith("UPDATE transactions"))
  )

describe.skipIf(db.kind === "pglite")("postgres store: compare-and-set writes outside a transaction", () => {
  it.effect("are seen by every session at once, survive their session's end, and close with the store", () =>
    Effect.gen(function* () {
      const client = yield* admin
      const applicationName = `paycore_unflushed_${process.pid}`
      yield* Effect.provide(
        Effect.gen(function* () {
          const { store: s, n, stored, referenced: first } = yield* awaitingReference(4_000)
          assert.isTrue(yield* s.transactions.updateIf(first, stored))
          // Read back on the pool's sessions (another connection): the write is there once updateIf returned.
          assert.strictEqual((yield* s.transactions.get(stored.id))?.railReference, `rail-${n}-a`)

          // The server ends the session that wrote it: the next write opens another and goes through. Again and
          // again: the server's FATAL may answer the next write before its socket closes, and that write's rerun
          // must not go to the closing session (it did, now and then, before the session was dropped on it).
          let previous = first
          for (let round = 0; round < 30; round++) {
            const writer = yield* compareAndSetSessions(client, applicationName)
            assert.strictEqual(writer.length, 1, "one session wrote the compare-and-set")
            yield* terminate(
              client,
              writer.map((row) => row.pid)
            )
            const next = { ...previous, railReference: `rail-${n}-${round}`, dueAt: "2026-11-21T14:00:00.000Z" }
            assert.isTrue(yield* s.transactions.updateIf(next, previous))
            previous = next
          }
          assert.isFalse(yield* s.transactions.updateIf({ ...previous, railReference: "stale" }, first))
          assert.strictEqual((yield* s.transactions.get(stored.id))?.railReference, `rail-${n}-29`)
        }),
        storeNamed(applicationName)
      )
      // The store's scope closed: none of its sessions is left on the server, the compare-and-set one included. A
      // backend leaves pg_stat_activity a moment after its client said goodbye: asked again for up to 10 s.
      let left = yield* sessions(client, applicationName)
      for (let asked = 1; left.length > 0 && asked < 100; asked++) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
        left = yield* sessions(client, applicationName)
      }
      assert.deepStrictEqual(left, [])
    })
  )

  it.effect("with flushRailReferences they are a write as any other: no session of their own", () =>
    Effect.gen(function* () {
      const client = yield* admin
      const applicationName = `paycore_flushed_${process.pid}`
      yield* Effect.provide(
        Effect.gen(function* () {
          const { store: s, n, stored, referenced: first } = yield* awaitingReference(5_000)
          assert.isTrue(yield* s.transactions.updateIf(first, stored))
          assert.isFalse(yield* s.transactions.updateIf(first, stored), "the row is no longer as expected")
          assert.strictEqual((yield* s.transactions.get(stored.id))?.railReference, `rail-${n}-a`)
          const writers = yield* compareAndSetSessions(client, applicationName)
          // In a group the compare-and-set is followed by the group's COMMIT on the same session.
          assert.deepStrictEqual(writers, [])
        }),
        storeNamed(applicationName, true)
      )
    })
  )
})
