import {
  collectTextErrors,
  type FieldError,
  type IncomingFile,
  InvalidInput,
  invalidInput,
  type ReceivedFile,
  type StoreError,
  textFault,
  textFieldError
} from "@paycore/core"
import { Effect, Result } from "effect"
import type { StreamedBody } from "./listener-types.ts"
import { MultipartError, readMultipartForm } from "./multipart.ts"

/** Where a form's file goes as it arrives, and how to remove it when the request fails after all. */
export interface FileReceiver {
  readonly receiveFile: (file: IncomingFile) => Effect.Effect<ReceivedFile, InvalidInput | StoreError>
  readonly discardFile: (file: ReceivedFile) => Effect.Effect<void>
}

/** A malformed multipart body is the client's error: 400 `INVALID_INPUT` naming the part (or `body`). */
const invalidMultipart = (e: MultipartError): InvalidInput =>
  InvalidInput.one(e.field ?? "body", { multipart: e.reason }, e.message)

/**
 * Reads a streamed multipart form: its `file` part straight into `receiver` (never buffered), its text fields
 * decoded with `decode`. Every problem is a 400 `INVALID_INPUT`; a file received before the problem showed is
 * discarded, so a failed request stores nothing.
 */
export const readUploadForm = <F, Need extends "required" | "optional">(
  payload: StreamedBody,
  receiver: FileReceiver,
  decode: (fields: Readonly<Record<string, string>>) => Result.Result<F, InvalidInput>,
  file: Need
): Effect.Effect<
  { readonly fields: F; readonly file: Need extends "required" ? ReceivedFile : ReceivedFile | undefined },
  InvalidInput | StoreError
> => {
  let received: ReceivedFile | undefined
  return readMultipartForm(payload.contentType, payload.body, (part) => {
    // The file name is kept with the document: the text rule applies to it before a byte is stored.
    const fault = part.filename === undefined ? undefined : textFault(part.filename)
    if (fault !== undefined) return Effect.fail(invalidInput([textFieldError(`${part.name}.filename`, fault)]))
    return Effect.tap(
      receiver.receiveFile({ mediaType: part.mediaType, fileName: part.filename, body: part.body }),
      (r) =>
        Effect.sync(() => {
          received = r
        })
    )
  }).pipe(
    Effect.mapError((e) => (e instanceof MultipartError ? invalidMultipart(e) : e)),
    Effect.flatMap((form) => {
      if (file === "required" && form.file === undefined) {
        return Effect.fail(InvalidInput.one("file", { required: true }, "The file part is missing"))
      }
      const textErrors: Array<FieldError> = []
      collectTextErrors(form.fields, [], textErrors)
      if (textErrors.length > 0) return Effect.fail(invalidInput(textErrors))
      const fields = decode(form.fields)
      return Result.isFailure(fields)
        ? Effect.fail(fields.failure)
        : Effect.succeed({ fields: fields.success, file: form.file?.result as ReceivedFile })
    }),
    Effect.onError(() => (received === undefined ? Effect.void : receiver.discardFile(received)))
  )
}
