import {
  BlockBuffer,
  type DocumentBody,
  type DocumentInfo,
  DocumentStore,
  nowIso,
  type PutOptions,
  pumpBody
} from "@paycore/core"
import { Effect, Layer, Stream } from "effect"

/** The memory adapter keeps a file as blocks of this many bytes (tiny body chunks are packed together). */
export const MEMORY_BLOCK_BYTES = 64 * 1024

interface MemoryFile {
  readonly info: DocumentInfo
  readonly blocks: ReadonlyArray<Uint8Array>
}

/**
 * The DocumentStore in memory: each file once, as blocks, in a `Map`. A put collects its blocks aside and swaps
 * them in only when the body was read whole, so a failed or interrupted put leaves the map untouched. Reads
 * hand out copies, so a consumer that writes into a chunk cannot change the stored file.
 */
export const makeMemoryDocumentStore: Effect.Effect<DocumentStore["Service"]> = Effect.sync(() => {
  const files = new Map<string, MemoryFile>()

  const put = (key: string, contentType: string, body: DocumentBody, options: PutOptions) =>
    Effect.gen(function* () {
      const blocks: Array<Uint8Array> = []
      const buffer = new BlockBuffer(MEMORY_BLOCK_BYTES)
      const stored = yield* pumpBody(key, body, options.maxBytes, (chunk) =>
        Effect.sync(() => {
          for (const block of buffer.push(chunk)) blocks.push(block)
        })
      )
      const rest = buffer.flush()
      if (rest !== undefined) blocks.push(rest)
      const createdAt = yield* nowIso
      files.set(key, { info: { key, contentType, createdAt, ...stored }, blocks })
      return stored
    })

  const get = (key: string) =>
    Effect.sync(() => {
      const file = files.get(key)
      if (file === undefined) return undefined
      return {
        ...file.info,
        body: Stream.fromIterable(file.blocks).pipe(Stream.map((block) => block.slice()))
      }
    })

  return DocumentStore.of({
    put,
    get,
    exists: (key) => Effect.sync(() => files.has(key)),
    delete: (key) => Effect.sync(() => files.delete(key))
  })
})

/** A fresh, empty in-memory DocumentStore per build. */
export const documentStoreLayer: Layer.Layer<DocumentStore> = Layer.effect(DocumentStore, makeMemoryDocumentStore)
