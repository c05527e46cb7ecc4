import type {
  ProviderAccountFilter,
  ProviderAccountRecord,
  StablecoinFilter,
  StablecoinOperationFilter,
  StablecoinOperationRecord,
  StablecoinRecord
} from "@paycore/core"
import { atOrBefore, bigint, eq, instant, integer, json, key, oneOf, optional, table, text } from "./describe.ts"

/**
 * Stablecoin provider account links (P-08, P-09; docs/design/invitations-stablecoins.md, section 2). The API client
 * secret only sealed (KeyVault, context `stablecoin-provider:<id>`); `live_slot` (`provider:account:environment`) is
 * unique and held while `ACTIVE`.
 */
export const stablecoinProviderAccounts = table<ProviderAccountRecord, ProviderAccountFilter, "liveSlot">()({
  name: "stablecoin_provider_accounts",
  columns: {
    id: key("id"),
    provider: text("provider"),
    providerAccountId: text("provider_account_id"),
    environment: text("environment"),
    status: text("status"),
    apiClientId: text("api_client_id"),
    sealedSecret: text("sealed_secret"),
    liveSlot: optional(text("live_slot")),
    lastVerifiedAt: optional(instant("last_verified_at")),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  unique: { liveSlot: { column: "liveSlot" } },
  filters: {
    provider: eq("provider"),
    status: eq("status"),
    environment: eq("environment"),
    providerAccountId: eq("providerAccountId")
  }
})

/**
 * Registered stablecoins (P-10 … P-12). `registration` (`provider:network:token:environment`) is unique;
 * `ledger_currency` is the currency of the coin's ledger accounts (its symbol).
 */
export const stablecoins = table<StablecoinRecord, StablecoinFilter, "registration">()({
  name: "stablecoins",
  columns: {
    id: key("id"),
    name: text("name"),
    symbol: text("symbol"),
    baseCurrency: text("base_currency"),
    network: text("network"),
    decimals: integer("decimals"),
    issuanceStatus: text("issuance_status"),
    serviceOperationsStatus: text("service_operations_status"),
    networkTokenIdentifier: text("network_token_identifier"),
    currency: optional(text("currency")),
    provider: text("provider"),
    providerAccountLinkId: key("provider_account_link_id"),
    environment: text("environment"),
    providerTokenIdentifier: text("provider_token_identifier"),
    registration: text("registration"),
    ledgerCurrency: text("ledger_currency"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  unique: { registration: { column: "registration" } },
  filters: {
    issuanceStatus: eq("issuanceStatus"),
    serviceOperationsStatus: eq("serviceOperationsStatus"),
    provider: eq("provider")
  }
})

/**
 * Mint and burn operations (P-13 … P-18). `client_reference` (the provider's idempotency key) is unique; a stablecoin's
 * operations are listed newest first (by id); the worker reads live states by `due_at`.
 */
export const stablecoinOperations = table<StablecoinOperationRecord, StablecoinOperationFilter, "clientReference">()({
  name: "stablecoin_operations",
  columns: {
    id: key("id"),
    stablecoinId: key("stablecoin_id"),
    operationType: text("operation_type"),
    state: text("state"),
    amount: text("amount"),
    minorAmount: bigint("minor_amount"),
    baseAmount: bigint("base_amount"),
    baseCurrency: text("base_currency"),
    ledgerCurrency: text("ledger_currency"),
    provider: text("provider"),
    environment: text("environment"),
    providerAccountLinkId: key("provider_account_link_id"),
    source: json("source"),
    destination: json("destination"),
    fundingInstructions: optional(json("funding_instructions")),
    estimatedDelivery: optional(json("estimated_delivery")),
    expiresAt: optional(instant("expires_at")),
    providerStatus: optional(text("provider_status")),
    failureReason: optional(text("failure_reason")),
    description: optional(text("description")),
    clientReference: text("client_reference"),
    providerOperationId: text("provider_operation_id"),
    heldAccountId: optional(key("held_account_id")),
    dueAt: optional(instant("due_at")),
    attempts: optional(integer("attempts")),
    stalledAt: optional(instant("stalled_at")),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  queue: "dueAt",
  unique: { clientReference: { column: "clientReference" } },
  filters: {
    stablecoinId: eq("stablecoinId"),
    operationType: eq("operationType"),
    states: oneOf("state"),
    dueBy: atOrBefore("dueAt")
  }
})
