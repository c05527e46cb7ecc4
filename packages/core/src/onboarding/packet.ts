import type { BeneficialOwner, BeneficialOwnerRole, BusinessCustomer, IndividualCustomer } from "../customers/model.ts"
import type { DocumentOnFile, VerificationPacket } from "../ports/kyc.ts"
import type { DocumentType, VerificationError, VerificationErrorType } from "./model.ts"

// What a complete KYC / KYB submission holds (pure; providers build their review on it).

/** The document types that satisfy each missing-document requirement (upstream's table). */
export const ACCEPTED_DOCUMENT_TYPES = {
  MISSING_LEGAL_PRESENCE_DOCUMENT: [
    "CERTIFICATE_OF_INCORPORATION",
    "ARTICLES_OF_INCORPORATION",
    "ARTICLES_OF_ASSOCIATION",
    "STATE_REGISTRY_EXCERPT"
  ],
  MISSING_CONTROL_STRUCTURE_DOCUMENT: [
    "DIRECTOR_REGISTRY",
    "TRUST_AGREEMENT",
    "STATE_COMPANY_REGISTRY",
    "PARTNERSHIP_CONTROL_AGREEMENT"
  ],
  MISSING_OWNERSHIP_STRUCTURE_DOCUMENT: ["SHAREHOLDER_REGISTER", "TRUST_AGREEMENT", "PARTNERSHIP_AGREEMENT"],
  MISSING_PROOF_OF_ADDRESS_DOCUMENT: [
    "UTILITY_BILL",
    "RENT_OR_LEASE_AGREEMENT",
    "ELECTRICITY_BILL",
    "BANK_STATEMENT",
    "TAX_RETURN"
  ],
  MISSING_IDENTITY_DOCUMENT: ["PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"]
} as const satisfies Partial<Record<VerificationErrorType, ReadonlyArray<DocumentType>>>

type MissingDocument = keyof typeof ACCEPTED_DOCUMENT_TYPES

/** Entity types only businesses outside the US can be registered as (spec: Resources › Customer). */
export const NON_US_ENTITY_TYPES: ReadonlyArray<string> = [
  "PUBLICLY_LISTED_COMPANY",
  "TRUST",
  "PRIVATE_FOUNDATION",
  "CHARITY"
]

/** An owner holding at least this share must be listed, as a `UBO`. */
export const UBO_THRESHOLD_PERCENT = 25

const missingField = (resourceId: string, field: string, reason: string): VerificationError => ({
  resourceId,
  type: "MISSING_FIELD",
  field,
  reason
})

const invalidField = (resourceId: string, field: string, reason: string): VerificationError => ({
  resourceId,
  type: "INVALID_FIELD",
  field,
  reason
})

/** A missing-document error, unless one of the accepted types is on file for the holder. */
const documentRequirement = (
  holder: string,
  type: MissingDocument,
  reason: string,
  documents: ReadonlyArray<DocumentOnFile>
): Array<VerificationError> => {
  const accepted: ReadonlyArray<DocumentType> = ACCEPTED_DOCUMENT_TYPES[type]
  const onFile = documents.some((d) => d.documentHolder === holder && accepted.includes(d.documentType))
  return onFile ? [] : [{ resourceId: holder, type, acceptedDocumentTypes: accepted, reason }]
}

/** Whether `documents` holds an identity document of `holder` (the first one, for findings about it). */
export const identityDocumentOf = (
  holder: string,
  documents: ReadonlyArray<DocumentOnFile>
): DocumentOnFile | undefined => {
  const accepted: ReadonlyArray<DocumentType> = ACCEPTED_DOCUMENT_TYPES.MISSING_IDENTITY_DOCUMENT
  return documents.find((d) => d.documentHolder === holder && accepted.includes(d.documentType))
}

export interface PacketOptions {
  /** Whether documents are part of the packet (the sandbox's "Skip verification paperwork" waives them). */
  readonly documents: boolean
}

/** What an individual's KYC needs: identity, date of birth, nationality, address, tax id; an identity document. */
export const individualPacketErrors = (
  customer: IndividualCustomer,
  documents: ReadonlyArray<DocumentOnFile>,
  options: PacketOptions
): Array<VerificationError> => {
  const id = customer.id
  const errors: Array<VerificationError> = []
  if (customer.fullName === undefined) errors.push(missingField(id, "customer.fullName", "Full name is required"))
  if (customer.birthDate === undefined) errors.push(missingField(id, "customer.birthDate", "Date of birth is required"))
  if (customer.nationality === undefined) {
    errors.push(missingField(id, "customer.nationality", "Nationality is required"))
  }
  if (customer.address === undefined)
    errors.push(missingField(id, "customer.address", "Residential address is required"))
  if (customer.idType === undefined) {
    errors.push(missingField(id, "customer.idType", "The type of identification number is required"))
  }
  if (customer.identifier === undefined) {
    errors.push(missingField(id, "customer.identifier", "The identification number is required"))
  }
  if (customer.idType === "NON_US_TAX_ID" && customer.countryOfIssuance === undefined) {
    errors.push(
      missingField(id, "customer.countryOfIssuance", "The issuing country is required for a non-US identification")
    )
  }
  if (options.documents) {
    errors.push(
      ...documentRequirement(
        id,
        "MISSING_IDENTITY_DOCUMENT",
        "An identity document (passport, driver's license or national ID) is required",
        documents
      )
    )
  }
  return errors
}

/** Roles that make an owner the business's control person (per entity type). */
const controlRoles = (entityType: string | undefined): ReadonlyArray<BeneficialOwnerRole> =>
  entityType === "TRUST"
    ? ["CONTROL_PERSON", "TRUSTEE"]
    : entityType === "PARTNERSHIP"
      ? ["CONTROL_PERSON", "GENERAL_PARTNER"]
      : ["CONTROL_PERSON"]

/**
 * What a business's KYB needs: business data (address, entity type, countries of operation), a control person
 * and every owner of 25% or more listed as `UBO`, ownership adding up to at most 100%, each owner's
 * identification; documents of legal presence, ownership structure and address, and each owner's identity.
 */
export const businessPacketErrors = (
  customer: BusinessCustomer,
  owners: ReadonlyArray<BeneficialOwner>,
  documents: ReadonlyArray<DocumentOnFile>,
  options: PacketOptions
): Array<VerificationError> => {
  const id = customer.id
  const info = customer.businessInfo
  const errors: Array<VerificationError> = []
  if (customer.address === undefined) {
    errors.push(missingField(id, "customer.address", "Business address (principal place of business) is required"))
  }
  if (info.entityType === undefined) {
    errors.push(missingField(id, "customer.businessInfo.entityType", "The legal entity type is required"))
  } else if (info.country === "US" && NON_US_ENTITY_TYPES.includes(info.entityType)) {
    errors.push(
      invalidField(
        id,
        "customer.businessInfo.entityType",
        `${info.entityType} is available to businesses registered outside the US only`
      )
    )
  }
  // A business imported from a CSV file may lack these (the CSV has no incorporation date, the tax id is optional).
  if (info.incorporatedOn === undefined) {
    errors.push(missingField(id, "customer.businessInfo.incorporatedOn", "The date of incorporation is required"))
  }
  if (info.taxId === undefined) {
    errors.push(missingField(id, "customer.businessInfo.taxId", "The tax identification number is required"))
  }
  if (info.countriesOfOperation === undefined || info.countriesOfOperation.length === 0) {
    errors.push(missingField(id, "customer.businessInfo.countriesOfOperation", "Countries of operation are required"))
  }
  if (owners.length === 0) {
    errors.push({
      resourceId: id,
      type: "MISSING_BENEFICIAL_OWNER",
      reason: "Add the control person and every individual owning 25% or more (POST /beneficial-owners)"
    })
  } else {
    const control = controlRoles(info.entityType)
    if (!owners.some((o) => o.roles.some((role) => control.includes(role)))) {
      errors.push({
        resourceId: id,
        type: "MISSING_CONTROL_PERSON",
        reason: `A control person is required (an owner with role ${control.join(" or ")})`
      })
    }
    const total = owners.reduce((sum, o) => sum + o.ownershipPercentage, 0)
    if (total > 100) {
      errors.push(
        invalidField(id, "beneficialOwners.ownershipPercentage", `Ownership adds up to ${total}%, more than 100%`)
      )
    }
  }
  for (const owner of owners) {
    const isUbo = owner.roles.includes("UBO")
    if (isUbo && owner.ownershipPercentage < UBO_THRESHOLD_PERCENT) {
      errors.push(
        invalidField(
          owner.id,
          "ownershipPercentage",
          `A UBO owns at least ${UBO_THRESHOLD_PERCENT}%; this owner has ${owner.ownershipPercentage}%`
        )
      )
    }
    if (!isUbo && owner.ownershipPercentage >= UBO_THRESHOLD_PERCENT) {
      errors.push(
        invalidField(owner.id, "roles", `An owner of ${UBO_THRESHOLD_PERCENT}% or more must have the role UBO`)
      )
    }
    if (owner.personalInfo.idType === "NON_US_TAX_ID" && owner.personalInfo.countryOfIssuance === undefined) {
      errors.push(
        missingField(
          owner.id,
          "personalInfo.countryOfIssuance",
          "The issuing country is required for a non-US identification"
        )
      )
    }
  }
  if (options.documents) {
    errors.push(
      ...documentRequirement(
        id,
        "MISSING_LEGAL_PRESENCE_DOCUMENT",
        "A document of the company's formation and existence is required",
        documents
      ),
      ...documentRequirement(
        id,
        "MISSING_OWNERSHIP_STRUCTURE_DOCUMENT",
        "A document of the ownership structure is required",
        documents
      ),
      ...documentRequirement(
        id,
        "MISSING_PROOF_OF_ADDRESS_DOCUMENT",
        "A proof of the business address dated within the last 3 months is required",
        documents
      )
    )
    for (const owner of owners) {
      errors.push(
        ...documentRequirement(
          owner.id,
          "MISSING_IDENTITY_DOCUMENT",
          "An identity document of this owner is required",
          documents
        )
      )
    }
  }
  return errors
}

/** Every missing field and document of a packet (the generic part of a review). */
export const packetErrors = (packet: VerificationPacket, options: PacketOptions): Array<VerificationError> =>
  packet.customer.customerType === "INDIVIDUAL"
    ? individualPacketErrors(packet.customer, packet.documents, options)
    : businessPacketErrors(packet.customer, packet.beneficialOwners, packet.documents, options)
