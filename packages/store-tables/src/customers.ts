import type { Customer, CustomerFilter } from "@paycore/core"
import {
  after,
  before,
  boolean,
  contains,
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

/** Both kinds of customer in one table: the other kind's columns stay NULL. */
export const customers = table<Customer, CustomerFilter, "platformCustomerId" | "umaAddress">()({
  name: "customers",
  columns: {
    id: key("id"),
    customerType: text("customer_type"),
    platformCustomerId: text("platform_customer_id"),
    currencies: textArray("currencies"),
    umaAddress: text("uma_address"),
    "contactVerification.email": text("email_verification"),
    "contactVerification.phone": text("phone_verification"),
    isDeleted: boolean("is_deleted"),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at"),
    kycStatus: text("kyc_status"),
    region: optional(text("region")),
    email: optional(text("email")),
    phoneNumber: optional(text("phone_number")),
    endUserTermsConsent: optional(json("end_user_terms_consent")),
    // Businesses only.
    kybStatus: optional(text("kyb_status")),
    address: optional(json("address")),
    businessInfo: optional(json("business_info")),
    // Individuals only: identity and enhanced due diligence.
    fullName: optional(text("full_name")),
    birthDate: optional(text("birth_date")),
    nationality: optional(text("nationality")),
    idType: optional(text("id_type")),
    identifier: optional(text("identifier")),
    countryOfIssuance: optional(text("country_of_issuance")),
    sourceOfFundsCategories: optional(textArray("source_of_funds_categories")),
    sourceOfFundsOtherDescription: optional(text("source_of_funds_other_description")),
    sourceOfWealthCategories: optional(textArray("source_of_wealth_categories")),
    sourceOfWealthOtherDescription: optional(text("source_of_wealth_other_description")),
    purposeOfAccount: optional(text("purpose_of_account")),
    purposeOfAccountOtherDescription: optional(text("purpose_of_account_other_description")),
    expectedMonthlyTransactionCount: optional(text("expected_monthly_transaction_count")),
    expectedMonthlyTransactionVolume: optional(text("expected_monthly_transaction_volume")),
    annualIncomeRange: optional(text("annual_income_range")),
    netWorthRange: optional(text("net_worth_range")),
    pepStatus: optional(text("pep_status"))
  },
  primaryKey: ["id"],
  // A deleted customer frees its platform id and UMA address.
  unique: {
    platformCustomerId: { column: "platformCustomerId", unless: "isDeleted" },
    umaAddress: { column: "umaAddress", unless: "isDeleted" }
  },
  filters: {
    platformCustomerId: eq("platformCustomerId"),
    customerType: eq("customerType"),
    region: eq("region"),
    currency: contains("currencies"),
    umaAddress: eq("umaAddress"),
    createdAfter: after("createdAt"),
    createdBefore: before("createdAt"),
    updatedAfter: after("updatedAt"),
    updatedBefore: before("updatedAt"),
    includeDeleted: includesDeleted("isDeleted")
  }
})
