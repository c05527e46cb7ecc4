import { createHash, randomUUID } from "node:crypto"
import { constants, type Stats } from "node:fs"
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink } from "node:fs/promises"
import { join } from "node:path"
import {
  type DocumentBody,
  type DocumentInfo,
  DocumentStore,
  nowIso,
  type PutOptions,
  pumpBody,
  StoreError
} from "@paycore/core"
import { Clock, Effect, Layer, Option, Stream } from "effect"

/**
 * The DocumentStore on a local folder, for the sandbox, development and single-process embedding.
 *
 * Layout under `root`:
 * - `files/<h0h1>/<sha256(key) hex>`: one file per key, named by the hash of the key (any key is a safe, fixed
 *   length file name). Its bytes are the document followed by a trailer: the metadata as JSON, its length
 *   (uint32, big-endian) and the magic `PCDOC\0v1`.
 * - `tmp/`: files being written.
 *
 * A put writes `tmp/<uuid>`, flushes it to disk (`fsync`) and renames it over the key's file: the rename is the
 * commit, atomic on POSIX file systems, so a crash leaves the old file or the new one under the key, never half
 * of one (a leftover in `tmp/` is removed at the next start). A reader that opened the old file keeps reading it
 * whole after a replace or delete (the file stays alive while open).
 */

const MAGIC = new TextEncoder().encode("PCDOC\0v1")
const TRAILER_FIXED = 4 + MAGIC.byteLength
/** Bytes per read of a stored file. */
export const FOLDER_READ_BYTES = 256 * 1024
/** Leftovers in `tmp/` older than this are removed when a store opens the folder. */
const STALE_TMP_MS = 60 * 60 * 1000

interface Trailer extends DocumentInfo {
  readonly v: 1
}

const storeError = (what: string, cause: unknown): StoreError =>
  new StoreError({
    message: `Folder document store: ${what}: ${cause instanceof Error ? cause.message : String(cause)}`,
    retryable: false
  })

const isMissing = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && (cause as { code?: unknown }).code === "ENOENT"

const attempt = <A>(what: string, run: () => Promise<A>): Effect.Effect<A, StoreError> =>
  Effect.tryPromise({ try: run, catch: (cause) => storeError(what, cause) })

const writeAll = async (handle: FileHandle, bytes: Uint8Array): Promise<void> => {
  let offset = 0
  while (offset < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.byteLength - offset)
    offset += bytesWritten
  }
}

const readExactly = async (handle: FileHandle, length: number, position: number): Promise<Uint8Array> => {
  const out = new Uint8Array(length)
  let offset = 0
  while (offset < length) {
    const { bytesRead } = await handle.read(out, offset, length - offset, position + offset)
    if (bytesRead === 0) throw new Error("unexpected end of file")
    offset += bytesRead
  }
  return out
}

const encodeTrailer = (info: DocumentInfo): Uint8Array => {
  const trailer: Trailer = { v: 1, ...info }
  const json = new TextEncoder().encode(JSON.stringify(trailer))
  const out = new Uint8Array(json.byteLength + TRAILER_FIXED)
  out.set(json, 0)
  new DataView(out.buffer).setUint32(json.byteLength, json.byteLength)
  out.set(MAGIC, json.byteLength + 4)
  return out
}

/** The metadata at the end of an open stored file, checked against the file's length. */
const readTrailer = async (handle: FileHandle, fileSize: number): Promise<Trailer> => {
  if (fileSize < TRAILER_FIXED) throw new Error("the file is too short to be a stored document")
  const fixed = await readExactly(handle, TRAILER_FIXED, fileSize - TRAILER_FIXED)
  const magic = fixed.subarray(4)
  if (!magic.every((b, i) => b === MAGIC[i])) throw new Error("the file has no document trailer")
  const jsonLength = new DataView(fixed.buffer, fixed.byteOffset).getUint32(0)
  if (jsonLength > fileSize - TRAILER_FIXED) throw new Error("the document trailer is corrupt")
  const json = await readExactly(handle, jsonLength, fileSize - TRAILER_FIXED - jsonLength)
  const trailer = JSON.parse(new TextDecoder().decode(json)) as Trailer
  if (trailer.v !== 1 || trailer.size !== fileSize - TRAILER_FIXED - jsonLength) {
    throw new Error("the document trailer does not match the file")
  }
  return trailer
}

export interface FolderDocumentStoreOptions {
  /** The folder (created when missing). */
  readonly root: string
}

/** Opens (creating when needed) a folder document store at `options.root`, removing stale temporary files. */
export const makeFolderDocumentStore = (
  options: FolderDocumentStoreOptions
): Effect.Effect<DocumentStore["Service"], StoreError> =>
  Effect.gen(function* () {
    const filesDir = join(options.root, "files")
    const tmpDir = join(options.root, "tmp")
    yield* attempt("creating the folder", async () => {
      await mkdir(filesDir, { recursive: true })
      await mkdir(tmpDir, { recursive: true })
    })
    const now = yield* Clock.currentTimeMillis
    yield* attempt("removing stale temporary files", async () => {
      for (const name of await readdir(tmpDir)) {
        const path = join(tmpDir, name)
        const info = await stat(path).catch(() => undefined)
        if (info !== undefined && now - info.mtimeMs > STALE_TMP_MS) await rm(path, { force: true })
      }
    })

    const locate = (key: string) => {
      const name = createHash("sha256").update(key, "utf8").digest("hex")
      const dir = join(filesDir, name.slice(0, 2))
      return { dir, path: join(dir, name) }
    }

    /** Flushes a directory entry change (a rename) to disk; not every platform can open a directory. */
    const syncDir = async (dir: string): Promise<void> => {
      const handle = await open(dir, constants.O_RDONLY).catch(() => undefined)
      if (handle === undefined) return
      await handle.sync().catch(() => undefined)
      await handle.close().catch(() => undefined)
    }

    const put = (key: string, contentType: string, body: DocumentBody, putOptions: PutOptions) =>
      Effect.suspend(() => {
        const tmpPath = join(tmpDir, `${randomUUID()}.part`)
        const target = locate(key)
        let closed = false
        const close = (handle: FileHandle) =>
          attempt("closing", async () => {
            if (closed) return
            closed = true
            await handle.close()
          })
        return Effect.acquireUseRelease(
          attempt("creating a temporary file", () => open(tmpPath, "wx")),
          (handle) =>
            Effect.gen(function* () {
              const stored = yield* pumpBody(key, body, putOptions.maxBytes, (chunk) =>
                attempt("writing", () => writeAll(handle, chunk))
              )
              const createdAt = yield* nowIso
              yield* attempt("writing", async () => {
                await writeAll(handle, encodeTrailer({ key, contentType, createdAt, ...stored }))
                await handle.sync()
              })
              yield* close(handle)
              // The commit: the whole new file replaces whatever was under the key, in one step.
              yield* Effect.uninterruptible(
                attempt("storing", async () => {
                  await mkdir(target.dir, { recursive: true })
                  await rename(tmpPath, target.path)
                  await syncDir(target.dir)
                })
              )
              return stored
            }),
          // Anything short of the rename leaves only the temporary file: removed here (a no-op after the rename).
          (handle) =>
            Effect.ignore(close(handle)).pipe(
              Effect.andThen(Effect.promise(() => rm(tmpPath, { force: true }).catch(() => undefined)))
            )
        )
      })

    const openStored = (path: string) =>
      attempt("opening", async () => {
        try {
          return await open(path, "r")
        } catch (cause) {
          if (isMissing(cause)) return undefined
          throw cause
        }
      })

    /** The file under `path` as its metadata, from a handle opened (and closed) here. */
    const readInfo = (path: string) =>
      Effect.acquireUseRelease(
        openStored(path),
        (handle) =>
          handle === undefined
            ? Effect.succeed(undefined)
            : attempt("reading", async () => readTrailer(handle, (await handle.stat()).size)),
        (handle) => (handle === undefined ? Effect.void : Effect.promise(() => handle.close().catch(() => undefined)))
      )

    /**
     * The bytes of the file `expected` describes: opened when the stream runs, checked to still be that file (a
     * replace in between fails the stream rather than reading another file), read in blocks, closed at the end.
     */
    const bodyOf = (path: string, expected: Trailer): Stream.Stream<Uint8Array, StoreError> =>
      Stream.unwrap(
        Effect.gen(function* () {
          const handle = yield* Effect.acquireRelease(openStored(path), (handle) =>
            handle === undefined ? Effect.void : Effect.promise(() => handle.close().catch(() => undefined))
          )
          if (handle === undefined) {
            return yield* storeError("reading", new Error(`${expected.key} was deleted while being read`))
          }
          const trailer = yield* attempt("reading", async () => readTrailer(handle, (await handle.stat()).size))
          if (JSON.stringify(trailer) !== JSON.stringify(expected)) {
            return yield* storeError("reading", new Error(`${expected.key} was replaced while being read`))
          }
          return Stream.paginate(0, (position: number) =>
            attempt("reading", async () => {
              const length = Math.min(FOLDER_READ_BYTES, expected.size - position)
              const next = position + length
              return [
                length === 0 ? [] : [await readExactly(handle, length, position)],
                next < expected.size ? Option.some(next) : Option.none()
              ] as const
            })
          )
        })
      )

    const get = (key: string) =>
      Effect.flatMap(readInfo(locate(key).path), (trailer) => {
        if (trailer === undefined) return Effect.succeed(undefined)
        if (trailer.key !== key)
          return Effect.fail(storeError("reading", new Error(`the file of ${key} holds another key`)))
        const { v: _v, ...info } = trailer
        return Effect.succeed({ ...info, body: bodyOf(locate(key).path, trailer) })
      })

    const exists = (key: string) =>
      attempt("checking", async () => {
        const info: Stats | undefined = await stat(locate(key).path).catch((cause) => {
          if (isMissing(cause)) return undefined
          throw cause
        })
        return info !== undefined
      })

    const remove = (key: string) =>
      attempt("deleting", async () => {
        const { dir, path } = locate(key)
        try {
          await unlink(path)
        } catch (cause) {
          if (isMissing(cause)) return false
          throw cause
        }
        await syncDir(dir)
        return true
      })

    return DocumentStore.of({ put, get, exists, delete: remove })
  })

/** The DocumentStore on a local folder (see `makeFolderDocumentStore`). */
export const folderDocumentStoreLayer = (options: FolderDocumentStoreOptions): Layer.Layer<DocumentStore, StoreError> =>
  Layer.effect(DocumentStore, makeFolderDocumentStore(options))
