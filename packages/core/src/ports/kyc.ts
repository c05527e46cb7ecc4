import { Context, type Effect, type Stream } from "effect"
import type { BeneficialOwner, Customer } from "../customers/model.ts"
import type { KycDecision } from "../onboarding/machine.ts"
import type { DocumentType, KycProviderName, VerificationError, VerificationStatus } from "../onboarding/model.ts"
import type { StoreError } from "../shared/errors.ts"

/** A document held for a customer or beneficial owner, as the packet review sees it. */
export interface DocumentOnFile {
  /** `Document:<uuid>`. */
  readonly id: string
  /** The Customer or BeneficialOwner id it belongs to. */
  readonly documentHolder: string
  readonly documentType: DocumentType
}

/** What the platform's configuration says about verification. */
export interface VerificationSettings {
  /** A regulated institution verifies its customers itself: the sandbox applies no magic suffix to them. */
  readonly isRegulatedFinancialInstitution: boolean
  /** Sandbox switch "Skip verification paperwork". */
  readonly skipVerificationPaperwork: boolean
}

/** Everything submitted for one customer's verification. */
export interface VerificationPacket {
  readonly customer: Customer
  /** Business customers' owners, oldest first (empty for individuals). */
  readonly beneficialOwners: ReadonlyArray<BeneficialOwner>
  /** Documents on file for the customer and its owners. */
  readonly documents: ReadonlyArray<DocumentOnFile>
  readonly settings: VerificationSettings
}

/** The provider's verdict on a packet. */
export interface KycReview {
  readonly verificationStatus: VerificationStatus
  /** One entry per missing field or document, or per finding; empty when approved or in progress. */
  readonly errors: ReadonlyArray<VerificationError>
  /**
   * The decision per subject (the customer's id, owners' ids); a subject left out keeps its status. The engine
   * turns each decision into a move of the subject's KYC machine (`kycEventFor`).
   */
  readonly decisions: ReadonlyArray<{ readonly subjectId: string; readonly decision: KycDecision }>
}

/** A hosted verification link, as the provider issued it. */
export interface KycLinkGrant {
  readonly kycUrl: string
  readonly expiresAt: string
  readonly provider: KycProviderName
  readonly token?: string | undefined
}

/** Which contact channels the customer's provider wants verified before KYC can begin. */
export interface ContactRequirement {
  readonly email: boolean
  readonly phone: boolean
}

export type DocumentScreening =
  | { readonly _tag: "Accepted" }
  /** `reason` names the failed check (e.g. `GLARE`, `CROPPED`, `SCREEN_CAPTURE`): answered as 422 DOCUMENT_REJECTED. */
  | { readonly _tag: "Rejected"; readonly reason: string }

/** The provider could not be reached or failed; `retryable` when trying again later can succeed. */
export interface KycProviderError {
  readonly _tag: "KycProviderError"
  readonly message: string
  readonly retryable: boolean
}

/**
 * The KYC/KYB provider: hosted verification links, review of a submitted packet, screening of uploaded
 * documents, and the contact-verification requirement. Its decisions are the only thing that moves a KYC status.
 */
export class KycProvider extends Context.Service<
  KycProvider,
  {
    /** A fresh single-use hosted link for the customer (KYC for individuals, KYB for businesses). */
    readonly createLink: (request: {
      readonly customer: Customer
      readonly redirectUri: string
    }) => Effect.Effect<KycLinkGrant, KycProviderError>
    /** Reviews a submitted packet (`POST /verifications`). */
    readonly review: (packet: VerificationPacket) => Effect.Effect<KycReview, KycProviderError>
    /**
     * Screens an uploaded document file before the document is created (`POST /documents`, `PUT`). `body` reads
     * the file from the DocumentStore as it is pulled: a provider streams it on, never holding it whole.
     */
    readonly screenDocument: (document: {
      readonly documentType: DocumentType
      readonly contentType: string
      readonly size: number
      readonly body: Stream.Stream<Uint8Array, StoreError>
    }) => Effect.Effect<DocumentScreening, KycProviderError | StoreError>
    /** The contact channels that must be `VERIFIED` before this customer can begin KYC (none: not subject to it). */
    readonly contactVerification: (customer: Customer) => ContactRequirement
  }
>()("paycore/ports/KycProvider") {}
