import {
  ACCEPTED_DOCUMENT_TYPES,
  type BeneficialOwner,
  type BusinessCustomer,
  beneficialOwnerKycMachine,
  businessPacketErrors,
  type Customer,
  type DocumentScreening,
  type DocumentType,
  decideKyc,
  EEA_REGIONS,
  type IndividualCustomer,
  identityDocumentOf,
  individualPacketErrors,
  isoAfter,
  type KycDecision,
  KycProvider,
  type KycProviderError,
  type KycReview,
  type KycStatus,
  type VerificationError,
  type VerificationPacket
} from "@paycore/core"
import { Clock, Effect, Layer } from "effect"

/**
 * The magic suffixes (last 3 characters of `fullName`, `businessInfo.registrationNumber`, owner `lastName`).
 * `UNREACHABLE` is the provider's outage for that customer (its `fullName` or registration number): hosted links and
 * reviews fail with a retryable `KycProviderError`.
 */
export const KYC_MAGIC = { MANUAL_REVIEW: "001", REJECTED: "002", RESOLVE_ERRORS: "003", UNREACHABLE: "004" } as const

/** The last 3 characters of a name or number (spaces around it ignored); `undefined` without one. */
export const kycSuffix = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : value.trim().slice(-3)

/** The EEA (core `shared/regions.ts`, also the default SCA regions): by default these must verify email and phone before KYC. */
export { EEA_REGIONS }

export interface SandboxKycOptions {
  /**
   * Customer `region`s whose provider requires email and phone to be verified before KYC (`contactVerification`).
   * Default: the EEA. `[]` turns contact verification off for everyone.
   */
  readonly contactVerificationRegions?: ReadonlyArray<string> | undefined
  /** How long a hosted link stays usable (default 24 h). */
  readonly kycLinkLifetimeSeconds?: number | undefined
  /**
   * The screening verdict on an uploaded document (default: every PDF, JPEG and PNG passes, as the spec's sandbox
   * does). Tests set it to see `422 DOCUMENT_REJECTED`.
   */
  readonly screenDocument?:
    | ((document: {
        readonly documentType: DocumentType
        readonly contentType: string
        readonly size: number
      }) => DocumentScreening)
    | undefined
}

/** The host of the sandbox's (simulated) hosted verification pages. */
export const SANDBOX_KYC_HOST = "https://kyc.sandbox.paycore.dev"

const randomHex = (bytes: number): string =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("")

const IDENTITY = ACCEPTED_DOCUMENT_TYPES.MISSING_IDENTITY_DOCUMENT

const rejected = (resourceId: string, reason: string): VerificationError => ({
  resourceId,
  type: "APPLICANT_REJECTED",
  reason
})

/** The status a decision leaves a subject in: the core's KYC machine (final statuses stay). */
const statusAfter = (status: KycStatus, decision: KycDecision): KycStatus =>
  decideKyc(beneficialOwnerKycMachine, status, decision)?.to ?? status

/**
 * Whether "skip verification paperwork" waives the documents: for the terminal suffixes only (`001` and `003`
 * always need the whole packet).
 */
const waivesDocuments = (packet: VerificationPacket, suffix: string | undefined): boolean =>
  packet.settings.skipVerificationPaperwork && suffix !== KYC_MAGIC.MANUAL_REVIEW && suffix !== KYC_MAGIC.RESOLVE_ERRORS

/**
 * The suffix decides only once the packet is complete. "Skip verification paperwork" waives documents for the
 * terminal suffixes (`002`, anything else); `001` and `003` always need the whole packet. Regulated platforms
 * get no suffix rule at all: a complete packet is approved.
 */
const reviewIndividual = (customer: IndividualCustomer, packet: VerificationPacket): KycReview => {
  const suffix = packet.settings.isRegulatedFinancialInstitution ? undefined : kycSuffix(customer.fullName)
  const fastPath = waivesDocuments(packet, suffix)
  const errors = individualPacketErrors(customer, packet.documents, { documents: !fastPath })
  if (suffix === KYC_MAGIC.RESOLVE_ERRORS) {
    errors.push({
      resourceId: identityDocumentOf(customer.id, packet.documents)?.id ?? customer.id,
      type: "POOR_QUALITY_DOCUMENT",
      acceptedDocumentTypes: IDENTITY,
      reason: "The identity document is blurred or has glare: upload a clear photo or scan (sandbox suffix 003)"
    })
  }
  const decide = (decision: KycDecision) => [{ subjectId: customer.id, decision }]
  if (errors.length > 0) return { verificationStatus: "RESOLVE_ERRORS", errors, decisions: decide("HOLD") }
  switch (suffix) {
    case KYC_MAGIC.MANUAL_REVIEW:
      return { verificationStatus: "PENDING_MANUAL_REVIEW", errors: [], decisions: decide("IN_REVIEW") }
    case KYC_MAGIC.REJECTED:
      return {
        verificationStatus: "REJECTED",
        errors: [rejected(customer.id, "The applicant was rejected (sandbox suffix 002)")],
        decisions: decide("REJECTED")
      }
    default:
      return { verificationStatus: "APPROVED", errors: [], decisions: decide("APPROVED") }
  }
}

const ownerDecision = (owner: BeneficialOwner, regulated: boolean): KycDecision => {
  switch (regulated ? undefined : kycSuffix(owner.personalInfo.lastName)) {
    case KYC_MAGIC.MANUAL_REVIEW:
      return "IN_REVIEW"
    case KYC_MAGIC.REJECTED:
      return "REJECTED"
    default:
      return "APPROVED"
  }
}

/**
 * A business and its owners are decided together: a complete packet first; then each owner by its last name,
 * and the business by its registration number — rejected when it (`002`) or any owner is rejected, in manual
 * review when it has `001`/`003` or an owner is in review, approved otherwise.
 */
const reviewBusiness = (customer: BusinessCustomer, packet: VerificationPacket): KycReview => {
  const regulated = packet.settings.isRegulatedFinancialInstitution
  const suffix = regulated ? undefined : kycSuffix(customer.businessInfo.registrationNumber)
  const fastPath = waivesDocuments(packet, suffix)
  const owners = packet.beneficialOwners
  const errors = businessPacketErrors(customer, owners, packet.documents, { documents: !fastPath })
  if (errors.length > 0) {
    return { verificationStatus: "RESOLVE_ERRORS", errors, decisions: [{ subjectId: customer.id, decision: "HOLD" }] }
  }
  const ownerDecisions = owners.map((owner) => ({ owner, decision: ownerDecision(owner, regulated) }))
  const after = ownerDecisions.map(({ owner, decision }) => ({ owner, status: statusAfter(owner.kycStatus, decision) }))
  const decisions = ownerDecisions.map(({ owner, decision }) => ({ subjectId: owner.id, decision }))
  const rejectedOwners = after.filter((o) => o.status === "REJECTED").map((o) => o.owner)
  if (suffix === KYC_MAGIC.REJECTED || rejectedOwners.length > 0) {
    return {
      verificationStatus: "REJECTED",
      errors: [
        ...(suffix === KYC_MAGIC.REJECTED
          ? [rejected(customer.id, "The business was rejected (sandbox suffix 002)")]
          : []),
        ...rejectedOwners.map((o) => rejected(o.id, "A beneficial owner was rejected (sandbox suffix 002)"))
      ],
      decisions: [...decisions, { subjectId: customer.id, decision: "REJECTED" }]
    }
  }
  const inReview =
    suffix === KYC_MAGIC.MANUAL_REVIEW ||
    suffix === KYC_MAGIC.RESOLVE_ERRORS ||
    after.some((o) => o.status !== "APPROVED")
  return inReview
    ? {
        verificationStatus: "PENDING_MANUAL_REVIEW",
        errors: [],
        decisions: [...decisions, { subjectId: customer.id, decision: "IN_REVIEW" }]
      }
    : {
        verificationStatus: "APPROVED",
        errors: [],
        decisions: [...decisions, { subjectId: customer.id, decision: "APPROVED" }]
      }
}

/** The sandbox provider's verdict on a packet: a pure function of the packet (see the README's magic values). */
export const sandboxReview = (packet: VerificationPacket): KycReview =>
  packet.customer.customerType === "INDIVIDUAL"
    ? reviewIndividual(packet.customer, packet)
    : reviewBusiness(packet.customer, packet)

/**
 * `effect`, or the outage of suffix `004` on the customer's `fullName` (a business: its registration number), on
 * every platform: the provider cannot be reached, and trying again later can succeed.
 */
const reachable = <A>(customer: Customer, effect: Effect.Effect<A>): Effect.Effect<A, KycProviderError> =>
  kycSuffix(customer.customerType === "BUSINESS" ? customer.businessInfo.registrationNumber : customer.fullName) ===
  KYC_MAGIC.UNREACHABLE
    ? Effect.fail({
        _tag: "KycProviderError",
        message: "The sandbox KYC provider cannot be reached (sandbox suffix 004)",
        retryable: true
      })
    : effect

/**
 * The sandbox KYC provider: hosted links on a fictitious host, suffix-driven reviews, every document accepted; an
 * outage for the customers of suffix `004`.
 */
export const SandboxKycProvider = (options: SandboxKycOptions = {}): Layer.Layer<KycProvider> => {
  const regions = new Set(options.contactVerificationRegions ?? EEA_REGIONS)
  const lifetimeSeconds = options.kycLinkLifetimeSeconds ?? 86_400
  const screen = options.screenDocument ?? (() => ({ _tag: "Accepted" as const }))
  return Layer.succeed(
    KycProvider,
    KycProvider.of({
      createLink: ({ customer, redirectUri }) =>
        reachable(
          customer,
          Effect.map(Clock.currentTimeMillis, (now) => ({
            kycUrl: `${SANDBOX_KYC_HOST}/${customer.customerType === "BUSINESS" ? "kyb" : "kyc"}/${randomHex(16)}?redirectUri=${encodeURIComponent(redirectUri)}`,
            expiresAt: isoAfter(now, lifetimeSeconds),
            provider: "SANDBOX" as const,
            token: `sbx_sdk_${randomHex(24)}`
          }))
        ),
      review: (packet) =>
        reachable(
          packet.customer,
          Effect.sync(() => sandboxReview(packet))
        ),
      screenDocument: ({ documentType, contentType, size }) =>
        Effect.sync(() => screen({ documentType, contentType, size })),
      contactVerification: (customer: Customer) => {
        const required = customer.region !== undefined && regions.has(customer.region)
        return { email: required, phone: required }
      }
    })
  )
}
