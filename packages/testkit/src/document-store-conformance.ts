/**
 * A conformance suite for `DocumentStore` adapters: byte-exact round trips (empty, small, multi-chunk), the size
 * limit (nothing stored past it, reading stops there), failed and interrupted bodies, replace, delete, unusual
 * keys, concurrent puts, and readers racing a replace. The memory adapter is the reference.
 */
import { assert, describe, layer, type Vitest } from "@effect/vitest"
import {
  type DocumentBody,
  DocumentBodyError,
  DocumentStore,
  DocumentTooLarge,
  type StoredDocument,
  type StoredFile
} from "@paycore/core"
import { type Duration, Effect, Exit, Fiber, type Layer, Stream } from "effect"

// ---------------------------------------------------------------------------------------------
// Bytes and bodies
// ---------------------------------------------------------------------------------------------

/** `n` random bytes (`crypto.getRandomValues` fills at most 65536 bytes a call). */
export const randomBytes = (n: number): Uint8Array => {
  const out = new Uint8Array(n)
  for (let offset = 0; offset < n; offset += 65_536) {
    crypto.getRandomValues(out.subarray(offset, Math.min(n, offset + 65_536)))
  }
  return out
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

/** SHA-256 as lowercase hex, by Web Crypto (independent of the adapters' incremental hashing). */
export const sha256Hex = async (bytes: Uint8Array): Promise<string> => {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>))
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.byteLength !== b.byteLength) return false
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false
  return true
}

const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0))
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

/** A macrotask turn, so bodies of concurrent puts interleave. */
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))

/**
 * `bytes` as an async body of chunks of the given sizes (cycled), each a fresh copy, with a macrotask turn
 * between chunks.
 */
export async function* chunked(bytes: Uint8Array, sizes: ReadonlyArray<number> = [65_536]): AsyncGenerator<Uint8Array> {
  let offset = 0
  let i = 0
  while (offset < bytes.byteLength) {
    const size = Math.max(1, sizes[i++ % sizes.length]!)
    yield bytes.slice(offset, offset + size)
    offset += size
    await tick()
  }
}

/** Uneven chunk sizes around the adapters' block sizes (64 KiB, 256 KiB). */
const UNEVEN = [1, 7, 65_535, 65_537, 262_143, 262_145, 1000, 131_072, 3, 262_144, 4096, 100_000]

const webStream = (bytes: Uint8Array, size: number): ReadableStream<Uint8Array> => {
  let offset = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close()
      controller.enqueue(bytes.slice(offset, offset + size))
      offset += size
    }
  })
}

const readBody = (doc: StoredDocument) => Effect.map(Stream.runCollect(doc.body), concat)

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

/** A key no other test (or earlier run on the same database) uses. */
const newKey = (label = "doc"): string => `Document:${label}-${crypto.randomUUID()}`

type It = Vitest.MethodsNonLive<DocumentStore>

const MB = 1024 * 1024
const LIMIT = 10 * MB

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

const expectStored = (key: string, contentType: string, bytes: Uint8Array, stored?: StoredFile) =>
  Effect.gen(function* () {
    const store = yield* DocumentStore
    const expectedSha = yield* Effect.promise(() => sha256Hex(bytes))
    if (stored !== undefined) assert.deepStrictEqual(stored, { size: bytes.byteLength, sha256: expectedSha })
    const doc = yield* store.get(key)
    assert.isDefined(doc)
    if (doc === undefined) return
    assert.strictEqual(doc.key, key)
    assert.strictEqual(doc.contentType, contentType)
    assert.strictEqual(doc.size, bytes.byteLength)
    assert.strictEqual(doc.sha256, expectedSha)
    assert.match(doc.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/)
    const read = yield* readBody(doc)
    assert.isTrue(sameBytes(read, bytes), `bytes of ${key} differ (${read.byteLength} read, ${bytes.byteLength} put)`)
    assert.isTrue(yield* store.exists(key))
  })

const expectAbsent = (key: string) =>
  Effect.gen(function* () {
    const store = yield* DocumentStore
    assert.isUndefined(yield* store.get(key))
    assert.isFalse(yield* store.exists(key))
  })

const roundTripTests = (it: It) => {
  it.effect("round-trips a small file byte-exact with its metadata", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const key = newKey()
      const bytes = utf8("%PDF-1.7 a small document \r\n\u0000\u00ff ünïcödé")
      const before = Date.now()
      const stored = yield* store.put(key, "application/pdf", chunked(bytes, [5]), { maxBytes: LIMIT })
      const after = Date.now()
      yield* expectStored(key, "application/pdf", bytes, stored)
      const doc = (yield* store.get(key))!
      const created = Date.parse(doc.createdAt)
      assert.isTrue(created >= before - 1000 && created <= after + 1000, `createdAt ${doc.createdAt} is not now`)
    })
  )

  it.effect("round-trips an empty file (no chunks, or only empty chunks)", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const none = newKey("empty")
      async function* nothing(): AsyncGenerator<Uint8Array> {}
      const stored = yield* store.put(none, "image/png", nothing(), { maxBytes: LIMIT })
      assert.deepStrictEqual(stored, {
        size: 0,
        sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
      })
      yield* expectStored(none, "image/png", new Uint8Array(0), stored)

      const empties = newKey("empty-chunks")
      async function* emptyChunks(): AsyncGenerator<Uint8Array> {
        yield new Uint8Array(0)
        yield new Uint8Array(0)
      }
      yield* expectStored(
        empties,
        "image/png",
        new Uint8Array(0),
        yield* store.put(empties, "image/png", emptyChunks(), { maxBytes: 0 })
      )
    })
  )

  it.effect("round-trips a 3 MB file given in uneven chunks, and reads it again", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const key = newKey("large")
      const bytes = randomBytes(3 * MB + 12_345)
      const stored = yield* store.put(key, "image/jpeg", chunked(bytes, UNEVEN), { maxBytes: LIMIT })
      yield* expectStored(key, "image/jpeg", bytes, stored)
      // The body stream can be run again: it reads the file again.
      const doc = (yield* store.get(key))!
      assert.isTrue(sameBytes(yield* readBody(doc), bytes))
      assert.isTrue(sameBytes(yield* readBody(doc), bytes))
    })
  )

  it.effect("round-trips files whose sizes sit on block edges", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      for (const size of [1, 65_535, 65_536, 65_537, 262_143, 262_144, 262_145, 524_288]) {
        const key = newKey(`edge-${size}`)
        const bytes = randomBytes(size)
        yield* expectStored(
          key,
          "application/octet-stream",
          bytes,
          yield* store.put(key, "application/octet-stream", chunked(bytes, [size]), { maxBytes: size })
        )
      }
    })
  )

  it.effect("accepts a web ReadableStream body", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const key = newKey("web")
      const bytes = randomBytes(600_000)
      const stored = yield* store.put(key, "image/png", webStream(bytes, 50_000), { maxBytes: LIMIT })
      yield* expectStored(key, "image/png", bytes, stored)
    })
  )

  it.effect("keys are opaque: similar and unusual keys are distinct files", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const base = newKey("keys")
      const keys = [
        base,
        `${base}/`,
        base.toUpperCase(),
        `${base}/../${base}`,
        `../../${base}`,
        `${base}\\x`,
        ` ${base} `,
        `${base}:ключ 🗝`,
        `${base}.`,
        `${base}${"x".repeat(600)}`
      ]
      for (const [i, key] of keys.entries()) {
        yield* store.put(key, "text/plain", chunked(utf8(`file ${i}`)), { maxBytes: LIMIT })
      }
      for (const [i, key] of keys.entries()) yield* expectStored(key, "text/plain", utf8(`file ${i}`))
      assert.isTrue(yield* store.delete(keys[1]!))
      yield* expectAbsent(keys[1]!)
      for (const [i, key] of keys.entries()) if (i !== 1) yield* expectStored(key, "text/plain", utf8(`file ${i}`))
    })
  )
}

const limitTests = (it: It) => {
  it.effect("stores a body of exactly maxBytes; one byte more fails with DocumentTooLarge and stores nothing", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const exact = newKey("exact")
      const bytes = randomBytes(300_000)
      yield* expectStored(
        exact,
        "image/png",
        bytes,
        yield* store.put(exact, "image/png", chunked(bytes, UNEVEN), { maxBytes: 300_000 })
      )

      const over = newKey("over")
      const exit = yield* Effect.exit(store.put(over, "image/png", chunked(bytes, UNEVEN), { maxBytes: 299_999 }))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      assert.isTrue(error?._tag === "Fail" && error.error instanceof DocumentTooLarge, String(error))
      if (error?._tag === "Fail" && error.error instanceof DocumentTooLarge) {
        assert.strictEqual(error.error.maxBytes, 299_999)
        assert.strictEqual(error.error.key, over)
      }
      yield* expectAbsent(over)
    })
  )

  it.effect("a put over the limit leaves the file already under the key untouched", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const key = newKey("keep")
      const first = randomBytes(100_000)
      yield* store.put(key, "application/pdf", chunked(first), { maxBytes: LIMIT })
      const failed = yield* Effect.flip(
        store.put(key, "image/png", chunked(randomBytes(700_000), UNEVEN), { maxBytes: 600_000 })
      )
      assert.instanceOf(failed, DocumentTooLarge)
      yield* expectStored(key, "application/pdf", first)
    })
  )

  it.effect("stops reading the body as soon as it passes maxBytes, and closes it", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const key = newKey("endless")
      let pulled = 0
      let closed = false
      async function* endless(): AsyncGenerator<Uint8Array> {
        try {
          while (true) {
            pulled++
            yield randomBytes(64 * 1024)
            await tick()
          }
        } finally {
          closed = true
        }
      }
      const failed = yield* Effect.flip(store.put(key, "image/png", endless(), { maxBytes: MB }))
      assert.instanceOf(failed, DocumentTooLarge)
      // 16 chunks fill 1 MB exactly; the 17th passes it. Nothing after that is read.
      assert.strictEqual(pulled, 17)
      yield* Effect.promise(tick)
      assert.isTrue(closed, "the body's iterator was not closed")
      yield* expectAbsent(key)
    })
  )
}

const failureTests = (it: It) => {
  it.effect("a body that fails mid-way fails the put with DocumentBodyError; nothing stored, old file kept", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const fresh = newKey("broken")
      const kept = newKey("broken-kept")
      const old = randomBytes(1000)
      yield* store.put(kept, "image/jpeg", chunked(old), { maxBytes: LIMIT })
      const boom = new Error("connection reset by peer")
      const broken = () =>
        (async function* () {
          yield randomBytes(300_000)
          await tick()
          yield randomBytes(300_000)
          throw boom
        })()
      for (const key of [fresh, kept]) {
        const failed = yield* Effect.flip(store.put(key, "image/png", broken(), { maxBytes: LIMIT }))
        assert.instanceOf(failed, DocumentBodyError)
        if (failed instanceof DocumentBodyError) {
          assert.strictEqual(failed.cause, boom)
          assert.strictEqual(failed.key, key)
        }
      }
      yield* expectAbsent(fresh)
      yield* expectStored(kept, "image/jpeg", old)
    })
  )

  it.effect("a body that yields something other than bytes fails with DocumentBodyError", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const key = newKey("text")
      async function* text(): AsyncGenerator<any> {
        yield utf8("fine so far")
        yield "but not this"
      }
      const failed = yield* Effect.flip(store.put(key, "text/plain", text() as DocumentBody, { maxBytes: LIMIT }))
      assert.instanceOf(failed, DocumentBodyError)
      yield* expectAbsent(key)
    })
  )

  it.effect("an interrupted put stores nothing and leaves the old file", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const fresh = newKey("interrupted")
      const kept = newKey("interrupted-kept")
      const old = randomBytes(5000)
      yield* store.put(kept, "image/png", chunked(old), { maxBytes: LIMIT })
      for (const key of [fresh, kept]) {
        let pulled = 0
        async function* stalls(): AsyncGenerator<Uint8Array> {
          for (let i = 0; i < 3; i++) {
            pulled++
            yield randomBytes(200_000)
            await tick()
          }
          await new Promise<never>(() => {}) // the client stops sending
        }
        const fiber = yield* Effect.forkChild(store.put(key, "image/png", stalls(), { maxBytes: LIMIT }))
        while (pulled < 3) yield* Effect.promise(tick)
        yield* Effect.sleep("50 millis") // the adapter writes what it got
        yield* Fiber.interrupt(fiber)
      }
      yield* expectAbsent(fresh)
      yield* expectStored(kept, "image/png", old)
    })
  )
}

const lifecycleTests = (it: It) => {
  it.effect("put replaces a file whole: bytes, content type, size and hash", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const key = newKey("replace")
      yield* store.put(key, "image/jpeg", chunked(randomBytes(MB + 17), UNEVEN), { maxBytes: LIMIT })
      const second = utf8("short")
      const stored = yield* store.put(key, "application/pdf", chunked(second), { maxBytes: LIMIT })
      yield* expectStored(key, "application/pdf", second, stored)
    })
  )

  it.effect("delete removes a file; deleting again or an unknown key answers false", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const key = newKey("delete")
      const other = newKey("delete-other")
      yield* store.put(key, "image/png", chunked(randomBytes(400_000), UNEVEN), { maxBytes: LIMIT })
      yield* store.put(other, "image/png", chunked(utf8("stays")), { maxBytes: LIMIT })
      assert.isTrue(yield* store.delete(key))
      yield* expectAbsent(key)
      assert.isFalse(yield* store.delete(key))
      assert.isFalse(yield* store.delete(newKey("never")))
      yield* expectStored(other, "image/png", utf8("stays"))
      // The key can be used again.
      yield* store.put(key, "image/png", chunked(utf8("again")), { maxBytes: LIMIT })
      yield* expectStored(key, "image/png", utf8("again"))
    })
  )

  it.effect("get and exists of an unknown key answer undefined and false", () => expectAbsent(newKey("unknown")))
}

const concurrencyTests = (it: It) => {
  it.effect("concurrent puts of different keys all round-trip", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const files = Array.from({ length: 8 }, (_, i) => ({
        key: newKey(`concurrent-${i}`),
        bytes: randomBytes(300_000 + i * 97_531)
      }))
      const stored = yield* Effect.forEach(
        files,
        (f, i) => store.put(f.key, "image/png", chunked(f.bytes, UNEVEN.slice(i % 5)), { maxBytes: LIMIT }),
        { concurrency: "unbounded" }
      )
      for (const [i, f] of files.entries()) yield* expectStored(f.key, "image/png", f.bytes, stored[i])
    })
  )

  it.effect("concurrent puts of one key leave exactly one of them, whole", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      const key = newKey("contended")
      const bodies = Array.from({ length: 4 }, (_, i) => randomBytes(200_000 + i * 150_001))
      yield* Effect.forEach(
        bodies,
        (bytes, i) => store.put(key, `image/type-${i}`, chunked(bytes, UNEVEN.slice(i)), { maxBytes: LIMIT }),
        { concurrency: "unbounded", discard: true }
      )
      const doc = (yield* store.get(key))!
      const winner = bodies.findIndex((b) => b.byteLength === doc.size)
      assert.isAtLeast(winner, 0)
      yield* expectStored(key, `image/type-${winner}`, bodies[winner]!)
    })
  )

  it.effect("a reader of a file that is replaced or deleted meanwhile never sees a mix of two files", () =>
    Effect.gen(function* () {
      const store = yield* DocumentStore
      for (const action of ["replace", "delete"] as const) {
        const key = newKey(`race-${action}`)
        const first = randomBytes(2 * MB + 3)
        yield* store.put(key, "image/png", chunked(first, UNEVEN), { maxBytes: LIMIT })
        const doc = (yield* store.get(key))!
        if (action === "replace") {
          yield* store.put(key, "image/png", chunked(randomBytes(2 * MB + 3), UNEVEN), { maxBytes: LIMIT })
        } else {
          yield* store.delete(key)
        }
        const read = yield* Effect.exit(readBody(doc))
        if (Exit.isSuccess(read)) {
          assert.isTrue(sameBytes(read.value, first), `${action}: the old reader saw bytes of another file`)
        } else {
          const reason = read.cause.reasons[0]
          assert.isTrue(reason?._tag === "Fail" && reason.error._tag === "StoreError", String(read.cause))
        }
      }
    })
  )
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

export interface DocumentStoreConformanceOptions {
  /** How long building (and closing) the layer may take, e.g. starting a database. */
  readonly timeout?: Duration.Input
}

/**
 * Registers the DocumentStore conformance suite, `describe("DocumentStore conformance: <name>")`, at the top level
 * of a vitest file:
 *
 * ```ts
 * documentStoreConformance("memory", documentStoreLayer)
 * ```
 *
 * One store for the whole suite (the layer is built once); every test uses fresh random keys, so a store that
 * already holds files (a database from an earlier run) is fine. Tests run with the live clock, one after another.
 */
export const documentStoreConformance = (
  name: string,
  storeLayer: Layer.Layer<DocumentStore, unknown>,
  options: DocumentStoreConformanceOptions = {}
): void => {
  layer(storeLayer, {
    excludeTestServices: true,
    ...(options.timeout === undefined ? {} : { timeout: options.timeout })
  })(`DocumentStore conformance: ${name}`, (it) => {
    describe("round trips", () => roundTripTests(it))
    describe("size limit", () => limitTests(it))
    describe("failed bodies", () => failureTests(it))
    describe("replace and delete", () => lifecycleTests(it))
    describe("concurrency", () => concurrencyTests(it))
  })
}
