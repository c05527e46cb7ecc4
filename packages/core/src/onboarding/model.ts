import { Schema } from "effect"
import {
  BeneficialOwnerPersonalInfo,
  BeneficialOwnerPersonalInfoUpdate,
  BeneficialOwnerRole,
  OwnershipPercentage
} from "../customers/model.ts"
import { CustomerId, DocumentId, JobId, uuidPattern, VerificationId } from "../shared/ids.ts"
import { PageQueryFields } from "../shared/paging.ts"
import { boundedString, CountryCode, DateTimeString } from "../shared/schemas.ts"

// ---- beneficial owners ----

// The owner itself (`BeneficialOwner` and its parts) is said in customers/model.ts: a business customer's responses
// carry its owners (CU-06), and customers sit below onboarding.

/** At least one role. */
const Roles = Schema.Array(BeneficialOwnerRole).check(Schema.isMinLength(1))

export const CreateBeneficialOwnerRequest = Schema.Struct({
  customerId: CustomerId,
  roles: Roles,
  ownershipPercentage: OwnershipPercentage,
  personalInfo: BeneficialOwnerPersonalInfo
})
export type CreateBeneficialOwnerRequest = typeof CreateBeneficialOwnerRequest.Type

export const UpdateBeneficialOwnerRequest = Schema.Struct({
  roles: Schema.optionalKey(Roles),
  ownershipPercentage: Schema.optionalKey(OwnershipPercentage),
  personalInfo: Schema.optionalKey(BeneficialOwnerPersonalInfoUpdate)
})
export type UpdateBeneficialOwnerRequest = typeof UpdateBeneficialOwnerRequest.Type

export const ListBeneficialOwnersQuery = Schema.Struct({
  customerId: CustomerId,
  ...PageQueryFields
})
export type ListBeneficialOwnersQuery = typeof ListBeneficialOwnersQuery.Type

// ---- verifications ----

export const VerificationStatus = Schema.Literals([
  "RESOLVE_ERRORS",
  "PENDING_MANUAL_REVIEW",
  "IN_PROGRESS",
  "APPROVED",
  "REJECTED",
  "READY_FOR_VERIFICATION"
])
export type VerificationStatus = typeof VerificationStatus.Type

export const VerificationErrorType = Schema.Literals([
  "MISSING_FIELD",
  "INVALID_FIELD",
  "MISSING_LEGAL_PRESENCE_DOCUMENT",
  "MISSING_CONTROL_STRUCTURE_DOCUMENT",
  "MISSING_OWNERSHIP_STRUCTURE_DOCUMENT",
  "MISSING_PROOF_OF_ADDRESS_DOCUMENT",
  "MISSING_IDENTITY_DOCUMENT",
  "INVALID_DOCUMENT",
  "EXPIRED_DOCUMENT",
  "POOR_QUALITY_DOCUMENT",
  "SUSPECTED_FRAUD_DOCUMENT",
  "WRONG_DOCUMENT_TYPE",
  "INCOMPLETE_DOCUMENT",
  "UNREADABLE_DOCUMENT",
  "DOCUMENT_VERIFICATION_FAILED",
  "APPLICANT_SANCTIONED",
  "APPLICANT_FRAUD",
  "APPLICANT_CRIMINAL_RECORD",
  "APPLICANT_REJECTED",
  "MISSING_BENEFICIAL_OWNER",
  "MISSING_CONTROL_PERSON",
  "MISSING_GOOD_STANDING_DOCUMENT"
])
export type VerificationErrorType = typeof VerificationErrorType.Type

/** Kinds of verification documents (the upstream `DocumentType`). */
export const DocumentType = Schema.Literals([
  "PASSPORT",
  "DRIVERS_LICENSE",
  "NATIONAL_ID",
  "PROOF_OF_ADDRESS",
  "BANK_STATEMENT",
  "TAX_RETURN",
  "CERTIFICATE_OF_INCORPORATION",
  "ARTICLES_OF_INCORPORATION",
  "ARTICLES_OF_ASSOCIATION",
  "STATE_REGISTRY_EXCERPT",
  "GOOD_STANDING_CERTIFICATE",
  "INFORMATION_STATEMENT",
  "INCUMBENCY_CERTIFICATE",
  "BUSINESS_LICENSE",
  "SHAREHOLDER_REGISTER",
  "POWER_OF_ATTORNEY",
  "UTILITY_BILL",
  "ELECTRICITY_BILL",
  "RENT_OR_LEASE_AGREEMENT",
  "DIRECTOR_REGISTRY",
  "TRUST_AGREEMENT",
  "STATE_COMPANY_REGISTRY",
  "PARTNERSHIP_CONTROL_AGREEMENT",
  "PARTNERSHIP_AGREEMENT",
  "SELFIE",
  "OTHER"
])
export type DocumentType = typeof DocumentType.Type

/** One thing that keeps a verification from going ahead: a missing field or document, or a finding. */
export const VerificationError = Schema.Struct({
  /** The Customer, BeneficialOwner or Document the issue is about. */
  resourceId: Schema.String,
  type: VerificationErrorType,
  /** Dot path of the field (`customer.address`, `personalInfo.countryOfIssuance`) for field errors. */
  field: Schema.optionalKey(Schema.String),
  /** Documents that would satisfy a missing or rejected document (any one of them). */
  acceptedDocumentTypes: Schema.optionalKey(Schema.Array(DocumentType)),
  reason: Schema.String
})
export type VerificationError = typeof VerificationError.Type

/** One review of a customer's submitted packet (`POST /verifications`); a new review is a new verification. */
export const Verification = Schema.Struct({
  id: VerificationId,
  customerId: CustomerId,
  verificationStatus: VerificationStatus,
  errors: Schema.Array(VerificationError),
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type Verification = typeof Verification.Type

export const CreateVerificationRequest = Schema.Struct({ customerId: CustomerId })
export type CreateVerificationRequest = typeof CreateVerificationRequest.Type

export const ListVerificationsQuery = Schema.Struct({
  customerId: Schema.optionalKey(CustomerId),
  verificationStatus: Schema.optionalKey(VerificationStatus),
  ...PageQueryFields
})
export type ListVerificationsQuery = typeof ListVerificationsQuery.Type

// ---- hosted verification links ----

/** The KYC provider behind a hosted link (informational; `SANDBOX` is the sandbox's simulated provider). */
export const KycProviderName = Schema.Literals(["SUMSUB", "SANDBOX"])
export type KycProviderName = typeof KycProviderName.Type

export const KycLinkRequest = Schema.Struct({
  /** Where the hosted flow sends the customer when done: `https://` (or `http://` for local development). */
  redirectUri: Schema.String.check(
    Schema.isMaxLength(2048),
    Schema.isPattern(/^https?:\/\/[^\s]+$/, { expected: "an http(s) URI" })
  )
})
export type KycLinkRequest = typeof KycLinkRequest.Type

export const KycLink = Schema.Struct({
  /** Single-use hosted URL; each call issues a fresh one (older ones stay valid until used or expired). */
  kycUrl: Schema.String,
  expiresAt: DateTimeString,
  provider: KycProviderName,
  /** For providers with a direct SDK integration only. */
  token: Schema.optionalKey(Schema.String)
})
export type KycLink = typeof KycLink.Type

/** `Idempotency-Key`: required on `POST /customers/{customerId}/kyc-link`. */
export const IdempotencyKeyHeader = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255))

// ---- contact verification ----

/** The contact channels a provider may require verified before KYC. */
export const ContactChannel = Schema.Literals(["EMAIL", "PHONE"])
export type ContactChannel = typeof ContactChannel.Type

/**
 * Where each channel shows: its key in a customer's `contactVerification` and in a provider's requirement, the
 * customer field that holds the address, and the Notifier's medium.
 */
export const CONTACT_CHANNELS = {
  EMAIL: { key: "email", field: "email", medium: "EMAIL" },
  PHONE: { key: "phone", field: "phoneNumber", medium: "SMS" }
} as const satisfies Record<
  ContactChannel,
  { key: "email" | "phone"; field: "email" | "phoneNumber"; medium: "EMAIL" | "SMS" }
>

export const ContactVerificationConfirmRequest = Schema.Struct({
  /** The one-time code the customer received (sandbox: `123456`). */
  code: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(32))
})
export type ContactVerificationConfirmRequest = typeof ContactVerificationConfirmRequest.Type

/**
 * The open one-time code of one customer and channel, as the store keeps it: only a hash of the code (never
 * the code), where it was sent, when it expires, and how many wrong codes were tried.
 */
export interface ContactChallenge {
  /** `<customerId>/<channel>`: one open code per customer and channel; a re-send replaces it. */
  readonly key: string
  readonly customerId: string
  readonly channel: ContactChannel
  /** Lowercase hex SHA-256 of `<key>:<code>`. */
  readonly codeHash: string
  /** The address or number the code went to: a code sent before a contact change is void. */
  readonly sentTo: string
  readonly sentAt: string
  readonly expiresAt: string
  /** Wrong codes tried so far; at the limit the code is void. */
  readonly attempts: number
}

// ---- documents ----

/** The media types a document file may have, judged by the multipart part's `Content-Type`. */
export const DOCUMENT_CONTENT_TYPES = ["application/pdf", "image/jpeg", "image/png"] as const
/** The largest document file, in bytes (10 MB). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024

export const DocumentSide = Schema.Literals(["FRONT", "BACK"])
export type DocumentSide = typeof DocumentSide.Type

/** Who a document belongs to: a customer or a beneficial owner (one check, so one error when it is neither). */
export const DocumentHolder = Schema.String.check(
  Schema.isPattern(new RegExp(`^(Customer|BeneficialOwner):${uuidPattern}$`), {
    expected: "a Customer or BeneficialOwner id"
  })
)

const documentFields = {
  documentType: DocumentType,
  /** For two-sided documents (driver's licenses, national IDs). */
  side: Schema.optionalKey(DocumentSide),
  /** The issuing country. */
  country: CountryCode,
  documentNumber: Schema.optionalKey(boundedString(64)),
  issuingAuthority: Schema.optionalKey(boundedString(255))
}

/** A verification document of a customer or beneficial owner (its file is in the DocumentStore). */
export const Document = Schema.Struct({
  id: DocumentId,
  documentHolder: DocumentHolder,
  ...documentFields,
  /** The file name of the current file, as uploaded (without any path). */
  fileName: Schema.String,
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type Document = typeof Document.Type

/** The text fields of `POST /documents` (the file is the `file` part). */
export const UploadDocumentFields = Schema.Struct({ documentHolder: DocumentHolder, ...documentFields })
export type UploadDocumentFields = typeof UploadDocumentFields.Type

/** The text fields of `PUT /documents/{documentId}`: any metadata to change (with or without a new file). */
export const ReplaceDocumentFields = Schema.Struct({
  ...documentFields,
  documentType: Schema.optionalKey(documentFields.documentType),
  country: Schema.optionalKey(documentFields.country)
})
export type ReplaceDocumentFields = typeof ReplaceDocumentFields.Type

export const ListDocumentsQuery = Schema.Struct({
  documentHolder: Schema.optionalKey(DocumentHolder),
  ...PageQueryFields
})
export type ListDocumentsQuery = typeof ListDocumentsQuery.Type

/** One file a document has had: the current one is `ACTIVE`; a replaced one stays stored, `INACTIVE`. */
export interface DocumentFile {
  /** Its DocumentStore key. */
  readonly key: string
  readonly fileName: string
  readonly contentType: string
  readonly size: number
  readonly sha256: string
  readonly uploadedAt: string
  readonly status: "ACTIVE" | "INACTIVE"
}

/** A document as the store keeps it: the resource, its files (oldest first), and its review and deletion marks. */
export interface DocumentRecord {
  readonly id: string
  readonly document: Document
  readonly files: ReadonlyArray<DocumentFile>
  /** When a packet review (`POST /verifications`) first included it: from then on it cannot be deleted. */
  readonly submittedAt?: string | undefined
  /** Deleted documents stay in the store, without files; reads answer 404. */
  readonly deletedAt?: string | undefined
}

// ---- bulk customer import ----

export const BulkImportStatus = Schema.Literals(["PENDING", "PROCESSING", "COMPLETED", "FAILED"])
export type BulkImportStatus = typeof BulkImportStatus.Type

/** One failed row (or the file itself, when it cannot be read): `correlationId` is its platformCustomerId or line. */
export const BulkImportErrorEntry = Schema.Struct({
  correlationId: Schema.String,
  code: Schema.String,
  message: Schema.String,
  details: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})
export type BulkImportErrorEntry = typeof BulkImportErrorEntry.Type

/** `GET /customers/bulk/jobs/{jobId}` (and the data of `BULK_UPLOAD.COMPLETED` / `BULK_UPLOAD.FAILED`). */
export const BulkImportJob = Schema.Struct({
  id: JobId,
  status: BulkImportStatus,
  progress: Schema.Struct({
    /** Rows in the file (0 until the file has been counted). */
    total: Schema.Int,
    processed: Schema.Int,
    successful: Schema.Int,
    failed: Schema.Int
  }),
  /** The failed rows, in file order (the first `MAX_BULK_IMPORT_ERRORS`; `progress.failed` counts them all). */
  errors: Schema.Array(BulkImportErrorEntry),
  /** Set once the job is `COMPLETED` or `FAILED`. */
  completedAt: Schema.optionalKey(DateTimeString)
})
export type BulkImportJob = typeof BulkImportJob.Type

/** `POST /customers/bulk/csv` (202). */
export const BulkImportAccepted = Schema.Struct({ jobId: JobId, status: Schema.Literals(["PENDING", "PROCESSING"]) })
export type BulkImportAccepted = typeof BulkImportAccepted.Type

/** A job as the store keeps it: the resource, where its CSV file is, and when its processor last reported. */
export interface BulkImportJobRecord {
  readonly id: string
  readonly job: BulkImportJob
  /** The uploaded CSV's DocumentStore key (deleted once the job ends). */
  readonly fileKey: string
  readonly createdAt: string
  /** Written with every progress report: a running job whose report is old was abandoned by its process. */
  readonly updatedAt: string
}

export const contactChallengeKey = (customerId: string, channel: ContactChannel): string => `${customerId}/${channel}`
