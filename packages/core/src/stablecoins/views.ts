import type {
  ProviderAccountRecord,
  Stablecoin,
  StablecoinOperation,
  StablecoinOperationRecord,
  StablecoinProviderAccount,
  StablecoinRecord
} from "./model.ts"

// Records → resources (pure). A link's credentials are in no resource.

/** P-09: the link as the API shows it (never `apiClientId`'s secret, nor the sealed value). */
export const toProviderAccount = (r: ProviderAccountRecord): StablecoinProviderAccount => ({
  id: r.id,
  provider: r.provider,
  providerAccountId: r.providerAccountId,
  providerEnvironment: r.environment,
  status: r.status,
  ...(r.lastVerifiedAt === undefined ? {} : { lastVerifiedAt: r.lastVerifiedAt }),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

/** P-12. */
export const toStablecoin = (r: StablecoinRecord): Stablecoin => ({
  id: r.id,
  name: r.name,
  symbol: r.symbol,
  baseCurrency: r.baseCurrency,
  network: r.network,
  decimals: r.decimals,
  issuanceStatus: r.issuanceStatus,
  serviceOperationsStatus: r.serviceOperationsStatus,
  networkTokenIdentifier: r.networkTokenIdentifier,
  ...(r.currency === undefined ? {} : { currency: r.currency }),
  provider: r.provider,
  stablecoinProviderAccountId: r.providerAccountLinkId,
  providerEnvironment: r.environment,
  providerTokenIdentifier: r.providerTokenIdentifier,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

/** P-18. */
export const toStablecoinOperation = (r: StablecoinOperationRecord): StablecoinOperation => ({
  id: r.id,
  stablecoinId: r.stablecoinId,
  operationType: r.operationType,
  status: r.state,
  amount: r.amount,
  provider: r.provider,
  providerEnvironment: r.environment,
  stablecoinProviderAccountId: r.providerAccountLinkId,
  source: r.source,
  ...(r.fundingInstructions === undefined ? {} : { fundingInstructions: r.fundingInstructions }),
  destination: r.destination,
  ...(r.estimatedDelivery === undefined ? {} : { estimatedDelivery: r.estimatedDelivery }),
  ...(r.expiresAt === undefined ? {} : { expiresAt: r.expiresAt }),
  ...(r.providerStatus === undefined ? {} : { providerStatus: r.providerStatus }),
  ...(r.failureReason === undefined ? {} : { failureReason: r.failureReason }),
  ...(r.description === undefined ? {} : { description: r.description }),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})
