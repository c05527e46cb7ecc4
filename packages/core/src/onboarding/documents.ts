import { Effect } from "effect"
import { customerDeleted } from "../customers/errors.ts"
import { invalidCursor } from "../platform/errors.ts"
import { StoreError } from "../shared/errors.ts"
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
import type { DocumentPorts } from "./ports.ts"
import { discardInto, type IncomingFile, type ReceivedFile, receiveInto } from "./uploads.ts"
import { fromProvider } from "./verification.ts"

// A customer's (or beneficial owner's) documents (`Documents`), screened by the KYC provider.

/** Removes a received file that no document took. */
export const discardDocumentFile = (ports: DocumentPorts, file: ReceivedFile) => discardInto(ports.files)(file)

const discardOnFailure =
  (ports: DocumentPorts, file: ReceivedFile | undefined) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    file === undefined ? effect : Effect.onError(effect, () => discardDocumentFile(ports, file))

/** Streams a document file into the DocumentStore under a fresh key (PDF, JPEG or PNG, at most 10 MB, not empty). */
export const receiveDocumentFile = Effect.fnUntraced(function* (ports: DocumentPorts, incoming: IncomingFile) {
  const contentType = DOCUMENT_CONTENT_TYPES.find((t) => t === incoming.mediaType)
  if (contentType === undefined) return yield* unsupportedDocumentType(incoming.mediaType)
  const key = `document-file/${yield* ports.ids.randomHex(16)}`
  const received = yield* receiveInto(ports.files, key, contentType, incoming, MAX_DOCUMENT_BYTES)
  if (received.size === 0) {
    yield* discardDocumentFile(ports, received)
    return yield* emptyFile()
  }
  return received
})

const screen = Effect.fnUntraced(function* (ports: DocumentPorts, file: ReceivedFile, documentType: DocumentType) {
  const stored = yield* ports.files.get(file.key)
  if (stored === undefined) {
    return yield* new StoreError({ message: `Document file ${file.key} vanished`, retryable: false })
  }
  const verdict = yield* fromProvider(
    ports.kyc.screenDocument({ documentType, contentType: file.contentType, size: file.size, body: stored.body })
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
const checkHolder = Effect.fnUntraced(function* (ports: DocumentPorts, holder: string) {
  const { store } = ports
  const customerId = holder.startsWith("BeneficialOwner:")
    ? (yield* store.beneficialOwners.get(holder))?.customerId
    : holder
  const customer = customerId === undefined ? undefined : yield* store.customers.get(customerId)
  if (customer === undefined) return yield* documentHolderNotFound(holder)
  if (customer.isDeleted) return yield* customerDeleted(customer.id)
})

/** `POST /documents`: the provider screens the file, then the document is created; on failure the file goes. */
export const uploadDocument = Effect.fnUntraced(function* (
  ports: DocumentPorts,
  fields: UploadDocumentFields,
  file: ReceivedFile
) {
  const { store, ids } = ports
  return yield* discardOnFailure(
    ports,
    file
  )(
    Effect.gen(function* () {
      yield* checkHolder(ports, fields.documentHolder)
      yield* screen(ports, file, fields.documentType)
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
  record === undefined || record.deletedAt !== undefined ? Effect.fail(documentNotFound(id)) : Effect.succeed(record)

/** `PUT /documents/{documentId}`: new metadata and/or a new file; the previous file stays, `INACTIVE`. */
export const replaceDocument = Effect.fnUntraced(function* (
  ports: DocumentPorts,
  id: string,
  fields: ReplaceDocumentFields,
  file: ReceivedFile | undefined
) {
  const { store } = ports
  return yield* discardOnFailure(
    ports,
    file
  )(
    Effect.gen(function* () {
      if (file === undefined && Object.keys(fields).length === 0) return yield* nothingToReplace()
      const current = yield* liveDocument(yield* store.documents.get(id), id)
      if (file !== undefined) yield* screen(ports, file, fields.documentType ?? current.document.documentType)
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

/** `GET /documents`: optionally one holder's. */
export const listDocuments = Effect.fnUntraced(function* (ports: DocumentPorts, query: ListDocumentsQuery) {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  const found = yield* ports.store.documents.list({ documentHolder: query.documentHolder, includeDeleted: false }, page)
  return { ...found, data: found.data.map((r) => r.document) }
})

/** `GET /documents/{documentId}`. */
export const getDocument = Effect.fnUntraced(function* (ports: DocumentPorts, id: string) {
  return (yield* liveDocument(yield* ports.store.documents.get(id), id)).document
})

/** `DELETE /documents/{documentId}`: the document and its files are gone for good; 409 once submitted. */
export const deleteDocument = Effect.fnUntraced(function* (ports: DocumentPorts, id: string) {
  const { store, files } = ports
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
