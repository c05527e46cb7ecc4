/**
 * CSV bulk import: rows per second of `POST /customers/bulk/csv` for a 50,000-row file, and the peak memory of the
 * process doing it. `benchCsvImport` runs the import in a child process (`node bench/csv-import.ts --child`) so its
 * peak RSS is the import's own, not that of the benches before it.
 *
 * The child serves the paycore app (memory Store and DocumentStore, sandbox ports) on a local port, streams a
 * generated file to it as multipart (the file is never whole in memory on either side), and polls the job until it
 * ends. The time runs from the first byte sent to the job's COMPLETED.
 */
import { execFile } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { Ids, Tokens, WebhookSigner } from "@paycore/core"
import { API_VERSION, makeApp } from "@paycore/http"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import { makeWebhookRecorder } from "@paycore/testkit"
import { Context, Effect, Layer, Scope } from "effect"

export interface CsvImportBench {
  readonly rows: number
  readonly fileBytes: number
  readonly seconds: number
  readonly rowsPerSecond: number
  /** Peak resident set size of the importing process, in MiB. */
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

/** The import itself, in this process. */
export const runCsvImport = async (rows: number): Promise<CsvImportBench> => {
  const ports = Layer.mergeAll(
    MemoryStore.layer,
    MemoryStore.documentStoreLayer,
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
  const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${API_VERSION}`
  const authorization = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString("base64")}`
  const startRssMiB = process.memoryUsage().rss / MiB

  const started = performance.now()
  const accepted = await fetch(`${api}/customers/bulk/csv`, {
    method: "POST",
    headers: { authorization, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body: ReadableStream.from(multipartBody(rows)),
    duplex: "half"
  } as RequestInit)
  if (accepted.status !== 202) throw new Error(`upload: ${accepted.status} ${await accepted.text()}`)
  const { jobId } = (await accepted.json()) as { jobId: string }
  let job: { status: string; progress: { processed: number; failed: number } }
  do {
    await new Promise((resolve) => setTimeout(resolve, 50))
    job = (await (
      await fetch(`${api}/customers/bulk/jobs/${jobId}`, { headers: { authorization } })
    ).json()) as typeof job
  } while (job.status === "PENDING" || job.status === "PROCESSING")
  const seconds = (performance.now() - started) / 1000

  server.close()
  await Effect.runPromise(Scope.close(scope, { _tag: "Success", value: undefined } as never))
  return {
    rows: job.progress.processed,
    fileBytes: fileBytesOf(rows),
    seconds,
    rowsPerSecond: job.progress.processed / seconds,
    // maxRSS is in KiB.
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    startRssMiB,
    status: job.status,
    failed: job.progress.failed
  }
}

/** The import in a child process (its own peak RSS). */
export const benchCsvImport = (rows = 50_000): Promise<CsvImportBench> =>
  new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [fileURLToPath(import.meta.url), "--child", String(rows)],
      { maxBuffer: 1024 * 1024 },
      (error, stdout) => (error === null ? resolve(JSON.parse(stdout) as CsvImportBench) : reject(error))
    )
  })

export const formatCsvImportBench = (r: CsvImportBench): string =>
  [
    `\nCSV bulk import: POST /customers/bulk/csv of ${r.rows.toLocaleString("en-US")} rows ` +
      `(${(r.fileBytes / MiB).toFixed(1)} MiB, streamed), memory stores, in a child process`,
    `  ${r.rowsPerSecond.toFixed(0).padStart(6)} rows/s   ${r.seconds.toFixed(2)} s from the first byte to ${r.status}` +
      `${r.failed > 0 ? ` (${r.failed} rows failed!)` : ""}`,
    `  peak RSS ${r.peakRssMiB.toFixed(0)} MiB (${r.startRssMiB.toFixed(0)} MiB before the upload)`,
    `  targets: >= 5,000 rows/s ${r.rowsPerSecond >= 5000 ? "met" : "NOT met"}, ` +
      `peak RSS < 300 MB ${r.peakRssMiB * MiB < 300e6 ? "met" : "NOT met"}`
  ].join("\n")

if (import.meta.main && process.argv[2] === "--child") {
  process.stdout.write(JSON.stringify(await runCsvImport(Number(process.argv[3] ?? 50_000))))
} else if (import.meta.main) {
  console.log(formatCsvImportBench(await benchCsvImport()))
}
