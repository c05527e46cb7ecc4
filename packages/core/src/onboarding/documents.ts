import { Context, Effect, Layer } from "effect"
import { customerDeleted } from "../customers/errors.ts"
import { invalidCursor } from "../platform/errors.ts"
import { DocumentStore } from "../ports/document-store.ts"
import { Ids } from "../ports/ids.ts"
import { KycProvider } from "../ports/kyc.ts"
import { Store } from "../ports/store.ts"
import { type Conflict, type InvalidInput, type NotFound, type Refused, StoreError } from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { pageRequest } from "../shared/paging.ts"
import { nowIso } from "../shared/time.ts"
import {
  documentHolderNotFound,
  documentNotFound,
  documentRejected,
  documentSubmitted,
  emptyFile,
  nothingToReplace,
  unsupportedDocumentType
} from "./errors.ts"
import {
  DOCUMENT_CONTENT_TYPES,
  type Document,
  type DocumentFile,
  type DocumentRecord,
  type DocumentType,
  type ListDocumentsQuery,
  MAX_DOCUMENT_BYTES,
  type ReplaceDocumentFields,
  type UploadDocumentFields
} from "./model.ts"
import { discardInto, type IncomingFile, type ReceivedFile, receiveInto } from "./uploads.ts"
import { fromProvider } from "./verification.ts"

// The `Documents` service: a customer's (or beneficial owner's) documents, screened by the KYC provider.

export class Documents extends Context.Service<
  Documents,
  {
    /**
     * Streams a document file into the DocumentStore under a fresh key: 400 `INVALID_INPUT` on `file` for a
     * media type other than PDF, JPEG or PNG (nothing is read), over 10 MB, or empty. The file belongs to no
     * document until `upload` or `replace` takes it; `discardFile` removes one that is not taken.
     */
    readonly receiveFile: (file: IncomingFile) => Effect.Effect<ReceivedFile, InvalidInput | StoreError>
    readonly discardFile: (file: ReceivedFile) => Effect.Effect<void>
    /**
     * `POST /documents` (201): the provider screens the file, then the document is created. 404 for an unknown
     * holder, 410 for a deleted customer, 422 `DOCUMENT_REJECTED` when screening fails. On any failure the file
     * is discarded: nothing is stored.
     */
    readonly upload: (
      fields: UploadDocumentFields,
      file: ReceivedFile
    ) => Effect.Effect<Document, NotFound | Refused | StoreError>
    /**
     * `PUT /documents/{documentId}` (200): new metadata and/or a new file (screened like an upload). The previous
     * file stays stored, marked `INACTIVE`. A submitted document may be replaced.
     */
    readonly replace: (
      id: string,
      fields: ReplaceDocumentFields,
      file: ReceivedFile | undefined
    ) => Effect.Effect<Document, InvalidInput | NotFound | Refused | StoreError>
    /** `GET /documents`: optionally one holder's. */
    readonly list: (query: ListDocumentsQuery) => Effect.Effect<Page<Document>, InvalidInput | StoreError>
    /** `GET /documents/{documentId}`. */
    readonly get: (id: string) => Effect.Effect<Document, NotFound | StoreError>
    /**
     * `DELETE /documents/{documentId}` (204): the document and its files are gone for good. 409 once a packet
     * review included it.
     */
    readonly delete: (id: string) => Effect.Effect<void, NotFound | Conflict | StoreError>
  }
>()("paycore/onboarding/Documents") {
  static readonly layer = Layer.effect(
    Documents,
    Effect.gen(function* () {
      const store = yield* Store
      const files = yield* DocumentStore
      const ids = yield* Ids
      const kyc = yield* KycProvider

      const discardFile = Effect.fn("Documents.discardFile")(function* (file: ReceivedFile) {
        yield* discardInto(files)(file)
      })
      const discardOnFailure =
        (file: ReceivedFile | undefined) =>
        <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          file === undefined ? effect : Effect.onError(effect, () => discardFile(file))

      const receiveFile = Effect.fn("Documents.receiveFile")(function* (incoming: IncomingFile) {
        const contentType = DOCUMENT_CONTENT_TYPES.find((t) => t === incoming.mediaType)
        if (contentType === undefined) return yield* unsupportedDocumentType(incoming.mediaType)
        const key = `document-file/${yield* ids.randomHex(16)}`
        const received = yield* receiveInto(files, key, contentType, incoming, MAX_DOCUMENT_BYTES)
        if (received.size === 0) {
          yield* discardFile(received)
          return yield* emptyFile()
        }
        return received
      })

      const screen = Effect.fnUntraced(function* (file: ReceivedFile, documentType: DocumentType) {
        const stored = yield* files.get(file.key)
        if (stored === undefined) {
          return yield* new StoreError({ message: `Document file ${file.key} vanished`, retryable: false })
        }
        const verdict = yield* fromProvider(
          kyc.screenDocument({ documentType, contentType: file.contentType, size: file.size, body: stored.body })
        )
        if (verdict._tag === "Rejected") return yield* documentRejected(verdict.reason)
      })

      const fileOf = (file: ReceivedFile, uploadedAt: string): DocumentFile => ({
        key: file.key,
        fileName: file.fileName,
        contentType: file.contentType,
        size: file.size,
        sha256: file.sha256,
        uploadedAt,
        status: "ACTIVE"
      })

      /** A holder that can be given documents: a live customer, or an owner of one. */
      const checkHolder = Effect.fnUntraced(function* (holder: string) {
        const customerId = holder.startsWith("BeneficialOwner:")
          ? (yield* store.beneficialOwners.get(holder))?.customerId
          : holder
        const customer = customerId === undefined ? undefined : yield* store.customers.get(customerId)
        if (customer === undefined) return yield* documentHolderNotFound(holder)
        if (customer.isDeleted) return yield* customerDeleted(customer.id)
      })

      const upload = Effect.fn("Documents.upload")(function* (fields: UploadDocumentFields, file: ReceivedFile) {
        return yield* discardOnFailure(file)(
          Effect.gen(function* () {
            yield* checkHolder(fields.documentHolder)
            yield* screen(file, fields.documentType)
            return yield* store.transaction(
              Effect.gen(function* () {
                const now = yield* nowIso
                const id = yield* ids.make("Document")
                const document: Document = { id, ...fields, fileName: file.fileName, createdAt: now, updatedAt: now }
                yield* Effect.orDie(store.documents.insert({ id, document, files: [fileOf(file, now)] }))
                return document
              })
            )
          })
        )
      })

      const liveDocument = (record: DocumentRecord | undefined, id: string) =>
        record === undefined || record.deletedAt !== undefined
          ? Effect.fail(documentNotFound(id))
          : Effect.succeed(record)

      const replace = Effect.fn("Documents.replace")(function* (
        id: string,
        fields: ReplaceDocumentFields,
        file: ReceivedFile | undefined
      ) {
        return yield* discardOnFailure(file)(
          Effect.gen(function* () {
            if (file === undefined && Object.keys(fields).length === 0) return yield* nothingToReplace()
            const current = yield* liveDocument(yield* store.documents.get(id), id)
            if (file !== undefined) yield* screen(file, fields.documentType ?? current.document.documentType)
            return yield* store.transaction(
              Effect.gen(function* () {
                const locked = yield* liveDocument(yield* store.documents.getForUpdate(id), id)
                const now = yield* nowIso
                const document: Document = {
                  ...locked.document,
                  ...fields,
                  ...(file === undefined ? {} : { fileName: file.fileName }),
                  updatedAt: now
                }
                const kept =
                  file === undefined
                    ? locked.files
                    : [...locked.files.map((f) => ({ ...f, status: "INACTIVE" as const })), fileOf(file, now)]
                yield* Effect.orDie(store.documents.update({ ...locked, document, files: kept }))
                return document
              })
            )
          })
        )
      })

      const list = Effect.fn("Documents.list")(function* (query: ListDocumentsQuery) {
        const page = pageRequest(query)
        if (page === undefined) return yield* invalidCursor()
        const found = yield* store.documents.list({ documentHolder: query.documentHolder, includeDeleted: false }, page)
        return { ...found, data: found.data.map((r) => r.document) }
      })

      const get = Effect.fn("Documents.get")(function* (id: string) {
        return (yield* liveDocument(yield* store.documents.get(id), id)).document
      })

      const remove = Effect.fn("Documents.delete")(function* (id: string) {
        const removed = yield* store.transaction(
          Effect.gen(function* () {
            const record = yield* liveDocument(yield* store.documents.getForUpdate(id), id)
            if (record.submittedAt !== undefined) return yield* documentSubmitted(id)
            yield* Effect.orDie(store.documents.update({ ...record, files: [], deletedAt: yield* nowIso }))
            return record
          })
        )
        // The files go once the deletion is committed (a file left behind by a crash here is unreachable).
        yield* Effect.forEach(removed.files, (f) => files.delete(f.key), { discard: true })
      })

      return Documents.of({ receiveFile, discardFile, upload, replace, list, get, delete: remove })
    })
  )
}
