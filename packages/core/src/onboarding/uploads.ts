import { Effect } from "effect"
import type { DocumentBody, DocumentStore } from "../ports/document-store.ts"
import { InvalidInput, type StoreError } from "../shared/errors.ts"
import { fileTooLarge } from "./errors.ts"

// Uploaded files on their way into the DocumentStore: a document's file (`Documents`) or a bulk import's CSV
// (`BulkImports`).

/** A file on its way in: the multipart part's media type and file name, and its bytes as they arrive. */
export interface IncomingFile {
  /** The part's media type, lowercased, without parameters (`image/png`). */
  readonly mediaType: string
  /** As the client named it (it may hold a path); `undefined` when it sent none. */
  readonly fileName: string | undefined
  readonly body: DocumentBody
}

/** A file stored in the DocumentStore, not yet part of a document (`Documents.receiveFile`). */
export interface ReceivedFile {
  readonly key: string
  readonly fileName: string
  readonly contentType: string
  readonly size: number
  readonly sha256: string
}

/** The name without any directory a browser may send (`C:\\scans\\id.pdf` → `id.pdf`), at most 255 characters. */
export const baseFileName = (name: string | undefined): string => {
  const base = (name ?? "").split(/[\\/]/).pop()!.trim().slice(0, 255)
  return base === "" ? "document" : base
}

/**
 * Streams an incoming file into the DocumentStore under `key`. 400 `INVALID_INPUT` on `file` when it passes
 * `maxBytes` or its body breaks off (nothing is stored then).
 */
export const receiveInto = (
  files: DocumentStore["Service"],
  key: string,
  contentType: string,
  incoming: IncomingFile,
  maxBytes: number
): Effect.Effect<ReceivedFile, InvalidInput | StoreError> =>
  files.put(key, contentType, incoming.body, { maxBytes }).pipe(
    Effect.catchTags({
      DocumentTooLarge: () => Effect.fail(fileTooLarge(maxBytes)),
      DocumentBodyError: (e) => Effect.fail(InvalidInput.one("file", { readable: true }, e.message))
    }),
    Effect.map((stored) => ({ key, fileName: baseFileName(incoming.fileName), contentType, ...stored }))
  )

/** Removes a received file that no document or job took. */
export const discardInto = (files: DocumentStore["Service"]) => (file: ReceivedFile) =>
  Effect.ignore(files.delete(file.key))
