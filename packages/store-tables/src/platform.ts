import type { PlatformConfig, TokenFilter, TokenRecord } from "@paycore/core"
import {
  after,
  before,
  boolean,
  eq,
  includesDeleted,
  instant,
  json,
  key,
  optional,
  table,
  text,
  textArray
} from "./describe.ts"

export const tokens = table<TokenRecord, TokenFilter, "clientId">()({
  name: "tokens",
  columns: {
    id: key("id"),
    name: text("name"),
    permissions: textArray("permissions"),
    environment: text("environment"),
    clientId: text("client_id"),
    secretHash: text("secret_hash"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    deletedAt: optional(instant("deleted_at"))
  },
  primaryKey: ["id"],
  unique: { clientId: { column: "clientId" } },
  filters: {
    name: eq("name"),
    createdAfter: after("createdAt"),
    createdBefore: before("createdAt"),
    includeDeleted: includesDeleted("deletedAt")
  }
})

/** One row at most: `singleton` is always true (its primary key). */
export const platformConfig = table<PlatformConfig>()({
  name: "platform_config",
  columns: {
    id: text("id"),
    umaDomain: text("uma_domain"),
    supportedCurrencies: json("supported_currencies"),
    isRegulatedFinancialInstitution: boolean("is_regulated_financial_institution"),
    skipVerificationPaperwork: boolean("skip_verification_paperwork"),
    feeConfigs: json("fee_configs"),
    transactionLimits: json("transaction_limits"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    webhookEndpoint: optional(text("webhook_endpoint")),
    cardConfigs: optional(json("card_configs")),
    cardTokenization2faConfig: optional(json("card_tokenization_2fa_config")),
    embeddedWalletConfig: optional(json("embedded_wallet_config"))
  },
  storeColumns: { singleton: boolean("singleton") },
  primaryKey: ["singleton"]
})
