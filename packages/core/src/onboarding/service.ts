import { Context, Effect, Layer } from "effect"
import type { BeneficialOwner, Customer } from "../customers/model.ts"
import { Customers } from "../customers/service.ts"
import { PlatformConfigService } from "../platform/service.ts"
import { DocumentStore } from "../ports/document-store.ts"
import { Ids } from "../ports/ids.ts"
import { KycProvider } from "../ports/kyc.ts"
import { Notifier } from "../ports/notifier.ts"
import { Store } from "../ports/store.ts"
import type { Conflict, InvalidInput, LimitExceeded, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { operation } from "../shared/tracing.ts"
import {
  createBeneficialOwner,
  getBeneficialOwner,
  listBeneficialOwners,
  updateBeneficialOwner
} from "./beneficial-owners.ts"
import {
  acceptBulkImport,
  discardCsvFile,
  getBulkImportJob,
  receiveCsvFile,
  runBulkImport,
  sweepBulkImports
} from "./bulk-import.ts"
import { confirmContactCode, sendContactCode } from "./contact-verification.ts"
import {
  deleteDocument,
  discardDocumentFile,
  getDocument,
  listDocuments,
  receiveDocumentFile,
  replaceDocument,
  uploadDocument
} from "./documents.ts"
import type {
  BulkImportAccepted,
  BulkImportJob,
  ContactChannel,
  CreateBeneficialOwnerRequest,
  CreateVerificationRequest,
  Document,
  KycLink,
  KycLinkRequest,
  ListBeneficialOwnersQuery,
  ListDocumentsQuery,
  ListVerificationsQuery,
  ReplaceDocumentFields,
  UpdateBeneficialOwnerRequest,
  UploadDocumentFields,
  Verification
} from "./model.ts"
import type { BulkImportPorts, DocumentPorts, OnboardingPorts } from "./ports.ts"
import type { IncomingFile, ReceivedFile } from "./uploads.ts"
import { createKycLink, getVerification, listVerifications, submitVerification } from "./verification.ts"

// The onboarding context's services: `Onboarding` (KYC links and packet reviews in verification.ts, beneficial
// owners in beneficial-owners.ts, contact verification in contact-verification.ts), `Documents` (documents.ts) and
// `BulkImports` (bulk-import.ts); the packet rules the KYC providers review with (packet.ts), the CSV rows of a bulk
// import (customer-csv.ts) and uploaded files (uploads.ts).

/** A customer's KYC / KYB: hosted KYC links, packet reviews, beneficial owners, contact verification. */
export class Onboarding extends Context.Service<
  Onboarding,
  {
    /**
     * `POST /customers/{customerId}/kyc-link` (201): a fresh single-use hosted link from the KYC provider; the
     * status does not change. 404 `USER_NOT_FOUND`, 410 `CUSTOMER_DELETED`, 409 while required contact
     * verification is incomplete.
     */
    readonly createKycLink: (
      customerId: string,
      req: KycLinkRequest
    ) => Effect.Effect<KycLink, NotFound | Refused | Conflict | StoreError>
    /**
     * `POST /verifications` (200): the provider reviews the customer's packet (customer data, beneficial owners,
     * documents); the verdict is a new Verification, and the provider's decisions move the customer's and owners'
     * statuses through their machines, with `VERIFICATION.<STATUS>` and `CUSTOMER.KYC_*` / `CUSTOMER.KYB_*`
     * webhooks in the same store transaction. An APPROVED or REJECTED customer is refused (400).
     */
    readonly submitVerification: (
      req: CreateVerificationRequest
    ) => Effect.Effect<Verification, InvalidInput | NotFound | Refused | Conflict | StoreError>
    /** `GET /verifications`: filters `customerId`, `verificationStatus`; paged. */
    readonly listVerifications: (
      query: ListVerificationsQuery
    ) => Effect.Effect<Page<Verification>, InvalidInput | StoreError>
    /** `GET /verifications/{verificationId}`: 404 `REFERENCE_NOT_FOUND`. */
    readonly getVerification: (id: string) => Effect.Effect<Verification, NotFound | StoreError>
    /** `POST /beneficial-owners` (201): for BUSINESS customers only; `kycStatus` starts `UNVERIFIED`. */
    readonly createBeneficialOwner: (
      req: CreateBeneficialOwnerRequest
    ) => Effect.Effect<BeneficialOwner, InvalidInput | NotFound | Refused | StoreError>
    /** `GET /beneficial-owners?customerId=`: paged. */
    readonly listBeneficialOwners: (
      query: ListBeneficialOwnersQuery
    ) => Effect.Effect<Page<BeneficialOwner>, InvalidInput | StoreError>
    /** `GET /beneficial-owners/{beneficialOwnerId}`: 404 `REFERENCE_NOT_FOUND`. */
    readonly getBeneficialOwner: (id: string) => Effect.Effect<BeneficialOwner, NotFound | StoreError>
    /** `PATCH /beneficial-owners/{beneficialOwnerId}` (200): supplied fields only; never changes `kycStatus`. */
    readonly updateBeneficialOwner: (
      id: string,
      req: UpdateBeneficialOwnerRequest
    ) => Effect.Effect<BeneficialOwner, NotFound | Refused | StoreError>
    /**
     * `POST /customers/{customerId}/verify-email` / `verify-phone` (204): sends (or re-sends) a one-time code
     * through the Notifier. 409 when the provider does not require the channel or it is VERIFIED already; 429
     * `RATE_LIMITED` (with `retryAfterSeconds`) within `CONTACT_CODE_RESEND_SECONDS` of the last code.
     */
    readonly sendContactCode: (
      customerId: string,
      channel: ContactChannel
    ) => Effect.Effect<void, NotFound | Refused | Conflict | LimitExceeded | StoreError>
    /**
     * `POST .../verify-email/confirm` / `verify-phone/confirm` (200 with the customer): the channel becomes
     * `VERIFIED`. A wrong, expired or void code is 400 `INVALID_INPUT` on `code`; the code is void after
     * `CONTACT_CODE_MAX_ATTEMPTS` wrong tries.
     */
    readonly confirmContactCode: (
      customerId: string,
      channel: ContactChannel,
      code: string
    ) => Effect.Effect<Customer, InvalidInput | NotFound | Refused | Conflict | StoreError>
  }
>()("paycore/onboarding/Onboarding") {
  static readonly layer = Layer.effect(
    Onboarding,
    Effect.gen(function* () {
      const ports: OnboardingPorts = {
        store: yield* Store,
        ids: yield* Ids,
        kyc: yield* KycProvider,
        config: yield* PlatformConfigService,
        notifier: yield* Notifier
      }
      return Onboarding.of({
        createKycLink: operation("Onboarding.createKycLink")(function* (customerId: string, req: KycLinkRequest) {
          return yield* createKycLink(ports, customerId, req)
        }),
        submitVerification: operation("Onboarding.submitVerification")(function* (req: CreateVerificationRequest) {
          return yield* submitVerification(ports, req)
        }),
        listVerifications: operation("Onboarding.listVerifications")(function* (query: ListVerificationsQuery) {
          return yield* listVerifications(ports, query)
        }),
        getVerification: operation("Onboarding.getVerification")(function* (id: string) {
          return yield* getVerification(ports, id)
        }),
        createBeneficialOwner: operation("Onboarding.createBeneficialOwner")(function* (
          req: CreateBeneficialOwnerRequest
        ) {
          return yield* createBeneficialOwner(ports, req)
        }),
        listBeneficialOwners: operation("Onboarding.listBeneficialOwners")(function* (
          query: ListBeneficialOwnersQuery
        ) {
          return yield* listBeneficialOwners(ports, query)
        }),
        getBeneficialOwner: operation("Onboarding.getBeneficialOwner")(function* (id: string) {
          return yield* getBeneficialOwner(ports, id)
        }),
        updateBeneficialOwner: operation("Onboarding.updateBeneficialOwner")(function* (
          id: string,
          req: UpdateBeneficialOwnerRequest
        ) {
          return yield* updateBeneficialOwner(ports, id, req)
        }),
        sendContactCode: operation("Onboarding.sendContactCode")(function* (
          customerId: string,
          channel: ContactChannel
        ) {
          return yield* sendContactCode(ports, customerId, channel)
        }),
        confirmContactCode: operation("Onboarding.confirmContactCode")(function* (
          customerId: string,
          channel: ContactChannel,
          code: string
        ) {
          return yield* confirmContactCode(ports, customerId, channel, code)
        })
      })
    })
  )
}

/** A customer's (or beneficial owner's) documents, screened by the KYC provider. */
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
      const ports: DocumentPorts = {
        store: yield* Store,
        files: yield* DocumentStore,
        ids: yield* Ids,
        kyc: yield* KycProvider
      }
      return Documents.of({
        receiveFile: operation("Documents.receiveFile")(function* (incoming: IncomingFile) {
          return yield* receiveDocumentFile(ports, incoming)
        }),
        discardFile: operation("Documents.discardFile")(function* (file: ReceivedFile) {
          yield* discardDocumentFile(ports, file)
        }),
        upload: operation("Documents.upload")(function* (fields: UploadDocumentFields, file: ReceivedFile) {
          return yield* uploadDocument(ports, fields, file)
        }),
        replace: operation("Documents.replace")(function* (
          id: string,
          fields: ReplaceDocumentFields,
          file: ReceivedFile | undefined
        ) {
          return yield* replaceDocument(ports, id, fields, file)
        }),
        list: operation("Documents.list")(function* (query: ListDocumentsQuery) {
          return yield* listDocuments(ports, query)
        }),
        get: operation("Documents.get")(function* (id: string) {
          return yield* getDocument(ports, id)
        }),
        delete: operation("Documents.delete")(function* (id: string) {
          return yield* deleteDocument(ports, id)
        })
      })
    })
  )
}

/** A CSV file of customers (`POST /customers/bulk/csv`) imported as a job. */
export class BulkImports extends Context.Service<
  BulkImports,
  {
    /** Streams an uploaded CSV into the DocumentStore: 400 `INVALID_INPUT` on `file` over `MAX_BULK_IMPORT_BYTES`. */
    readonly receiveFile: (file: IncomingFile) => Effect.Effect<ReceivedFile, InvalidInput | StoreError>
    readonly discardFile: (file: ReceivedFile) => Effect.Effect<void>
    /**
     * `POST /customers/bulk/csv` (202): a `PENDING` job of a received CSV file; `run` imports it. On failure the
     * file is discarded.
     */
    readonly accept: (file: ReceivedFile) => Effect.Effect<BulkImportAccepted, StoreError>
    /**
     * Imports a `PENDING` job's file (a job another runner took, or one already done, is left alone): each valid
     * row becomes a customer, each bad row an entry in `errors`, in the file's order. Rows go to the store in
     * batches of `BULK_IMPORT_BATCH_ROWS`, one transaction each, `BULK_IMPORT_CONCURRENCY` batches at once; a batch
     * with a bad row is written again row by row. The file is read twice as a stream (once to count its rows),
     * never whole, and no faster than its rows are written. At the end the job is `COMPLETED` (or
     * `FAILED` when the file cannot be read, or no row could be imported), with `BULK_UPLOAD.COMPLETED` /
     * `BULK_UPLOAD.FAILED`, and its file is deleted.
     */
    readonly run: (jobId: string) => Effect.Effect<void, StoreError>
    /** `GET /customers/bulk/jobs/{jobId}`: 404 `BULK_UPLOAD_JOB_NOT_FOUND`. */
    readonly get: (jobId: string) => Effect.Effect<BulkImportJob, NotFound | StoreError>
    /**
     * Fails the jobs whose process stopped (no report for `BULK_IMPORT_ABANDONED_SECONDS`): the rows imported
     * stay, the rest must be uploaded again. Answers how many it failed.
     */
    readonly sweep: () => Effect.Effect<number, StoreError>
  }
>()("paycore/onboarding/BulkImports") {
  static readonly layer = Layer.effect(
    BulkImports,
    Effect.gen(function* () {
      const ports: BulkImportPorts = {
        store: yield* Store,
        files: yield* DocumentStore,
        ids: yield* Ids,
        customers: yield* Customers
      }
      return BulkImports.of({
        receiveFile: operation("BulkImports.receiveFile")(function* (incoming: IncomingFile) {
          return yield* receiveCsvFile(ports, incoming)
        }),
        discardFile: operation("BulkImports.discardFile")(function* (file: ReceivedFile) {
          yield* discardCsvFile(ports, file)
        }),
        accept: operation("BulkImports.accept")(function* (file: ReceivedFile) {
          return yield* acceptBulkImport(ports, file)
        }),
        run: operation("BulkImports.run")(function* (jobId: string) {
          return yield* runBulkImport(ports, jobId)
        }),
        get: operation("BulkImports.get")(function* (jobId: string) {
          return yield* getBulkImportJob(ports, jobId)
        }),
        sweep: operation("BulkImports.sweep")(function* () {
          return yield* sweepBulkImports(ports)
        })
      })
    })
  )
}
