/**
 * Bulk import jobs in the core, on a TestClock: a job left PROCESSING by a server that stopped is failed by the
 * worker's sweep once it has not reported for `BULK_IMPORT_ABANDONED_SECONDS`.
 */
import { assert, describe, it } from "@effect/vitest"
import { documentStoreLayer, layer as memoryStore } from "@paycore/store-memory"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Customers } from "../src/customers/service.ts"
import { BULK_IMPORT_ABANDONED_SECONDS } from "../src/onboarding/bulk-import.ts"
import { BulkImports } from "../src/onboarding/service.ts"
import { PlatformConfigService } from "../src/platform/service.ts"
import { DocumentStore } from "../src/ports/document-store.ts"
import { Ids } from "../src/ports/ids.ts"
import { Store } from "../src/ports/store.ts"
import { eventsOf, T0 } from "./fixtures.ts"

const layer = BulkImports.layer.pipe(
  Layer.provideMerge(Customers.layer),
  Layer.provideMerge(PlatformConfigService.layer),
  Layer.provideMerge(Layer.mergeAll(memoryStore, documentStoreLayer, Ids.layerSeeded(7)))
)

const csv = new TextEncoder().encode("umaAddress,platformCustomerId,customerType\r\n")

describe("BulkImports.sweep", () => {
  it.effect("fails a job left PROCESSING by a stopped server with JOB_INTERRUPTED after 10 minutes", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const imports = yield* BulkImports
      const store = yield* Store
      const file = yield* imports.receiveFile({
        mediaType: "text/csv",
        fileName: "customers.csv",
        body: (async function* () {
          yield csv
        })()
      })
      const { jobId } = yield* imports.accept(file)
      // What a server that stopped mid-import leaves behind: the job PROCESSING, its last report 1,000 rows in.
      const left = (yield* store.bulkImportJobs.get(jobId))!
      yield* store.transaction(
        store.bulkImportJobs.update({
          ...left,
          job: {
            ...left.job,
            status: "PROCESSING",
            progress: { total: 5000, processed: 1000, successful: 1000, failed: 0 }
          }
        })
      )

      yield* TestClock.adjust(BULK_IMPORT_ABANDONED_SECONDS * 1000)
      assert.strictEqual(yield* imports.sweep(), 0, "not yet: exactly 10 minutes without a report")
      assert.strictEqual((yield* imports.get(jobId)).status, "PROCESSING")

      yield* TestClock.adjust(1000)
      assert.strictEqual(yield* imports.sweep(), 1)
      const job = yield* imports.get(jobId)
      assert.deepStrictEqual(job, {
        id: jobId,
        status: "FAILED",
        progress: { total: 5000, processed: 1000, successful: 1000, failed: 0 },
        errors: [
          {
            correlationId: "1000",
            code: "JOB_INTERRUPTED",
            message: "The import stopped after 1000 rows (the server restarted); upload the rows after them again"
          }
        ],
        completedAt: new Date(T0 + (BULK_IMPORT_ABANDONED_SECONDS + 1) * 1000).toISOString()
      })
      assert.deepStrictEqual(yield* eventsOf(jobId), ["BULK_UPLOAD.FAILED"])
      assert.isUndefined(yield* (yield* DocumentStore).get(file.key), "the job's file is deleted")
      // An ended job is not swept again.
      yield* TestClock.adjust(BULK_IMPORT_ABANDONED_SECONDS * 2000)
      assert.strictEqual(yield* imports.sweep(), 0)
    }).pipe(Effect.provide(layer))
  )
})
