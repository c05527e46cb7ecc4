import {
  type BusinessCustomer,
  currency,
  type ExternalAccount,
  type IndividualCustomer,
  type InternalAccountRecord,
  type OutboxRecord,
  type PlatformConfig,
  type QuoteRecord,
  type TokenRecord,
  type TransactionRecord
} from "@paycore/core"
import { idOf } from "./helpers.ts"

/** Realistic records of every collection, with odd instants (fractions, offsets) to catch any reformatting. */

export const token = (n: number, extra: Partial<TokenRecord> = {}): TokenRecord => ({
  id: idOf("Token", n),
  name: `token ${n}`,
  permissions: ["VIEW", "TRANSACT"],
  environment: "SANDBOX",
  clientId: `client-${n}`,
  secretHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  createdAt: "2026-11-21T13:36:44.123Z",
  updatedAt: "2026-11-21T13:36:44.1Z",
  ...extra
})

export const individual = (n: number, extra: Partial<IndividualCustomer> = {}): IndividualCustomer => ({
  id: idOf("Customer", n),
  platformCustomerId: `platform-${n}`,
  customerType: "INDIVIDUAL",
  kycStatus: "APPROVED",
  region: "US",
  currencies: ["USD", "USDC"],
  email: `person${n}@example.com`,
  phoneNumber: "+14155550123",
  umaAddress: `$person${n}@uma.example.com`,
  contactVerification: { email: "VERIFIED", phone: "PENDING" },
  endUserTermsConsent: {
    acceptedAt: "2026-11-21T13:36:44+02:00",
    ipAddress: "203.0.113.7",
    termsVersion: "2026-01",
    acceptanceMethod: "CHECKBOX"
  },
  isDeleted: false,
  createdAt: "2026-11-21T13:36:44.123Z",
  updatedAt: "2026-11-21T13:36:44.123456Z",
  fullName: "Ada Lovelace",
  birthDate: "1990-12-10",
  nationality: "GB",
  address: { line1: "1 Main St", line2: "Apt 4", city: "Springfield", postalCode: "12345", country: "US" },
  idType: "NON_US_TAX_ID",
  identifier: "X1234567",
  countryOfIssuance: "GB",
  sourceOfFundsCategories: ["SALARY", "OTHER"],
  sourceOfFundsOtherDescription: "Royalties",
  sourceOfWealthCategories: ["SAVINGS"],
  purposeOfAccount: "P2P_TRANSFERS",
  expectedMonthlyTransactionCount: "COUNT_10_TO_100",
  expectedMonthlyTransactionVolume: "VOLUME_UNDER_10K",
  annualIncomeRange: "RANGE_50K_100K",
  netWorthRange: "UNDER_100K",
  pepStatus: "NONE",
  ...extra
})

/** An individual with only the required fields (every optional one absent). */
export const bareIndividual = (n: number): IndividualCustomer => ({
  id: idOf("Customer", n),
  platformCustomerId: `platform-${n}`,
  customerType: "INDIVIDUAL",
  kycStatus: "UNVERIFIED",
  currencies: [],
  umaAddress: `$bare${n}@uma.example.com`,
  contactVerification: { email: "PENDING", phone: "PENDING" },
  isDeleted: false,
  createdAt: "2026-11-21T13:36:44.000Z",
  updatedAt: "2026-11-21T13:36:44.000Z"
})

export const business = (n: number, extra: Partial<BusinessCustomer> = {}): BusinessCustomer => ({
  id: idOf("Customer", n),
  platformCustomerId: `platform-${n}`,
  customerType: "BUSINESS",
  kybStatus: "PENDING",
  kycStatus: "PENDING",
  region: "MX",
  currencies: ["MXN"],
  umaAddress: `$biz${n}@uma.example.com`,
  contactVerification: { email: "PENDING", phone: "VERIFIED" },
  isDeleted: false,
  createdAt: "2026-11-21T13:36:44.123Z",
  updatedAt: "2026-11-21T13:36:44.123Z",
  address: { line1: "Av. Reforma 222", postalCode: "06600", country: "MX", state: "CDMX" },
  businessInfo: {
    legalName: "Acme SA de CV",
    doingBusinessAs: "Acme",
    country: "MX",
    incorporatedOn: "2015-03-01",
    entityType: "CORPORATION",
    taxId: "ACM150301XX1",
    countriesOfOperation: ["MX", "US"],
    businessType: "RETAIL_TRADE",
    naicsCode: "4451",
    sourceOfFundsCategories: ["OPERATING_REVENUE"],
    primaryContactFirstName: "Juana",
    primaryContactLastName: "Pérez ñ 名前"
  },
  ...extra
})

export const internalAccount = (n: number, extra: Partial<InternalAccountRecord> = {}): InternalAccountRecord => ({
  id: idOf("InternalAccount", n),
  customerId: idOf("Customer", 1),
  type: "INTERNAL_FIAT",
  status: "ACTIVE",
  currency: "USD",
  fundingPaymentInstructions: [
    {
      instructionsNotes: "Use the reference",
      accountOrWalletInfo: {
        accountType: "US_ACCOUNT",
        reference: "REF123",
        accountNumber: "000123456789",
        routingNumber: "021000021",
        accountHolderName: "Paycore FBO Ada",
        bankName: "Bank of Tests",
        paymentRails: ["ACH", "WIRE"]
      }
    },
    { isPlatformAccount: true, accountOrWalletInfo: { accountType: "LIGHTNING", invoice: "lnbc1xyz" } }
  ],
  cardCapabilities: { supportsSpendLimits: true, supportsTransactionCountLimit: false },
  createdAt: "2026-11-21T13:36:44.123Z",
  updatedAt: "2026-11-21T13:36:44.123Z",
  ...extra
})

export const externalAccount = (n: number, extra: Partial<ExternalAccount> = {}): ExternalAccount => ({
  id: idOf("ExternalAccount", n),
  customerId: idOf("Customer", 1),
  status: "ACTIVE",
  currency: "EUR",
  platformAccountId: `ext-${n}`,
  ownershipType: "THIRD_PARTY",
  defaultUmaDepositAccount: false,
  paymentRails: ["SEPA", "SEPA_INSTANT"],
  accountInfo: {
    accountType: "IBAN",
    iban: "DE89370400440532013000",
    swiftCode: "COBADEFFXXX",
    beneficiary: {
      beneficiaryType: "INDIVIDUAL",
      fullName: "Grace Hopper",
      countryOfResidence: "DE",
      address: { line1: "Unter den Linden 1", postalCode: "10117", country: "DE" }
    }
  },
  createdAt: "2026-11-21T13:36:44.123Z",
  updatedAt: "2026-11-21T13:36:44.123Z",
  ...extra
})

export const quote = (
  n: number,
  extra: { readonly status?: QuoteRecord["quote"]["status"]; readonly expiresAt?: string } = {}
): QuoteRecord => {
  const id = idOf<QuoteRecord["quote"]["id"]>("Quote", n)
  return {
    id,
    quote: {
      id,
      status: extra.status ?? "PENDING",
      createdAt: "2026-11-21T13:36:44.123Z",
      expiresAt: extra.expiresAt ?? "2026-11-21T13:41:44.123Z",
      customerId: idOf("Customer", 1),
      source: { sourceType: "ACCOUNT", accountId: idOf("InternalAccount", 1) },
      destination: { destinationType: "ACCOUNT", accountId: idOf("ExternalAccount", 1), paymentRail: "SEPA" },
      sendingCurrency: currency("USD"),
      receivingCurrency: currency("EUR"),
      totalSendingAmount: 10_050,
      totalReceivingAmount: 9_123,
      exchangeRate: 0.9123456789012345,
      feesIncluded: 50,
      platformFeesIncluded: 0,
      transactionId: idOf("Transaction", n),
      description: "Invoice 42",
      paymentInstructions: [],
      rateDetails: {
        counterpartyMultiplier: 1.0001,
        counterpartyFixedFee: 0,
        serviceApiMultiplier: 0.9123,
        serviceApiFixedFee: 50,
        serviceApiVariableFeeRate: 0.0025,
        serviceApiVariableFeeAmount: 25
      }
    },
    pricing: { netSendingAmount: 10_000, serviceFee: 50, platformFee: 0, minorRate: "0.91230000000000000001" }
  }
}

/** A quote waiting for its SCA challenge: the optional SCA fields set. */
export const quoteAwaitingAuthorization = (n: number): QuoteRecord => {
  const base = quote(n, { status: "PENDING_AUTHORIZATION" })
  return {
    ...base,
    quote: {
      ...base.quote,
      scaChallenge: {
        id: idOf("ScaChallenge", n),
        expiresAt: "2026-11-21T13:41:44.123Z",
        factor: "SMS_OTP",
        availableFactors: ["SMS_OTP"],
        purpose: "PAYOUT"
      }
    },
    scaFactor: "SMS_OTP",
    scaAuthorizedAt: "2026-11-21T13:37:44.123Z",
    agentId: idOf("Agent", n)
  }
}

export const transaction = (n: number, extra: Partial<TransactionRecord> = {}): TransactionRecord => {
  const id = idOf<TransactionRecord["transaction"]["id"]>("Transaction", n)
  return {
    id,
    state: "PROCESSING",
    accountId: idOf("InternalAccount", 1),
    railReference: `rail-${n}`,
    dueAt: "2026-11-21T13:40:00.000Z",
    attempts: 2,
    transaction: {
      id,
      status: "PROCESSING",
      type: "OUTGOING",
      direction: "DEBIT",
      source: {
        sourceType: "ACCOUNT",
        accountId: idOf("InternalAccount", 1),
        currency: "USD",
        onChainTransaction: { transactionHash: `0x${"ab".repeat(32)}`, network: "BASE" }
      },
      destination: { destinationType: "ACCOUNT", accountId: idOf("ExternalAccount", 1), paymentRail: "SEPA" },
      customerId: idOf("Customer", 1),
      platformCustomerId: "platform-1",
      agentId: idOf("Agent", 1),
      sentAmount: { amount: 8_999_999_999_999_999, currency: currency("USD") },
      receivedAmount: { amount: 9_123, currency: currency("EUR") },
      exchangeRate: 0.9123,
      quoteId: idOf("Quote", n),
      description: "Invoice 42",
      refund: { reference: "refund-1", initiatedAt: "2026-11-21T13:36:44.123Z", status: "PENDING" },
      fees: 50,
      platformFees: 0,
      paymentRail: "SEPA",
      railSelectionMode: "AUTO",
      expectedSettlementAt: "2026-11-22T13:36:44.123Z",
      settlementTimelineSeconds: 86_400,
      remittanceInformation: "INV-42",
      // Issue 17 C: the hashes of on-chain legs (a JSON field of the source; a column of its own).
      reconciliationInstructions: { reference: `recon-${n}`, transactionHash: `${n}`.padStart(64, "0") },
      createdAt: "2026-11-21T13:36:44.123Z",
      updatedAt: "2026-11-21T13:36:45.000Z"
    },
    ...extra
  }
}

export const outboxRecord = (n: number, extra: Partial<OutboxRecord> = {}): OutboxRecord => ({
  id: idOf("Webhook", n),
  type: "OUTGOING_PAYMENT.COMPLETED",
  subject: idOf("Transaction", 1),
  sequence: n,
  createdAt: "2026-11-21T13:36:44.123Z",
  body: JSON.stringify({ id: idOf("Webhook", n), type: "OUTGOING_PAYMENT.COMPLETED", data: { amount: 1 } }),
  status: "PENDING",
  attempts: [
    { at: "2026-11-21T13:36:45.000Z", url: "https://example.com/hook", responseStatus: 500, durationMs: 12 },
    { at: "2026-11-21T13:36:46.000Z", url: "https://example.com/hook", error: "ECONNRESET", durationMs: 3 }
  ],
  nextAttemptAt: "2026-11-21T13:37:00.000Z",
  leaseUntil: "2026-11-21T13:36:50.000Z",
  roundStartedAt: "2026-11-21T13:36:45.000Z",
  ...extra
})

export const platformConfig: PlatformConfig = {
  id: "PlatformConfig:0190a000-0000-7000-8000-000000000001",
  umaDomain: "uma.example.com",
  webhookEndpoint: "https://example.com/hook",
  supportedCurrencies: ["USD", "EUR"].map((currencyCode) => ({
    currencyCode,
    minAmount: 1,
    maxAmount: 9_000_000_000_000_000,
    requiredCounterpartyFields: [],
    enabledTransactionTypes: ["OUTGOING", "INCOMING"] as const
  })),
  isRegulatedFinancialInstitution: false,
  skipVerificationPaperwork: true,
  feeConfigs: [
    {
      feeType: "CROSS_CURRENCY_TRANSACTION",
      sourceCurrency: "USD",
      variableFeeBps: 25,
      fixedFee: { amount: 30, currency: "USD" }
    }
  ],
  cardConfigs: { maxSpendPerTransaction: null, maxSpendPerDay: 500_000 },
  cardTokenization2faConfig: { displayName: "Acme", email: { fromName: "Acme", subject: "Your code" } },
  transactionLimits: [{ currency: "USD", maxTransactionAmount: 1_000_000 }],
  createdAt: "2026-11-21T13:36:44.123Z",
  updatedAt: "2026-11-21T13:36:44.123Z"
}
