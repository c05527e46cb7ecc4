import { BulkImports, Customers, PlatformConfigService } from "@paycore/core"
import { Cause, Effect, Result, Scope } from "effect"
import { readUploadForm } from "../uploads.ts"
import { type GroupHandlers, signedRetryInput } from "./shared.ts"

/** A CSV upload's other fields are not looked at. */
const ignoreFields = () => Result.succeed(undefined)

/** The `customers` group: customers, the end-user terms, and CSV bulk imports. */
export const customersHandlers = Effect.fnUntraced(function* () {
  const customers = yield* Customers
  const config = yield* PlatformConfigService
  const bulkImports = yield* BulkImports
  // Bulk imports run after their request is answered, in the app's scope (closing the app stops them).
  const scope = yield* Scope.Scope
  const runInBackground = (jobId: string) =>
    Effect.forkIn(
      bulkImports
        .run(jobId)
        .pipe(Effect.catchCause((cause) => Effect.logError("bulk import failed", Cause.pretty(cause)))),
      scope
    )
  const handlers: GroupHandlers<"customers"> = {
    create: ({ payload }) => customers.create(payload),
    list: ({ query }) => customers.list(query),
    endUserTerms: () => config.endUserTerms(),
    get: ({ params }) => customers.get(params.customerId),
    update: ({ params, payload, headers, rawBody }) =>
      customers.update(params.customerId, payload, signedRetryInput(headers, rawBody)),
    delete: ({ params }) => customers.delete(params.customerId),
    bulkImportCsv: ({ payload }) =>
      readUploadForm(payload, bulkImports, ignoreFields, "required").pipe(
        Effect.flatMap(({ file }) => bulkImports.accept(file)),
        Effect.tap((accepted) => runInBackground(accepted.jobId))
      ),
    getBulkImportJob: ({ params }) => bulkImports.get(params.jobId)
  }
  return handlers
})
