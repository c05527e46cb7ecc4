import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Context, Effect, Exit, Schema, type Stream } from "effect"
import type { StoreError } from "../shared/errors.ts"

/**
 * The bytes of a file on their way in: any async iterable of byte chunks (a Node `Readable`, an
 * `IncomingMessage`, the file part of a multipart body, an async generator) or a web `ReadableStream`.
 */
export type DocumentBody = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>

export interface PutOptions {
  /** The largest body accepted, in bytes: one byte more fails the put with `DocumentTooLarge`. */
  readonly maxBytes: number
}

/** What `put` stored: the body's length and its SHA-256 (lowercase hex). */
export interface StoredFile {
  readonly size: number
  readonly sha256: string
}

/** A stored file's metadata. */
export interface DocumentInfo extends StoredFile {
  readonly key: string
  /** As given to `put` (the multipart part's `Content-Type`). */
  readonly contentType: string
  /** When the put completed (ISO 8601, from the Clock). A put that replaces a file gives a new instant. */
  readonly createdAt: string
}

/** A stored file: its metadata and its bytes, read lazily. */
export interface StoredDocument extends DocumentInfo {
  /**
   * The bytes, read from the store as they are pulled (a large file is never in memory at once). Running the
   * stream again reads the file again. When the file is replaced or deleted while this stream reads it, the
   * stream either reads on the file it started with or fails with a `StoreError`: it never mixes two files.
   */
  readonly body: Stream.Stream<Uint8Array, StoreError>
}

/** The body passed `maxBytes`: the put stopped reading there and stored nothing (an existing file is untouched). */
export class DocumentTooLarge extends Schema.TaggedError<DocumentTooLarge>()("DocumentTooLarge", {
  key: Schema.String,
  maxBytes: Schema.Number,
  message: Schema.String
}) {}

/**
 * Reading the body failed (the client went away, a multipart body was truncated, ...): nothing was stored.
 * `cause` is what the body's iterator threw, e.g. a `MultipartError`.
 */
export class DocumentBodyError extends Schema.TaggedError<DocumentBodyError>()("DocumentBodyError", {
  key: Schema.String,
  message: Schema.String,
  cause: Schema.Defect()
}) {}

export type DocumentPutError = DocumentTooLarge | DocumentBodyError | StoreError

/**
 * File contents by key (uploaded KYC documents, bulk-import CSV files). Files are written and read as streams:
 * no adapter holds a whole file in memory twice (the memory adapter holds each once, as its storage).
 *
 * - `put` stores `body` under `key`, replacing any file there. The new file becomes visible at once and whole
 *   when the put succeeds; until then readers see the previous file (or none). A failed or interrupted put
 *   stores nothing and leaves the previous file as it was.
 * - Keys are opaque strings chosen by the engine (e.g. `Document:<uuid>`); adapters accept any non-empty key.
 * - `delete` and `exists` answer whether a file was (is) there.
 */
export class DocumentStore extends Context.Service<
  DocumentStore,
  {
    readonly put: (
      key: string,
      contentType: string,
      body: DocumentBody,
      options: PutOptions
    ) => Effect.Effect<StoredFile, DocumentPutError>
    /** `undefined` when no file is stored under `key`. */
    readonly get: (key: string) => Effect.Effect<StoredDocument | undefined, StoreError>
    readonly exists: (key: string) => Effect.Effect<boolean, StoreError>
    /** `true` when a file was deleted, `false` when there was none. Cannot be undone. */
    readonly delete: (key: string) => Effect.Effect<boolean, StoreError>
  }
>()("paycore/ports/DocumentStore") {}

// ---------------------------------------------------------------------------------------------
// The body pump adapters share
// ---------------------------------------------------------------------------------------------

const toIterator = (body: DocumentBody): AsyncIterator<unknown> => {
  const maybeStream = body as { readonly getReader?: unknown }
  if (typeof maybeStream.getReader === "function") {
    // A web ReadableStream: through its reader, which every implementation has (async iteration is newer).
    const reader = (body as ReadableStream<Uint8Array>).getReader()
    return {
      next: async () => {
        const { done, value } = await reader.read()
        return done ? { done: true, value: undefined } : { done: false, value }
      },
      return: async () => {
        await reader.cancel()
        return { done: true, value: undefined }
      }
    }
  }
  return (body as AsyncIterable<unknown>)[Symbol.asyncIterator]()
}

const ignore = (): void => undefined

/**
 * Pulls `body` chunk by chunk through `write`, counting and hashing (SHA-256, incrementally) on the way, and
 * answers the body's size and hash. Adapters build `put` on it.
 *
 * - Fails with `DocumentTooLarge` as soon as the count passes `maxBytes`: the chunk that passes it is never
 *   written, and nothing more is read.
 * - Fails with `DocumentBodyError` when the body's iterator throws or yields something that is not bytes.
 * - On any failure or interruption the body's iterator is closed (`return()`, or `cancel()` for a web stream),
 *   without waiting for it. Removing what `write` already wrote is the adapter's job.
 * - Empty chunks are skipped; every chunk is handed to `write` as it came (adapters copy or re-chunk).
 */
export const pumpBody = <E, R>(
  key: string,
  body: DocumentBody,
  maxBytes: number,
  write: (chunk: Uint8Array) => Effect.Effect<void, E, R>
): Effect.Effect<StoredFile, DocumentTooLarge | DocumentBodyError | E, R> => {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    return Effect.die(new RangeError(`DocumentStore: maxBytes must be a non-negative integer, got ${maxBytes}`))
  }
  return Effect.acquireUseRelease(
    Effect.try({
      try: () => toIterator(body),
      catch: (cause) => new DocumentBodyError({ key, message: `The body cannot be read: ${String(cause)}`, cause })
    }),
    (iterator) =>
      Effect.gen(function* () {
        const hash = sha256.create()
        let size = 0
        while (true) {
          const next = yield* Effect.tryPromise({
            try: () => iterator.next(),
            catch: (cause) =>
              new DocumentBodyError({
                key,
                message: `Reading the body failed: ${cause instanceof Error ? cause.message : String(cause)}`,
                cause
              })
          })
          if (next.done === true) break
          const chunk = next.value
          if (!(chunk instanceof Uint8Array)) {
            return yield* new DocumentBodyError({
              key,
              message: `The body yielded ${typeof chunk}, not bytes (Uint8Array)`,
              cause: undefined
            })
          }
          if (chunk.byteLength === 0) continue
          size += chunk.byteLength
          if (size > maxBytes) {
            return yield* new DocumentTooLarge({
              key,
              maxBytes,
              message: `The file is larger than ${maxBytes} bytes`
            })
          }
          hash.update(chunk)
          yield* write(chunk)
        }
        return { size, sha256: bytesToHex(hash.digest()) }
      }),
    (iterator, exit) =>
      Effect.sync(() => {
        // Done reading (success) needs no close; anything else releases the source without waiting on it.
        if (Exit.isSuccess(exit) || iterator.return === undefined) return
        try {
          iterator.return().then(ignore, ignore)
        } catch {
          // A broken iterator: nothing more to release.
        }
      })
  )
}

/**
 * Re-chunks a byte stream into blocks of `size` bytes (the last one shorter): `push` answers the full blocks a
 * chunk completes, `flush` the rest. Each block is a fresh copy; at most one partial block is held.
 */
export class BlockBuffer {
  readonly size: number
  private block: Uint8Array | undefined
  private filled = 0

  constructor(size: number) {
    if (!Number.isSafeInteger(size) || size <= 0) throw new RangeError(`BlockBuffer: bad block size ${size}`)
    this.size = size
  }

  push(chunk: Uint8Array): Array<Uint8Array> {
    const full: Array<Uint8Array> = []
    let offset = 0
    while (offset < chunk.byteLength) {
      if (this.block === undefined) this.block = new Uint8Array(this.size)
      const block = this.block
      const n = Math.min(this.size - this.filled, chunk.byteLength - offset)
      block.set(chunk.subarray(offset, offset + n), this.filled)
      this.filled += n
      offset += n
      if (this.filled === this.size) {
        full.push(block)
        this.block = undefined
        this.filled = 0
      }
    }
    return full
  }

  /** The partial block (exactly its bytes), or `undefined` when there is none. */
  flush(): Uint8Array | undefined {
    const block = this.block
    if (block === undefined || this.filled === 0) return undefined
    const rest = this.filled === this.size ? block : block.slice(0, this.filled)
    this.block = undefined
    this.filled = 0
    return rest
  }
}
