/**
 * CSV bulk import: rows per second of `POST /customers/bulk/csv` for a 50,000-row file, and the peak memory of the
 * server doing it, on PostgreSQL (where rows persist: the server of DATABASE_URL, else PGlite, as `npm start`
 * chooses) and on the memory store (which keeps every row in the process by design).
 *
 *   DATABASE_URL=… node --conditions=@paycore/source bench/csv-import.ts [--store postgres|memory] [--rows 50000]
 *
 * The server runs in a child process (`--serve <store>`) with the Node flags of `npm start`, so its peak RSS is its
 * own: not the benches' before it, nor this client's. This process streams a generated file to it as multipart
 * (never whole in memory on either side) and polls the job until it ends. The time runs from the first byte sent
 * to the end of the job.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { type DocumentStore, Ids, type Store, type StoreError, Tokens, WebhookSigner } from "@paycore/core"
import { API_VERSION, makeApp } from "@paycore/http"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import { makeWebhookRecorder } from "@paycore/testkit"
import { Context, Effect, Layer, Scope } from "effect"
import { npmStart, numberFlag } from "./figures.ts"

export interface CsvImportBench {
  readonly store: string
  /** The store keeps every imported row in the server process (the memory store): the memory target is not its. */
  readonly keepsRows: boolean
  readonly rows: number
  readonly fileBytes: number
  /** The Node flags of the server process (those of `npm start`). */
  readonly nodeFlags: string
  /** From the first byte sent to the end of the job. */
  readonly seconds: number
  /** From the first byte sent to the 202 (the file stored). */
  readonly uploadSeconds: number
  readonly rowsPerSecond: number
  /** Peak resident set size of the server process, in MiB. */
  readonly peakRssMiB: number
  /** Resident set size after start, before the upload, in MiB. */
  readonly startRssMiB: number
  readonly status: string
  readonly failed: number
}

const BOUNDARY = "paycore-bench-boundary"
const HEADER =
  "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country," +
  "businessLegalName,email\r\n"

/** Row `i`: nine individuals to one business, every one valid. */
const row = (i: number): string =>
  i % 10 === 0
    ? `bench-biz-${i}@uma.example.com,bench-biz-${i},BUSINESS,,,400 Commerce Way,Austin,TX,78701,US,"Bench ${i}, Inc.",\r\n`
    : `bench-${i}@uma.example.com,bench-${i},INDIVIDUAL,Person ${i},1990-01-15,123 Main St,San Francisco,CA,94105,US,,p${i}@example.com\r\n`

/** The multipart body, generated as it is sent, 1,000 rows per chunk. */
async function* multipartBody(rows: number): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder()
  yield encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="customers.csv"\r\n` +
      `Content-Type: text/csv\r\n\r\n${HEADER}`
  )
  for (let start = 0; start < rows; start += 1000) {
    let chunk = ""
    for (let i = start; i < Math.min(rows, start + 1000); i++) chunk += row(i)
    yield encoder.encode(chunk)
  }
  yield encoder.encode(`\r\n--${BOUNDARY}--\r\n`)
}

const fileBytesOf = (rows: number): number => {
  let bytes = HEADER.length
  for (let i = 0; i < rows; i++) bytes += Buffer.byteLength(row(i))
  return bytes
}

const MiB = 1024 * 1024

/** Where the bench imports to: `memory` keeps every row in RAM by design; `postgres` persists them. */
export type CsvImportStore = "memory" | "postgres"

interface BenchStore {
  readonly name: string
  readonly layer: Layer.Layer<Store, StoreError>
  readonly documents: Layer.Layer<DocumentStore, StoreError>
  readonly cleanUp: () => Promise<void>
}

/**
 * The stores as `npm start` opens them: the PostgreSQL server of DATABASE_URL (in a fresh schema, dropped after),
 * else embedded PGlite in a fresh data folder with uploads in a folder beside it (removed after).
 */
const openStore = async (store: CsvImportStore): Promise<BenchStore> => {
  if (store === "memory") {
    const none = async () => {}
    return { name: "memory stores", layer: MemoryStore.layer, documents: MemoryStore.documentStoreLayer, cleanUp: none }
  }
  // Loaded only here, so a memory-store server does not hold the PostgreSQL driver.
  const PostgresStore = await import("@paycore/store-postgres")
  const url = process.env.DATABASE_URL
  if (url !== undefined && url !== "") {
    const { default: pg } = await import("pg")
    const schema = `paycore_bench_csv_${process.pid}`
    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(statement).finally(() => client.end())
    }
    await admin(`CREATE SCHEMA ${schema}`)
    return {
      name: "PostgreSQL server (DATABASE_URL)",
      layer: PostgresStore.layerPg({ connectionString: url, schema }),
      documents: PostgresStore.documentStoreLayerPg({ connectionString: url, schema }),
      cleanUp: () => admin(`DROP SCHEMA ${schema} CASCADE`)
    }
  }
  const dataDir = mkdtempSync(join(tmpdir(), "paycore-bench-csv-"))
  return {
    name: "embedded PGlite (data folder)",
    layer: PostgresStore.layerPglite({ dataDir: join(dataDir, "pglite") }),
    documents: Sandbox.folderDocumentStoreLayer({ root: join(dataDir, "documents") }),
    cleanUp: async () => rmSync(dataDir, { recursive: true, force: true })
  }
}

/** What the serving child tells the bench: where to upload, and then its memory. */
interface Served {
  readonly store: string
  readonly api: string
  readonly authorization: string
  readonly startRssMiB: number
}

/**
 * The child: serves the app on `store` until its stdin ends, then answers its peak RSS (and cleans up). Lines on
 * stdout: `Served` when it listens, `{ peakRssMiB }` at the end.
 */
const serve = async (storeKind: CsvImportStore): Promise<void> => {
  const store = await openStore(storeKind)
  const ports = Layer.mergeAll(
    store.layer,
    store.documents,
    Ids.layer,
    Sandbox.layer(),
    makeWebhookRecorder().layer,
    WebhookSigner.layerGenerated
  )
  const scope = Effect.runSync(Scope.make())
  const { app, credentials } = await Effect.runPromise(
    Effect.gen(function* () {
      const app = yield* makeApp({ workerIntervalMillis: 0, webhookIntervalMillis: 0 }).pipe(
        Effect.provide(yield* Layer.build(ports))
      )
      const credentials = yield* Context.get(app.context, Tokens).create({ name: "bench", permissions: ["MANAGE"] })
      return { app, credentials }
    }).pipe(Scope.provide(scope))
  )
  const server = createServer(app.listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const served: Served = {
    store: store.name,
    api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/${API_VERSION}`,
    authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString("base64")}`,
    startRssMiB: process.memoryUsage().rss / MiB
  }
  process.stdout.write(`${JSON.stringify(served)}\n`)
  process.stdin.resume()
  await new Promise((resolve) => process.stdin.on("end", resolve))
  // maxRSS is in KiB.
  const peakRssMiB = process.resourceUsage().maxRSS / 1024
  server.close()
  await Effect.runPromise(Scope.close(scope, { _tag: "Success", value: undefined } as never))
  await store.cleanUp()
  process.stdout.write(`${JSON.stringify({ peakRssMiB })}\n`)
}

/**
 * Serves the app in a child process (its peak RSS is the server's own: the benches before it and this client are
 * elsewhere), uploads the file to it, and polls the job until it ends.
 */
export const benchCsvImport = async (store: CsvImportStore, rows = 50_000): Promise<CsvImportBench> => {
  const child = spawn(process.execPath, [...npmStart().flags, fileURLToPath(import.meta.url), "--serve", store], {
    stdio: ["pipe", "pipe", "inherit"]
  })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const nextLine = async () => {
    const line = await lines.next()
    if (line.done === true) throw new Error(`the bench server stopped (exit code ${child.exitCode})`)
    return JSON.parse(line.value)
  }
  const { api, authorization, startRssMiB, store: storeName } = (await nextLine()) as Served

  const started = performance.now()
  const accepted = await fetch(`${api}/customers/bulk/csv`, {
    method: "POST",
    headers: { authorization, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body: ReadableStream.from(multipartBody(rows)),
    duplex: "half"
  } as RequestInit)
  if (accepted.status !== 202) throw new Error(`upload: ${accepted.status} ${await accepted.text()}`)
  const { jobId } = (await accepted.json()) as { jobId: string }
  const uploadSeconds = (performance.now() - started) / 1000
  let job: { status: string; progress: { processed: number; failed: number } }
  do {
    await new Promise((resolve) => setTimeout(resolve, 50))
    job = (await (
      await fetch(`${api}/customers/bulk/jobs/${jobId}`, { headers: { authorization } })
    ).json()) as typeof job
  } while (job.status === "PENDING" || job.status === "PROCESSING")
  const seconds = (performance.now() - started) / 1000

  child.stdin.end()
  const { peakRssMiB } = (await nextLine()) as { peakRssMiB: number }
  return {
    store: storeName,
    keepsRows: store === "memory",
    nodeFlags: npmStart().flags.join(" "),
    rows: job.progress.processed,
    fileBytes: fileBytesOf(rows),
    seconds,
    uploadSeconds,
    rowsPerSecond: job.progress.processed / seconds,
    peakRssMiB,
    startRssMiB,
    status: job.status,
    failed: job.progress.failed
  }
}

export const formatCsvImportBench = (r: CsvImportBench): string =>
  [
    `\nCSV bulk import: POST /customers/bulk/csv of ${r.rows.toLocaleString("en-US")} rows ` +
      `(${(r.fileBytes / MiB).toFixed(1)} MiB, streamed), ${r.store}, server in a child process` +
      (r.nodeFlags === "" ? "" : ` (node ${r.nodeFlags}, as npm start)`),
    `  ${r.rowsPerSecond.toFixed(0).padStart(6)} rows/s   ${r.seconds.toFixed(2)} s from the first byte to ${r.status}` +
      ` (upload ${r.uploadSeconds.toFixed(2)} s)${r.failed > 0 ? ` (${r.failed} rows failed!)` : ""}`,
    `  peak RSS ${r.peakRssMiB.toFixed(0)} MiB (${r.startRssMiB.toFixed(0)} MiB before the upload)`,
    `  targets: >= 5,000 rows/s ${r.rowsPerSecond >= 5000 ? "met" : "NOT met"}, ` +
      (r.keepsRows
        ? `peak RSS < 300 MB: ${r.peakRssMiB * MiB < 300e6 ? "under" : "over"}, for information (this store keeps ` +
          "every row in the process; the target is the persisting store's)"
        : `peak RSS < 300 MB ${r.peakRssMiB * MiB < 300e6 ? "met" : "NOT met"}`)
  ].join("\n")

/** The stores the bench imports to: where rows persist (as in production) first, then the memory store. */
export const CSV_IMPORT_STORES: ReadonlyArray<CsvImportStore> = ["postgres", "memory"]

if (import.meta.main && process.argv[2] === "--serve") {
  await serve(process.argv[3] as CsvImportStore)
} else if (import.meta.main) {
  const rows = numberFlag("rows") ?? 50_000
  const storeIndex = process.argv.indexOf("--store")
  const stores = storeIndex < 0 ? CSV_IMPORT_STORES : [process.argv[storeIndex + 1] as CsvImportStore]
  for (const store of stores) console.log(formatCsvImportBench(await benchCsvImport(store, rows)))
}
