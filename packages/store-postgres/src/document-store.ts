import {
  BlockBuffer,
  cryptoRandom,
  type DocumentBody,
  DocumentStore,
  makeUuidV7,
  nowIso,
  type PutOptions,
  pumpBody,
  StoreError
} from "@paycore/core"
import { Effect, Exit, Layer, Option, Stream } from "effect"
import { CompiledQuery, type Kysely } from "kysely"
import { makePgKysely, makePgliteKysely, type PgConfig, type PgliteConfig } from "./connection.ts"
import { field, isRerunnable } from "./driver-errors.ts"

/**
 * The DocumentStore on PostgreSQL (a server through `pg`, or PGlite): a file is rows of `DOCUMENT_CHUNK_BYTES`
 * in `document_chunks`, named by a fresh `file_id`; `document_files` maps each key to its current file.
 *
 * - A put streams the body into chunk rows of a new `file_id`, one short autocommitted INSERT per chunk (no
 *   connection is held while the client sends, and PGlite, which runs one statement at a time for the whole
 *   engine, is never blocked by a slow upload). Then one short transaction points the key at the new file and
 *   deletes the chunks of the file it replaces. Until that commit, readers see the previous file or none.
 * - A failed or interrupted put deletes its chunk rows. A crash between the first chunk and the commit leaves
 *   rows of a `file_id` no key points to: `sweepOrphanDocumentChunks` removes those (the layers run it at start).
 * - Reads fetch one chunk per query, as the stream is pulled; a file replaced or deleted meanwhile fails the
 *   stream (its chunks are gone) rather than mixing two files.
 * - Puts and deletes of one key take a transaction-scoped advisory lock on it, so the key's previous chunks are
 *   always found and deleted.
 */

/** Bytes per chunk row (the last row of a file is shorter). */
export const DOCUMENT_CHUNK_BYTES = 256 * 1024

/**
 * The tables, one statement each (PGlite takes one statement per query); every statement is idempotent.
 * `file_id` is a UUID v7 (time-ordered), which lets the sweep find old orphans by comparing ids.
 */
export const DOCUMENT_TABLES_DDL: ReadonlyArray<string> = [
  `CREATE TABLE IF NOT EXISTS document_files (
    key text COLLATE "C" NOT NULL,
    file_id text COLLATE "C" NOT NULL,
    content_type text NOT NULL,
    size bigint NOT NULL,
    sha256 text NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    CONSTRAINT document_files_pkey PRIMARY KEY (key),
    CONSTRAINT document_files_file_id_key UNIQUE (file_id),
    CONSTRAINT document_files_size_check CHECK (size >= 0)
  )`,
  `CREATE TABLE IF NOT EXISTS document_chunks (
    file_id text COLLATE "C" NOT NULL,
    seq integer NOT NULL,
    data bytea NOT NULL,
    CONSTRAINT document_chunks_pkey PRIMARY KEY (file_id, seq)
  )`,
  // Documents are PDFs and images, already compressed: store chunks out of line without trying to compress them.
  `ALTER TABLE document_chunks ALTER COLUMN data SET STORAGE EXTERNAL`
]

/** The advisory lock class of document keys (`pg_advisory_xact_lock(class, hashtext(key))`): "pcDc". */
const LOCK_CLASS = 0x70634463

const storeError = (what: string, cause: unknown): StoreError => {
  const code = field(cause, "code")
  const message = cause instanceof Error ? cause.message : String(cause)
  return new StoreError({
    message: `PostgreSQL document store: ${what}: ${code === undefined ? "" : `[${code}] `}${message}`,
    retryable: isRerunnable(cause)
  })
}

type Row = Record<string, any>

const query = (db: Kysely<any>, what: string, sql: string, params: ReadonlyArray<unknown> = []) =>
  Effect.tryPromise({
    try: () => db.executeQuery<Row>(CompiledQuery.raw(sql, [...params])),
    catch: (cause) => storeError(what, cause)
  })

/** `bytes` as a node Buffer over the same memory (node-postgres sends Buffers as bytea; PGlite takes both). */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/**
 * Creates the document tables when missing. Instances starting together on one database take turns (an advisory
 * lock for the transaction): two `CREATE TABLE IF NOT EXISTS` of one table at once can both go ahead, and the
 * second fails on the catalog's unique index.
 */
export const setupDocumentTables = (db: Kysely<any>): Effect.Effect<void, StoreError> =>
  Effect.tryPromise({
    try: () =>
      db.transaction().execute(async (trx) => {
        await trx.executeQuery(CompiledQuery.raw(`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, 0)`))
        for (const ddl of DOCUMENT_TABLES_DDL) await trx.executeQuery(CompiledQuery.raw(ddl))
      }),
    catch: (cause) => storeError("creating the document tables", cause)
  })

const hex = (n: number, digits: number): string => n.toString(16).padStart(digits, "0")

/** The first 13 characters of a UUID v7 made at `ms` (`tttttttt-tttt`): every id made before `ms` sorts below. */
const uuidV7Prefix = (ms: number): string => {
  const clamped = Math.max(0, Math.floor(ms))
  return `${hex(Math.floor(clamped / 0x10000), 8)}-${hex(clamped % 0x10000, 4)}`
}

/**
 * Deletes chunk rows that no key points to and that were started more than `olderThanMs` ago (by the file id's
 * time): the leftovers of puts cut short by a crash. Answers how many rows it deleted. Puts in progress are
 * younger than the cutoff and untouched.
 */
export const sweepOrphanDocumentChunks = (
  db: Kysely<any>,
  olderThanMs: number = 60 * 60 * 1000
): Effect.Effect<number, StoreError> =>
  Effect.map(
    query(
      db,
      "sweeping orphan chunks",
      `DELETE FROM document_chunks c
       WHERE c.file_id < $1 AND NOT EXISTS (SELECT 1 FROM document_files f WHERE f.file_id = c.file_id)`,
      [uuidV7Prefix(Date.now() - olderThanMs)]
    ),
    (result) => Number(result.numAffectedRows ?? 0)
  )

export interface PostgresDocumentStoreOptions {
  /** Bytes per chunk row (default `DOCUMENT_CHUNK_BYTES`). */
  readonly chunkBytes?: number
}

/**
 * The DocumentStore over `db`, whose document tables exist (see `setupDocumentTables`). The caller owns `db`;
 * it may be the Store's own Kysely (needed for a PGlite data folder, which one process opens once).
 */
export const makePostgresDocumentStore = (
  db: Kysely<any>,
  options: PostgresDocumentStoreOptions = {}
): Effect.Effect<DocumentStore["Service"]> =>
  Effect.sync(() => {
    const chunkBytes = options.chunkBytes ?? DOCUMENT_CHUNK_BYTES
    // Storage ids, not domain data: real time, so a sweep in another process never takes a live upload for old.
    const nextFileId = makeUuidV7(cryptoRandom())

    /** Runs `body` in one transaction holding the key's advisory lock. */
    const locked = <A>(key: string, what: string, body: (trx: Kysely<any>) => Promise<A>) =>
      Effect.tryPromise({
        try: () =>
          db.transaction().execute(async (trx) => {
            await trx.executeQuery(
              CompiledQuery.raw("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS, key])
            )
            return body(trx)
          }),
        catch: (cause) => storeError(what, cause)
      })

    const run = async (trx: Kysely<any>, sql: string, params: ReadonlyArray<unknown>) =>
      trx.executeQuery<Row>(CompiledQuery.raw(sql, [...params]))

    const deleteChunks = (fileId: string) =>
      query(db, "removing chunks", "DELETE FROM document_chunks WHERE file_id = $1", [fileId])

    const put = (key: string, contentType: string, body: DocumentBody, putOptions: PutOptions) =>
      Effect.suspend(() => {
        const fileId = nextFileId(Date.now())
        const buffer = new BlockBuffer(chunkBytes)
        let seq = 0
        // Uninterruptible: an interrupted put waits for its last INSERT, so the cleanup below sees every row.
        const insert = (data: Uint8Array) =>
          Effect.uninterruptible(
            query(db, "writing a chunk", "INSERT INTO document_chunks (file_id, seq, data) VALUES ($1, $2, $3)", [
              fileId,
              seq++,
              asBuffer(data)
            ])
          )
        const upload = Effect.gen(function* () {
          const stored = yield* pumpBody(key, body, putOptions.maxBytes, (chunk) =>
            Effect.forEach(buffer.push(chunk), insert, { discard: true })
          )
          const rest = buffer.flush()
          if (rest !== undefined) yield* insert(rest)
          const createdAt = yield* nowIso
          // The commit: point the key at the new file, drop the file it replaces.
          yield* Effect.uninterruptible(
            locked(key, "storing", async (trx) => {
              const previous = await run(trx, "SELECT file_id FROM document_files WHERE key = $1", [key])
              await run(
                trx,
                `INSERT INTO document_files (key, file_id, content_type, size, sha256, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (key) DO UPDATE SET file_id = excluded.file_id, content_type = excluded.content_type,
                   size = excluded.size, sha256 = excluded.sha256, created_at = excluded.created_at`,
                [key, fileId, contentType, stored.size, stored.sha256, createdAt]
              )
              const old = previous.rows[0]?.file_id
              if (typeof old === "string") await run(trx, "DELETE FROM document_chunks WHERE file_id = $1", [old])
            })
          )
          return stored
        })
        // Short of the commit, the new chunks are nobody's: delete them (best effort; the sweep catches the rest).
        return Effect.onExit(upload, (exit) =>
          Exit.isSuccess(exit) || seq === 0 ? Effect.void : Effect.ignore(deleteChunks(fileId))
        )
      })

    const bodyOf = (key: string, fileId: string, size: number): Stream.Stream<Uint8Array, StoreError> =>
      Stream.paginate({ seq: 0, read: 0 }, ({ seq, read }) =>
        Effect.gen(function* () {
          if (read >= size) return [[], Option.none()] as const
          const result = yield* query(
            db,
            "reading a chunk",
            "SELECT data FROM document_chunks WHERE file_id = $1 AND seq = $2",
            [fileId, seq]
          )
          const data = result.rows[0]?.data as Uint8Array | undefined
          if (data === undefined || read + data.byteLength > size) {
            return yield* storeError("reading", new Error(`${key} was replaced or deleted while being read`))
          }
          const next = { seq: seq + 1, read: read + data.byteLength }
          return [[data], next.read < size ? Option.some(next) : Option.none()] as const
        })
      )

    const get = (key: string) =>
      Effect.map(
        query(
          db,
          "reading",
          "SELECT file_id, content_type, size, sha256, created_at FROM document_files WHERE key = $1",
          [key]
        ),
        (result) => {
          const row = result.rows[0]
          if (row === undefined) return undefined
          const size = Number(row.size)
          return {
            key,
            contentType: row.content_type as string,
            size,
            sha256: row.sha256 as string,
            createdAt: row.created_at as string,
            body: bodyOf(key, row.file_id as string, size)
          }
        }
      )

    const exists = (key: string) =>
      Effect.map(
        query(db, "checking", "SELECT 1 FROM document_files WHERE key = $1", [key]),
        (result) => result.rows.length > 0
      )

    const remove = (key: string) =>
      locked(key, "deleting", async (trx) => {
        const deleted = await run(trx, "DELETE FROM document_files WHERE key = $1 RETURNING file_id", [key])
        const fileId = deleted.rows[0]?.file_id
        if (typeof fileId !== "string") return false
        await run(trx, "DELETE FROM document_chunks WHERE file_id = $1", [fileId])
        return true
      })

    return DocumentStore.of({ put, get, exists, delete: remove })
  })

/**
 * The DocumentStore on a database opened by `open`: tables created when missing and orphan chunks swept at
 * start, the database closed when the layer's scope closes.
 */
export const documentStoreLayerFrom = (
  open: () => Kysely<any>,
  options: PostgresDocumentStoreOptions = {}
): Layer.Layer<DocumentStore, StoreError> =>
  Layer.effect(
    DocumentStore,
    Effect.gen(function* () {
      const db = yield* Effect.acquireRelease(
        Effect.try({ try: open, catch: (cause) => storeError("opening", cause) }),
        (db) => Effect.promise(() => db.destroy().catch(() => undefined))
      )
      yield* setupDocumentTables(db)
      yield* sweepOrphanDocumentChunks(db)
      return yield* makePostgresDocumentStore(db, options)
    })
  )

/** The DocumentStore on a PostgreSQL server (its own node-postgres pool). */
export const documentStoreLayerPg = (
  config: PgConfig,
  options: PostgresDocumentStoreOptions = {}
): Layer.Layer<DocumentStore, StoreError> => documentStoreLayerFrom(() => makePgKysely(config), options)

/**
 * The DocumentStore on its own embedded PGlite, in memory or in `config.dataDir`. A data folder must not be the
 * Store's: one process opens a PGlite folder once (share the Store's Kysely through `makePostgresDocumentStore`).
 */
export const documentStoreLayerPglite = (
  config: PgliteConfig = {},
  options: PostgresDocumentStoreOptions = {}
): Layer.Layer<DocumentStore, StoreError> => documentStoreLayerFrom(() => makePgliteKysely(config), options)
