import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { DocumentStore } from "@paycore/core"
import { chunked, documentStoreConformance, randomBytes } from "@paycore/testkit/document-store-conformance"
import { Effect, Stream } from "effect"
import { folderDocumentStoreLayer, makeFolderDocumentStore } from "../src/document-store-folder.ts"

const roots: Array<string> = []
const newRoot = async () => {
  const root = await mkdtemp(join(tmpdir(), "paycore-docs-"))
  roots.push(root)
  return root
}
afterAll(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))))

const root = await newRoot()
documentStoreConformance("folder", folderDocumentStoreLayer({ root }))

/** Every file under `dir`, recursively, as paths relative to it. */
const listFiles = async (dir: string): Promise<Array<string>> => {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
}

describe("folder document store", () => {
  it.live("keeps one file per key, named by the key's hash, and nothing in tmp/ after puts (also failed ones)", () =>
    Effect.gen(function* () {
      const dir = yield* Effect.promise(newRoot)
      const store = yield* makeFolderDocumentStore({ root: dir })
      const bytes = randomBytes(100_000)
      yield* store.put("Document:a", "image/png", chunked(bytes), { maxBytes: 1_000_000 })
      yield* store.put("Document:a", "image/png", chunked(bytes), { maxBytes: 1_000_000 })
      yield* Effect.flip(store.put("Document:b", "image/png", chunked(bytes), { maxBytes: 10 }))
      const files = yield* Effect.promise(() => listFiles(dir))
      assert.strictEqual(files.length, 1)
      assert.match(files[0]!, /^files\/[0-9a-f]{2}\/[0-9a-f]{64}$/)
      // The stored file starts with the document's bytes (the metadata trails them).
      const raw = yield* Effect.promise(() => readFile(join(dir, files[0]!)))
      assert.isTrue(Buffer.from(bytes).equals(raw.subarray(0, bytes.byteLength)))
      assert.include(raw.subarray(bytes.byteLength).toString("utf8"), '"key":"Document:a"')
    })
  )

  it.live("a second store on the same folder sees the files (state lives in the folder)", () =>
    Effect.gen(function* () {
      const dir = yield* Effect.promise(newRoot)
      const first = yield* makeFolderDocumentStore({ root: dir })
      yield* first.put("k", "application/pdf", chunked(new TextEncoder().encode("persisted")), { maxBytes: 100 })
      const second = yield* makeFolderDocumentStore({ root: dir })
      const doc = (yield* second.get("k"))!
      assert.strictEqual(doc.contentType, "application/pdf")
      const chunks = yield* Stream.runCollect(doc.body)
      assert.strictEqual(new TextDecoder().decode(Buffer.concat(chunks)), "persisted")
    })
  )

  it.live("opening the folder removes stale temporary files (a crash mid-put) and keeps fresh ones", () =>
    Effect.gen(function* () {
      const dir = yield* Effect.promise(newRoot)
      yield* makeFolderDocumentStore({ root: dir })
      const stale = join(dir, "tmp", "stale.part")
      const fresh = join(dir, "tmp", "fresh.part")
      yield* Effect.promise(async () => {
        await writeFile(stale, "half a file")
        await writeFile(fresh, "a put in progress")
        const old = new Date(Date.now() - 2 * 60 * 60 * 1000)
        await utimes(stale, old, old)
      })
      yield* makeFolderDocumentStore({ root: dir })
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(join(dir, "tmp"))), ["fresh.part"])
    })
  )

  it.live("a damaged file is reported as a StoreError, not as a document", () =>
    Effect.gen(function* () {
      const dir = yield* Effect.promise(newRoot)
      const store = yield* makeFolderDocumentStore({ root: dir })
      yield* store.put("k", "image/png", chunked(randomBytes(1000)), { maxBytes: 10_000 })
      const [path] = yield* Effect.promise(() => listFiles(dir))
      yield* Effect.promise(() => writeFile(join(dir, path!), "not a stored document"))
      const error = yield* Effect.flip(store.get("k"))
      assert.strictEqual(error._tag, "StoreError")
    })
  )

  it.live("works as a layer", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      assert.isFalse(yield* store.exists("nothing"))
    }).pipe(Effect.provide(folderDocumentStoreLayer({ root: join(root, "nested", "deeper") })))
  )
})
