import { Schema } from "effect"
import { Environment } from "../platform/model.ts"
import type { StablecoinId, StablecoinOperationId, StablecoinProviderAccountId } from "../shared/ids.ts"
import { PageQueryFields } from "../shared/paging.ts"
import { boundedString } from "../shared/schemas.ts"

// Stablecoin issuance (issue 17 slice B; docs/design/invitations-stablecoins.md, docs/stablecoins.md): provider
// account links, registered stablecoins and their mint and burn operations, with the upstream's names and shapes
// (the vendor's `GRID_*` names become `SERVICE_*`), and the stored records.

export const StablecoinProviderName = Schema.Literals(["BRALE"])
export type StablecoinProviderName = typeof StablecoinProviderName.Type

export const ProviderAccountStatus = Schema.Literals(["ACTIVE", "INVALID", "REVOKED"])
export type ProviderAccountStatus = typeof ProviderAccountStatus.Type

export const StablecoinIssuanceStatus = Schema.Literals([
  "PENDING_REVIEW",
  "PROVISIONING",
  "PROVISIONED",
  "REJECTED",
  "FAILED"
])
export type StablecoinIssuanceStatus = typeof StablecoinIssuanceStatus.Type

/** Q15: only `ENABLED` (the symbol is an engine currency) or `NOT_ENABLED` are given; the rest is the upstream enum. */
export const ServiceOperationsStatus = Schema.Literals([
  "NOT_ENABLED",
  "PENDING_APPROVAL",
  "ENABLING",
  "ENABLED",
  "DISABLED"
])
export type ServiceOperationsStatus = typeof ServiceOperationsStatus.Type

export const StablecoinNetwork = Schema.Literals(["SPARK"])

const pageFields = { limit: PageQueryFields.limit, cursor: PageQueryFields.cursor }

// ---- provider accounts (P-08, P-09) ----

/**
 * P-08 (upstream `StablecoinProviderAccountLinkRequest`): the secret is sealed at once and never returned; `Redacted`
 * from the decoded body on, so no log or printed cause can show it.
 */
export const LinkProviderAccountRequest = Schema.Struct({
  provider: StablecoinProviderName,
  apiClientId: boundedString(255),
  apiClientSecret: Schema.Redacted(boundedString(1024)),
  providerAccountId: Schema.optionalKey(boundedString(255))
})
export type LinkProviderAccountRequest = typeof LinkProviderAccountRequest.Type

/** P-09 (upstream `StablecoinProviderAccount`): never a credential. */
export const StablecoinProviderAccount = Schema.Struct({
  id: Schema.String,
  provider: StablecoinProviderName,
  providerAccountId: Schema.String,
  providerEnvironment: Environment,
  status: ProviderAccountStatus,
  lastVerifiedAt: Schema.optionalKey(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type StablecoinProviderAccount = typeof StablecoinProviderAccount.Type

export const ListProviderAccountsQuery = Schema.Struct({
  provider: Schema.optionalKey(StablecoinProviderName),
  status: Schema.optionalKey(ProviderAccountStatus),
  ...pageFields
})
export type ListProviderAccountsQuery = typeof ListProviderAccountsQuery.Type

/**
 * A provider account link as stored (`stablecoin_provider_accounts`). `sealedSecret` is the API client secret sealed
 * by the KeyVault (context `stablecoin-provider:<id>`); `liveSlot` (`provider:account:environment`) is held while
 * `ACTIVE`: one active link per provider account and environment.
 */
export interface ProviderAccountRecord {
  readonly id: StablecoinProviderAccountId
  readonly provider: StablecoinProviderName
  readonly providerAccountId: string
  readonly environment: Environment
  readonly status: ProviderAccountStatus
  readonly apiClientId: string
  readonly sealedSecret: string
  readonly liveSlot?: string | undefined
  readonly lastVerifiedAt?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

export interface ProviderAccountFilter {
  readonly provider?: string | undefined
  readonly status?: string | undefined
  readonly environment?: string | undefined
  readonly providerAccountId?: string | undefined
}

// ---- stablecoins (P-10 … P-12) ----

/** P-10 (upstream `StablecoinRegisterRequest`). */
export const RegisterStablecoinRequest = Schema.Struct({
  providerTokenIdentifier: boundedString(255),
  networkTokenIdentifier: boundedString(255),
  network: StablecoinNetwork,
  stablecoinProviderAccountId: Schema.optionalKey(boundedString(255))
})
export type RegisterStablecoinRequest = typeof RegisterStablecoinRequest.Type

/** P-12 (upstream `Stablecoin`; `gridOperationsStatus` → `serviceOperationsStatus`). */
export const Stablecoin = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  symbol: Schema.String,
  baseCurrency: Schema.String,
  network: StablecoinNetwork,
  decimals: Schema.Int,
  issuanceStatus: StablecoinIssuanceStatus,
  serviceOperationsStatus: ServiceOperationsStatus,
  networkTokenIdentifier: Schema.String,
  currency: Schema.optionalKey(Schema.String),
  provider: StablecoinProviderName,
  stablecoinProviderAccountId: Schema.String,
  providerEnvironment: Environment,
  providerTokenIdentifier: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type Stablecoin = typeof Stablecoin.Type

export const ListStablecoinsQuery = Schema.Struct({
  issuanceStatus: Schema.optionalKey(StablecoinIssuanceStatus),
  serviceOperationsStatus: Schema.optionalKey(ServiceOperationsStatus),
  provider: Schema.optionalKey(StablecoinProviderName),
  ...pageFields
})
export type ListStablecoinsQuery = typeof ListStablecoinsQuery.Type

/**
 * A registered stablecoin as stored (`stablecoins`). `registration` (`provider:network:token:environment`) is unique;
 * `ledgerCurrency` is the symbol, the currency of its ledger accounts (an engine currency or not).
 */
export interface StablecoinRecord {
  readonly id: StablecoinId
  readonly name: string
  readonly symbol: string
  readonly baseCurrency: string
  readonly network: "SPARK"
  readonly decimals: number
  readonly issuanceStatus: StablecoinIssuanceStatus
  readonly serviceOperationsStatus: ServiceOperationsStatus
  readonly networkTokenIdentifier: string
  readonly currency?: string | undefined
  readonly provider: StablecoinProviderName
  readonly providerAccountLinkId: StablecoinProviderAccountId
  readonly environment: Environment
  readonly providerTokenIdentifier: string
  readonly registration: string
  readonly ledgerCurrency: string
  readonly createdAt: string
  readonly updatedAt: string
}

export interface StablecoinFilter {
  readonly issuanceStatus?: string | undefined
  readonly serviceOperationsStatus?: string | undefined
  readonly provider?: string | undefined
}

// ---- operations (P-13 … P-18) ----

/** C-05: a digit string in the coin's smallest unit (1 … 9·10^15 is checked by the service, with whole base units). */
export const StablecoinAmount = Schema.String.check(
  Schema.isPattern(/^[0-9]{1,16}$/, { expected: "a whole number of the stablecoin's smallest unit (digits)" })
)

const externalAccountRef = { externalAccountId: boundedString(255) }
const internalAccountRef = { accountId: boundedString(255) }

/** P-13 (upstream `StablecoinMintFundingSource`; `GRID_INTERNAL_ACCOUNT` → `SERVICE_INTERNAL_ACCOUNT`). */
export const MintFundingSource = Schema.Union([
  Schema.Struct({ type: Schema.Literal("WIRE") }),
  Schema.Struct({ type: Schema.Literal("ACH_DEBIT"), ...externalAccountRef }),
  Schema.Struct({ type: Schema.Literal("SAME_DAY_ACH_DEBIT"), ...externalAccountRef }),
  Schema.Struct({ type: Schema.Literal("SERVICE_INTERNAL_ACCOUNT"), ...internalAccountRef }),
  Schema.Struct({
    type: Schema.Literal("PROVIDER_INTERNAL_BALANCE"),
    sourceTokenIdentifier: boundedString(255),
    cryptoNetwork: boundedString(64)
  })
])
export type MintFundingSource = typeof MintFundingSource.Type

export const MintRequest = Schema.Struct({
  amount: StablecoinAmount,
  fundingSource: MintFundingSource,
  destination: Schema.Struct({ accountId: boundedString(255) }),
  description: Schema.optionalKey(boundedString(1024))
})
export type MintRequest = typeof MintRequest.Type

/** P-14 (upstream `StablecoinBurnSource`). */
export const BurnSource = Schema.Union([
  Schema.Struct({ type: Schema.Literal("EXTERNAL_ACCOUNT") }),
  Schema.Struct({ type: Schema.Literal("SERVICE_INTERNAL_ACCOUNT"), ...internalAccountRef }),
  Schema.Struct({ type: Schema.Literal("PROVIDER_INTERNAL_BALANCE") })
])
export type BurnSource = typeof BurnSource.Type

export const BurnRail = Schema.Literals(["WIRE", "ACH_CREDIT", "SAME_DAY_ACH_CREDIT", "RTP_CREDIT"])
export type BurnRail = typeof BurnRail.Type

export const BurnRequest = Schema.Struct({
  amount: StablecoinAmount,
  source: BurnSource,
  destination: Schema.Struct({
    type: Schema.Literal("EXTERNAL_ACCOUNT"),
    externalAccountId: boundedString(255),
    rail: BurnRail
  }),
  description: Schema.optionalKey(boundedString(1024))
})
export type BurnRequest = typeof BurnRequest.Type

export const StablecoinOperationType = Schema.Literals(["MINT", "BURN"])
export type StablecoinOperationType = typeof StablecoinOperationType.Type

export const StablecoinOperationStatus = Schema.Literals([
  "CREATED",
  "PENDING_FUNDING",
  "PENDING_PROVIDER",
  "PROCESSING",
  "COMPLETED",
  "FAILED",
  "EXPIRED"
])
export type StablecoinOperationStatus = typeof StablecoinOperationStatus.Type

/** Upstream `StablecoinOperationSource`: one flat shape for mint funding and burn sources. */
export const OperationSource = Schema.Struct({
  type: Schema.Literals([
    "WIRE",
    "ACH_DEBIT",
    "SAME_DAY_ACH_DEBIT",
    "EXTERNAL_ACCOUNT",
    "SERVICE_INTERNAL_ACCOUNT",
    "PROVIDER_INTERNAL_BALANCE"
  ]),
  externalAccountId: Schema.optionalKey(Schema.String),
  accountId: Schema.optionalKey(Schema.String),
  sourceTokenIdentifier: Schema.optionalKey(Schema.String),
  cryptoNetwork: Schema.optionalKey(Schema.String)
})
export type OperationSource = typeof OperationSource.Type

export const OperationDestination = Schema.Struct({
  accountId: Schema.String,
  rail: Schema.optionalKey(BurnRail)
})
export type OperationDestination = typeof OperationDestination.Type

export const FundingInstructions = Schema.Record(Schema.String, Schema.String)

export const EstimatedDelivery = Schema.Struct({
  rail: Schema.String,
  amount: Schema.String,
  currency: Schema.String,
  timing: Schema.String
})
export type EstimatedDelivery = typeof EstimatedDelivery.Type

/** P-18 (upstream `StablecoinOperation`). */
export const StablecoinOperation = Schema.Struct({
  id: Schema.String,
  stablecoinId: Schema.String,
  operationType: StablecoinOperationType,
  status: StablecoinOperationStatus,
  amount: Schema.String,
  provider: StablecoinProviderName,
  providerEnvironment: Environment,
  stablecoinProviderAccountId: Schema.String,
  source: Schema.optionalKey(OperationSource),
  fundingInstructions: Schema.optionalKey(FundingInstructions),
  destination: Schema.optionalKey(OperationDestination),
  estimatedDelivery: Schema.optionalKey(EstimatedDelivery),
  expiresAt: Schema.optionalKey(Schema.String),
  providerStatus: Schema.optionalKey(Schema.String),
  failureReason: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
})
export type StablecoinOperation = typeof StablecoinOperation.Type

export const ListOperationsQuery = Schema.Struct({
  operationType: Schema.optionalKey(StablecoinOperationType),
  ...pageFields
})
export type ListOperationsQuery = typeof ListOperationsQuery.Type

/**
 * A mint or burn as stored (`stablecoin_operations`). `clientReference` (unique) is the provider's idempotency key;
 * `minorAmount` is `amount` in the coin's smallest unit, `baseAmount` its base-currency equivalent (`f`);
 * `heldAccountId` is the internal account a hold was placed on. `dueAt` / `attempts` / `stalledAt`: the worker's.
 */
export interface StablecoinOperationRecord {
  readonly id: StablecoinOperationId
  readonly stablecoinId: StablecoinId
  readonly operationType: StablecoinOperationType
  readonly state: StablecoinOperationStatus
  readonly amount: string
  readonly minorAmount: number
  readonly baseAmount: number
  readonly baseCurrency: string
  readonly ledgerCurrency: string
  readonly provider: StablecoinProviderName
  readonly environment: Environment
  readonly providerAccountLinkId: StablecoinProviderAccountId
  readonly source: OperationSource
  readonly destination: OperationDestination
  readonly fundingInstructions?: Readonly<Record<string, string>> | undefined
  readonly estimatedDelivery?: EstimatedDelivery | undefined
  readonly expiresAt?: string | undefined
  readonly providerStatus?: string | undefined
  readonly failureReason?: string | undefined
  readonly description?: string | undefined
  readonly clientReference: string
  readonly providerOperationId: string
  readonly heldAccountId?: string | undefined
  readonly dueAt?: string | undefined
  readonly attempts?: number | undefined
  readonly stalledAt?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

export interface StablecoinOperationFilter {
  readonly stablecoinId?: string | undefined
  readonly operationType?: string | undefined
  /** The worker's: operations in these states … */
  readonly states?: ReadonlyArray<StablecoinOperationStatus> | undefined
  /** … due at or before this instant. */
  readonly dueBy?: string | undefined
}
