import { Cause, Clock, Effect, Exit, Result, Stream } from "effect"
import { scanAll } from "../platform/paging.ts"
import { CsvError, type CsvRecord, type CsvRowError, parseCsv } from "../shared/csv.ts"
import { type InvalidInput, StoreError } from "../shared/errors.ts"
import { isoAfter, nowIso } from "../shared/time.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { type CustomerCsvRow, checkCustomerCsvHeader, customerFromCsv } from "./customer-csv.ts"
import { bulkImportJobNotFound } from "./errors.ts"
import type {
  BulkImportAccepted,
  BulkImportErrorEntry,
  BulkImportJob,
  BulkImportJobRecord,
  BulkImportStatus
} from "./model.ts"
import type { BulkImportPorts } from "./ports.ts"
import { discardInto, type IncomingFile, type ReceivedFile, receiveInto } from "./uploads.ts"

// A CSV file of customers (`BulkImports`) (`POST /customers/bulk/csv`), imported as a job.

/** The largest CSV file `POST /customers/bulk/csv` takes, in bytes. */
export const MAX_BULK_IMPORT_BYTES = 100 * 1024 * 1024
/** Failed rows a job lists in `errors` (its `progress.failed` counts them all). */
export const MAX_BULK_IMPORT_ERRORS = 1000
/** A running job reports its progress (and that it is alive) every this many rows. */
export const BULK_IMPORT_REPORT_ROWS = 1000
/** Rows imported in one store transaction. */
export const BULK_IMPORT_BATCH_ROWS = 100
/** Batches of a job written at once (each on its own connection on PostgreSQL): a wave of rows. */
export const BULK_IMPORT_CONCURRENCY = 4
/** A job that has not reported for this long was abandoned by its process (a restart): `sweep` fails it. */
export const BULK_IMPORT_ABANDONED_SECONDS = 600

/** How a row's failure to become a customer is listed in the job's errors. */
const rowFailure = (correlationId: string, line: number, error: unknown): BulkImportErrorEntry => {
  const e = error as { readonly _tag?: string; readonly code?: string; readonly message?: string }
  switch (e._tag) {
    case "InvalidInput":
      return {
        correlationId,
        code: "INVALID_INPUT",
        message: `Line ${line}: ${(error as InvalidInput).message}`,
        details: { line, errors: (error as InvalidInput).errors }
      }
    case "Refused":
    case "Conflict":
    case "NotFound":
    case "Forbidden":
    case "LimitExceeded":
      return {
        correlationId,
        code: e.code ?? "INVALID_INPUT",
        message: `Line ${line}: ${e.message}`,
        details: { line }
      }
    default:
      return {
        correlationId,
        code: "INTERNAL_ERROR",
        message: `Line ${line}: the customer could not be stored; import this row again`,
        details: { line }
      }
  }
}

/** The file-level error of a job whose CSV cannot be read on. */
const fileFailure = (error: CsvError): BulkImportErrorEntry => ({
  correlationId: String(error.line),
  code: "INVALID_REQUEST_FORMAT",
  message: error.message,
  details: { line: error.line, reason: error.reason }
})

/** A row's failure to become a customer, from the exit of its `create`. */
const createFailure = (row: CustomerCsvRow, exit: Exit.Exit<unknown, unknown>): BulkImportErrorEntry => {
  const failure = Exit.isFailure(exit) ? Cause.findError(exit.cause) : undefined
  return rowFailure(row.correlationId, row.line, failure?._tag === "Success" ? failure.success : undefined)
}

/** Removes a received CSV that no job took. */
export const discardCsvFile = (ports: BulkImportPorts, file: ReceivedFile) => discardInto(ports.files)(file)

/** Streams an uploaded CSV into the DocumentStore: 400 `INVALID_INPUT` on `file` over `MAX_BULK_IMPORT_BYTES`. */
export const receiveCsvFile = Effect.fnUntraced(function* (ports: BulkImportPorts, incoming: IncomingFile) {
  return yield* receiveInto(
    ports.files,
    `bulk-import/${yield* ports.ids.randomHex(16)}`,
    "text/csv",
    incoming,
    MAX_BULK_IMPORT_BYTES
  )
})

/** `POST /customers/bulk/csv`: a `PENDING` job of a received CSV file; on failure the file is discarded. */
export const acceptBulkImport = Effect.fnUntraced(function* (ports: BulkImportPorts, file: ReceivedFile) {
  const { store, ids } = ports
  const id = yield* ids.make("Job")
  const fileKey = file.key
  const now = yield* nowIso
  const job: BulkImportJob = {
    id,
    status: "PENDING",
    progress: { total: 0, processed: 0, successful: 0, failed: 0 },
    errors: []
  }
  yield* store
    .transaction(Effect.orDie(store.bulkImportJobs.insert({ id, job, fileKey, createdAt: now, updatedAt: now })))
    .pipe(Effect.onError(() => discardCsvFile(ports, file)))
  return { jobId: id, status: "PENDING" } satisfies BulkImportAccepted
})

const importRows = Effect.fnUntraced(function* (ports: BulkImportPorts, record: BulkImportJobRecord, total: number) {
  const progress = { total, processed: 0, successful: 0, failed: 0 }
  const errors: Array<BulkImportErrorEntry> = []
  const snapshot = (status: BulkImportStatus): BulkImportJob => ({
    ...record.job,
    status,
    progress: { ...progress },
    errors: [...errors]
  })
  yield* save(ports, record, snapshot("PROCESSING"))
  const next = yield* openCsv(ports, record)
  // The next wave is read only once this one is written: the file is read no faster than rows are stored.
  const wave: Array<CsvRecord | CsvRowError> = []
  let ended = false
  while (!ended) {
    while (wave.length < BULK_IMPORT_BATCH_ROWS * BULK_IMPORT_CONCURRENCY) {
      const item = yield* next
      if (item.done === true) {
        ended = true
        break
      }
      if (item.value._tag !== "Header") wave.push(item.value)
    }
    const outcomes = yield* importWave(ports, wave)
    wave.length = 0
    const reportedBefore = Math.floor(progress.processed / BULK_IMPORT_REPORT_ROWS)
    for (const outcome of outcomes) {
      progress.processed++
      if (outcome === undefined) progress.successful++
      else {
        progress.failed++
        if (errors.length < MAX_BULK_IMPORT_ERRORS) errors.push(outcome)
      }
    }
    if (!ended && Math.floor(progress.processed / BULK_IMPORT_REPORT_ROWS) > reportedBefore) {
      yield* save(ports, record, snapshot("PROCESSING"))
    }
  }
  return snapshot(progress.successful === 0 && progress.failed > 0 ? "FAILED" : "COMPLETED")
})

/** Imports a `PENDING` job's file (a job another runner took, or one already done, is left alone). */
export const runBulkImport = Effect.fnUntraced(function* (ports: BulkImportPorts, jobId: string) {
  const record = yield* claim(ports, jobId)
  if (record === undefined) return
  const outcome = yield* Effect.result(
    Effect.flatMap(countRows(ports, record), (counted) =>
      typeof counted === "number"
        ? importRows(ports, record, counted)
        : Effect.succeed<BulkImportJob>({ ...record.job, status: "FAILED", errors: [counted] })
    )
  )
  if (Result.isSuccess(outcome)) return yield* end(ports, record, outcome.success)
  if (outcome.failure._tag === "CsvError") {
    const current = (yield* ports.store.bulkImportJobs.get(jobId)) ?? record
    return yield* end(ports, current, {
      ...current.job,
      status: "FAILED",
      errors: [...current.job.errors, fileFailure(outcome.failure)]
    })
  }
  return yield* outcome.failure
})

/** `GET /customers/bulk/jobs/{jobId}`: 404 `BULK_UPLOAD_JOB_NOT_FOUND`. */
export const getBulkImportJob = Effect.fnUntraced(function* (ports: BulkImportPorts, jobId: string) {
  const record = yield* ports.store.bulkImportJobs.get(jobId)
  if (record === undefined) return yield* bulkImportJobNotFound(jobId)
  return record.job
})

/** Fails the jobs whose process stopped (no report for `BULK_IMPORT_ABANDONED_SECONDS`); answers how many. */
export const sweepBulkImports = Effect.fnUntraced(function* (ports: BulkImportPorts) {
  const running = yield* scanAll((page) =>
    ports.store.bulkImportJobs.list({ statuses: ["PENDING", "PROCESSING"] }, page)
  )
  const staleBefore = isoAfter(yield* Clock.currentTimeMillis, -BULK_IMPORT_ABANDONED_SECONDS)
  let failed = 0
  for (const record of running) {
    if (record.updatedAt >= staleBefore) continue
    const abandoned: BulkImportErrorEntry = {
      correlationId: String(record.job.progress.processed),
      code: "JOB_INTERRUPTED",
      message: `The import stopped after ${record.job.progress.processed} rows (the server restarted); upload the rows after them again`
    }
    yield* end(ports, record, { ...record.job, status: "FAILED", errors: [...record.job.errors, abandoned] })
    failed++
  }
  return failed
})

// ---- a job's record through its life: claimed, saved as it goes, ended (webhook, file deleted) ----

/** Saves the job as it stands; the last save ends it (with its webhook) and deletes its file. */
const save = (ports: BulkImportPorts, record: BulkImportJobRecord, job: BulkImportJob) =>
  ports.store.transaction(
    Effect.gen(function* () {
      const { store, ids } = ports
      const now = yield* nowIso
      const ended = job.status === "COMPLETED" || job.status === "FAILED"
      const next: BulkImportJob = ended ? { ...job, completedAt: now } : job
      yield* Effect.orDie(store.bulkImportJobs.update({ ...record, job: next, updatedAt: now }))
      if (ended) yield* emitSteps(store, ids, [`BULK_UPLOAD.${next.status}`], record.id, next, now)
      return next
    })
  )

const end = (ports: BulkImportPorts, record: BulkImportJobRecord, job: BulkImportJob) =>
  Effect.andThen(save(ports, record, job), Effect.ignore(ports.files.delete(record.fileKey)))

/** The job, moved from PENDING to PROCESSING; `undefined` when it is not PENDING. */
const claim = (ports: BulkImportPorts, jobId: string) =>
  ports.store.transaction(
    Effect.gen(function* () {
      const { store } = ports
      const record = yield* store.bulkImportJobs.getForUpdate(jobId)
      if (record === undefined || record.job.status !== "PENDING") return undefined
      const claimed = {
        ...record,
        job: { ...record.job, status: "PROCESSING" as const },
        updatedAt: yield* nowIso
      }
      yield* Effect.orDie(store.bulkImportJobs.update(claimed))
      return claimed
    })
  )

// ---- a job's stored CSV file, read as a stream ----

/** The file's CSV items, one at a time, as an iterator over a fresh read of the stored file. */
const openCsv = Effect.fnUntraced(function* (ports: BulkImportPorts, record: BulkImportJobRecord) {
  const stored = yield* ports.files.get(record.fileKey)
  if (stored === undefined) {
    return yield* new StoreError({ message: `The file of job ${record.id} is gone`, retryable: false })
  }
  const iterator = parseCsv(Stream.toAsyncIterable(stored.body))[Symbol.asyncIterator]()
  return Effect.tryPromise({
    try: () => iterator.next(),
    catch: (cause) =>
      cause instanceof CsvError || cause instanceof StoreError
        ? cause
        : new StoreError({ message: `Reading job ${record.id}: ${String(cause)}`, retryable: false })
  })
})

/** Rows in the file, or the reason it cannot be read. */
const countRows = Effect.fnUntraced(function* (ports: BulkImportPorts, record: BulkImportJobRecord) {
  const next = yield* openCsv(ports, record)
  let rows = 0
  while (true) {
    const item = yield* next
    if (item.done === true) return rows
    if (item.value._tag === "Header") {
      const bad = checkCustomerCsvHeader(item.value)
      if (bad !== undefined) return bad
    } else rows++
  }
})

// ---- CSV rows to customers, a wave of batches at a time, each row's outcome in the file's order ----

/** A row as a customer: `undefined`, or its error. */
const createAlone = (ports: BulkImportPorts, row: CustomerCsvRow) =>
  Effect.map(Effect.exit(ports.customers.create(row.request)), (exit) =>
    Exit.isSuccess(exit) ? undefined : createFailure(row, exit)
  )

/**
 * A batch of rows: their customers written together (`Customers.createMany`: one transaction, a few
 * statements), each as `undefined` or its error; a bad row costs its batch a second pass, row by row, but
 * never stops the good ones.
 */
const importBatch = (ports: BulkImportPorts, rows: ReadonlyArray<CustomerCsvRow>) =>
  Effect.map(Effect.exit(ports.customers.createMany(rows.map((row) => row.request))), (exits) =>
    Exit.isSuccess(exits)
      ? exits.value.map((exit, i) => (Exit.isSuccess(exit) ? undefined : createFailure(rows[i]!, exit)))
      : rows.map((row) => createFailure(row, exits))
  )

/**
 * The rows of a wave, each as `undefined` (a customer) or its error, in the file's order. Batches run at once;
 * a row repeating the platformCustomerId or umaAddress of an earlier row of the wave waits for them, so the
 * first in the file wins, as when rows are written one after another.
 */
const importWave = Effect.fnUntraced(function* (ports: BulkImportPorts, items: ReadonlyArray<CsvRecord | CsvRowError>) {
  const outcomes: Array<BulkImportErrorEntry | undefined> = []
  const first: Array<{ readonly at: number; readonly row: CustomerCsvRow }> = []
  const repeats: Array<{ readonly at: number; readonly row: CustomerCsvRow }> = []
  const keys = new Set<string>()
  for (const [at, item] of items.entries()) {
    const row = customerFromCsv(item)
    if (Result.isFailure(row)) {
      outcomes[at] = row.failure
      continue
    }
    const { platformCustomerId, umaAddress } = row.success.request
    const own = [`p:${platformCustomerId ?? ""}`, `u:${umaAddress ?? ""}`]
    const repeated = own.some((key) => keys.has(key))
    for (const key of own) keys.add(key)
    ;(repeated ? repeats : first).push({ at, row: row.success })
  }
  const batches = Array.from({ length: Math.ceil(first.length / BULK_IMPORT_BATCH_ROWS) }, (_, i) =>
    first.slice(i * BULK_IMPORT_BATCH_ROWS, (i + 1) * BULK_IMPORT_BATCH_ROWS)
  )
  yield* Effect.forEach(
    batches,
    (batch) =>
      Effect.map(
        importBatch(
          ports,
          batch.map((b) => b.row)
        ),
        (results) =>
          results.forEach((result, i) => {
            outcomes[batch[i]!.at] = result
          })
      ),
    { concurrency: BULK_IMPORT_CONCURRENCY, discard: true }
  )
  for (const { at, row } of repeats) outcomes[at] = yield* createAlone(ports, row)
  return outcomes
})
