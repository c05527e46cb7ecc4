import {
  type BeneficialOwner,
  type BulkImportJobRecord,
  type BusinessCustomer,
  type ContactChallenge,
  type CustomerId,
  currency,
  type DocumentRecord,
  type ExternalAccount,
  type IdempotencyRecord,
  type IndividualCustomer,
  type InternalAccountRecord,
  type LedgerBalance,
  type LedgerTransfer,
  type NewOutboxRecord,
  type OutboxRecord,
  type OwnershipChallengeRecord,
  type QuoteRecord,
  type QuoteStatus,
  type TokenRecord,
  type Transaction,
  type TransactionRecord,
  type TransactionStatus,
  type TransactionType,
  type Verification
} from "@paycore/core"
import { NOW, newId, plusSeconds, type Scope, unique } from "./ids.ts"

// ---------------------------------------------------------------------------------------------
// Record factories (valid records of the model; optional fields absent or present, never undefined)
// ---------------------------------------------------------------------------------------------

export const tokenName = (s: Scope) => `conformance token ${s.tag}`

export const tokenMinimal = (s: Scope, id: string = newId("Token")): TokenRecord => {
  const createdAt = s.next()
  return {
    id: id as TokenRecord["id"],
    name: tokenName(s),
    permissions: ["VIEW"],
    environment: "SANDBOX",
    clientId: `client-${unique()}`,
    secretHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    createdAt,
    updatedAt: createdAt
  }
}

export const tokenFull = (s: Scope, id?: string): TokenRecord => {
  const base = tokenMinimal(s, id)
  return {
    ...base,
    permissions: ["VIEW", "TRANSACT", "MANAGE"],
    environment: "PRODUCTION",
    updatedAt: plusSeconds(base.createdAt, 30),
    deletedAt: plusSeconds(base.createdAt, 60)
  }
}

export const individualMinimal = (s: Scope, id: string = newId("Customer")): IndividualCustomer => {
  const createdAt = s.next()
  return {
    id: id as CustomerId,
    platformCustomerId: `pc-${unique()}`,
    currencies: ["USD"],
    umaAddress: `$u${unique()}@conformance.example`,
    contactVerification: { email: "PENDING", phone: "PENDING" },
    isDeleted: false,
    createdAt,
    updatedAt: createdAt,
    customerType: "INDIVIDUAL",
    kycStatus: "UNVERIFIED"
  }
}

export const individualFull = (s: Scope, id?: string): IndividualCustomer => {
  const base = individualMinimal(s, id)
  return {
    ...base,
    region: "US",
    currencies: ["USD", "EUR"],
    email: `ada.${s.tag}@example.com`,
    phoneNumber: "+14155550123",
    contactVerification: { email: "VERIFIED", phone: "PENDING" },
    endUserTermsConsent: {
      acceptedAt: base.createdAt,
      ipAddress: "203.0.113.7",
      termsVersion: "2025-01",
      acceptanceMethod: "CHECKBOX"
    },
    updatedAt: plusSeconds(base.createdAt, 5),
    kycStatus: "APPROVED",
    fullName: "Ada Lovelace",
    birthDate: "1990-12-10",
    nationality: "GB",
    address: {
      line1: "1 Market St",
      line2: "Suite 5 – Ünit ✓",
      city: "San Francisco",
      state: "CA",
      postalCode: "94105",
      country: "US"
    },
    idType: "SSN",
    identifier: "123-45-6789",
    countryOfIssuance: "US",
    sourceOfFundsCategories: ["SALARY", "OTHER"],
    sourceOfFundsOtherDescription: "Royalties",
    sourceOfWealthCategories: ["SAVINGS"],
    purposeOfAccount: "P2P_TRANSFERS",
    expectedMonthlyTransactionCount: "COUNT_10_TO_100",
    expectedMonthlyTransactionVolume: "VOLUME_UNDER_10K",
    annualIncomeRange: "RANGE_50K_100K",
    netWorthRange: "RANGE_100K_500K",
    pepStatus: "NONE"
  }
}

export const businessCustomer = (s: Scope, id: string = newId("Customer")): BusinessCustomer => {
  const { kycStatus: _kyc, customerType: _type, ...common } = individualMinimal(s, id)
  return {
    ...common,
    region: "MX",
    currencies: ["MXN", "USD"],
    customerType: "BUSINESS",
    kybStatus: "PENDING",
    kycStatus: "PENDING",
    address: { line1: "Av. Reforma 222", postalCode: "06600", country: "MX" },
    businessInfo: {
      legalName: "Acme Comercio S.A. de C.V.",
      doingBusinessAs: "Acme",
      country: "MX",
      registrationNumber: "REG-42",
      incorporatedOn: "2015-06-01",
      entityType: "CORPORATION",
      taxId: "ACM150601XX1",
      countriesOfOperation: ["MX", "US"],
      businessType: "RETAIL_TRADE",
      purposeOfAccount: "SUPPLIER_PAYMENTS",
      expectedMonthlyTransactionVolume: "VOLUME_10K_TO_100K",
      naicsCode: "4541",
      sourceOfFundsCategories: ["OPERATING_REVENUE"],
      primaryContactFirstName: "María",
      primaryContactLastName: "García"
    }
  }
}

export const internalMinimal = (s: Scope, id: string = newId("InternalAccount")): InternalAccountRecord => {
  const createdAt = s.next()
  return {
    id: id as InternalAccountRecord["id"],
    type: "INTERNAL_FIAT",
    status: "ACTIVE",
    currency: "USD",
    fundingPaymentInstructions: [],
    cardCapabilities: { supportsSpendLimits: false, supportsTransactionCountLimit: false },
    createdAt,
    updatedAt: createdAt
  }
}

export const internalFull = (s: Scope, id?: string): InternalAccountRecord => {
  const base = internalMinimal(s, id)
  return {
    ...base,
    customerId: s.customerId,
    fundingPaymentInstructions: [
      {
        instructionsNotes: "Include the reference",
        isPlatformAccount: false,
        accountOrWalletInfo: {
          accountType: "US_ACCOUNT",
          reference: `REF-${s.tag}`,
          accountNumber: "000123456789",
          routingNumber: "021000021",
          accountHolderName: "Ada Lovelace",
          bankName: "Conformance Bank",
          paymentRails: ["ACH", "WIRE", "RTP"]
        }
      },
      {
        accountOrWalletInfo: {
          accountType: "SOLANA_WALLET",
          assetType: "USDC",
          address: "So1ana11111111111111111111111111111111111"
        }
      }
    ],
    cardCapabilities: { supportsSpendLimits: true, supportsTransactionCountLimit: false },
    updatedAt: plusSeconds(base.createdAt, 1)
  }
}

export const externalMinimal = (s: Scope, id: string = newId("ExternalAccount")): ExternalAccount => {
  const createdAt = s.next()
  return {
    id: id as ExternalAccount["id"],
    customerId: s.customerId,
    status: "ACTIVE",
    currency: "EUR",
    ownershipType: "FIRST_PARTY",
    defaultUmaDepositAccount: false,
    paymentRails: ["SEPA"],
    accountInfo: {
      accountType: "IBAN",
      iban: "DE89370400440532013000",
      beneficiary: { beneficiaryType: "BUSINESS", legalName: "Acme GmbH" }
    },
    createdAt,
    updatedAt: createdAt
  }
}

/** An open WALLET_SIGNATURE challenge (the account's id is the row's). */
export const ownershipChallengeMinimal = (
  s: Scope,
  id: string = newId("ExternalAccount")
): OwnershipChallengeRecord => {
  const createdAt = s.next()
  return {
    id: id as OwnershipChallengeRecord["id"],
    customerId: s.customerId,
    method: "WALLET_SIGNATURE",
    status: "OPEN",
    nonce: "0123456789abcdef0123456789abcdef",
    expiresAt: plusSeconds(createdAt, 900),
    createdAt,
    updatedAt: createdAt
  }
}

/** A used LIVENESS challenge with its link and token, and a message (every optional column filled). */
export const ownershipChallengeFull = (s: Scope, id?: string): OwnershipChallengeRecord => {
  const base = ownershipChallengeMinimal(s, id)
  return {
    ...base,
    method: "LIVENESS",
    status: "FAILED",
    messageToSign: `paycore wallet ownership verification\nAccount: ${base.id}\nNonce: ${base.nonce} ✓`,
    verificationLink: `https://sandbox.paycore.dev/liveness/${base.nonce}`,
    token: `lvt_${s.tag}`,
    updatedAt: plusSeconds(base.createdAt, 1)
  }
}

export const externalFull = (s: Scope, id?: string): ExternalAccount => {
  const base = externalMinimal(s, id)
  return {
    ...base,
    currency: "USD",
    platformAccountId: `ext-${s.tag}`,
    ownershipType: "THIRD_PARTY",
    defaultUmaDepositAccount: true,
    paymentRails: ["ACH", "WIRE"],
    beneficiaryVerificationStatus: "PARTIAL_MATCH",
    beneficiaryVerifiedData: { fullName: "G. Hopper ✓" },
    accountInfo: {
      accountType: "US_ACCOUNT",
      accountNumber: "000123456789",
      routingNumber: "021000021",
      bankName: "Conformance Bank",
      bankAccountType: "CHECKING",
      intermediaryBankName: "Middle Bank",
      intermediaryRoutingNumber: "026009593",
      fiToFiInformation: "For further credit",
      beneficiary: {
        beneficiaryType: "INDIVIDUAL",
        fullName: "Grace Hopper",
        birthDate: "1906-12-09",
        nationality: "US",
        email: "grace@example.com",
        phoneNumber: "+12025550123",
        countryOfResidence: "US",
        address: { line1: "1 Navy Way", city: "Arlington", postalCode: "22202", country: "US" }
      }
    },
    updatedAt: plusSeconds(base.createdAt, 2)
  }
}

export const quoteMinimal = (s: Scope, id: string = newId("Quote")): QuoteRecord => {
  const createdAt = s.next()
  return {
    id,
    quote: {
      id: id as QuoteRecord["quote"]["id"],
      status: "PENDING",
      createdAt,
      expiresAt: plusSeconds(createdAt, 300),
      source: { sourceType: "REALTIME_FUNDING", currency: "USDC" },
      destination: { destinationType: "UMA_ADDRESS", umaAddress: "$bob@uma.example.com" },
      sendingCurrency: currency("USDC"),
      receivingCurrency: currency("USD"),
      totalSendingAmount: 1_000_000,
      totalReceivingAmount: 100,
      exchangeRate: 1,
      feesIncluded: 0,
      platformFeesIncluded: 0,
      transactionId: newId("Transaction"),
      paymentInstructions: [],
      rateDetails: {
        counterpartyMultiplier: 1,
        counterpartyFixedFee: 0,
        serviceApiMultiplier: 1,
        serviceApiFixedFee: 0,
        serviceApiVariableFeeRate: 0,
        serviceApiVariableFeeAmount: 0
      }
    },
    pricing: { netSendingAmount: 1_000_000, serviceFee: 0, platformFee: 0, minorRate: "0.0001" }
  }
}

export const quoteFull = (s: Scope, id?: string): QuoteRecord => {
  const base = quoteMinimal(s, id)
  return {
    ...base,
    quote: {
      ...base.quote,
      customerId: s.customerId,
      source: { sourceType: "ACCOUNT", accountId: newId("InternalAccount"), customerId: s.customerId },
      destination: { destinationType: "ACCOUNT", accountId: newId("ExternalAccount"), paymentRail: "SEPA_INSTANT" },
      sendingCurrency: currency("USD"),
      receivingCurrency: currency("EUR"),
      totalSendingAmount: 10_150,
      totalReceivingAmount: 9_234,
      exchangeRate: 0.9234567,
      feesIncluded: 100,
      platformFeesIncluded: 50,
      description: "Invoice 42 — ünïcode ✓",
      remittanceInformation: "INV-42",
      purposeOfPayment: "GOODS_OR_SERVICES",
      scaChallenge: {
        id: newId("ScaChallenge"),
        expiresAt: plusSeconds(base.quote.createdAt, 300),
        factor: "SMS_OTP",
        availableFactors: ["SMS_OTP", "PASSKEY"],
        purpose: "CURRENCY_CONVERSION"
      },
      paymentInstructions: [
        {
          instructionsNotes: "Pay by SEPA",
          accountOrWalletInfo: {
            accountType: "IBAN",
            reference: `Q-${s.tag}`,
            iban: "DE89370400440532013000",
            accountHolderName: "Conformance Ltd",
            bankName: "Conformance Bank"
          }
        }
      ],
      rateDetails: {
        counterpartyMultiplier: 0.92,
        counterpartyFixedFee: 10,
        serviceApiMultiplier: 1.0025,
        serviceApiFixedFee: 100,
        serviceApiVariableFeeRate: 0.0025,
        serviceApiVariableFeeAmount: 25
      }
    },
    pricing: { netSendingAmount: 10_000, serviceFee: 100, platformFee: 50, minorRate: "0.92345670000000000001" },
    scaFactor: "SMS_OTP",
    scaAuthorizedAt: plusSeconds(base.quote.createdAt, 30),
    agentId: newId("Agent")
  }
}

export const withQuote = (r: QuoteRecord, patch: { readonly status?: QuoteStatus; readonly expiresAt?: string }) => ({
  ...r,
  quote: { ...r.quote, ...patch }
})

export const transactionMinimal = (s: Scope, id: string = newId("Transaction")): TransactionRecord => {
  const createdAt = s.next()
  return {
    id,
    transaction: {
      id: id as Transaction["id"],
      status: "PENDING",
      type: "INCOMING",
      direction: "CREDIT",
      source: {},
      destination: {},
      sentAmount: { amount: 100, currency: currency("USD") },
      receivedAmount: { amount: 100, currency: currency("USD") },
      createdAt,
      updatedAt: createdAt
    },
    state: "PENDING"
  }
}

export const transactionFull = (s: Scope, id?: string): TransactionRecord => {
  const base = transactionMinimal(s, id)
  const createdAt = base.transaction.createdAt
  const account = newId("InternalAccount")
  return {
    ...base,
    transaction: {
      ...base.transaction,
      status: "PROCESSING",
      type: "OUTGOING",
      direction: "DEBIT",
      source: { sourceType: "ACCOUNT", accountId: account, currency: "USD" },
      destination: {
        destinationType: "ACCOUNT",
        accountId: newId("ExternalAccount"),
        currency: "EUR",
        paymentRail: "SEPA_INSTANT"
      },
      customerId: s.customerId,
      platformCustomerId: `pc-${s.tag}`,
      agentId: newId("Agent"),
      sentAmount: { amount: 9_000_000_000_000_000, currency: currency("USD") },
      receivedAmount: { amount: 8_300_000_000_000_000, currency: currency("EUR") },
      exchangeRate: 0.9234567,
      quoteId: newId("Quote"),
      description: "Payout — ✓",
      failureReason: "PAYOUT_RETURNED",
      pendingReason: "COMPLIANCE_REVIEW",
      refund: {
        reference: `${id ?? base.id}:refund`,
        initiatedAt: plusSeconds(createdAt, 60),
        settledAt: plusSeconds(createdAt, 120),
        status: "COMPLETED",
        reason: "TRANSACTION_FAILED"
      },
      counterpartyInformation: { FULL_NAME: "Zoë O'Brien — ✓", BIRTH_DATE: "1990-01-01" },
      fees: 100,
      platformFees: 50,
      paymentRail: "SEPA_INSTANT",
      railSelectionMode: "AUTO",
      expectedSettlementAt: plusSeconds(createdAt, 60),
      settlementTimelineSeconds: 60,
      remittanceInformation: "INV-42",
      reconciliationInstructions: { reference: `RECON-${s.tag}` },
      settledAt: plusSeconds(createdAt, 61),
      receiptDeliveryConfirmedAt: plusSeconds(createdAt, 62),
      updatedAt: plusSeconds(createdAt, 61)
    },
    state: "SUBMITTED",
    accountId: account,
    railReference: `rail-${s.tag}`,
    dueAt: plusSeconds(createdAt, 90),
    attempts: 2,
    stalledAt: plusSeconds(createdAt, 3_600),
    decisionReason: "RESTRICTED_JURISDICTION",
    transfer: "OUT"
  }
}

export const ownerMinimal = (s: Scope, id: string = newId("BeneficialOwner")): BeneficialOwner => {
  const createdAt = s.next()
  return {
    id: id as BeneficialOwner["id"],
    customerId: s.customerId,
    roles: ["DIRECTOR"],
    ownershipPercentage: 0,
    personalInfo: {
      firstName: "Grace",
      lastName: "Hopper",
      birthDate: "1906-12-09",
      nationality: "US",
      address: { line1: "1 Navy Way", postalCode: "22202", country: "US" },
      idType: "SSN",
      identifier: "123-45-6789"
    },
    kycStatus: "UNVERIFIED",
    createdAt,
    updatedAt: createdAt
  }
}

export const ownerFull = (s: Scope, id?: string): BeneficialOwner => {
  const base = ownerMinimal(s, id)
  return {
    ...base,
    roles: ["UBO", "CONTROL_PERSON", "TRUSTEE"],
    ownershipPercentage: 100,
    personalInfo: {
      firstName: "María José",
      middleName: "Ünïcode ✓",
      lastName: "García-Núñez",
      birthDate: "1978-06-15",
      nationality: "MX",
      email: `owner.${s.tag}@example.com`,
      phoneNumber: "+525512345678",
      address: {
        line1: "Av. Reforma 222",
        line2: "Piso 5 – Oficina ✓",
        city: "Ciudad de México",
        state: "CDMX",
        postalCode: "06600",
        country: "MX"
      },
      idType: "NON_US_TAX_ID",
      identifier: "GANM780615XX1",
      countryOfIssuance: "MX"
    },
    kycStatus: "APPROVED",
    updatedAt: plusSeconds(base.createdAt, 7)
  }
}

export const verificationMinimal = (s: Scope, id: string = newId("Verification")): Verification => {
  const createdAt = s.next()
  return {
    id: id as Verification["id"],
    customerId: s.customerId,
    verificationStatus: "APPROVED",
    errors: [],
    createdAt,
    updatedAt: createdAt
  }
}

export const verificationFull = (s: Scope, id?: string): Verification => {
  const base = verificationMinimal(s, id)
  return {
    ...base,
    verificationStatus: "RESOLVE_ERRORS",
    errors: [
      { resourceId: s.customerId, type: "MISSING_FIELD", field: "customer.address", reason: "Address — required ✓" },
      {
        resourceId: newId("BeneficialOwner"),
        type: "MISSING_IDENTITY_DOCUMENT",
        acceptedDocumentTypes: ["PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"],
        reason: "An identity document is required"
      },
      { resourceId: s.customerId, type: "MISSING_CONTROL_PERSON", reason: "A control person is required" }
    ],
    updatedAt: plusSeconds(base.createdAt, 3)
  }
}

export const documentMinimal = (s: Scope, id: string = newId("Document")): DocumentRecord => {
  const createdAt = s.next()
  return {
    id,
    document: {
      id: id as DocumentRecord["document"]["id"],
      documentHolder: s.customerId,
      documentType: "PASSPORT",
      country: "US",
      fileName: "passport.pdf",
      createdAt,
      updatedAt: createdAt
    },
    files: [
      {
        key: `${id}/1`,
        fileName: "passport.pdf",
        contentType: "application/pdf",
        size: 1,
        sha256: "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        uploadedAt: createdAt,
        status: "ACTIVE"
      }
    ]
  }
}

export const documentFull = (s: Scope, id?: string): DocumentRecord => {
  const base = documentMinimal(s, id)
  const replacedAt = plusSeconds(base.document.createdAt, 60)
  return {
    ...base,
    document: {
      ...base.document,
      documentType: "DRIVERS_LICENSE",
      side: "BACK",
      country: "MX",
      documentNumber: `DL-${s.tag}`,
      issuingAuthority: "Secretaría de Movilidad ✓",
      fileName: "licencia (reverso) ✓.png",
      updatedAt: replacedAt
    },
    files: [
      { ...base.files[0]!, status: "INACTIVE" },
      {
        key: `${base.id}/2`,
        fileName: "licencia (reverso) ✓.png",
        contentType: "image/png",
        size: 10 * 1024 * 1024,
        sha256: "0".repeat(64),
        uploadedAt: replacedAt,
        status: "ACTIVE"
      }
    ],
    submittedAt: plusSeconds(replacedAt, 5),
    deletedAt: plusSeconds(replacedAt, 9)
  }
}

export const bulkImportJobMinimal = (s: Scope, id: string = newId("Job")): BulkImportJobRecord => {
  const createdAt = s.next()
  return {
    id,
    job: {
      id: id as BulkImportJobRecord["job"]["id"],
      status: "PENDING",
      progress: { total: 0, processed: 0, successful: 0, failed: 0 },
      errors: []
    },
    fileKey: id,
    createdAt,
    updatedAt: createdAt
  }
}

export const bulkImportJobFull = (s: Scope, id?: string): BulkImportJobRecord => {
  const base = bulkImportJobMinimal(s, id)
  const completedAt = plusSeconds(base.createdAt, 30)
  return {
    ...base,
    job: {
      ...base.job,
      status: "COMPLETED",
      progress: { total: 50_000, processed: 50_000, successful: 49_998, failed: 2 },
      errors: [
        {
          correlationId: `cust-${s.tag}`,
          code: "INVALID_INPUT",
          message: "Line 3: birthDate: Expected a date YYYY-MM-DD ✓",
          details: { line: 3, errors: [{ field: "birthDate", constraint: { format: "date" }, message: "bad" }] }
        },
        { correlationId: "7", code: "INVALID_REQUEST_FORMAT", message: "Line 7 has 3 fields" }
      ],
      completedAt
    },
    updatedAt: completedAt
  }
}

export const contactChallenge = (s: Scope, channel: ContactChallenge["channel"] = "EMAIL"): ContactChallenge => {
  const sentAt = s.next()
  return {
    key: `${s.customerId}/${channel}`,
    customerId: s.customerId,
    channel,
    codeHash: "8d969eef6ecad3c29a3a629280e686cf0c3f5d5a86aff3ca12020c923adc6c92",
    sentTo: channel === "EMAIL" ? `ada.${s.tag}@example.com` : "+4915112345678",
    sentAt,
    expiresAt: plusSeconds(sentAt, 600),
    attempts: 0
  }
}

export interface PaymentOptions {
  readonly customerId?: CustomerId
  readonly status: TransactionStatus
  readonly type: TransactionType
  readonly state: string
  readonly source?: string
  readonly destination?: string
  readonly platformCustomerId?: string
  readonly reference?: string
  readonly dueAt?: string
}

/** A transaction for the filter tests: exactly the filtered fields given. */
export const payment = (s: Scope, o: PaymentOptions): TransactionRecord => {
  const base = transactionMinimal(s)
  return {
    ...base,
    transaction: {
      ...base.transaction,
      status: o.status,
      type: o.type,
      direction: o.type === "INCOMING" ? "CREDIT" : "DEBIT",
      source: o.source === undefined ? {} : { accountId: o.source },
      destination: o.destination === undefined ? {} : { accountId: o.destination },
      ...(o.customerId === undefined ? {} : { customerId: o.customerId }),
      ...(o.platformCustomerId === undefined ? {} : { platformCustomerId: o.platformCustomerId }),
      ...(o.reference === undefined ? {} : { reconciliationInstructions: { reference: o.reference } })
    },
    state: o.state,
    ...(o.dueAt === undefined ? {} : { dueAt: o.dueAt })
  }
}

export const eventBody = (subject: string, type: string) =>
  JSON.stringify({ type, timestamp: NOW, data: { subject, note: "naïve café ✓ €" } })

export interface EventOptions {
  readonly status?: OutboxRecord["status"]
  readonly createdAt?: string
  readonly nextAttemptAt?: string
  readonly leaseUntil?: string
}

export const newEvent = (subject: string, type: string, o: EventOptions = {}): NewOutboxRecord => ({
  id: newId("Webhook"),
  type,
  subject,
  createdAt: o.createdAt ?? NOW,
  body: eventBody(subject, type),
  status: o.status ?? "PENDING",
  attempts: [],
  nextAttemptAt: o.nextAttemptAt ?? o.createdAt ?? NOW,
  ...(o.leaseUntil === undefined ? {} : { leaseUntil: o.leaseUntil })
})

export const outboxRow = (subject: string, type: string, sequence: number, o: EventOptions = {}): OutboxRecord => ({
  ...newEvent(subject, type, o),
  sequence
})

export const numbered = (event: NewOutboxRecord, sequence: number): OutboxRecord => ({ ...event, sequence })

export const deliveryAttempts: OutboxRecord["attempts"] = [
  { at: "2026-03-02T12:00:01.000Z", url: "https://platform.example.com/hooks", responseStatus: 500, durationMs: 120 },
  { at: "2026-03-02T12:00:31.000Z", url: "https://platform.example.com/hooks", error: "ECONNREFUSED", durationMs: 3 }
]

export const transfer = (
  reference: string,
  n: number,
  debit: string,
  credit: string,
  amount: number,
  state: LedgerTransfer["state"],
  currencyCode = "USD"
): LedgerTransfer => ({
  id: `${reference}#${n}`,
  debit,
  credit,
  amount,
  currency: currencyCode,
  state,
  reference,
  createdAt: NOW
})

export const balance = (
  account: string,
  currencyCode: string,
  posted: number,
  pendingDebits = 0,
  pendingCredits = 0
): LedgerBalance => ({ account, currency: currencyCode, posted, pendingDebits, pendingCredits })

/** A ledger account no other test touches. */
export const ledgerAccount = () => newId("InternalAccount") as string
export const systemLedgerAccount = (role: string, currencyCode: string) => `system:${role}-${unique()}:${currencyCode}`

export const idempotencyRecord = (
  key: string,
  body = JSON.stringify({ id: "Quote:1", ok: "✓" })
): IdempotencyRecord => ({
  key,
  fingerprint: "3f2a9c0e5b7d1f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a",
  status: 201,
  body,
  createdAt: NOW
})
