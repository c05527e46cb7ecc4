import { Context, type Effect } from "effect"
import type { InternalAccountRecord } from "../accounts/model.ts"
import type { CardBrand, CardForm, CardTargetState } from "../cards/model.ts"

/**
 * The card program the issuer runs (docs/design/cards.md, section 0). `SERVICE` decisioning: the service approves
 * authorizations (spend and count limits possible); `ISSUER`: the issuer does (no limits, CD-27, design Q22).
 */
export interface CardProgram {
  readonly decisioning: "SERVICE" | "ISSUER"
  /** `POST /cards/{id}/reveal` works (CD-32). */
  readonly supportsPanReveal: boolean
  /** `threeDSecurePassword` is accepted at issue (design Q19). */
  readonly supportsThreeDSecurePassword: boolean
  /** The currencies the issuer issues cards in (within `EngineSettings.cardCurrencies`). */
  readonly currencies: ReadonlyArray<string>
  readonly brand: CardBrand
}

/**
 * The cardholder of the accounts `fundingEligibility` is asked about: `platformCustomerId` only when the platform set
 * it (the sandbox reads its suffix, CD-44), never the default made from the random customer id.
 */
export interface FundingCardholder {
  readonly id: string
  readonly platformCustomerId?: string | undefined
}

/** Whether the issuer takes these accounts as funding sources (CD-44): the first it refuses, with why. */
export type FundingEligibility =
  | { readonly _tag: "Eligible" }
  | { readonly _tag: "Ineligible"; readonly accountId: string; readonly reason: string }

/** What a card is provisioned with; `cardId` is the issuer's idempotency key (as `Rail.submit`'s transaction id). */
export interface CardProvisionRequest {
  readonly cardId: string
  readonly cardholderId: string
  readonly platformCardId: string
  /** Whether the platform gave `platformCardId` (the sandbox reads its suffix only then, CD-43). */
  readonly platformCardIdGiven: boolean
  readonly form: CardForm
  readonly currency: string
  /** The funding sources in priority order: the binding the issuer keeps. */
  readonly fundingAccountIds: ReadonlyArray<string>
  /** Forwarded once, never stored by the issuer adapter's caller after it is acknowledged (design Q19). */
  readonly threeDSecurePassword?: string | undefined
}

/** The issuer's answer about a card, to `provision` and `status` alike. */
export type CardProvisioning =
  | {
      readonly _tag: "Active"
      readonly processorRef: string
      readonly issuerRef: string
      readonly brand: CardBrand
      readonly last4: string
      readonly expMonth: number
      readonly expYear: number
    }
  /** Still provisioning: ask `status` again at `checkAgainAt` (else the worker's backoff). */
  | { readonly _tag: "Pending"; readonly processorRef: string; readonly checkAgainAt?: string | undefined }
  | { readonly _tag: "Rejected"; readonly processorRef: string }

/** A change the issuer must learn of (a state move, a new binding). */
export interface CardIssuerUpdate {
  readonly state?: CardTargetState | undefined
  readonly fundingAccountIds?: ReadonlyArray<string> | undefined
}

/** A reveal: the processor's iframe URL, a bearer secret until `expiresAt` (CD-33: never stored or logged). */
export interface CardReveal {
  readonly panEmbedUrl: string
  readonly expiresAt: string
}

/** The issuer could not be reached (`retryable`) or refused the request. */
export interface CardIssuerError {
  readonly _tag: "CardIssuerError"
  readonly retryable: boolean
  readonly message: string
}

/**
 * The card issuer (processor and issuing bank) behind a port, as a rail is (issue 15, item 5). Called outside store
 * transactions: by the cards worker (provision, status, update) and by a reveal (the one call in a request).
 */
export interface CardIssuerService {
  readonly program: CardProgram
  readonly fundingEligibility: (
    accounts: ReadonlyArray<Pick<InternalAccountRecord, "id" | "type" | "currency">>,
    cardholder: FundingCardholder
  ) => Effect.Effect<FundingEligibility, CardIssuerError>
  /** Idempotent by `cardId`: a second call answers the same card. */
  readonly provision: (request: CardProvisionRequest) => Effect.Effect<CardProvisioning, CardIssuerError>
  readonly status: (processorRef: string) => Effect.Effect<CardProvisioning, CardIssuerError>
  readonly update: (processorRef: string, change: CardIssuerUpdate) => Effect.Effect<void, CardIssuerError>
  readonly reveal: (processorRef: string) => Effect.Effect<CardReveal, CardIssuerError>
}

/**
 * The configured issuer, or `undefined`: no issuer, so every card route answers 501 `NOT_IMPLEMENTED` (CD-42). The
 * sandbox provides `SandboxCardIssuer` (@paycore/sandbox), tests the testkit's `scriptedCardIssuer()`.
 */
export const CardIssuer = Context.Reference<CardIssuerService | undefined>("paycore/ports/CardIssuer", {
  defaultValue: () => undefined
})
