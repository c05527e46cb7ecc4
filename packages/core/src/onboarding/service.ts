import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { Cause, Clock, Context, Effect, Exit, Layer, Redacted, Result, Stream } from "effect"
import { customerDeleted, customerNotFound } from "../customers/errors.ts"
import type { BusinessCustomer, Customer, IndividualCustomer } from "../customers/model.ts"
import { Customers } from "../customers/service.ts"
import { invalidCursor } from "../platform/errors.ts"
import { PlatformConfigService, scanAll } from "../platform/service.ts"
import { type DocumentBody, DocumentStore } from "../ports/document-store.ts"
import { Ids } from "../ports/ids.ts"
import {
  type ContactRequirement,
  type DocumentOnFile,
  KycProvider,
  type KycProviderError,
  type VerificationPacket
} from "../ports/kyc.ts"
import { Notifier } from "../ports/notifier.ts"
import { Store } from "../ports/store.ts"
import { constantTimeEqual } from "../shared/constant-time.ts"
import { CsvError, type CsvRecord, type CsvRowError, parseCsv } from "../shared/csv.ts"
import {
  type Conflict,
  InvalidInput,
  type LimitExceeded,
  type NotFound,
  type Refused,
  StoreError
} from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { pageRequest } from "../shared/paging.ts"
import { isoAfter, isoOf, nowIso } from "../shared/time.ts"
import { emitSteps } from "../webhooks/service.ts"
import { type CustomerCsvRow, checkCustomerCsvHeader, customerFromCsv } from "./customer-csv.ts"
import {
  beneficialOwnerNotFound,
  bulkImportJobNotFound,
  changedDuringReview,
  codeExpired,
  contactAlreadyVerified,
  contactMissing,
  contactVerificationIncomplete,
  contactVerificationNotRequired,
  documentHolderNotFound,
  documentNotFound,
  documentRejected,
  documentSubmitted,
  emptyFile,
  fileTooLarge,
  noOpenCode,
  notABusiness,
  nothingToReplace,
  providerUnavailable,
  resendTooSoon,
  unsupportedDocumentType,
  verificationDecided,
  verificationNotFound,
  wrongCode
} from "./errors.ts"
import { beneficialOwnerKycMachine, customerKybMachine, customerKycMachine, decideKyc } from "./machine.ts"
import {
  type BeneficialOwner,
  type BeneficialOwnerRole,
  type BulkImportAccepted,
  type BulkImportErrorEntry,
  type BulkImportJob,
  type BulkImportJobRecord,
  type BulkImportStatus,
  CONTACT_CHANNELS,
  type ContactChallenge,
  type ContactChannel,
  type CreateBeneficialOwnerRequest,
  type CreateVerificationRequest,
  contactChallengeKey,
  DOCUMENT_CONTENT_TYPES,
  type Document,
  type DocumentFile,
  type DocumentRecord,
  type DocumentType,
  type KycLink,
  type KycLinkRequest,
  type ListBeneficialOwnersQuery,
  type ListDocumentsQuery,
  type ListVerificationsQuery,
  MAX_DOCUMENT_BYTES,
  type ReplaceDocumentFields,
  type UpdateBeneficialOwnerRequest,
  type UploadDocumentFields,
  type Verification,
  type VerificationError,
  type VerificationErrorType
} from "./model.ts"

// =============================================================================
// The packet: what a complete KYC / KYB submission holds (pure; providers build their review on it)
// =============================================================================

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

// =============================================================================
// Contact verification codes
// =============================================================================

/** How long a contact-verification code can be confirmed. */
export const CONTACT_CODE_TTL_SECONDS = 600
/** Wrong codes accepted before the code is void. */
export const CONTACT_CODE_MAX_ATTEMPTS = 5
/** The shortest wait between two codes sent to the same address (429 `RATE_LIMITED` with `Retry-After`). */
export const CONTACT_CODE_RESEND_SECONDS = 60

/** SHA-256 of the code bound to its customer and channel: the store never sees a code. */
const hashCode = (key: string, code: string): Uint8Array => sha256(utf8ToBytes(`${key}:${code}`))

const contactOf = (customer: Customer, channel: ContactChannel): string | undefined =>
  customer[CONTACT_CHANNELS[channel].field]

const isRequired = (requirement: ContactRequirement, channel: ContactChannel): boolean =>
  requirement[CONTACT_CHANNELS[channel].key]

/** The required channels that are not `VERIFIED` yet (KYC cannot begin until this is empty). */
export const pendingContactVerification = (
  customer: Customer,
  requirement: ContactRequirement
): Array<"email" | "phone"> => {
  const pending: Array<"email" | "phone"> = []
  if (requirement.email && customer.contactVerification.email !== "VERIFIED") pending.push("email")
  if (requirement.phone && customer.contactVerification.phone !== "VERIFIED") pending.push("phone")
  return pending
}

// =============================================================================
// The service
// =============================================================================

/** A call to the KYC provider, its failure answered as `providerUnavailable` (other errors pass through). */
const fromProvider = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E | KycProviderError, R>) =>
  Effect.catchIf(
    effect,
    (e): e is KycProviderError => e._tag === "KycProviderError",
    (e) => Effect.fail(providerUnavailable(e.message))
  )

const dedupe = <A>(values: ReadonlyArray<A>): Array<A> => [...new Set(values)]

type Outcome<A, E> = { readonly ok: A } | { readonly error: E }

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
      const store = yield* Store
      const ids = yield* Ids
      const config = yield* PlatformConfigService
      const kyc = yield* KycProvider
      const notifier = yield* Notifier

      /** A live customer: 404 unknown, 410 deleted. */
      const liveCustomer = (customer: Customer | undefined, id: string) => {
        if (customer === undefined) return Effect.fail(customerNotFound(id))
        if (customer.isDeleted) return Effect.fail(customerDeleted(id))
        return Effect.succeed(customer)
      }

      const requireContactVerified = (customer: Customer) => {
        const pending = pendingContactVerification(customer, kyc.contactVerification(customer))
        return pending.length === 0 ? Effect.void : Effect.fail(contactVerificationIncomplete(customer.id, pending))
      }

      const ownersOf = (customerId: string) => scanAll((page) => store.beneficialOwners.list({ customerId }, page))

      /** The documents on file for these holders, as the packet review sees them. */
      const documentsOf = (holders: ReadonlyArray<string>) =>
        Effect.map(
          Effect.forEach(holders, (documentHolder) =>
            scanAll((page) => store.documents.list({ documentHolder, includeDeleted: false }, page))
          ),
          (lists) => lists.flat()
        )

      // ---- hosted links ----

      const createKycLink = Effect.fn("Onboarding.createKycLink")(function* (customerId: string, req: KycLinkRequest) {
        const customer = yield* liveCustomer(yield* store.customers.get(customerId), customerId)
        yield* requireContactVerified(customer)
        const grant = yield* fromProvider(kyc.createLink({ customer, redirectUri: req.redirectUri }))
        const link: KycLink = {
          kycUrl: grant.kycUrl,
          expiresAt: grant.expiresAt,
          provider: grant.provider,
          ...(grant.token === undefined ? {} : { token: grant.token })
        }
        return link
      })

      // ---- verifications ----

      const submitVerification = Effect.fn("Onboarding.submitVerification")(function* (req: CreateVerificationRequest) {
        const customerId = req.customerId
        const platform = yield* config.get()
        const customer = yield* liveCustomer(yield* store.customers.get(customerId), customerId)
        if (customer.kycStatus === "APPROVED" || customer.kycStatus === "REJECTED") {
          return yield* verificationDecided(customerId, customer.kycStatus)
        }
        yield* requireContactVerified(customer)
        const owners = customer.customerType === "BUSINESS" ? yield* ownersOf(customerId) : []
        const documents = yield* documentsOf([customerId, ...owners.map((o) => o.id)])
        // The provider reviews outside the store transaction (a real one is a remote call); the verdict is
        // applied only to the customer and owners it saw.
        const review = yield* fromProvider(
          kyc.review({
            customer,
            beneficialOwners: owners,
            documents: documents.map(({ document: d }) => ({
              id: d.id,
              documentHolder: d.documentHolder,
              documentType: d.documentType
            })),
            settings: {
              isRegulatedFinancialInstitution: platform.isRegulatedFinancialInstitution,
              skipVerificationPaperwork: platform.skipVerificationPaperwork
            }
          })
        )
        const decisionOf = new Map(review.decisions.map((d) => [d.subjectId, d.decision]))

        return yield* store.transaction(
          Effect.gen(function* () {
            const current = yield* store.customers.getForUpdate(customerId)
            if (current === undefined || current.updatedAt !== customer.updatedAt) {
              return yield* changedDuringReview(customerId)
            }
            const lockedOwners: Array<BeneficialOwner> = []
            for (const owner of owners) {
              const locked = yield* store.beneficialOwners.getForUpdate(owner.id)
              if (locked === undefined || locked.updatedAt !== owner.updatedAt) {
                return yield* changedDuringReview(customerId)
              }
              lockedOwners.push(locked)
            }
            // An owner added meanwhile: the page's count says so, without reading the owners again.
            const ownersNow = yield* store.beneficialOwners.list({ customerId }, { limit: 1, sortOrder: "asc" })
            if (ownersNow.totalCount !== owners.length) return yield* changedDuringReview(customerId)

            const now = yield* nowIso
            // The documents the provider saw are submitted: from now on they can be replaced, not deleted.
            for (const seen of documents) {
              const document = yield* store.documents.getForUpdate(seen.id)
              if (document === undefined || document.deletedAt !== undefined)
                return yield* changedDuringReview(customerId)
              if (document.submittedAt === undefined) {
                yield* Effect.orDie(store.documents.update({ ...document, submittedAt: now }))
              }
            }
            const verification: Verification = {
              id: yield* ids.make("Verification"),
              customerId: current.id,
              verificationStatus: review.verificationStatus,
              errors: review.errors,
              createdAt: now,
              updatedAt: now
            }
            yield* Effect.orDie(store.verifications.insert(verification))
            yield* emitSteps(
              store,
              ids,
              [`VERIFICATION.${verification.verificationStatus}`],
              customerId,
              verification,
              now
            )

            for (const owner of lockedOwners) {
              const move = decideKyc(beneficialOwnerKycMachine, owner.kycStatus, decisionOf.get(owner.id))
              if (move === undefined) continue
              yield* Effect.orDie(store.beneficialOwners.update({ ...owner, kycStatus: move.to, updatedAt: now }))
            }

            const machine = current.customerType === "INDIVIDUAL" ? customerKycMachine : customerKybMachine
            const move = decideKyc(machine, current.kycStatus, decisionOf.get(current.id))
            if (move !== undefined) {
              const next: Customer =
                current.customerType === "INDIVIDUAL"
                  ? { ...current, kycStatus: move.to, updatedAt: now }
                  : { ...current, kybStatus: move.to, kycStatus: move.to, updatedAt: now }
              yield* Effect.orDie(store.customers.update(next))
              yield* emitSteps(store, ids, move.emits, customerId, next, now)
            }
            return verification
          })
        )
      })

      const listVerifications = Effect.fn("Onboarding.listVerifications")(function* (query: ListVerificationsQuery) {
        const page = pageRequest(query)
        if (page === undefined) return yield* invalidCursor()
        return yield* store.verifications.list(
          { customerId: query.customerId, verificationStatus: query.verificationStatus },
          page
        )
      })

      const getVerification = Effect.fn("Onboarding.getVerification")(function* (id: string) {
        const verification = yield* store.verifications.get(id)
        if (verification === undefined) return yield* verificationNotFound(id)
        return verification
      })

      // ---- beneficial owners ----

      const createBeneficialOwner = Effect.fn("Onboarding.createBeneficialOwner")(function* (
        req: CreateBeneficialOwnerRequest
      ) {
        const customer = yield* liveCustomer(yield* store.customers.get(req.customerId), req.customerId)
        if (customer.customerType !== "BUSINESS") return yield* notABusiness(customer.id)
        return yield* store.transaction(
          Effect.gen(function* () {
            const now = yield* nowIso
            const owner: BeneficialOwner = {
              id: yield* ids.make("BeneficialOwner"),
              customerId: customer.id,
              roles: dedupe(req.roles),
              ownershipPercentage: req.ownershipPercentage,
              personalInfo: req.personalInfo,
              kycStatus: "UNVERIFIED",
              createdAt: now,
              updatedAt: now
            }
            yield* Effect.orDie(store.beneficialOwners.insert(owner))
            return owner
          })
        )
      })

      const listBeneficialOwners = Effect.fn("Onboarding.listBeneficialOwners")(function* (
        query: ListBeneficialOwnersQuery
      ) {
        const page = pageRequest(query)
        if (page === undefined) return yield* invalidCursor()
        return yield* store.beneficialOwners.list({ customerId: query.customerId }, page)
      })

      const getBeneficialOwner = Effect.fn("Onboarding.getBeneficialOwner")(function* (id: string) {
        const owner = yield* store.beneficialOwners.get(id)
        if (owner === undefined) return yield* beneficialOwnerNotFound(id)
        return owner
      })

      const updateBeneficialOwner = Effect.fn("Onboarding.updateBeneficialOwner")(function* (
        id: string,
        req: UpdateBeneficialOwnerRequest
      ) {
        return yield* store.transaction(
          Effect.gen(function* () {
            const current = yield* store.beneficialOwners.getForUpdate(id)
            if (current === undefined) return yield* beneficialOwnerNotFound(id)
            const business = yield* store.customers.get(current.customerId)
            if (business?.isDeleted === true) return yield* customerDeleted(current.customerId)
            const now = yield* nowIso
            // A rename never moves kycStatus: only a provider's decision does.
            const next: BeneficialOwner = {
              ...current,
              ...(req.roles === undefined ? {} : { roles: dedupe(req.roles) }),
              ...(req.ownershipPercentage === undefined ? {} : { ownershipPercentage: req.ownershipPercentage }),
              personalInfo: { ...current.personalInfo, ...req.personalInfo },
              updatedAt: now
            }
            yield* Effect.orDie(store.beneficialOwners.update(next))
            return next
          })
        )
      })

      // ---- contact verification ----

      /** The customer, locked, when this channel can be verified now. */
      const lockForContact = (customerId: string, channel: ContactChannel) =>
        Effect.gen(function* () {
          const customer = yield* liveCustomer(yield* store.customers.getForUpdate(customerId), customerId)
          if (!isRequired(kyc.contactVerification(customer), channel)) {
            return yield* contactVerificationNotRequired(customerId, channel)
          }
          if (customer.contactVerification[CONTACT_CHANNELS[channel].key] === "VERIFIED") {
            return yield* contactAlreadyVerified(customerId, channel)
          }
          return customer
        })

      const newCode = Effect.map(ids.randomHex(4), (hex) =>
        String(Number.parseInt(hex, 16) % 1_000_000).padStart(6, "0")
      )

      const sendContactCode = Effect.fn("Onboarding.sendContactCode")(function* (
        customerId: string,
        channel: ContactChannel
      ) {
        const sent = yield* store.transaction(
          Effect.gen(function* () {
            const customer = yield* lockForContact(customerId, channel)
            const to = contactOf(customer, channel)
            if (to === undefined) return yield* contactMissing(customerId, channel)
            const key = contactChallengeKey(customerId, channel)
            const nowMs = yield* Clock.currentTimeMillis
            const open = yield* store.contactChallenges.get(key)
            if (open !== undefined && open.sentTo === to) {
              const waitMs = Date.parse(open.sentAt) + CONTACT_CODE_RESEND_SECONDS * 1000 - nowMs
              if (waitMs > 0) return yield* resendTooSoon(Math.ceil(waitMs / 1000))
            }
            const code = notifier.fixedCode ?? (yield* newCode)
            const challenge: ContactChallenge = {
              key,
              customerId,
              channel,
              codeHash: bytesToHex(hashCode(key, code)),
              sentTo: to,
              sentAt: isoOf(nowMs),
              expiresAt: isoAfter(nowMs, CONTACT_CODE_TTL_SECONDS),
              attempts: 0
            }
            yield* store.contactChallenges.put(challenge)
            return { to, code: Redacted.make(code) }
          })
        )
        // Sent once the code is stored (a store transaction may run again; a message must go once).
        yield* notifier.send(CONTACT_CHANNELS[channel].medium, sent.to, sent.code)
      })

      const confirmContactCode = Effect.fn("Onboarding.confirmContactCode")(function* (
        customerId: string,
        channel: ContactChannel,
        code: string
      ) {
        // A wrong code is a failure the caller sees, but its attempt must be counted: the transaction commits
        // the count and answers the failure as a value.
        const outcome: Outcome<Customer, InvalidInput> = yield* store.transaction(
          Effect.gen(function* () {
            const customer = yield* lockForContact(customerId, channel)
            const key = contactChallengeKey(customerId, channel)
            const open = yield* store.contactChallenges.get(key)
            if (open === undefined || open.sentTo !== contactOf(customer, channel)) return { error: noOpenCode() }
            const nowMs = yield* Clock.currentTimeMillis
            if (nowMs >= Date.parse(open.expiresAt)) {
              yield* store.contactChallenges.delete(key)
              return { error: codeExpired() }
            }
            if (!constantTimeEqual(hashCode(key, code), hexToBytes(open.codeHash))) {
              const attempts = open.attempts + 1
              const left = Math.max(0, CONTACT_CODE_MAX_ATTEMPTS - attempts)
              if (left === 0) yield* store.contactChallenges.delete(key)
              else yield* store.contactChallenges.put({ ...open, attempts })
              return { error: wrongCode(left) }
            }
            yield* store.contactChallenges.delete(key)
            const next: Customer = {
              ...customer,
              contactVerification: { ...customer.contactVerification, [CONTACT_CHANNELS[channel].key]: "VERIFIED" },
              updatedAt: isoOf(nowMs)
            }
            yield* Effect.orDie(store.customers.update(next))
            return { ok: next }
          })
        )
        if ("error" in outcome) return yield* outcome.error
        return outcome.ok
      })

      return Onboarding.of({
        createKycLink,
        submitVerification,
        listVerifications,
        getVerification,
        createBeneficialOwner,
        listBeneficialOwners,
        getBeneficialOwner,
        updateBeneficialOwner,
        sendContactCode,
        confirmContactCode
      })
    })
  )
}

// =============================================================================
// Documents
// =============================================================================

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
const receiveInto = (
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
const discardInto = (files: DocumentStore["Service"]) => (file: ReceivedFile) => Effect.ignore(files.delete(file.key))

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

      const discardFile = discardInto(files)
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

      const screen = (file: ReceivedFile, documentType: DocumentType) =>
        Effect.gen(function* () {
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
      const checkHolder = (holder: string) =>
        Effect.gen(function* () {
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

// =============================================================================
// Bulk customer import (CSV)
// =============================================================================

/** The largest CSV file `POST /customers/bulk/csv` takes, in bytes. */
export const MAX_BULK_IMPORT_BYTES = 100 * 1024 * 1024
/** Failed rows a job lists in `errors` (its `progress.failed` counts them all). */
export const MAX_BULK_IMPORT_ERRORS = 1000
/** A running job reports its progress (and that it is alive) every this many rows. */
export const BULK_IMPORT_REPORT_ROWS = 1000
/** Rows imported in one store transaction. */
export const BULK_IMPORT_BATCH_ROWS = 100
/** Batches of a job written at once (each on its own connection on PostgreSQL): a wave of rows. */
export const BULK_IMPORT_CONCURRENCY = 4
/** A job that has not reported for this long was abandoned by its process (a restart): `sweep` fails it. */
export const BULK_IMPORT_ABANDONED_SECONDS = 600

/** How a row's failure to become a customer is listed in the job's errors. */
const rowFailure = (correlationId: string, line: number, error: unknown): BulkImportErrorEntry => {
  const e = error as { readonly _tag?: string; readonly code?: string; readonly message?: string }
  switch (e._tag) {
    case "InvalidInput":
      return {
        correlationId,
        code: "INVALID_INPUT",
        message: `Line ${line}: ${(error as InvalidInput).message}`,
        details: { line, errors: (error as InvalidInput).errors }
      }
    case "Refused":
    case "Conflict":
    case "NotFound":
    case "Forbidden":
    case "LimitExceeded":
      return {
        correlationId,
        code: e.code ?? "INVALID_INPUT",
        message: `Line ${line}: ${e.message}`,
        details: { line }
      }
    default:
      return {
        correlationId,
        code: "INTERNAL_ERROR",
        message: `Line ${line}: the customer could not be stored; import this row again`,
        details: { line }
      }
  }
}

/** The file-level error of a job whose CSV cannot be read on. */
const fileFailure = (error: CsvError): BulkImportErrorEntry => ({
  correlationId: String(error.line),
  code: "INVALID_REQUEST_FORMAT",
  message: error.message,
  details: { line: error.line, reason: error.reason }
})

export class BulkImports extends Context.Service<
  BulkImports,
  {
    /**
     * `POST /customers/bulk/csv` (202): a `PENDING` job of a received CSV file; `run` imports it. On failure the
     * file is discarded.
     */
    /** Streams an uploaded CSV into the DocumentStore: 400 `INVALID_INPUT` on `file` over `MAX_BULK_IMPORT_BYTES`. */
    readonly receiveFile: (file: IncomingFile) => Effect.Effect<ReceivedFile, InvalidInput | StoreError>
    readonly discardFile: (file: ReceivedFile) => Effect.Effect<void>
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
      const store = yield* Store
      const files = yield* DocumentStore
      const ids = yield* Ids
      const customers = yield* Customers

      const discardFile = discardInto(files)

      const receiveFile = Effect.fn("BulkImports.receiveFile")(function* (incoming: IncomingFile) {
        return yield* receiveInto(
          files,
          `bulk-import/${yield* ids.randomHex(16)}`,
          "text/csv",
          incoming,
          MAX_BULK_IMPORT_BYTES
        )
      })

      const accept = Effect.fn("BulkImports.accept")(function* (file: ReceivedFile) {
        const id = yield* ids.make("Job")
        const fileKey = file.key
        const now = yield* nowIso
        const job: BulkImportJob = {
          id,
          status: "PENDING",
          progress: { total: 0, processed: 0, successful: 0, failed: 0 },
          errors: []
        }
        yield* store
          .transaction(Effect.orDie(store.bulkImportJobs.insert({ id, job, fileKey, createdAt: now, updatedAt: now })))
          .pipe(Effect.onError(() => discardFile(file)))
        return { jobId: id, status: "PENDING" } satisfies BulkImportAccepted
      })

      /** Saves the job as it stands; the last save ends it (with its webhook) and deletes its file. */
      const save = (record: BulkImportJobRecord, job: BulkImportJob) =>
        store.transaction(
          Effect.gen(function* () {
            const now = yield* nowIso
            const ended = job.status === "COMPLETED" || job.status === "FAILED"
            const next: BulkImportJob = ended ? { ...job, completedAt: now } : job
            yield* Effect.orDie(store.bulkImportJobs.update({ ...record, job: next, updatedAt: now }))
            if (ended) yield* emitSteps(store, ids, [`BULK_UPLOAD.${next.status}`], record.id, next, now)
            return next
          })
        )

      const end = (record: BulkImportJobRecord, job: BulkImportJob) =>
        Effect.andThen(save(record, job), Effect.ignore(files.delete(record.fileKey)))

      /** The job, moved from PENDING to PROCESSING; `undefined` when it is not PENDING. */
      const claim = (jobId: string) =>
        store.transaction(
          Effect.gen(function* () {
            const record = yield* store.bulkImportJobs.getForUpdate(jobId)
            if (record === undefined || record.job.status !== "PENDING") return undefined
            const claimed = {
              ...record,
              job: { ...record.job, status: "PROCESSING" as const },
              updatedAt: yield* nowIso
            }
            yield* Effect.orDie(store.bulkImportJobs.update(claimed))
            return claimed
          })
        )

      /** The file's CSV items, one at a time, as an iterator over a fresh read of the stored file. */
      const openCsv = (record: BulkImportJobRecord) =>
        Effect.gen(function* () {
          const stored = yield* files.get(record.fileKey)
          if (stored === undefined) {
            return yield* new StoreError({ message: `The file of job ${record.id} is gone`, retryable: false })
          }
          const iterator = parseCsv(Stream.toAsyncIterable(stored.body))[Symbol.asyncIterator]()
          return Effect.tryPromise({
            try: () => iterator.next(),
            catch: (cause) =>
              cause instanceof CsvError || cause instanceof StoreError
                ? cause
                : new StoreError({ message: `Reading job ${record.id}: ${String(cause)}`, retryable: false })
          })
        })

      /** Rows in the file, or the reason it cannot be read. */
      const countRows = (record: BulkImportJobRecord) =>
        Effect.gen(function* () {
          const next = yield* openCsv(record)
          let rows = 0
          while (true) {
            const item = yield* next
            if (item.done === true) return rows
            if (item.value._tag === "Header") {
              const bad = checkCustomerCsvHeader(item.value)
              if (bad !== undefined) return bad
            } else rows++
          }
        })

      /** A row's failure to become a customer, from the exit of its `create`. */
      const createFailure = (row: CustomerCsvRow, exit: Exit.Exit<unknown, unknown>) => {
        const failure = Exit.isFailure(exit) ? Cause.findError(exit.cause) : undefined
        return rowFailure(row.correlationId, row.line, failure?._tag === "Success" ? failure.success : undefined)
      }

      /** A row as a customer: `undefined`, or its error. */
      const createAlone = (row: CustomerCsvRow) =>
        Effect.map(Effect.exit(customers.create(row.request)), (exit) =>
          Exit.isSuccess(exit) ? undefined : createFailure(row, exit)
        )

      /**
       * A batch of rows: their customers written together (`Customers.createMany`: one transaction, a few
       * statements), each as `undefined` or its error; a bad row costs its batch a second pass, row by row, but
       * never stops the good ones.
       */
      const importBatch = (rows: ReadonlyArray<CustomerCsvRow>) =>
        Effect.map(Effect.exit(customers.createMany(rows.map((row) => row.request))), (exits) =>
          Exit.isSuccess(exits)
            ? exits.value.map((exit, i) => (Exit.isSuccess(exit) ? undefined : createFailure(rows[i]!, exit)))
            : rows.map((row) => createFailure(row, exits))
        )

      /**
       * The rows of a wave, each as `undefined` (a customer) or its error, in the file's order. Batches run at once;
       * a row repeating the platformCustomerId or umaAddress of an earlier row of the wave waits for them, so the
       * first in the file wins, as when rows are written one after another.
       */
      const importWave = (items: ReadonlyArray<CsvRecord | CsvRowError>) =>
        Effect.gen(function* () {
          const outcomes: Array<BulkImportErrorEntry | undefined> = []
          const first: Array<{ readonly at: number; readonly row: CustomerCsvRow }> = []
          const repeats: Array<{ readonly at: number; readonly row: CustomerCsvRow }> = []
          const keys = new Set<string>()
          for (const [at, item] of items.entries()) {
            const row = customerFromCsv(item)
            if (Result.isFailure(row)) {
              outcomes[at] = row.failure
              continue
            }
            const { platformCustomerId, umaAddress } = row.success.request
            const own = [`p:${platformCustomerId ?? ""}`, `u:${umaAddress ?? ""}`]
            const repeated = own.some((key) => keys.has(key))
            for (const key of own) keys.add(key)
            ;(repeated ? repeats : first).push({ at, row: row.success })
          }
          const batches = Array.from({ length: Math.ceil(first.length / BULK_IMPORT_BATCH_ROWS) }, (_, i) =>
            first.slice(i * BULK_IMPORT_BATCH_ROWS, (i + 1) * BULK_IMPORT_BATCH_ROWS)
          )
          yield* Effect.forEach(
            batches,
            (batch) =>
              Effect.map(importBatch(batch.map((b) => b.row)), (results) =>
                results.forEach((result, i) => {
                  outcomes[batch[i]!.at] = result
                })
              ),
            { concurrency: BULK_IMPORT_CONCURRENCY, discard: true }
          )
          for (const { at, row } of repeats) outcomes[at] = yield* createAlone(row)
          return outcomes
        })

      const importRows = (record: BulkImportJobRecord, total: number) =>
        Effect.gen(function* () {
          const progress = { total, processed: 0, successful: 0, failed: 0 }
          const errors: Array<BulkImportErrorEntry> = []
          const snapshot = (status: BulkImportStatus): BulkImportJob => ({
            ...record.job,
            status,
            progress: { ...progress },
            errors: [...errors]
          })
          yield* save(record, snapshot("PROCESSING"))
          const next = yield* openCsv(record)
          // The next wave is read only once this one is written: the file is read no faster than rows are stored.
          const wave: Array<CsvRecord | CsvRowError> = []
          let ended = false
          while (!ended) {
            while (wave.length < BULK_IMPORT_BATCH_ROWS * BULK_IMPORT_CONCURRENCY) {
              const item = yield* next
              if (item.done === true) {
                ended = true
                break
              }
              if (item.value._tag !== "Header") wave.push(item.value)
            }
            const outcomes = yield* importWave(wave)
            wave.length = 0
            const reportedBefore = Math.floor(progress.processed / BULK_IMPORT_REPORT_ROWS)
            for (const outcome of outcomes) {
              progress.processed++
              if (outcome === undefined) progress.successful++
              else {
                progress.failed++
                if (errors.length < MAX_BULK_IMPORT_ERRORS) errors.push(outcome)
              }
            }
            if (!ended && Math.floor(progress.processed / BULK_IMPORT_REPORT_ROWS) > reportedBefore) {
              yield* save(record, snapshot("PROCESSING"))
            }
          }
          return snapshot(progress.successful === 0 && progress.failed > 0 ? "FAILED" : "COMPLETED")
        })

      const run = Effect.fn("BulkImports.run")(function* (jobId: string) {
        const record = yield* claim(jobId)
        if (record === undefined) return
        const outcome = yield* Effect.result(
          Effect.flatMap(countRows(record), (counted) =>
            typeof counted === "number"
              ? importRows(record, counted)
              : Effect.succeed<BulkImportJob>({ ...record.job, status: "FAILED", errors: [counted] })
          )
        )
        if (Result.isSuccess(outcome)) return yield* end(record, outcome.success)
        if (outcome.failure._tag === "CsvError") {
          const current = (yield* store.bulkImportJobs.get(jobId)) ?? record
          return yield* end(current, {
            ...current.job,
            status: "FAILED",
            errors: [...current.job.errors, fileFailure(outcome.failure)]
          })
        }
        return yield* outcome.failure
      })

      const get = Effect.fn("BulkImports.get")(function* (jobId: string) {
        const record = yield* store.bulkImportJobs.get(jobId)
        if (record === undefined) return yield* bulkImportJobNotFound(jobId)
        return record.job
      })

      const sweep = Effect.fn("BulkImports.sweep")(function* () {
        const running = yield* scanAll((page) =>
          store.bulkImportJobs.list({ statuses: ["PENDING", "PROCESSING"] }, page)
        )
        const staleBefore = isoAfter(yield* Clock.currentTimeMillis, -BULK_IMPORT_ABANDONED_SECONDS)
        let failed = 0
        for (const record of running) {
          if (record.updatedAt >= staleBefore) continue
          const abandoned: BulkImportErrorEntry = {
            correlationId: String(record.job.progress.processed),
            code: "JOB_INTERRUPTED",
            message: `The import stopped after ${record.job.progress.processed} rows (the server restarted); upload the rows after them again`
          }
          yield* end(record, { ...record.job, status: "FAILED", errors: [...record.job.errors, abandoned] })
          failed++
        }
        return failed
      })

      return BulkImports.of({ receiveFile, discardFile, accept, run, get, sweep })
    })
  )
}
