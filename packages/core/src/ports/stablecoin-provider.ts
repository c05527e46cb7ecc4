import { Context, type Effect, type Redacted } from "effect"
import type { Environment } from "../platform/model.ts"

// The stablecoin provider behind a port (issue 17 slice B; docs/design/invitations-stablecoins.md, section 0): the
// issuer's custodian that mints and burns a registered token. Called outside store transactions only: by a request's
// prepare step (`Idempotency.runPrepared`) and by the stablecoins worker.

/** What the provider is asked with: the linked account's API client (the secret opened from the KeyVault for the call). */
export interface StablecoinProviderCredentials {
  readonly apiClientId: string
  readonly apiClientSecret: Redacted.Redacted<string>
  readonly providerAccountId?: string | undefined
}

/** A token the provider issues, as `token` finds it. */
export interface ProviderToken {
  readonly name: string
  readonly symbol: string
  readonly baseCurrency: string
  readonly decimals: number
  readonly issuanceStatus: "PENDING_REVIEW" | "PROVISIONING" | "PROVISIONED" | "REJECTED" | "FAILED"
}

/** Where a mint's money comes from, as the provider needs to know it. */
export type ProviderFunding =
  /** The platform wires the base currency to the instructions the provider answers. */
  | { readonly kind: "WIRE" }
  /** The provider debits a bank account (ACH, same-day ACH). */
  | { readonly kind: "ACH_DEBIT" | "SAME_DAY_ACH_DEBIT"; readonly accountId: string }
  /** The service sends the money itself (`fund`): a service internal account. */
  | { readonly kind: "SERVICE" }
  /** The provider spends its own balance. */
  | { readonly kind: "PROVIDER_BALANCE"; readonly sourceTokenIdentifier?: string | undefined }
  /** A burn: the holder sends the token to the provider's deposit address. */
  | { readonly kind: "EXTERNAL_WALLET" }

/** Where the minted token or the burn's base currency goes. */
export type ProviderDestination =
  | { readonly kind: "WALLET"; readonly address?: string | undefined }
  | { readonly kind: "SERVICE" }
  | { readonly kind: "BANK"; readonly accountId: string; readonly rail: string }

export interface ProviderOperationRequest {
  /** The idempotency key at the provider: a retry or a racing twin gets the same provider operation. */
  readonly clientReference: string
  readonly type: "MINT" | "BURN"
  readonly providerTokenIdentifier: string
  /** In the token's smallest unit. */
  readonly amount: bigint
  /** The same value in the base currency's smallest unit (the provider's outcome rules read it). */
  readonly baseAmount: number
  readonly funding: ProviderFunding
  readonly destination: ProviderDestination
}

/** Funding instructions safe to show (upstream `StablecoinFundingInstructions`: open, rail-specific). */
export type ProviderFundingInstructions = Readonly<Record<string, string>>

export interface ProviderOperation {
  readonly providerOperationId: string
  /** The funds come from outside (a wire, an ACH debit, a token sent from a wallet): the provider waits for them. */
  readonly awaitingFunds: boolean
  readonly fundingInstructions?: ProviderFundingInstructions | undefined
  /** Until when the provider waits for the funds. */
  readonly expiresAt?: string | undefined
  readonly estimatedDelivery?: { readonly rail: string; readonly timing: string } | undefined
}

/** What the provider says of an operation. */
export type ProviderOperationStatus =
  | { readonly _tag: "AwaitingFunds" }
  | { readonly _tag: "FundsReceived" }
  | { readonly _tag: "Processing" }
  | { readonly _tag: "Completed"; readonly transactionHash?: string | undefined }
  | { readonly _tag: "Failed"; readonly reason: string }
  | { readonly _tag: "Expired" }

/**
 * The provider's refusals: `Unavailable` (could not be reached: retry), `Unauthorized` (the credentials are refused),
 * `Revoked` (the provider revoked the account's access), `Rejected` (the request itself is refused).
 */
export type StablecoinProviderError =
  | { readonly _tag: "Unavailable"; readonly message: string }
  | { readonly _tag: "Unauthorized"; readonly message: string }
  | { readonly _tag: "Revoked"; readonly message: string }
  | { readonly _tag: "Rejected"; readonly message: string }

export interface StablecoinProviderService {
  /** The provider's name as the API shows it (upstream `StablecoinProvider`). */
  readonly provider: "BRALE"
  /** Checks credentials: the account they reach (the given one when it is theirs). */
  readonly verify: (
    credentials: StablecoinProviderCredentials,
    environment: Environment
  ) => Effect.Effect<{ readonly providerAccountId: string }, StablecoinProviderError>
  /** The token the provider issues under this identifier on this network; `undefined`: no such token. */
  readonly token: (
    credentials: StablecoinProviderCredentials,
    request: {
      readonly providerTokenIdentifier: string
      readonly networkTokenIdentifier: string
      readonly network: string
    }
  ) => Effect.Effect<ProviderToken | undefined, StablecoinProviderError>
  /**
   * The identifiers of the tokens the provider issues on `network` (`providerTokenIdentifier`s), so that a
   * registration of an unknown one is told the valid ones. Optional: without it the refusal names none.
   */
  readonly tokenIdentifiers?: (
    credentials: StablecoinProviderCredentials,
    network: string
  ) => Effect.Effect<ReadonlyArray<string>, StablecoinProviderError>
  /** Opens an operation; idempotent by `clientReference`. Only an intent until it is funded. */
  readonly create: (
    credentials: StablecoinProviderCredentials,
    request: ProviderOperationRequest
  ) => Effect.Effect<ProviderOperation, StablecoinProviderError>
  /** The service sent the funds of a service-funded operation (an internal account's money, the provider's balance). */
  readonly fund: (
    credentials: StablecoinProviderCredentials,
    providerOperationId: string
  ) => Effect.Effect<void, StablecoinProviderError>
  readonly status: (
    credentials: StablecoinProviderCredentials,
    providerOperationId: string
  ) => Effect.Effect<ProviderOperationStatus, StablecoinProviderError>
  /** Best effort: an operation the service will not commit (an orphaned intent). */
  readonly cancel: (
    credentials: StablecoinProviderCredentials,
    providerOperationId: string
  ) => Effect.Effect<void, StablecoinProviderError>
}

/**
 * The configured stablecoin provider, or `undefined`: none, so every stablecoin route answers 501 `NOT_IMPLEMENTED`.
 * The sandbox provides `SandboxStablecoinProvider` (@paycore/sandbox); tests may wrap it with the testkit's
 * `scriptedStablecoinProvider` (an outage switch, a call log).
 */
export const StablecoinProvider = Context.Reference<StablecoinProviderService | undefined>(
  "paycore/ports/StablecoinProvider",
  { defaultValue: () => undefined }
)
