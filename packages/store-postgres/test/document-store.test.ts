import { afterAll, assert, describe, it } from "@effect/vitest"
import { chunked, documentStoreConformance, randomBytes } from "@paycore/testkit/document-store-conformance"
import { Effect, Stream } from "effect"
import { CompiledQuery, type Kysely } from "kysely"
import {
  DOCUMENT_CHUNK_BYTES,
  DOCUMENT_TABLES_DDL,
  documentStoreLayerFrom,
  documentStoreLayerPglite,
  makePostgresDocumentStore,
  setupDocumentTables,
  sweepOrphanDocumentChunks
} from "../src/document-store.ts"
import { makePgliteKysely } from "../src/index.ts"
import { pgliteConfig, testDatabase } from "./helpers.ts"

// The port's conformance suite: always on an in-memory PGlite, and on the real server when DATABASE_URL names one
// (a fresh schema for this file). A small chunk size runs the same suite with many chunk rows per file.
documentStoreConformance("pglite", documentStoreLayerPglite(pgliteConfig()), { timeout: "60 seconds" })
documentStoreConformance("pglite, 16 KiB chunks", documentStoreLayerPglite(pgliteConfig(), { chunkBytes: 16 * 1024 }), {
  timeout: "60 seconds"
})

const database = testDatabase("documents")
if (database.kind === "pg") {
  documentStoreConformance("postgres", documentStoreLayerFrom(database.open), { timeout: "60 seconds" })
}

const rows = async (db: Kysely<any>, sql: string, params: Array<unknown> = []) =>
  (await db.executeQuery<Record<string, any>>(CompiledQuery.raw(sql, params))).rows

// One database for the tests below (PGlite in memory, or this file's schema on the server), emptied before each.
let shared: Kysely<any> | undefined
afterAll(() => shared?.destroy())

const withDb = <A, E>(use: (db: Kysely<any>) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    if (shared === undefined) shared = database.open()
    const db = shared
    yield* setupDocumentTables(db)
    yield* Effect.promise(() => rows(db, "TRUNCATE document_files, document_chunks"))
    return yield* use(db)
  })

const orphanCount = async (db: Kysely<any>) =>
  Number(
    (
      await rows(
        db,
        `SELECT count(*) AS n FROM document_chunks c
         WHERE NOT EXISTS (SELECT 1 FROM document_files f WHERE f.file_id = c.file_id)`
      )
    )[0]!.n
  )

describe(`PostgreSQL document store (${database.kind})`, () => {
  it.live("the setup is idempotent and the DDL is one statement per string", () =>
    withDb((db) =>
      Effect.gen(function* () {
        yield* setupDocumentTables(db)
        yield* setupDocumentTables(db)
        for (const ddl of DOCUMENT_TABLES_DDL) assert.notInclude(ddl, ";")
        const storage = yield* Effect.promise(() =>
          rows(
            db,
            `SELECT a.attstorage FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
             WHERE c.oid = 'document_chunks'::regclass AND a.attname = 'data'`
          )
        )
        assert.strictEqual(storage[0]!.attstorage, "e")
      })
    )
  )

  it.live("a file is stored as 256 KiB chunk rows in order, and one files row", () =>
    withDb((db) =>
      Effect.gen(function* () {
        const store = yield* makePostgresDocumentStore(db)
        const bytes = randomBytes(2 * DOCUMENT_CHUNK_BYTES + 1234)
        const stored = yield* store.put("Document:chunks", "image/png", chunked(bytes, [100_000]), {
          maxBytes: 10_000_000
        })
        const files = yield* Effect.promise(() => rows(db, "SELECT * FROM document_files"))
        assert.strictEqual(files.length, 1)
        assert.strictEqual(files[0]!.key, "Document:chunks")
        assert.strictEqual(Number(files[0]!.size), stored.size)
        assert.strictEqual(files[0]!.sha256, stored.sha256)
        assert.match(files[0]!.file_id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        const chunks = yield* Effect.promise(() =>
          rows(db, "SELECT seq, length(data) AS n FROM document_chunks WHERE file_id = $1 ORDER BY seq", [
            files[0]!.file_id
          ])
        )
        assert.deepStrictEqual(
          chunks.map((c) => [c.seq, Number(c.n)]),
          [
            [0, DOCUMENT_CHUNK_BYTES],
            [1, DOCUMENT_CHUNK_BYTES],
            [2, 1234]
          ]
        )
      })
    )
  )

  it.live("replace, delete, a put over the limit and a failed body leave no chunk rows behind", () =>
    withDb((db) =>
      Effect.gen(function* () {
        const store = yield* makePostgresDocumentStore(db)
        const limit = { maxBytes: 2_000_000 }
        yield* store.put("a", "image/png", chunked(randomBytes(700_000)), limit)
        yield* store.put("a", "image/png", chunked(randomBytes(600_000)), limit)
        yield* store.put("b", "image/png", chunked(randomBytes(300_000)), limit)
        yield* store.delete("b")
        yield* Effect.flip(store.put("c", "image/png", chunked(randomBytes(2_500_000)), limit))
        const broken = (async function* () {
          yield randomBytes(600_000)
          throw new Error("reset")
        })()
        yield* Effect.flip(store.put("d", "image/png", broken, limit))
        assert.strictEqual(yield* Effect.promise(() => orphanCount(db)), 0)
        const total = yield* Effect.promise(() => rows(db, "SELECT count(*) AS n FROM document_chunks"))
        assert.strictEqual(Number(total[0]!.n), 3) // "a": 600 000 bytes in 3 chunks
      })
    )
  )

  it.live("the sweep removes old orphan chunks and keeps recent ones and stored files", () =>
    withDb((db) =>
      Effect.gen(function* () {
        const store = yield* makePostgresDocumentStore(db)
        yield* store.put("kept", "image/png", chunked(randomBytes(1000)), { maxBytes: 10_000 })
        const oldId = "00000190-0000-7000-8000-000000000001" // 1970: a crash long ago
        const recentPrefix = (Date.now() - 60_000).toString(16).padStart(12, "0")
        const recentId = `${recentPrefix.slice(0, 8)}-${recentPrefix.slice(8)}-7000-8000-000000000002` // a put in progress
        for (const id of [oldId, recentId]) {
          yield* Effect.promise(() =>
            rows(db, "INSERT INTO document_chunks (file_id, seq, data) VALUES ($1, 0, $2)", [id, Buffer.from("x")])
          )
        }
        assert.strictEqual(yield* sweepOrphanDocumentChunks(db), 1)
        const left = yield* Effect.promise(() => rows(db, "SELECT DISTINCT file_id FROM document_chunks"))
        assert.sameMembers(
          left.map((r) => r.file_id),
          [recentId, (yield* Effect.promise(() => rows(db, "SELECT file_id FROM document_files")))[0]!.file_id]
        )
        assert.strictEqual(yield* sweepOrphanDocumentChunks(db, 0), 1)
        const doc = (yield* store.get("kept"))!
        assert.strictEqual((yield* Stream.runCollect(doc.body)).length, 1)
      })
    )
  )

  it.live("shares a Kysely with other users (the Store's own database)", () =>
    Effect.gen(function* () {
      const db = makePgliteKysely(pgliteConfig())
      yield* setupDocumentTables(db)
      const store = yield* makePostgresDocumentStore(db)
      yield* store.put("x", "image/png", chunked(randomBytes(10)), { maxBytes: 10 })
      assert.isTrue(yield* store.exists("x"))
      yield* Effect.promise(() => db.destroy())
    })
  )
})
