import type {
  ExternalAccount,
  ExternalAccountFilter,
  InternalAccountFilter,
  InternalAccountRecord,
  OwnershipChallengeFilter,
  OwnershipChallengeRecord
} from "@paycore/core"
import { boolean, eq, instant, json, key, notEq, optional, present, table, text, textArray } from "./describe.ts"

/** `platform_currency` (a platform-owned account's currency) is unique: one platform account per currency. */
export const internalAccounts = table<InternalAccountRecord, InternalAccountFilter, "platformCurrency">()({
  name: "internal_accounts",
  columns: {
    id: key("id"),
    type: text("type"),
    status: text("status"),
    currency: text("currency"),
    fundingPaymentInstructions: json("funding_payment_instructions"),
    "cardCapabilities.supportsSpendLimits": boolean("supports_spend_limits"),
    "cardCapabilities.supportsTransactionCountLimit": boolean("supports_transaction_count_limit"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    // A platform account has no customer.
    customerId: optional(text("customer_id")),
    privateEnabled: optional(boolean("private_enabled")),
    platformCurrency: optional(text("platform_currency"))
  },
  primaryKey: ["id"],
  unique: { platformCurrency: { column: "platformCurrency" } },
  filters: {
    customerId: eq("customerId"),
    ownedByCustomer: present("customerId"),
    currency: eq("currency"),
    type: eq("type")
  }
})

export const externalAccounts = table<ExternalAccount, ExternalAccountFilter>()({
  name: "external_accounts",
  columns: {
    id: key("id"),
    status: text("status"),
    currency: text("currency"),
    ownershipType: text("ownership_type"),
    defaultUmaDepositAccount: boolean("default_uma_deposit_account"),
    paymentRails: textArray("payment_rails"),
    accountInfo: json("account_info"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    platformAccountId: optional(text("platform_account_id")),
    // A platform-owned account has no customer.
    customerId: optional(text("customer_id")),
    // Absent on accounts created before the beneficiary check (migration 0028).
    beneficiaryVerificationStatus: optional(text("beneficiary_verification_status")),
    beneficiaryVerifiedData: optional(json("beneficiary_verified_data"))
  },
  primaryKey: ["id"],
  // Deleted (inactive) accounts stay in the store and leave every list.
  always: [notEq("status", "INACTIVE")],
  filters: {
    customerId: eq("customerId"),
    ownedByCustomer: present("customerId"),
    currency: eq("currency")
  }
})

/**
 * Ownership challenges of self-custody wallets (AC-26 … AC-28): one row per external account (`id` is the account's),
 * replaced by each new challenge; `OPEN` until a signature or a liveness verdict uses it.
 */
export const ownershipChallenges = table<OwnershipChallengeRecord, OwnershipChallengeFilter>()({
  name: "ownership_challenges",
  columns: {
    id: key("id"),
    method: text("method"),
    status: text("status"),
    nonce: text("nonce"),
    expiresAt: instant("expires_at"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    messageToSign: optional(text("message_to_sign")),
    verificationLink: optional(text("verification_link")),
    token: optional(text("token")),
    customerId: optional(key("customer_id"))
  },
  primaryKey: ["id"],
  filters: { customerId: eq("customerId") }
})
