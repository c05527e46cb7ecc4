import type {
  BeneficialOwner,
  BeneficialOwnerFilter,
  BulkImportJobFilter,
  BulkImportJobRecord,
  ContactChallenge,
  DocumentFilter,
  DocumentRecord,
  Verification,
  VerificationFilter
} from "@paycore/core"
import {
  copy,
  eq,
  includesDeleted,
  instant,
  integer,
  json,
  key,
  oneOf,
  optional,
  table,
  text,
  textArray
} from "./describe.ts"

export const beneficialOwners = table<BeneficialOwner, BeneficialOwnerFilter>()({
  name: "beneficial_owners",
  columns: {
    id: key("id"),
    customerId: text("customer_id"),
    roles: textArray("roles"),
    ownershipPercentage: integer("ownership_percentage"),
    personalInfo: json("personal_info"),
    kycStatus: text("kyc_status"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  filters: { customerId: eq("customerId"), customerIds: oneOf("customerId") }
})

export const verifications = table<Verification, VerificationFilter>()({
  name: "verifications",
  columns: {
    id: key("id"),
    customerId: text("customer_id"),
    verificationStatus: text("verification_status"),
    errors: json("errors"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  filters: {
    customerId: eq("customerId"),
    verificationStatus: eq("verificationStatus")
  }
})

/** Open contact-verification codes (hashes only), one per customer and channel. */
export const contactChallenges = table<ContactChallenge>()({
  name: "contact_challenges",
  columns: {
    key: text("key"),
    customerId: text("customer_id"),
    channel: text("channel"),
    codeHash: text("code_hash"),
    sentTo: text("sent_to"),
    sentAt: instant("sent_at"),
    expiresAt: instant("expires_at"),
    attempts: integer("attempts")
  },
  primaryKey: ["key"]
})

/** Verification documents' metadata (their files are in the DocumentStore). */
export const documents = table<DocumentRecord, DocumentFilter>()({
  name: "documents",
  columns: {
    id: key("id"),
    /** The `Document` resource. */
    document: json("document"),
    "document.documentHolder": copy(key("document_holder")),
    /** Every file it has had, oldest first (`DocumentFile`). */
    files: json("files"),
    submittedAt: optional(instant("submitted_at")),
    deletedAt: optional(instant("deleted_at"))
  },
  primaryKey: ["id"],
  filters: {
    documentHolder: eq("document.documentHolder"),
    includeDeleted: includesDeleted("deletedAt")
  }
})

/** Bulk customer import jobs. */
export const bulkImportJobs = table<BulkImportJobRecord, BulkImportJobFilter>()({
  name: "bulk_import_jobs",
  columns: {
    id: key("id"),
    /** The `BulkImportJob` resource. */
    job: json("job"),
    "job.status": copy(text("status")),
    fileKey: text("file_key"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  filters: { statuses: oneOf("job.status") }
})
