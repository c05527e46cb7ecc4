/**
 * A conformance suite for `Store` adapters: every repository of the port, its filters, paging, unique keys,
 * ledger arithmetic, outbox numbering and leasing, and transaction rollback. The in-memory store is the
 * reference; an adapter passes when it behaves the same way through the port.
 */
import { assert, describe, layer, type Vitest } from "@effect/vitest"
import {
  type BeneficialOwner,
  type BeneficialOwnerFilter,
  type BulkImportJobFilter,
  type BulkImportJobRecord,
  type BusinessCustomer,
  type Collection,
  type ContactChallenge,
  type Customer,
  type CustomerFilter,
  type CustomerId,
  cryptoRandom,
  currency,
  type DocumentFilter,
  type DocumentRecord,
  decodeCursor,
  type ExternalAccount,
  type ExternalAccountFilter,
  type IdempotencyRecord,
  type IdOf,
  type IndividualCustomer,
  type InternalAccountFilter,
  type InternalAccountRecord,
  type LedgerBalance,
  type LedgerTransfer,
  makeUuidV7,
  type NewOutboxRecord,
  type OutboxFilter,
  type OutboxRecord,
  type Page,
  type PageRequest,
  type PlatformConfig,
  type QuoteFilter,
  type QuoteRecord,
  type QuoteStatus,
  Store,
  type StoreError,
  type TokenFilter,
  type TokenRecord,
  type Transaction,
  type TransactionFilter,
  type TransactionRecord,
  type TransactionStatus,
  type TransactionType,
  type Verification,
  type VerificationFilter,
  type WebhookSecretRecord
} from "@paycore/core"
import { type Duration, Effect, Exit, type Layer, Option } from "effect"
import { currencyTotals } from "./ledger-invariants.ts"

type StoreService = Store["Service"]
type It = Vitest.MethodsNonLive<Store>
type ListFn<T, F> = (filter: F, page: PageRequest) => Effect.Effect<Page<T>, StoreError>

// ---------------------------------------------------------------------------------------------
// Ids, unique values and instants
// ---------------------------------------------------------------------------------------------

// One monotonic UUID v7 generator for the whole suite: ids of one type sort in creation order, as the
// engine's do, and never repeat across tests sharing one store.
const nextUuid = makeUuidV7(cryptoRandom())
const newId = <T extends keyof IdOf>(type: T): IdOf[T] => `${type}:${nextUuid(Date.now())}` as IdOf[T]
/** A fresh value for names, keys and subjects (16 hex digits). */
const unique = (): string => crypto.randomUUID().replaceAll("-", "").slice(0, 16)

const HOUR = 3_600_000
/** A random whole hour in [fromYear, toYear) (UTC), in milliseconds. */
const randomHour = (fromYear: number, toYear: number): number => {
  const from = Date.UTC(fromYear, 0, 1)
  const hours = Math.floor((Date.UTC(toYear, 0, 1) - from) / HOUR)
  return from + Math.floor(Math.random() * hours) * HOUR
}
const plusSeconds = (iso: string, seconds: number): string => new Date(Date.parse(iso) + seconds * 1000).toISOString()

/** A realistic "now" for rows whose instants the test does not look at. */
const NOW = "2026-03-02T12:00:00.000Z"

/**
 * What one test owns in a shared store: a unique tag (names, keys, subjects), a customer id its rows belong to,
 * and a one-day window of instants at a random hour (far from the instants of other tests), so its filters
 * match its own rows only.
 */
interface Scope {
  readonly tag: string
  readonly customerId: CustomerId
  /** `seconds` after the window's start, as an ISO date-time. */
  readonly at: (seconds: number) => string
  /** The next instant of the window, one second after the previous one (creation times in order). */
  readonly next: () => string
}

/** Window size: `at(0)` and `at(DAY)` bound every instant of a scope. */
const DAY = 86_400

const makeScope = (fromYear = 3000, toYear = 9000): Scope => {
  const base = randomHour(fromYear, toYear)
  let n = 0
  const at = (seconds: number) => new Date(base + seconds * 1000).toISOString()
  return { tag: unique(), customerId: newId("Customer"), at, next: () => at(++n) }
}

// ---------------------------------------------------------------------------------------------
// Record factories (valid records of the model; optional fields absent or present, never undefined)
// ---------------------------------------------------------------------------------------------

const tokenName = (s: Scope) => `conformance token ${s.tag}`

const tokenMinimal = (s: Scope, id: string = newId("Token")): TokenRecord => {
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

const tokenFull = (s: Scope, id?: string): TokenRecord => {
  const base = tokenMinimal(s, id)
  return {
    ...base,
    permissions: ["VIEW", "TRANSACT", "MANAGE"],
    environment: "PRODUCTION",
    updatedAt: plusSeconds(base.createdAt, 30),
    deletedAt: plusSeconds(base.createdAt, 60)
  }
}

const individualMinimal = (s: Scope, id: string = newId("Customer")): IndividualCustomer => {
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

const individualFull = (s: Scope, id?: string): IndividualCustomer => {
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

const businessCustomer = (s: Scope, id: string = newId("Customer")): BusinessCustomer => {
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

const internalMinimal = (s: Scope, id: string = newId("InternalAccount")): InternalAccountRecord => {
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

const internalFull = (s: Scope, id?: string): InternalAccountRecord => {
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

const externalMinimal = (s: Scope, id: string = newId("ExternalAccount")): ExternalAccount => {
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

const externalFull = (s: Scope, id?: string): ExternalAccount => {
  const base = externalMinimal(s, id)
  return {
    ...base,
    currency: "USD",
    platformAccountId: `ext-${s.tag}`,
    ownershipType: "THIRD_PARTY",
    defaultUmaDepositAccount: true,
    paymentRails: ["ACH", "WIRE"],
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

const quoteMinimal = (s: Scope, id: string = newId("Quote")): QuoteRecord => {
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

const quoteFull = (s: Scope, id?: string): QuoteRecord => {
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
    pricing: { netSendingAmount: 10_000, serviceFee: 100, platformFee: 50, minorRate: "0.92345670000000000001" }
  }
}

const withQuote = (r: QuoteRecord, patch: { readonly status?: QuoteStatus; readonly expiresAt?: string }) => ({
  ...r,
  quote: { ...r.quote, ...patch }
})

const transactionMinimal = (s: Scope, id: string = newId("Transaction")): TransactionRecord => {
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

const transactionFull = (s: Scope, id?: string): TransactionRecord => {
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
      fees: 100,
      platformFees: 50,
      paymentRail: "SEPA_INSTANT",
      railSelectionMode: "AUTO",
      expectedSettlementAt: plusSeconds(createdAt, 60),
      settlementTimelineSeconds: 60,
      remittanceInformation: "INV-42",
      reconciliationInstructions: { reference: `RECON-${s.tag}` },
      settledAt: plusSeconds(createdAt, 61),
      updatedAt: plusSeconds(createdAt, 61)
    },
    state: "SUBMITTED",
    accountId: account,
    railReference: `rail-${s.tag}`,
    dueAt: plusSeconds(createdAt, 90),
    attempts: 2,
    stalledAt: plusSeconds(createdAt, 3_600)
  }
}

const ownerMinimal = (s: Scope, id: string = newId("BeneficialOwner")): BeneficialOwner => {
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

const ownerFull = (s: Scope, id?: string): BeneficialOwner => {
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

const verificationMinimal = (s: Scope, id: string = newId("Verification")): Verification => {
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

const verificationFull = (s: Scope, id?: string): Verification => {
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

const documentMinimal = (s: Scope, id: string = newId("Document")): DocumentRecord => {
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

const documentFull = (s: Scope, id?: string): DocumentRecord => {
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

const bulkImportJobMinimal = (s: Scope, id: string = newId("Job")): BulkImportJobRecord => {
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

const bulkImportJobFull = (s: Scope, id?: string): BulkImportJobRecord => {
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

const contactChallenge = (s: Scope, channel: ContactChallenge["channel"] = "EMAIL"): ContactChallenge => {
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

interface PaymentOptions {
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
const payment = (s: Scope, o: PaymentOptions): TransactionRecord => {
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

const eventBody = (subject: string, type: string) =>
  JSON.stringify({ type, timestamp: NOW, data: { subject, note: "naïve café ✓ €" } })

interface EventOptions {
  readonly status?: OutboxRecord["status"]
  readonly createdAt?: string
  readonly nextAttemptAt?: string
  readonly leaseUntil?: string
}

const newEvent = (subject: string, type: string, o: EventOptions = {}): NewOutboxRecord => ({
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

const outboxRow = (subject: string, type: string, sequence: number, o: EventOptions = {}): OutboxRecord => ({
  ...newEvent(subject, type, o),
  sequence
})

const numbered = (event: NewOutboxRecord, sequence: number): OutboxRecord => ({ ...event, sequence })

const deliveryAttempts: OutboxRecord["attempts"] = [
  { at: "2026-03-02T12:00:01.000Z", url: "https://platform.example.com/hooks", responseStatus: 500, durationMs: 120 },
  { at: "2026-03-02T12:00:31.000Z", url: "https://platform.example.com/hooks", error: "ECONNREFUSED", durationMs: 3 }
]

const transfer = (
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

const balance = (
  account: string,
  currencyCode: string,
  posted: number,
  pendingDebits = 0,
  pendingCredits = 0
): LedgerBalance => ({ account, currency: currencyCode, posted, pendingDebits, pendingCredits })

/** A ledger account no other test touches. */
const ledgerAccount = () => newId("InternalAccount") as string
const systemLedgerAccount = (role: string, currencyCode: string) => `system:${role}-${unique()}:${currencyCode}`

const idempotencyRecord = (key: string, body = JSON.stringify({ id: "Quote:1", ok: "✓" })): IdempotencyRecord => ({
  key,
  fingerprint: "3f2a9c0e5b7d1f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a",
  status: 201,
  body,
  createdAt: NOW
})

const configMinimal = (): PlatformConfig => ({
  id: "PlatformConfig:0190a5b2-0000-7000-8000-000000000001",
  umaDomain: "conformance.example",
  supportedCurrencies: ["USD"],
  isRegulatedFinancialInstitution: false,
  skipVerificationPaperwork: false,
  feeConfigs: [],
  transactionLimits: [],
  createdAt: NOW,
  updatedAt: NOW
})

const configFull = (): PlatformConfig => ({
  ...configMinimal(),
  webhookEndpoint: "https://platform.example.com/hooks",
  supportedCurrencies: ["USD", "EUR", "MXN", "USDC"],
  isRegulatedFinancialInstitution: true,
  skipVerificationPaperwork: true,
  feeConfigs: [
    {
      feeType: "CROSS_CURRENCY_TRANSACTION",
      sourceCurrency: "USD",
      variableFeeBps: 25,
      fixedFee: { amount: 30, currency: "USD" }
    },
    { feeType: "CROSS_CURRENCY_TRANSACTION", sourceCurrency: "EUR" }
  ],
  cardConfigs: { maxSpendPerTransaction: 500_000, maxSpendPerDay: null },
  cardTokenization2faConfig: {
    displayName: "Conformance",
    logoUrl: "https://platform.example.com/logo.png",
    email: { fromAddress: "noreply@example.com", subject: "Your code ✓" },
    sms: { bodyText: "Code: {{code}}" }
  },
  transactionLimits: [
    { currency: "USD", maxTransactionAmount: 1_000_000, maxDailyVolume: 9_000_000_000_000_000 },
    { currency: "EUR" }
  ],
  updatedAt: "2026-03-02T12:30:00.000Z"
})

// ---------------------------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------------------------

const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((r) => r.id)

/** `{ _tag: "UniqueViolation", index }` (other fields allowed); `index` unchecked when not given. */
const assertUniqueViolation = (error: unknown, index?: string) => {
  const e = error as { readonly _tag?: unknown; readonly index?: unknown }
  assert.strictEqual(e._tag, "UniqueViolation", `expected a UniqueViolation, got ${JSON.stringify(error)}`)
  if (index !== undefined) assert.strictEqual(e.index, index, "the UniqueViolation names the unique key")
}

/** A page is consistent: at most `limit` rows; a full page with a cursor to its last row iff more follow. */
const assertPageShape = <T extends { readonly id: string }>(page: Page<T>, limit: number) => {
  assert.isAtMost(page.data.length, limit, "no more rows than the limit")
  if (page.hasMore) {
    assert.strictEqual(page.data.length, limit, "a page followed by more rows is full")
    assert.isDefined(page.nextCursor, "a page followed by more rows has a cursor")
    assert.strictEqual(decodeCursor(page.nextCursor!), page.data[page.data.length - 1]!.id, "cursor of the last row")
  } else {
    assert.isUndefined(page.nextCursor, "the last page has no cursor")
  }
}

/** Every row of a page comes after the cursor (so paging makes progress and ends). */
const assertAfterCursor = <T extends { readonly id: string }>(page: Page<T>, after: string, order: "asc" | "desc") => {
  for (const row of page.data) {
    const ok = order === "asc" ? row.id > after : row.id < after
    assert.isTrue(ok, `a page after ${after} (${order}) holds ${row.id}`)
  }
}

const assertStrictlyOrdered = (list: ReadonlyArray<string>, order: "asc" | "desc") => {
  for (let i = 1; i < list.length; i++) {
    const ok = order === "asc" ? list[i - 1]! < list[i]! : list[i - 1]! > list[i]!
    assert.isTrue(ok, `rows ordered by id ${order} without repeats: ${list[i - 1]} then ${list[i]}`)
  }
}

/** The list gives exactly `expected`, in id order, with its total count; each row deep-equals its record. */
const expectList = Effect.fnUntraced(function* <T extends { readonly id: string }, F>(
  list: ListFn<T, F>,
  filter: F,
  expected: ReadonlyArray<T>,
  message?: string
) {
  const note = message ?? JSON.stringify(filter)
  const asc = yield* list(filter, { limit: 100, sortOrder: "asc" })
  assert.deepStrictEqual(ids(asc.data), ids(expected), `ids of ${note}`)
  assert.deepStrictEqual(asc.data, expected, `rows of ${note}`)
  assert.strictEqual(asc.totalCount, expected.length, `totalCount of ${note}`)
  assert.isFalse(asc.hasMore, `hasMore of ${note}`)
})

/** Every row of the list, paging ascending; `totalCount` as the first page gave it. */
const listAll = Effect.fnUntraced(function* <T extends { readonly id: string }, F>(list: ListFn<T, F>, filter: F) {
  const rows: Array<T> = []
  let after: string | undefined
  let totalCount: number | undefined
  for (;;) {
    const page = yield* list(filter, { limit: 100, sortOrder: "asc", after })
    assertPageShape(page, 100)
    if (after !== undefined) assertAfterCursor(page, after, "asc")
    totalCount ??= page.totalCount
    rows.push(...page.data)
    const last = page.data[page.data.length - 1]
    if (!page.hasMore || last === undefined) break
    after = last.id
  }
  return { rows, totalCount: totalCount ?? 0 }
})

/**
 * A filter on a store that other tests share: every row it lists satisfies `predicate`, it lists the
 * `included` rows and not the `excluded` ones, in id order, and `totalCount` counts them all.
 */
const expectFiltered = Effect.fnUntraced(function* <T extends { readonly id: string }, F>(
  list: ListFn<T, F>,
  filter: F,
  predicate: (row: T) => boolean,
  rows: { readonly included: ReadonlyArray<T>; readonly excluded: ReadonlyArray<T> }
) {
  const note = JSON.stringify(filter)
  const all = yield* listAll(list, filter)
  for (const row of all.rows) assert.isTrue(predicate(row), `${row.id} does not satisfy ${note}`)
  const listed = new Set(ids(all.rows))
  for (const row of rows.included) assert.isTrue(listed.has(row.id), `${note} lists ${row.id}`)
  for (const row of rows.excluded) assert.isFalse(listed.has(row.id), `${note} leaves out ${row.id}`)
  assertStrictlyOrdered(ids(all.rows), "asc")
  assert.strictEqual(all.totalCount, all.rows.length, `totalCount of ${note}`)
})

// ---------------------------------------------------------------------------------------------
// The tests every collection shares
// ---------------------------------------------------------------------------------------------

interface CollectionCase<T extends { readonly id: string }, F> {
  readonly name: string
  readonly of: (store: StoreService) => Collection<T, F>
  readonly newId: () => string
  /** A row of `scope` with every optional field present and fresh unique keys. */
  readonly full: (scope: Scope, id?: string) => T
  /** A row with no optional field (it need not match `filter(scope)`). */
  readonly minimal: (scope: Scope, id?: string) => T
  /** A filter matching the rows `full` makes for `scope`: exactly them when `exact`, else among others. */
  readonly filter: (scope: Scope) => F
  readonly exact: boolean
}

const collectionTests = <T extends { readonly id: string }, F>(it: It, c: CollectionCase<T, F>) => {
  it.effect("insert then get round-trips rows with and without optional fields; unknown ids are undefined", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const rows = c.of(store)
      const s = makeScope()
      const full = c.full(s)
      const minimal = c.minimal(s)
      yield* rows.insert(full)
      yield* rows.insert(minimal)
      assert.deepStrictEqual(yield* rows.get(full.id), full)
      assert.deepStrictEqual(yield* rows.get(minimal.id), minimal)
      assert.isUndefined(yield* rows.get(c.newId()))
      const locked = yield* store.transaction(
        Effect.all([rows.getForUpdate(full.id), rows.getForUpdate(minimal.id), rows.getForUpdate(c.newId())])
      )
      assert.deepStrictEqual(locked, [full, minimal, undefined])
    })
  )

  it.effect("update replaces the row: optional fields added and removed", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const rows = c.of(store)
      const s = makeScope()
      const first = c.full(s)
      yield* rows.insert(first)
      const stripped = c.minimal(s, first.id)
      yield* store.transaction(
        Effect.gen(function* () {
          assert.deepStrictEqual(yield* rows.getForUpdate(first.id), first)
          yield* rows.update(stripped)
        })
      )
      assert.deepStrictEqual(yield* rows.get(first.id), stripped, "optional fields removed")
      const again = c.full(s, first.id)
      yield* rows.update(again)
      assert.deepStrictEqual(yield* rows.get(first.id), again, "optional fields added")
    })
  )

  it.effect("a second row with an existing id is refused and changes nothing", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const rows = c.of(store)
      const s = makeScope()
      const row = c.full(s)
      yield* rows.insert(row)
      const error = yield* rows.insert(c.full(s, row.id)).pipe(Effect.flip)
      assertUniqueViolation(error)
      assert.deepStrictEqual(yield* rows.get(row.id), row)
    })
  )

  it.effect("insertMany writes every row; a taken id, stored or repeated among the rows, refuses them all", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const rows = c.of(store)
      const s = makeScope()
      yield* rows.insertMany([])
      const batch = [c.full(s), c.minimal(s), c.full(s)]
      yield* rows.insertMany(batch)
      for (const row of batch) assert.deepStrictEqual(yield* rows.get(row.id), row)

      const stored = [c.full(s), c.full(s, batch[1]!.id)]
      assertUniqueViolation(yield* rows.insertMany(stored).pipe(Effect.flip), "id")
      assert.isUndefined(yield* rows.get(stored[0]!.id), "a refused insertMany writes none of its rows")
      assert.deepStrictEqual(yield* rows.get(batch[1]!.id), batch[1], "the stored row is unchanged")

      const first = c.full(s)
      const repeated = [first, c.full(s), c.minimal(s, first.id)]
      assertUniqueViolation(yield* rows.insertMany(repeated).pipe(Effect.flip), "id")
      for (const row of repeated) assert.isUndefined(yield* rows.get(row.id), "a refused insertMany writes nothing")
    })
  )

  it.effect("insertMany in a transaction: a refusal leaves it usable, a rollback undoes the rows", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const rows = c.of(store)
      const s = makeScope()
      const taken = c.full(s)
      yield* rows.insert(taken)
      const kept = [c.full(s), c.minimal(s)]
      const refused = [c.full(s), c.full(s, taken.id)]
      yield* store.transaction(
        Effect.gen(function* () {
          assertUniqueViolation(yield* rows.insertMany(refused).pipe(Effect.flip), "id")
          yield* rows.insertMany(kept)
        })
      )
      for (const row of kept) assert.deepStrictEqual(yield* rows.get(row.id), row)
      assert.isUndefined(yield* rows.get(refused[0]!.id), "the refused rows are not written")

      const undone = [c.full(s), c.minimal(s)]
      const exit = yield* Effect.exit(store.transaction(Effect.andThen(rows.insertMany(undone), Effect.fail("abort"))))
      assert.isTrue(Exit.isFailure(exit))
      for (const row of undone) assert.isUndefined(yield* rows.get(row.id), "a rollback undoes insertMany")
    })
  )

  it.effect("pages ascending with limit and after: rows added between pages come last, none skipped or repeated", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const rows = c.of(store)
      const s = makeScope()
      const filter = c.filter(s)
      const first = Array.from({ length: 5 }, () => c.full(s))
      for (const row of first) yield* rows.insert(row)
      const seen: Array<T> = []
      let page = yield* rows.list(filter, { limit: 2, sortOrder: "asc" })
      assertPageShape(page, 2)
      if (c.exact) {
        assert.deepStrictEqual(page.data, first.slice(0, 2))
        assert.strictEqual(page.totalCount, 5)
      }
      seen.push(...page.data)
      const added = [c.full(s), c.full(s)]
      for (const row of added) yield* rows.insert(row)
      while (page.hasMore) {
        const after = page.data[page.data.length - 1]!.id
        page = yield* rows.list(filter, { limit: 2, sortOrder: "asc", after })
        assertPageShape(page, 2)
        assertAfterCursor(page, after, "asc")
        seen.push(...page.data)
      }
      assertStrictlyOrdered(ids(seen), "asc")
      const mine = [...first, ...added]
      if (c.exact) {
        assert.deepStrictEqual(seen, mine)
        assert.strictEqual(page.totalCount, 7, "totalCount counts every match, not only those after the cursor")
      } else {
        assert.deepStrictEqual(ids(seen.slice(-mine.length)), ids(mine), "the newest rows come last")
      }
    })
  )

  it.effect("pages descending with limit and after: rows added between pages do not appear, none skipped", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const rows = c.of(store)
      const s = makeScope()
      const filter = c.filter(s)
      const first = Array.from({ length: 5 }, () => c.full(s))
      for (const row of first) yield* rows.insert(row)
      const newestFirst = [...first].reverse()
      let page = yield* rows.list(filter, { limit: 2, sortOrder: "desc" })
      assertPageShape(page, 2)
      assert.deepStrictEqual(page.data, newestFirst.slice(0, 2), "newest first")
      if (c.exact) assert.strictEqual(page.totalCount, 5)
      const seen: Array<T> = [...page.data]
      const added = [c.full(s), c.full(s)]
      for (const row of added) yield* rows.insert(row)
      // Unscoped lists stop once this test's rows are through (older rows belong to other tests).
      while (page.hasMore && !seen.some((r) => r.id === first[0]!.id)) {
        const after = page.data[page.data.length - 1]!.id
        page = yield* rows.list(filter, { limit: 2, sortOrder: "desc", after })
        assertPageShape(page, 2)
        assertAfterCursor(page, after, "desc")
        seen.push(...page.data)
      }
      assertStrictlyOrdered(ids(seen), "desc")
      for (const row of added) assert.notInclude(ids(seen), row.id, "a row newer than the cursor is not on later pages")
      if (c.exact) {
        assert.deepStrictEqual(seen, newestFirst)
        assert.strictEqual(page.totalCount, 7, "totalCount counts every match, not only those after the cursor")
      } else {
        assert.deepStrictEqual(ids(seen.slice(0, 5)), ids(newestFirst))
      }
    })
  )
}

const tokensCase: CollectionCase<TokenRecord, TokenFilter> = {
  name: "tokens",
  of: (store) => store.tokens,
  newId: () => newId("Token"),
  full: tokenFull,
  minimal: tokenMinimal,
  filter: (s) => ({ name: tokenName(s), includeDeleted: true }),
  exact: true
}

const customersCase: CollectionCase<Customer, CustomerFilter> = {
  name: "customers",
  of: (store) => store.customers,
  newId: () => newId("Customer"),
  full: individualFull,
  minimal: individualMinimal,
  filter: (s) => ({ createdAfter: s.at(0), createdBefore: s.at(DAY), includeDeleted: true }),
  exact: true
}

const internalAccountsCase: CollectionCase<InternalAccountRecord, InternalAccountFilter> = {
  name: "internalAccounts",
  of: (store) => store.internalAccounts,
  newId: () => newId("InternalAccount"),
  full: internalFull,
  minimal: internalMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

const externalAccountsCase: CollectionCase<ExternalAccount, ExternalAccountFilter> = {
  name: "externalAccounts",
  of: (store) => store.externalAccounts,
  newId: () => newId("ExternalAccount"),
  full: externalFull,
  minimal: externalMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

const quotesCase: CollectionCase<QuoteRecord, QuoteFilter> = {
  name: "quotes",
  of: (store) => store.quotes,
  newId: () => newId("Quote"),
  full: quoteFull,
  minimal: quoteMinimal,
  // The quote filter has no key a test can own: pages run over every pending quote.
  filter: () => ({ status: "PENDING" }),
  exact: false
}

const transactionsCase: CollectionCase<TransactionRecord, TransactionFilter> = {
  name: "transactions",
  of: (store) => store.transactions,
  newId: () => newId("Transaction"),
  full: transactionFull,
  minimal: transactionMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

const beneficialOwnersCase: CollectionCase<BeneficialOwner, BeneficialOwnerFilter> = {
  name: "beneficialOwners",
  of: (store) => store.beneficialOwners,
  newId: () => newId("BeneficialOwner"),
  full: ownerFull,
  minimal: ownerMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

const verificationsCase: CollectionCase<Verification, VerificationFilter> = {
  name: "verifications",
  of: (store) => store.verifications,
  newId: () => newId("Verification"),
  full: verificationFull,
  minimal: verificationMinimal,
  filter: (s) => ({ customerId: s.customerId }),
  exact: true
}

const documentsCase: CollectionCase<DocumentRecord, DocumentFilter> = {
  name: "documents",
  of: (store) => store.documents,
  newId: () => newId("Document"),
  full: documentFull,
  minimal: documentMinimal,
  filter: (s) => ({ documentHolder: s.customerId, includeDeleted: true }),
  exact: true
}

const bulkImportJobsCase: CollectionCase<BulkImportJobRecord, BulkImportJobFilter> = {
  name: "bulkImportJobs",
  of: (store) => store.bulkImportJobs,
  newId: () => newId("Job"),
  full: bulkImportJobFull,
  minimal: bulkImportJobMinimal,
  // The job filter has no key a test can own: pages run over every completed job.
  filter: () => ({ statuses: ["COMPLETED"] }),
  exact: false
}

// ---------------------------------------------------------------------------------------------
// Repository-specific tests
// ---------------------------------------------------------------------------------------------

const tokenTests = (it: It) => {
  it.effect("findUnique by clientId; a taken clientId is refused on insert and on update", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = tokenMinimal(s)
      const b = tokenMinimal(s)
      yield* store.tokens.insert(a)
      yield* store.tokens.insert(b)
      assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", a.clientId), a)
      assert.isUndefined(yield* store.tokens.findUnique("clientId", `client-${unique()}`))

      const clash = { ...tokenMinimal(s), clientId: a.clientId }
      assertUniqueViolation(yield* store.tokens.insert(clash).pipe(Effect.flip), "clientId")
      assert.isUndefined(yield* store.tokens.get(clash.id), "a refused insert writes nothing")

      assertUniqueViolation(yield* store.tokens.update({ ...b, clientId: a.clientId }).pipe(Effect.flip), "clientId")
      assert.deepStrictEqual(yield* store.tokens.get(b.id), b, "a refused update changes nothing")
      assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", a.clientId), a)

      // Keeping its own key, or moving to a free one, is fine; the old key is free again.
      const renamed = { ...b, name: `${b.name} renamed`, clientId: `client-${unique()}` }
      yield* store.tokens.update(renamed)
      assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", renamed.clientId), renamed)
      assert.isUndefined(yield* store.tokens.findUnique("clientId", b.clientId))
      const reuse = { ...tokenMinimal(s), clientId: b.clientId }
      yield* store.tokens.insert(reuse)
      assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", b.clientId), reuse)

      // A violation inside a transaction fails it: its earlier writes are rolled back.
      const earlier = tokenMinimal(s)
      const error = yield* store
        .transaction(
          Effect.gen(function* () {
            yield* store.tokens.insert(earlier)
            yield* store.tokens.insert({ ...tokenMinimal(s), clientId: a.clientId })
          })
        )
        .pipe(Effect.flip)
      assertUniqueViolation(error, "clientId")
      assert.isUndefined(yield* store.tokens.get(earlier.id))
    })
  )

  it.effect("list filters: name, createdAfter and createdBefore (exclusive), includeDeleted", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<TokenRecord, TokenFilter> = store.tokens.list
      const s = makeScope()
      const name = tokenName(s)
      const t1 = { ...tokenMinimal(s), createdAt: s.at(10) }
      const t2 = { ...tokenMinimal(s), createdAt: s.at(20), deletedAt: s.at(25) }
      const t3 = { ...tokenMinimal(s), createdAt: s.at(30) }
      const other = { ...tokenMinimal(s), name: `${name} (other)`, createdAt: s.at(20) }
      for (const t of [t1, t2, t3, other]) yield* store.tokens.insert(t)

      yield* expectList(list, { name, includeDeleted: false }, [t1, t3])
      yield* expectList(list, { name, includeDeleted: true }, [t1, t2, t3])
      yield* expectList(list, { name, createdAfter: s.at(10), includeDeleted: true }, [t2, t3])
      yield* expectList(list, { name, createdBefore: s.at(30), includeDeleted: true }, [t1, t2])
      yield* expectList(list, { name, createdAfter: s.at(10), createdBefore: s.at(30), includeDeleted: false }, [])
      yield* expectList(list, { createdAfter: s.at(10), createdBefore: s.at(30), includeDeleted: true }, [t2, other])

      // Each filter alone, among the rows of other tests.
      yield* expectFiltered(
        list,
        { createdAfter: s.at(20), includeDeleted: false },
        (t) => t.createdAt > s.at(20) && t.deletedAt === undefined,
        { included: [t3], excluded: [t1, t2, other] }
      )
      yield* expectFiltered(list, { createdBefore: s.at(20), includeDeleted: true }, (t) => t.createdAt < s.at(20), {
        included: [t1],
        excluded: [t2, t3, other]
      })
      yield* expectFiltered(list, { includeDeleted: false }, (t) => t.deletedAt === undefined, {
        included: [t1, t3, other],
        excluded: [t2]
      })
      yield* expectFiltered(list, { includeDeleted: true }, () => true, { included: [t1, t2, t3, other], excluded: [] })
    })
  )
}

const customerTests = (it: It) => {
  it.effect("findUnique by platformCustomerId and umaAddress; taken keys are refused on insert and on update", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = individualFull(s)
      const b = businessCustomer(s)
      yield* store.customers.insert(a)
      yield* store.customers.insert(b)
      assert.deepStrictEqual(yield* store.customers.findUnique("platformCustomerId", a.platformCustomerId), a)
      assert.deepStrictEqual(yield* store.customers.findUnique("umaAddress", b.umaAddress), b)
      assert.isUndefined(yield* store.customers.findUnique("platformCustomerId", `pc-${unique()}`))
      assert.isUndefined(yield* store.customers.findUnique("umaAddress", `$u${unique()}@conformance.example`))

      const samePlatformId = { ...individualMinimal(s), platformCustomerId: a.platformCustomerId }
      assertUniqueViolation(yield* store.customers.insert(samePlatformId).pipe(Effect.flip), "platformCustomerId")
      const sameUma = { ...individualMinimal(s), umaAddress: a.umaAddress }
      assertUniqueViolation(yield* store.customers.insert(sameUma).pipe(Effect.flip), "umaAddress")
      assert.isUndefined(yield* store.customers.get(samePlatformId.id), "a refused insert writes nothing")
      assert.isUndefined(yield* store.customers.get(sameUma.id), "a refused insert writes nothing")

      assertUniqueViolation(
        yield* store.customers.update({ ...b, platformCustomerId: a.platformCustomerId }).pipe(Effect.flip),
        "platformCustomerId"
      )
      assertUniqueViolation(
        yield* store.customers.update({ ...b, umaAddress: a.umaAddress }).pipe(Effect.flip),
        "umaAddress"
      )
      assert.deepStrictEqual(yield* store.customers.get(b.id), b, "a refused update changes nothing")

      const moved = { ...b, platformCustomerId: `pc-${unique()}`, updatedAt: plusSeconds(b.updatedAt, 1) }
      yield* store.customers.update(moved)
      assert.deepStrictEqual(yield* store.customers.findUnique("platformCustomerId", moved.platformCustomerId), moved)
      assert.isUndefined(yield* store.customers.findUnique("platformCustomerId", b.platformCustomerId))
    })
  )

  it.effect("insertMany: a platformCustomerId or umaAddress taken, stored or among the rows, refuses every row", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = individualFull(s)
      yield* store.customers.insert(a)
      const deleted = { ...individualMinimal(s), isDeleted: true }
      yield* store.customers.insert(deleted)
      const refusals = [
        [
          "platformCustomerId",
          [individualFull(s), { ...businessCustomer(s), platformCustomerId: a.platformCustomerId }]
        ],
        ["umaAddress", [businessCustomer(s), { ...individualMinimal(s), umaAddress: a.umaAddress }]],
        [
          "platformCustomerId",
          (() => {
            const b = businessCustomer(s)
            return [b, individualFull(s), { ...individualMinimal(s), platformCustomerId: b.platformCustomerId }]
          })()
        ],
        [
          "umaAddress",
          (() => {
            const b = individualFull(s)
            return [b, { ...individualMinimal(s), umaAddress: b.umaAddress }]
          })()
        ]
      ] as const
      for (const [index, rows] of refusals) {
        assertUniqueViolation(yield* store.customers.insertMany(rows).pipe(Effect.flip), index)
        for (const row of rows)
          assert.isUndefined(yield* store.customers.get(row.id), "a refused insertMany writes nothing")
      }
      // A deleted customer holds no key: its platformCustomerId and umaAddress are free.
      const successor = {
        ...individualMinimal(s),
        platformCustomerId: deleted.platformCustomerId,
        umaAddress: deleted.umaAddress
      }
      const batch = [successor, businessCustomer(s)]
      yield* store.customers.insertMany(batch)
      assert.deepStrictEqual(
        yield* store.customers.findUnique("platformCustomerId", successor.platformCustomerId),
        successor
      )
      assert.deepStrictEqual(yield* store.customers.get(batch[1]!.id), batch[1])
    })
  )

  it.effect("a deleted customer frees its platformCustomerId and umaAddress", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = individualFull(s)
      yield* store.customers.insert(a)
      const deleted = { ...a, isDeleted: true, updatedAt: plusSeconds(a.updatedAt, 1) }
      yield* store.customers.update(deleted)
      assert.deepStrictEqual(yield* store.customers.get(a.id), deleted, "a deleted customer stays readable")
      assert.isUndefined(yield* store.customers.findUnique("platformCustomerId", a.platformCustomerId))
      assert.isUndefined(yield* store.customers.findUnique("umaAddress", a.umaAddress))
      const successor = { ...individualMinimal(s), platformCustomerId: a.platformCustomerId, umaAddress: a.umaAddress }
      yield* store.customers.insert(successor)
      assert.deepStrictEqual(yield* store.customers.findUnique("platformCustomerId", a.platformCustomerId), successor)
      assert.deepStrictEqual(yield* store.customers.findUnique("umaAddress", a.umaAddress), successor)
      const list: ListFn<Customer, CustomerFilter> = store.customers.list
      yield* expectList(list, { platformCustomerId: a.platformCustomerId, includeDeleted: false }, [successor])
      yield* expectList(list, { platformCustomerId: a.platformCustomerId, includeDeleted: true }, [deleted, successor])
    })
  )

  it.effect("list filters: type, region, currency, keys, created and updated ranges, includeDeleted", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<Customer, CustomerFilter> = store.customers.list
      const s = makeScope()
      const c1: Customer = { ...individualFull(s), createdAt: s.at(10), updatedAt: s.at(100) }
      const c2: Customer = { ...businessCustomer(s), createdAt: s.at(20), updatedAt: s.at(200) }
      const c3: Customer = { ...individualMinimal(s), createdAt: s.at(30), updatedAt: s.at(300), isDeleted: true }
      const c4: Customer = {
        ...individualMinimal(s),
        region: "US",
        currencies: ["EUR"],
        createdAt: s.at(40),
        updatedAt: s.at(400)
      }
      for (const c of [c1, c2, c3, c4]) yield* store.customers.insert(c)
      const window = { createdAfter: s.at(0), createdBefore: s.at(DAY) }
      const live = { ...window, includeDeleted: false }
      const all = { ...window, includeDeleted: true }

      yield* expectList(list, live, [c1, c2, c4])
      yield* expectList(list, all, [c1, c2, c3, c4])
      yield* expectList(list, { ...live, customerType: "BUSINESS" }, [c2])
      yield* expectList(list, { ...all, customerType: "INDIVIDUAL" }, [c1, c3, c4])
      yield* expectList(list, { ...live, region: "US" }, [c1, c4])
      yield* expectList(list, { ...all, currency: "USD" }, [c1, c2, c3])
      yield* expectList(list, { ...live, currency: "EUR" }, [c1, c4])
      yield* expectList(list, { ...live, currency: "MXN" }, [c2])
      yield* expectList(list, { ...all, platformCustomerId: c3.platformCustomerId }, [c3])
      yield* expectList(list, { ...live, platformCustomerId: c3.platformCustomerId }, [])
      yield* expectList(list, { ...live, umaAddress: c2.umaAddress }, [c2])
      yield* expectList(list, { createdAfter: s.at(10), createdBefore: s.at(40), includeDeleted: true }, [c2, c3])
      yield* expectList(list, { ...all, updatedAfter: s.at(200) }, [c3, c4])
      yield* expectList(list, { ...all, updatedBefore: s.at(300) }, [c1, c2])
      yield* expectList(list, { ...live, updatedAfter: s.at(100), updatedBefore: s.at(400) }, [c2])

      // Each filter alone, among the rows of other tests.
      yield* expectList(list, { platformCustomerId: c1.platformCustomerId, includeDeleted: false }, [c1])
      yield* expectList(list, { umaAddress: c4.umaAddress, includeDeleted: false }, [c4])
      yield* expectFiltered(
        list,
        { customerType: "BUSINESS", includeDeleted: false },
        (c) => c.customerType === "BUSINESS" && !c.isDeleted,
        {
          included: [c2],
          excluded: [c1, c3, c4]
        }
      )
      yield* expectFiltered(list, { region: "MX", includeDeleted: true }, (c) => c.region === "MX", {
        included: [c2],
        excluded: [c1, c3, c4]
      })
      yield* expectFiltered(
        list,
        { currency: "EUR", includeDeleted: false },
        (c) => c.currencies.includes("EUR") && !c.isDeleted,
        {
          included: [c1, c4],
          excluded: [c2, c3]
        }
      )
      yield* expectFiltered(list, { createdAfter: s.at(20), includeDeleted: true }, (c) => c.createdAt > s.at(20), {
        included: [c3, c4],
        excluded: [c1, c2]
      })
      yield* expectFiltered(
        list,
        { createdBefore: s.at(20), includeDeleted: false },
        (c) => c.createdAt < s.at(20) && !c.isDeleted,
        {
          included: [c1],
          excluded: [c2, c3, c4]
        }
      )
      yield* expectFiltered(list, { updatedAfter: s.at(300), includeDeleted: true }, (c) => c.updatedAt > s.at(300), {
        included: [c4],
        excluded: [c1, c2, c3]
      })
      yield* expectFiltered(list, { updatedBefore: s.at(200), includeDeleted: true }, (c) => c.updatedAt < s.at(200), {
        included: [c1],
        excluded: [c2, c3, c4]
      })
      yield* expectFiltered(list, { includeDeleted: false }, (c) => !c.isDeleted, {
        included: [c1, c2, c4],
        excluded: [c3]
      })
    })
  )
}

const internalAccountTests = (it: It) => {
  it.effect("list filters: customerId, currency, type", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<InternalAccountRecord, InternalAccountFilter> = store.internalAccounts.list
      const s = makeScope()
      const other = makeScope()
      const a1 = internalFull(s)
      const a2: InternalAccountRecord = { ...internalFull(s), currency: "USDC", type: "INTERNAL_CRYPTO" }
      const a3: InternalAccountRecord = { ...internalFull(s), type: "EMBEDDED_WALLET" }
      const b1 = internalFull(other)
      const platform = internalMinimal(s)
      for (const a of [a1, a2, a3, b1, platform]) yield* store.internalAccounts.insert(a)

      yield* expectList(list, { customerId: s.customerId }, [a1, a2, a3])
      yield* expectList(list, { customerId: other.customerId }, [b1])
      yield* expectList(list, { customerId: s.customerId, currency: "USD" }, [a1, a3])
      yield* expectList(list, { customerId: s.customerId, type: "INTERNAL_CRYPTO" }, [a2])
      yield* expectList(list, { customerId: s.customerId, currency: "USD", type: "EMBEDDED_WALLET" }, [a3])
      yield* expectList(list, { customerId: s.customerId, currency: "EUR" }, [])

      yield* expectFiltered(list, { currency: "USDC" }, (a) => a.currency === "USDC", {
        included: [a2],
        excluded: [a1, a3, b1, platform]
      })
      yield* expectFiltered(list, { type: "EMBEDDED_WALLET" }, (a) => a.type === "EMBEDDED_WALLET", {
        included: [a3],
        excluded: [a1, a2, b1, platform]
      })
      yield* expectFiltered(list, {}, () => true, { included: [a1, a2, a3, b1, platform], excluded: [] })
    })
  )
}

const externalAccountTests = (it: It) => {
  it.effect("list filters: customerId, currency; INACTIVE accounts are left out of lists but readable", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<ExternalAccount, ExternalAccountFilter> = store.externalAccounts.list
      const s = makeScope()
      const other = makeScope()
      const e1 = externalFull(s)
      const e2 = externalMinimal(s)
      const e3: ExternalAccount = { ...externalFull(s), status: "INACTIVE", defaultUmaDepositAccount: false }
      const e4: ExternalAccount = { ...externalMinimal(s), status: "PENDING" }
      const f1 = externalFull(other)
      for (const e of [e1, e2, e3, e4, f1]) yield* store.externalAccounts.insert(e)

      yield* expectList(list, { customerId: s.customerId }, [e1, e2, e4])
      yield* expectList(list, { customerId: s.customerId, currency: "USD" }, [e1])
      yield* expectList(list, { customerId: s.customerId, currency: "EUR" }, [e2, e4])
      yield* expectList(list, { customerId: other.customerId }, [f1])
      assert.deepStrictEqual(yield* store.externalAccounts.get(e3.id), e3)

      // Deleting (status INACTIVE) hides an account from lists.
      const deleted: ExternalAccount = { ...e1, status: "INACTIVE", defaultUmaDepositAccount: false }
      yield* store.externalAccounts.update(deleted)
      yield* expectList(list, { customerId: s.customerId }, [e2, e4])
      assert.deepStrictEqual(yield* store.externalAccounts.get(e1.id), deleted)

      yield* expectFiltered(list, { currency: "EUR" }, (e) => e.currency === "EUR" && e.status !== "INACTIVE", {
        included: [e2, e4],
        excluded: [e1, e3, f1]
      })
    })
  )
}

const quoteTests = (it: It) => {
  it.effect("findUnique by transactionId; a taken transactionId is refused on insert and on update", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const a = quoteFull(s)
      const b = quoteMinimal(s)
      yield* store.quotes.insert(a)
      yield* store.quotes.insert(b)
      assert.deepStrictEqual(yield* store.quotes.findUnique("transactionId", a.quote.transactionId), a)
      assert.deepStrictEqual(yield* store.quotes.findUnique("transactionId", b.quote.transactionId), b)
      assert.isUndefined(yield* store.quotes.findUnique("transactionId", newId("Transaction")))

      const clash = quoteMinimal(s)
      const clashing = { ...clash, quote: { ...clash.quote, transactionId: a.quote.transactionId } }
      assertUniqueViolation(yield* store.quotes.insert(clashing).pipe(Effect.flip), "transactionId")
      assert.isUndefined(yield* store.quotes.get(clash.id), "a refused insert writes nothing")
      const moved = { ...b, quote: { ...b.quote, transactionId: a.quote.transactionId } }
      assertUniqueViolation(yield* store.quotes.update(moved).pipe(Effect.flip), "transactionId")
      assert.deepStrictEqual(yield* store.quotes.get(b.id), b, "a refused update changes nothing")

      const executed = withQuote(a, { status: "PROCESSING" })
      yield* store.quotes.update(executed)
      assert.deepStrictEqual(yield* store.quotes.findUnique("transactionId", a.quote.transactionId), executed)
    })
  )

  it.effect("getForUpdateWithTransaction: the quote with its transaction, in and outside a store transaction", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const record = transactionMinimal(s)
      const minimal = quoteMinimal(s)
      const quote: QuoteRecord = { ...minimal, quote: { ...minimal.quote, transactionId: record.transaction.id } }
      yield* store.quotes.insert(quote)
      assert.deepStrictEqual(yield* store.quotes.getForUpdateWithTransaction(quote.id), {
        quote,
        transaction: undefined
      })
      yield* store.transactions.insert(record)
      assert.deepStrictEqual(yield* store.quotes.getForUpdateWithTransaction(quote.id), { quote, transaction: record })
      assert.deepStrictEqual(yield* store.transaction(store.quotes.getForUpdateWithTransaction(quote.id)), {
        quote,
        transaction: record
      })
      assert.isUndefined(yield* store.quotes.getForUpdateWithTransaction(newId("Quote")))
    })
  )

  it.effect("setStatus moves a quote's status, in and outside a store transaction; a missing quote stays missing", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const quote = quoteFull(s)
      yield* store.quotes.insert(quote)
      yield* store.quotes.setStatus(quote.id, "PROCESSING")
      assert.deepStrictEqual(yield* store.quotes.get(quote.id), withQuote(quote, { status: "PROCESSING" }))
      yield* store.transaction(store.quotes.setStatus(quote.id, "COMPLETED"))
      assert.deepStrictEqual(yield* store.quotes.get(quote.id), withQuote(quote, { status: "COMPLETED" }))
      const missing = newId("Quote")
      yield* store.quotes.setStatus(missing, "FAILED")
      assert.isUndefined(yield* store.quotes.get(missing))
    })
  )

  it.effect("list filters: status, expiresAtOrBefore (inclusive), and the expiry worker's status + expiry", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<QuoteRecord, QuoteFilter> = store.quotes.list
      // Expiry instants far in the past: only this test's quotes are that old.
      const s = makeScope(1000, 1900)
      const q = (status: QuoteStatus, expiresAt: string) => withQuote(quoteFull(s), { status, expiresAt })
      const q1 = q("PENDING", s.at(100))
      const q2 = q("PENDING", s.at(200))
      const q3 = q("PENDING", s.at(300))
      const q4 = q("PENDING_AUTHORIZATION", s.at(100))
      const q5 = q("COMPLETED", s.at(300))
      const q6 = q("EXPIRED", s.at(400))
      for (const r of [q1, q2, q3, q4, q5, q6]) yield* store.quotes.insert(r)

      const expiry = (status: string, bound: string) => (r: QuoteRecord) =>
        r.quote.status === status && r.quote.expiresAt <= bound
      yield* expectFiltered(list, { status: "PENDING", expiresAtOrBefore: s.at(200) }, expiry("PENDING", s.at(200)), {
        included: [q1, q2],
        excluded: [q3, q4, q5, q6]
      })
      yield* expectFiltered(
        list,
        { status: "PENDING_AUTHORIZATION", expiresAtOrBefore: s.at(200) },
        expiry("PENDING_AUTHORIZATION", s.at(200)),
        { included: [q4], excluded: [q1, q2, q3, q5, q6] }
      )
      yield* expectFiltered(list, { status: "PENDING", expiresAtOrBefore: s.at(99) }, expiry("PENDING", s.at(99)), {
        included: [],
        excluded: [q1, q2, q3, q4, q5, q6]
      })
      // The bound alone (pending quotes of this test only: what other statuses give is not specified).
      yield* expectFiltered(list, { expiresAtOrBefore: s.at(300) }, (r) => r.quote.expiresAt <= s.at(300), {
        included: [q1, q2, q3, q4],
        excluded: [q6]
      })
      yield* expectFiltered(list, { status: "COMPLETED" }, (r) => r.quote.status === "COMPLETED", {
        included: [q5],
        excluded: [q1, q2, q3, q4, q6]
      })
      yield* expectFiltered(list, { status: "EXPIRED" }, (r) => r.quote.status === "EXPIRED", {
        included: [q6],
        excluded: [q1, q2, q3, q4, q5]
      })

      // Updates move quotes in and out of the expiry list.
      const q1Done = withQuote(q1, { status: "COMPLETED" })
      const q3Sooner = withQuote(q3, { expiresAt: s.at(150) })
      yield* store.quotes.update(q1Done)
      yield* store.quotes.update(q3Sooner)
      yield* expectFiltered(list, { status: "PENDING", expiresAtOrBefore: s.at(200) }, expiry("PENDING", s.at(200)), {
        included: [q2, q3Sooner],
        excluded: [q1Done, q4, q5, q6]
      })
      yield* expectFiltered(list, { status: "COMPLETED" }, (r) => r.quote.status === "COMPLETED", {
        included: [q1Done, q5],
        excluded: [q2, q3, q4, q6]
      })
    })
  )
}

const transactionTests = (it: It) => {
  it.effect("updateIf writes only over the expected version; outside and inside a store transaction", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const record = transactionFull(s)
      yield* store.transactions.insert(record)
      const referenced: TransactionRecord = { ...record, railReference: "rail-1", attempts: 0 }
      assert.isTrue(yield* store.transactions.updateIf(referenced, record))
      assert.deepStrictEqual(yield* store.transactions.get(record.id), referenced)
      // `record` is no longer what is stored: each field of the version refuses on its own.
      const retried: TransactionRecord = { ...record, attempts: 3 }
      assert.isFalse(yield* store.transactions.updateIf(retried, record))
      for (const stale of [
        { ...referenced, state: "PENDING" },
        { ...referenced, transaction: { ...referenced.transaction, updatedAt: s.next() } },
        { ...referenced, railReference: "rail-0" },
        { ...referenced, dueAt: s.next() },
        { ...referenced, attempts: 1 },
        { ...referenced, stalledAt: s.next() }
      ]) {
        assert.isFalse(yield* store.transactions.updateIf(retried, stale))
      }
      assert.deepStrictEqual(yield* store.transactions.get(record.id), referenced)
      assert.isFalse(yield* store.transactions.updateIf(transactionMinimal(s), transactionMinimal(s)), "no such row")
      const settled: TransactionRecord = { ...referenced, state: "COMPLETED" }
      assert.isTrue(yield* store.transaction(store.transactions.updateIf(settled, referenced)))
      assert.deepStrictEqual(yield* store.transactions.get(record.id), settled)
    })
  )

  it.effect(
    "list filters: customer, platform customer, account (source or destination), status, type, reference, created range",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const list: ListFn<TransactionRecord, TransactionFilter> = store.transactions.list
        const s = makeScope()
        const other = makeScope()
        const ia1 = newId("InternalAccount")
        const ia2 = newId("InternalAccount")
        const ea1 = newId("ExternalAccount")
        const pc = `pc-${s.tag}`
        const ref = `RECON-${s.tag}`
        const x1 = payment(s, {
          customerId: s.customerId,
          status: "PENDING",
          type: "OUTGOING",
          state: "PENDING",
          source: ia1,
          destination: ea1,
          platformCustomerId: pc,
          reference: ref
        })
        const x2 = payment(s, {
          customerId: s.customerId,
          status: "COMPLETED",
          type: "INCOMING",
          state: "COMPLETED",
          destination: ia1
        })
        const x3 = payment(s, {
          customerId: s.customerId,
          status: "PROCESSING",
          type: "OUTGOING",
          state: "SUBMITTED",
          source: ia2,
          destination: ea1,
          reference: `${ref}-3`
        })
        const x4 = payment(s, {
          customerId: s.customerId,
          status: "FAILED",
          type: "OUTGOING",
          state: "REFUND_PENDING",
          source: ia1
        })
        const y1 = payment(other, {
          customerId: other.customerId,
          status: "PENDING",
          type: "OUTGOING",
          state: "PENDING",
          source: ia1
        })
        for (const x of [x1, x2, x3, x4, y1]) yield* store.transactions.insert(x)
        const mine = { customerId: s.customerId }

        yield* expectList(list, mine, [x1, x2, x3, x4])
        yield* expectList(list, { customerId: other.customerId }, [y1])
        yield* expectList(list, { ...mine, platformCustomerId: pc }, [x1])
        yield* expectList(list, { ...mine, accountIdentifier: ia1 }, [x1, x2, x4])
        yield* expectList(list, { ...mine, accountIdentifier: ea1 }, [x1, x3])
        yield* expectList(list, { ...mine, status: "COMPLETED" }, [x2])
        yield* expectList(list, { ...mine, type: "OUTGOING" }, [x1, x3, x4])
        yield* expectList(list, { ...mine, type: "INCOMING" }, [x2])
        yield* expectList(list, { ...mine, reference: ref }, [x1])
        yield* expectList(list, { ...mine, createdAfter: x1.transaction.createdAt }, [x2, x3, x4])
        yield* expectList(list, { ...mine, createdBefore: x3.transaction.createdAt }, [x1, x2])
        yield* expectList(list, { ...mine, type: "OUTGOING", accountIdentifier: ia1, status: "FAILED" }, [x4])

        // Each filter alone, among the rows of other tests.
        yield* expectList(list, { accountIdentifier: ia1 }, [x1, x2, x4, y1])
        yield* expectList(list, { platformCustomerId: pc }, [x1])
        yield* expectList(list, { reference: ref }, [x1])
        yield* expectFiltered(list, { status: "FAILED" }, (r) => r.transaction.status === "FAILED", {
          included: [x4],
          excluded: [x1, x2, x3, y1]
        })
        yield* expectFiltered(list, { type: "INCOMING" }, (r) => r.transaction.type === "INCOMING", {
          included: [x2],
          excluded: [x1, x3, x4, y1]
        })
        const { createdAt } = x2.transaction
        yield* expectFiltered(
          list,
          { createdAfter: createdAt, createdBefore: s.at(DAY) },
          (r) => r.transaction.createdAt > createdAt && r.transaction.createdAt < s.at(DAY),
          { included: [x3, x4], excluded: [x1, x2] }
        )
        yield* expectFiltered(list, { createdBefore: createdAt }, (r) => r.transaction.createdAt < createdAt, {
          included: [x1],
          excluded: [x2, x3, x4]
        })
      })
  )

  it.effect(
    "list filters: states and dueBy (inclusive; rows without dueAt are never due), as the settlement worker uses them",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const list: ListFn<TransactionRecord, TransactionFilter> = store.transactions.list
        // Due instants far in the past: only this test's transactions are due that early.
        const s = makeScope(1000, 1900)
        const other = makeScope(1000, 1900)
        const pay = (owner: Scope, state: string, dueAt?: string) =>
          payment(owner, {
            customerId: owner.customerId,
            status: "PENDING",
            type: "OUTGOING",
            state,
            ...(dueAt === undefined ? {} : { dueAt })
          })
        const x1 = pay(s, "PENDING", s.at(100))
        const x2 = pay(s, "COMPLETED")
        const x3 = pay(s, "PROCESSING", s.at(200))
        const x4 = pay(s, "REFUND_PENDING", s.at(50))
        const x5 = pay(s, "FAILED", s.at(10))
        const y1 = pay(other, "PENDING", other.at(10))
        for (const x of [x1, x2, x3, x4, x5, y1]) yield* store.transactions.insert(x)
        const mine = { customerId: s.customerId }
        const worker = ["PENDING", "PROCESSING", "COMPLETED", "REFUND_PENDING"]

        yield* expectList(list, { ...mine, states: ["PENDING", "REFUND_PENDING"] }, [x1, x4])
        yield* expectList(list, { ...mine, states: ["COMPLETED"] }, [x2])
        yield* expectList(list, { ...mine, states: [] }, [])
        yield* expectList(list, { ...mine, dueBy: s.at(100) }, [x1, x4, x5])
        yield* expectList(list, { ...mine, dueBy: s.at(99) }, [x4, x5])
        yield* expectList(list, { ...mine, states: worker, dueBy: s.at(150) }, [x1, x4])
        yield* expectList(list, { ...mine, states: ["PROCESSING", "PENDING"], dueBy: s.at(150) }, [x1])

        // Alone, among the rows of other tests (the worker's query).
        const bound = s.at(100)
        yield* expectFiltered(
          list,
          { states: worker, dueBy: bound },
          (r) => worker.includes(r.state) && r.dueAt !== undefined && r.dueAt <= bound,
          { included: [x1, x4].concat(y1.dueAt! <= bound ? [y1] : []), excluded: [x2, x3, x5] }
        )
        yield* expectFiltered(list, { dueBy: bound }, (r) => r.dueAt !== undefined && r.dueAt <= bound, {
          included: [x1, x4, x5],
          excluded: [x2, x3]
        })
        yield* expectFiltered(list, { states: ["REFUND_PENDING"] }, (r) => r.state === "REFUND_PENDING", {
          included: [x4],
          excluded: [x1, x2, x3, x5, y1]
        })

        // Updates move transactions in and out of the due list.
        const { dueAt: _dueAt, ...x1Settled } = { ...x1, state: "COMPLETED" }
        const x3Sooner = { ...x3, dueAt: s.at(20) }
        const x2Due = { ...x2, dueAt: s.at(30) }
        for (const x of [x1Settled, x3Sooner, x2Due]) yield* store.transactions.update(x)
        yield* expectList(list, { ...mine, states: worker, dueBy: s.at(150) }, [x2Due, x3Sooner, x4])
        yield* expectList(list, { ...mine, dueBy: s.at(100) }, [x2Due, x3Sooner, x4, x5])
      })
  )
}

const beneficialOwnerTests = (it: It) => {
  it.effect("list filters: customerId", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<BeneficialOwner, BeneficialOwnerFilter> = store.beneficialOwners.list
      const s = makeScope()
      const other = makeScope()
      const o1 = ownerFull(s)
      const o2 = ownerMinimal(s)
      const p1 = ownerFull(other)
      for (const o of [o1, o2, p1]) yield* store.beneficialOwners.insert(o)

      yield* expectList(list, { customerId: s.customerId }, [o1, o2])
      yield* expectList(list, { customerId: other.customerId }, [p1])
      yield* expectList(list, { customerId: makeScope().customerId }, [])
      yield* expectFiltered(list, {}, () => true, { included: [o1, o2, p1], excluded: [] })
    })
  )
}

const verificationTests = (it: It) => {
  it.effect("list filters: customerId, verificationStatus", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<Verification, VerificationFilter> = store.verifications.list
      const s = makeScope()
      const other = makeScope()
      const v1 = verificationFull(s)
      const v2 = verificationMinimal(s)
      const v3: Verification = { ...verificationMinimal(s), verificationStatus: "PENDING_MANUAL_REVIEW" }
      const w1 = verificationFull(other)
      for (const v of [v1, v2, v3, w1]) yield* store.verifications.insert(v)

      yield* expectList(list, { customerId: s.customerId }, [v1, v2, v3])
      yield* expectList(list, { customerId: s.customerId, verificationStatus: "RESOLVE_ERRORS" }, [v1])
      yield* expectList(list, { customerId: s.customerId, verificationStatus: "APPROVED" }, [v2])
      yield* expectList(list, { customerId: other.customerId, verificationStatus: "APPROVED" }, [])
      yield* expectFiltered(
        list,
        { verificationStatus: "PENDING_MANUAL_REVIEW" },
        (v) => v.verificationStatus === "PENDING_MANUAL_REVIEW",
        { included: [v3], excluded: [v1, v2, w1] }
      )
    })
  )
}

const documentTests = (it: It) => {
  it.effect("list filters: documentHolder; deleted documents only with includeDeleted", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<DocumentRecord, DocumentFilter> = store.documents.list
      const s = makeScope()
      const other = makeScope()
      const d1 = documentMinimal(s)
      const deleted = documentFull(s)
      const d2: DocumentRecord = { ...documentMinimal(s), submittedAt: s.next() }
      const e1 = documentMinimal(other)
      for (const d of [d1, deleted, d2, e1]) yield* store.documents.insert(d)

      yield* expectList(list, { documentHolder: s.customerId, includeDeleted: false }, [d1, d2])
      yield* expectList(list, { documentHolder: s.customerId, includeDeleted: true }, [d1, deleted, d2])
      yield* expectList(list, { documentHolder: other.customerId, includeDeleted: false }, [e1])
      yield* expectList(list, { documentHolder: makeScope().customerId, includeDeleted: true }, [])
      yield* expectFiltered(list, { includeDeleted: false }, (d) => d.deletedAt === undefined, {
        included: [d1, d2, e1],
        excluded: [deleted]
      })
    })
  )
}

const bulkImportJobTests = (it: It) => {
  it.effect("list filters: statuses (any of them); an update moves a job between statuses", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<BulkImportJobRecord, BulkImportJobFilter> = store.bulkImportJobs.list
      const s = makeScope()
      const pending = bulkImportJobMinimal(s)
      const done = bulkImportJobFull(s)
      const running: BulkImportJobRecord = { ...bulkImportJobMinimal(s), job: { ...pending.job, status: "PROCESSING" } }
      for (const j of [pending, done, running]) yield* store.bulkImportJobs.insert(j)

      const isRunning = (j: BulkImportJobRecord) => j.job.status === "PENDING" || j.job.status === "PROCESSING"
      yield* expectFiltered(list, { statuses: ["PENDING", "PROCESSING"] }, isRunning, {
        included: [pending, running],
        excluded: [done]
      })
      yield* expectFiltered(list, { statuses: [] }, () => false, { included: [], excluded: [pending, done, running] })
      const finished: BulkImportJobRecord = {
        ...running,
        job: { ...running.job, status: "FAILED", completedAt: s.next() },
        updatedAt: s.next()
      }
      yield* store.bulkImportJobs.update(finished)
      assert.deepStrictEqual(yield* store.bulkImportJobs.get(running.id), finished)
      yield* expectFiltered(list, { statuses: ["FAILED"] }, (j) => j.job.status === "FAILED", {
        included: [finished],
        excluded: [pending, done]
      })
    })
  )
}

const contactChallengeTests = (it: It) => {
  it.effect(
    "contact challenges: get of an unknown key is undefined; put, replace, delete; a rollback undoes them",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const s = makeScope()
        const email = contactChallenge(s, "EMAIL")
        const phone = contactChallenge(s, "PHONE")
        assert.isUndefined(yield* store.contactChallenges.get(email.key))
        yield* store.contactChallenges.put(email)
        yield* store.transaction(store.contactChallenges.put(phone))
        assert.deepStrictEqual(yield* store.contactChallenges.get(email.key), email)
        assert.deepStrictEqual(yield* store.contactChallenges.get(phone.key), phone)

        const tried = { ...email, attempts: 3 }
        yield* store.contactChallenges.put(tried)
        assert.deepStrictEqual(yield* store.contactChallenges.get(email.key), tried, "put replaces")
        const resent = { ...contactChallenge(s, "EMAIL"), sentTo: "new@example.com" }
        yield* store.contactChallenges.put(resent)
        assert.deepStrictEqual(yield* store.contactChallenges.get(email.key), resent)

        const failed = yield* store
          .transaction(
            Effect.gen(function* () {
              yield* store.contactChallenges.delete(email.key)
              yield* store.contactChallenges.put({ ...phone, attempts: 5 })
              assert.isUndefined(yield* store.contactChallenges.get(email.key), "the transaction reads its own delete")
              return yield* Effect.fail("abort" as const)
            })
          )
          .pipe(Effect.flip)
        assert.strictEqual(failed, "abort")
        assert.deepStrictEqual(yield* store.contactChallenges.get(email.key), resent, "the delete is undone")
        assert.deepStrictEqual(yield* store.contactChallenges.get(phone.key), phone, "the put is undone")

        yield* store.transaction(store.contactChallenges.delete(email.key))
        assert.isUndefined(yield* store.contactChallenges.get(email.key))
        yield* store.contactChallenges.delete(email.key)
        yield* store.contactChallenges.delete(`${makeScope().customerId}/EMAIL`)
        assert.deepStrictEqual(yield* store.contactChallenges.get(phone.key), phone)
      })
  )
}

const ledgerTests = (it: It) => {
  it.effect(
    "record POSTED moves both balances; balances come back in the order asked, zeros for unknown accounts",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const a = ledgerAccount()
        const b = ledgerAccount()
        const ref = newId("Transaction")
        const t1 = transfer(ref, 1, a, b, 1_000, "POSTED")
        const t2 = transfer(ref, 2, b, a, 300, "POSTED")
        yield* store.transaction(store.ledger.record([t1]))
        assert.deepStrictEqual(
          yield* store.ledger.balances([
            { account: a, currency: "USD" },
            { account: b, currency: "USD" }
          ]),
          [balance(a, "USD", -1_000), balance(b, "USD", 1_000)]
        )
        yield* store.transaction(store.ledger.record([t2]))
        const unknown = ledgerAccount()
        assert.deepStrictEqual(
          yield* store.ledger.balances([
            { account: b, currency: "USD" },
            { account: unknown, currency: "EUR" },
            { account: a, currency: "USD" }
          ]),
          [balance(b, "USD", 700), balance(unknown, "EUR", 0), balance(a, "USD", -700)]
        )
        assert.deepStrictEqual(yield* store.ledger.balances([]), [])
        assert.deepStrictEqual(yield* store.ledger.transfers(ref), [t1, t2])
        assert.deepStrictEqual(yield* store.ledger.transfers(newId("Transaction")), [])

        // Large amounts stay exact numbers.
        const big = 4_000_000_000_000_000
        const c = ledgerAccount()
        const ref2 = newId("Transaction")
        yield* store.transaction(
          store.ledger.record([transfer(ref2, 1, a, c, big, "POSTED"), transfer(ref2, 2, a, c, big, "POSTED")])
        )
        assert.deepStrictEqual(
          yield* store.ledger.balances([
            { account: c, currency: "USD" },
            { account: a, currency: "USD" }
          ]),
          [balance(c, "USD", 2 * big), balance(a, "USD", -700 - 2 * big)]
        )
      })
  )

  it.effect("record PENDING holds: posted stays, pending debits and credits grow (available < total)", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const deposits = systemLedgerAccount("deposits", "USD")
      const alice = ledgerAccount()
      const payouts = systemLedgerAccount("payouts", "USD")
      yield* store.transaction(
        store.ledger.record([transfer(newId("Transaction"), 1, deposits, alice, 10_000, "POSTED")])
      )
      const ref = newId("Transaction")
      const hold = transfer(ref, 1, alice, payouts, 4_000, "PENDING")
      yield* store.transaction(store.ledger.record([hold]))
      const [a, p] = yield* store.ledger.balances([
        { account: alice, currency: "USD" },
        { account: payouts, currency: "USD" }
      ])
      assert.deepStrictEqual(a, balance(alice, "USD", 10_000, 4_000, 0))
      assert.deepStrictEqual(p, balance(payouts, "USD", 0, 0, 4_000))
      assert.strictEqual(a!.posted - a!.pendingDebits, 6_000, "available: posted minus held")
      assert.strictEqual(a!.posted, 10_000, "total: posted")
      assert.deepStrictEqual(yield* store.ledger.transfers(ref), [hold])
    })
  )

  it.effect(
    "resolve POSTED moves held money, VOIDED releases it; resolving again (or a non-pending transfer) is a no-op",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const deposits = systemLedgerAccount("deposits", "USD")
        const alice = ledgerAccount()
        const payouts = systemLedgerAccount("payouts", "USD")
        const both = [
          { account: alice, currency: "USD" },
          { account: payouts, currency: "USD" }
        ]
        const fund = transfer(newId("Transaction"), 1, deposits, alice, 10_000, "POSTED")
        const ref1 = newId("Transaction")
        const ref2 = newId("Transaction")
        const h1 = transfer(ref1, 1, alice, payouts, 4_000, "PENDING")
        const h2 = transfer(ref1, 2, alice, payouts, 500, "PENDING")
        // An id that does not follow the `<reference>#<n>` convention is resolved by id all the same.
        const h3: LedgerTransfer = { ...transfer(ref2, 1, alice, payouts, 1_000, "PENDING"), id: `${ref2}:hold` }
        yield* store.transaction(store.ledger.record([fund, h1, h2, h3]))
        assert.deepStrictEqual(yield* store.ledger.balances(both), [
          balance(alice, "USD", 10_000, 5_500, 0),
          balance(payouts, "USD", 0, 0, 5_500)
        ])

        yield* store.transaction(store.ledger.resolve([h1.id], "POSTED"))
        const afterPost = [balance(alice, "USD", 6_000, 1_500, 0), balance(payouts, "USD", 4_000, 0, 1_500)]
        assert.deepStrictEqual(yield* store.ledger.balances(both), afterPost)
        assert.deepStrictEqual(yield* store.ledger.transfers(ref1), [{ ...h1, state: "POSTED" }, h2])

        // Twice, or with the other outcome: nothing moves. Unknown ids and posted transfers are ignored.
        yield* store.transaction(store.ledger.resolve([h1.id], "POSTED"))
        yield* store.transaction(store.ledger.resolve([h1.id], "VOIDED"))
        yield* store.transaction(store.ledger.resolve([fund.id, `${ref1}#99`, `unknown-${unique()}`], "VOIDED"))
        assert.deepStrictEqual(yield* store.ledger.balances(both), afterPost)
        assert.deepStrictEqual(yield* store.ledger.transfers(ref1), [{ ...h1, state: "POSTED" }, h2])
        assert.deepStrictEqual(yield* store.ledger.transfers(fund.reference), [fund])

        yield* store.transaction(store.ledger.resolve([h2.id, h3.id], "VOIDED"))
        const afterVoid = [balance(alice, "USD", 6_000, 0, 0), balance(payouts, "USD", 4_000, 0, 0)]
        assert.deepStrictEqual(yield* store.ledger.balances(both), afterVoid)
        assert.deepStrictEqual(yield* store.ledger.transfers(ref1), [
          { ...h1, state: "POSTED" },
          { ...h2, state: "VOIDED" }
        ])
        assert.deepStrictEqual(yield* store.ledger.transfers(ref2), [{ ...h3, state: "VOIDED" }])
        yield* store.transaction(store.ledger.resolve([h2.id, h3.id], "POSTED"))
        yield* store.transaction(store.ledger.resolve([], "POSTED"))
        assert.deepStrictEqual(yield* store.ledger.balances(both), afterVoid)
        assert.deepStrictEqual(yield* store.ledger.transfers(ref2), [{ ...h3, state: "VOIDED" }])
      })
  )

  it.effect("transfers(reference) returns them oldest first (recording order), across record calls", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const a = ledgerAccount()
      const b = ledgerAccount()
      const ref = newId("Transaction")
      const first = Array.from({ length: 9 }, (_, i) => transfer(ref, i + 1, a, b, 10 + i, "POSTED"))
      // `#10` and `#11` sort before `#2` as strings: the order is the recording order, not the id's.
      const second = [
        { ...transfer(ref, 10, b, a, 5, "PENDING"), createdAt: plusSeconds(NOW, 1) },
        { ...transfer(ref, 11, a, b, 7, "POSTED"), createdAt: plusSeconds(NOW, 1) }
      ]
      const unrelated = transfer(`${ref}:refund`, 1, a, b, 1, "POSTED")
      yield* store.transaction(store.ledger.record(first))
      yield* store.transaction(store.ledger.record([unrelated, ...second]))
      assert.deepStrictEqual(yield* store.ledger.transfers(ref), [...first, ...second])
      assert.deepStrictEqual(yield* store.ledger.transfers(`${ref}:refund`), [unrelated])
    })
  )

  it.effect(
    "allBalances lists every moved account; per currency posted sums to zero and pending debits equal credits",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const usdIn = systemLedgerAccount("deposits", "USD")
        const eurIn = systemLedgerAccount("deposits", "EUR")
        const fx = systemLedgerAccount("fx", "EUR")
        const alice = ledgerAccount()
        const aliceEur = ledgerAccount()
        const ref = newId("Transaction")
        yield* store.transaction(
          store.ledger.record([
            transfer(ref, 1, usdIn, alice, 5_000, "POSTED"),
            transfer(ref, 2, eurIn, aliceEur, 7_000, "POSTED", "EUR"),
            transfer(ref, 3, aliceEur, fx, 2_500, "PENDING", "EUR"),
            transfer(ref, 4, alice, usdIn, 1_000, "PENDING")
          ])
        )
        const all = yield* store.ledger.allBalances()
        const byAccount = new Map(all.map((b) => [b.account, b]))
        assert.deepStrictEqual(byAccount.get(usdIn), balance(usdIn, "USD", -5_000, 0, 1_000))
        assert.deepStrictEqual(byAccount.get(alice), balance(alice, "USD", 5_000, 1_000, 0))
        assert.deepStrictEqual(byAccount.get(eurIn), balance(eurIn, "EUR", -7_000))
        assert.deepStrictEqual(byAccount.get(aliceEur), balance(aliceEur, "EUR", 7_000, 2_500, 0))
        assert.deepStrictEqual(byAccount.get(fx), balance(fx, "EUR", 0, 0, 2_500))
        assert.strictEqual(byAccount.size, all.length, "one balance per account")
        const totals = currencyTotals(all)
        assert.includeMembers([...totals.keys()], ["USD", "EUR"])
        for (const [code, sum] of totals) {
          assert.strictEqual(sum.posted, 0, `${code}: posted sums to zero`)
          assert.strictEqual(sum.pendingDebits, sum.pendingCredits, `${code}: pending debits equal pending credits`)
        }
      })
  )
}

const outboxTests = (it: It) => {
  it.effect("appendEvents numbers events per subject in order, across calls; nextSequence continues", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s1 = newId("Transaction")
      const s2 = newId("Transaction")
      const a = newEvent(s1, "OUTGOING_PAYMENT.PENDING")
      const b = newEvent(s2, "INCOMING_PAYMENT.PENDING")
      const c = newEvent(s1, "OUTGOING_PAYMENT.PROCESSING")
      const d = newEvent(s1, "OUTGOING_PAYMENT.COMPLETED")
      const e = newEvent(s2, "INCOMING_PAYMENT.COMPLETED")
      yield* store.transaction(store.outbox.appendEvents([a, b, c]))
      yield* store.transaction(store.outbox.appendEvents([d, e]))
      yield* store.transaction(store.outbox.appendEvents([]))
      // One event at a time (a command's usual case), on a subject with events and on a new one.
      const f = newEvent(s1, "OUTGOING_PAYMENT.FAILED")
      const s3 = newId("Transaction")
      const g = { ...newEvent(s3, "OUTGOING_PAYMENT.PENDING"), leaseUntil: "2026-01-01T00:00:00.000Z" }
      yield* store.transaction(store.outbox.appendEvents([f]))
      yield* store.outbox.appendEvents([g])
      const list: ListFn<OutboxRecord, OutboxFilter> = store.outbox.list
      yield* expectList(list, { subject: s1 }, [numbered(a, 1), numbered(c, 2), numbered(d, 3), numbered(f, 4)])
      yield* expectList(list, { subject: s2 }, [numbered(b, 1), numbered(e, 2)])
      yield* expectList(list, { subject: s3 }, [numbered(g, 1)])
      assert.deepStrictEqual(yield* store.outbox.get(c.id), numbered(c, 2))
      assert.isUndefined(yield* store.outbox.get(newId("Webhook")))
      assert.strictEqual(yield* store.outbox.nextSequence(s1), 5)
      assert.strictEqual(yield* store.outbox.nextSequence(newId("Transaction")), 1)
    })
  )

  it.effect("append keeps the given rows; save replaces a row (attempts, status, lease added and removed)", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const subject = newId("Transaction")
      const full: OutboxRecord = {
        ...outboxRow(subject, "OUTGOING_PAYMENT.PENDING", 1, { leaseUntil: plusSeconds(NOW, 30) }),
        attempts: deliveryAttempts
      }
      const minimal = outboxRow(subject, "OUTGOING_PAYMENT.COMPLETED", 2)
      yield* store.transaction(store.outbox.append([full, minimal]))
      assert.deepStrictEqual(yield* store.outbox.get(full.id), full)
      assert.deepStrictEqual(yield* store.outbox.get(minimal.id), minimal)

      const { leaseUntil: _lease, ...released } = {
        ...full,
        status: "DELIVERED" as const,
        attempts: [
          ...deliveryAttempts,
          { at: NOW, url: "https://platform.example.com/hooks", responseStatus: 200, durationMs: 40 }
        ]
      }
      yield* store.transaction(store.outbox.save(released))
      assert.deepStrictEqual(yield* store.outbox.get(full.id), released, "lease removed, attempt added")

      const leased: OutboxRecord = { ...minimal, leaseUntil: plusSeconds(NOW, 60), nextAttemptAt: plusSeconds(NOW, 5) }
      yield* store.transaction(store.outbox.save(leased))
      assert.deepStrictEqual(yield* store.outbox.get(minimal.id), leased, "lease added")
      // The dispatcher clears a lease by saving `leaseUntil: undefined`.
      yield* store.transaction(store.outbox.save({ ...leased, leaseUntil: undefined, status: "DEAD" }))
      const dead = yield* store.outbox.get(minimal.id)
      assert.isDefined(dead)
      assert.isUndefined(dead!.leaseUntil)
      const { leaseUntil: _cleared, ...rest } = dead!
      assert.deepStrictEqual(rest, { ...minimal, nextAttemptAt: plusSeconds(NOW, 5), status: "DEAD" })
    })
  )

  it.effect("list filters: subject, status, type, sequenceBelow (exclusive)", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<OutboxRecord, OutboxFilter> = store.outbox.list
      const subject = newId("Transaction")
      const otherSubject = newId("Transaction")
      const typeA = `CONFORMANCE.${unique()}.A`
      const typeB = `CONFORMANCE.${unique()}.B`
      const o1 = outboxRow(subject, typeA, 1)
      const o2 = outboxRow(subject, typeB, 2, { status: "DELIVERED" })
      const o3 = outboxRow(subject, typeA, 3)
      const o4 = outboxRow(subject, typeA, 4, { status: "DEAD" })
      const p1 = outboxRow(otherSubject, typeA, 1)
      yield* store.transaction(store.outbox.append([o1, o2, o3, o4, p1]))

      yield* expectList(list, { subject }, [o1, o2, o3, o4])
      yield* expectList(list, { subject, status: "PENDING" }, [o1, o3])
      yield* expectList(list, { subject, type: typeA }, [o1, o3, o4])
      yield* expectList(list, { subject, sequenceBelow: 3 }, [o1, o2])
      yield* expectList(list, { subject, sequenceBelow: 1 }, [])
      // The dispatcher's ordering check: earlier pending events of the subject.
      yield* expectList(list, { subject, status: "PENDING", sequenceBelow: 3 }, [o1])
      yield* expectList(list, { subject: otherSubject }, [p1])

      yield* expectList(list, { type: typeA }, [o1, o3, o4, p1])
      yield* expectList(list, { type: typeB }, [o2])
      yield* expectFiltered(list, { status: "DEAD" }, (r) => r.status === "DEAD", {
        included: [o4],
        excluded: [o1, o2, o3, p1]
      })
      yield* expectFiltered(list, { sequenceBelow: 2 }, (r) => r.sequence < 2, {
        included: [o1, p1],
        excluded: [o2, o3, o4]
      })
    })
  )

  it.effect("claimDue returns due, pending, unleased rows oldest first up to the limit, and leases them", () =>
    Effect.gen(function* () {
      const store = yield* Store
      // Instants far in the past, so no other test's row is due. Rows a crashed earlier run may have left
      // there are leased away first.
      const s = makeScope(1000, 1900)
      const far = "9999-12-31T23:59:59.999Z"
      for (let round = 0; ; round++) {
        assert.isBelow(round, 100, "claimDue leases what it returns")
        const drained = yield* store.transaction(store.outbox.claimDue(s.at(DAY), 1_000, far))
        if (drained.length === 0) break
      }
      const subject = newId("Transaction")
      const type = `CONFORMANCE.${unique()}`
      const ev = (o: EventOptions) => newEvent(subject, type, { createdAt: s.next(), ...o })
      // Oldest (by creation) first, whatever the order of their due instants.
      const e1 = ev({ nextAttemptAt: s.at(300) })
      const e2 = ev({ nextAttemptAt: s.at(100) })
      const e3 = ev({ nextAttemptAt: s.at(200) })
      const e4 = ev({ nextAttemptAt: s.at(1_000) })
      const delivered = ev({ nextAttemptAt: s.at(50), status: "DELIVERED" })
      const dead = ev({ nextAttemptAt: s.at(50), status: "DEAD" })
      const leased = ev({ nextAttemptAt: s.at(10), leaseUntil: s.at(2_000) })
      yield* store.transaction(store.outbox.appendEvents([e1, e2, e3, e4, delivered, dead, leased]))
      const claim = (now: number, limit: number, lease: number) =>
        store.transaction(store.outbox.claimDue(s.at(now), limit, s.at(lease)))
      const as = (e: NewOutboxRecord, sequence: number, lease: number): OutboxRecord => ({
        ...e,
        sequence,
        leaseUntil: s.at(lease)
      })

      assert.deepStrictEqual(yield* claim(99, 10, 5_000), [], "nothing is due yet")
      assert.deepStrictEqual(
        yield* claim(500, 2, 600),
        [as(e1, 1, 600), as(e2, 2, 600)],
        "oldest first, up to the limit"
      )
      assert.deepStrictEqual(yield* store.outbox.get(e1.id), as(e1, 1, 600), "the lease is stored")
      assert.deepStrictEqual(yield* claim(500, 10, 600), [as(e3, 3, 600)], "leased rows are not claimed again")
      assert.deepStrictEqual(yield* claim(599, 10, 700), [], "not before the lease ends")

      // A claim in a transaction that fails leases nothing.
      const failed = yield* store
        .transaction(
          Effect.gen(function* () {
            const got = yield* store.outbox.claimDue(s.at(601), 10, s.at(5_000))
            assert.strictEqual(got.length, 3)
            return yield* Effect.fail("abort" as const)
          })
        )
        .pipe(Effect.flip)
      assert.strictEqual(failed, "abort")
      assert.deepStrictEqual(yield* store.outbox.get(e2.id), as(e2, 2, 600))

      // Once the lease has passed the rows are claimable again (a crashed dispatcher); e4 is due at its instant.
      assert.deepStrictEqual(
        yield* claim(1_000, 10, 1_500),
        [as(e1, 1, 1_500), as(e2, 2, 1_500), as(e3, 3, 1_500), as(e4, 4, 1_500)],
        "expired leases and rows due exactly now"
      )
      assert.deepStrictEqual(yield* claim(2_001, 10, 2_500), [
        as(e1, 1, 2_500),
        as(e2, 2, 2_500),
        as(e3, 3, 2_500),
        as(e4, 4, 2_500),
        as(leased, 7, 2_500)
      ])

      // Delivered rows are never claimed again.
      const deliver = (e: NewOutboxRecord, sequence: number) =>
        store.transaction(
          store.outbox.save({ ...numbered(e, sequence), status: "DELIVERED", attempts: deliveryAttempts })
        )
      yield* deliver(e2, 2)
      yield* deliver(e3, 3)
      yield* deliver(e4, 4)
      yield* deliver(leased, 7)
      // A row saved with a later attempt (and its lease cleared) is due then, not before.
      yield* store.transaction(
        store.outbox.save({
          ...as(e1, 1, 2_500),
          leaseUntil: undefined,
          nextAttemptAt: s.at(3_000),
          attempts: deliveryAttempts
        })
      )
      assert.deepStrictEqual(yield* claim(2_999, 10, 3_500), [])
      const [again, ...none] = yield* claim(3_000, 10, 3_500)
      assert.deepStrictEqual(again, { ...as(e1, 1, 3_500), nextAttemptAt: s.at(3_000), attempts: deliveryAttempts })
      assert.deepStrictEqual(none, [])
      yield* deliver(e1, 1)
      assert.deepStrictEqual(yield* claim(DAY, 10, DAY + 1), [])
    })
  )
}

const keyValueTests = (it: It) => {
  it.effect("idempotency: get of an unknown key is undefined; put then get; a second put of one key is refused", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const key = `POST /quotes:${unique()}`
      assert.isUndefined(yield* store.idempotency.get(key))
      const record = idempotencyRecord(key)
      yield* store.transaction(store.idempotency.put(record))
      assert.deepStrictEqual(yield* store.idempotency.get(key), record)
      const second = { ...idempotencyRecord(key), fingerprint: "other", status: 200, body: "{}" }
      assertUniqueViolation(yield* store.transaction(store.idempotency.put(second)).pipe(Effect.flip))
      assert.deepStrictEqual(yield* store.idempotency.get(key), record, "the first record stays")
      // An empty body (a 204) is kept as the empty string.
      const empty = idempotencyRecord(`DELETE /x:${unique()}`, "")
      yield* store.idempotency.put({ ...empty, status: 204 })
      assert.deepStrictEqual(yield* store.idempotency.get(empty.key), { ...empty, status: 204 })
    })
  )

  it.effect("counters: get of an unknown key is 0; add returns the running total", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const key = `volume:${newId("Customer")}:USD:2026-03-02`
      const otherKey = `volume:${newId("Customer")}:USD:2026-03-02`
      assert.strictEqual(yield* store.counters.get(key), 0)
      assert.strictEqual(yield* store.transaction(store.counters.add(key, 5)), 5)
      assert.strictEqual(yield* store.transaction(store.counters.add(key, 7)), 12)
      assert.strictEqual(yield* store.transaction(store.counters.add(key, -2)), 10)
      assert.strictEqual(yield* store.counters.add(otherKey, 4_000_000_000_000_000), 4_000_000_000_000_000)
      assert.strictEqual(yield* store.counters.add(otherKey, 1), 4_000_000_000_000_001)
      assert.strictEqual(yield* store.counters.get(key), 10)
      assert.strictEqual(yield* store.counters.get(otherKey), 4_000_000_000_000_001)
    })
  )

  it.effect("config: undefined in a fresh store; put then get; put replaces it; a failed put changes nothing", () =>
    Effect.gen(function* () {
      const store = yield* Store
      assert.isUndefined(yield* store.config.get(), "a fresh store has no platform config")
      const full = configFull()
      yield* store.transaction(store.config.put(full))
      assert.deepStrictEqual(yield* store.config.get(), full)
      const minimal = configMinimal()
      yield* store.transaction(store.config.put(minimal))
      assert.deepStrictEqual(yield* store.config.get(), minimal, "optional fields removed")
      const failed = yield* store
        .transaction(Effect.andThen(store.config.put(full), Effect.fail("abort" as const)))
        .pipe(Effect.flip)
      assert.strictEqual(failed, "abort")
      assert.deepStrictEqual(yield* store.config.get(), minimal)
      yield* store.config.put(full)
      assert.deepStrictEqual(yield* store.config.get(), full)
    })
  )

  it.effect(
    "webhookSecrets: put inserts or replaces by id, list is oldest first, remove deletes; a rollback undoes",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const ours = (rows: ReadonlyArray<WebhookSecretRecord>) => rows.filter((r) => mine.has(r.id))
        const older: WebhookSecretRecord = {
          id: newId("WebhookSecret"),
          secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          createdAt: "2026-03-01T10:00:00.000Z"
        }
        const newer: WebhookSecretRecord = {
          id: newId("WebhookSecret"),
          secret: "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
          createdAt: "2026-03-01T11:00:00.000Z"
        }
        const mine = new Set([older.id, newer.id])
        yield* store.transaction(Effect.andThen(store.webhookSecrets.put(newer), store.webhookSecrets.put(older)))
        assert.deepStrictEqual(ours(yield* store.webhookSecrets.list()), [older, newer])
        const retiring = { ...older, expiresAt: "2026-03-02T10:00:00.000Z" }
        yield* store.transaction(store.webhookSecrets.put(retiring))
        assert.deepStrictEqual(ours(yield* store.webhookSecrets.list()), [retiring, newer], "expiresAt added")
        const failed = yield* store
          .transaction(
            Effect.andThen(
              Effect.andThen(store.webhookSecrets.remove(newer.id), store.webhookSecrets.put(older)),
              Effect.fail("abort" as const)
            )
          )
          .pipe(Effect.flip)
        assert.strictEqual(failed, "abort")
        assert.deepStrictEqual(ours(yield* store.webhookSecrets.list()), [retiring, newer], "the rollback undid both")
        yield* store.transaction(store.webhookSecrets.remove(retiring.id))
        assert.deepStrictEqual(ours(yield* store.webhookSecrets.list()), [newer])
        yield* store.webhookSecrets.remove(newer.id)
        assert.deepStrictEqual(ours(yield* store.webhookSecrets.list()), [])
      })
  )
}

// ---------------------------------------------------------------------------------------------
// Transactions
// ---------------------------------------------------------------------------------------------

/**
 * Writes to every repository in a transaction that `end` makes fail (or die), then checks that none of it
 * is left: no row, no ledger movement, no outbox event or sequence number, no counter change, no
 * idempotency record, and the committed rows it updated are as they were.
 */
const leavesNoTrace = (end: Effect.Effect<never, "abort">, check: (exit: Exit.Exit<unknown, unknown>) => void) =>
  Effect.gen(function* () {
    const store = yield* Store
    const s = makeScope()
    // Committed before: rows the failing transaction updates.
    const keptToken = tokenMinimal(s)
    const keptCustomer = individualFull(s)
    const keptQuote = quoteFull(s)
    const keptTransaction = transactionFull(s)
    const subject = newId("Transaction")
    const keptEvent = newEvent(subject, "OUTGOING_PAYMENT.PENDING")
    const alice = ledgerAccount()
    const deposits = systemLedgerAccount("deposits", "USD")
    const payouts = systemLedgerAccount("payouts", "USD")
    const holdRef = newId("Transaction")
    const hold = transfer(holdRef, 1, alice, payouts, 2_000, "PENDING")
    const counter = `volume:${s.customerId}:USD`
    yield* store.transaction(
      Effect.gen(function* () {
        yield* store.tokens.insert(keptToken)
        yield* store.customers.insert(keptCustomer)
        yield* store.quotes.insert(keptQuote)
        yield* store.transactions.insert(keptTransaction)
        yield* store.outbox.appendEvents([keptEvent])
        yield* store.ledger.record([transfer(newId("Transaction"), 1, deposits, alice, 10_000, "POSTED"), hold])
        yield* store.counters.add(counter, 5)
      })
    )
    const accounts = [alice, deposits, payouts].map((account) => ({ account, currency: "USD" }))
    const balancesBefore = yield* store.ledger.balances(accounts)

    // Written by the transaction that fails.
    const token = tokenFull(s)
    const customer = businessCustomer(s)
    const internal = internalFull(s)
    const external = externalFull(s)
    const quote = quoteFull(s)
    const txRow = transactionFull(s)
    const event = newEvent(subject, "OUTGOING_PAYMENT.COMPLETED")
    const otherEvent = newEvent(newId("Transaction"), "INCOMING_PAYMENT.PENDING")
    const movedRef = newId("Transaction")
    const idem = idempotencyRecord(`POST /quotes:${unique()}`)
    const newCounter = `volume:${s.customerId}:EUR`
    const owner = ownerFull(s)
    const verification = verificationFull(s)
    const challenge = contactChallenge(s)
    const document = documentFull(s)
    const job = bulkImportJobFull(s)

    const exit = yield* Effect.exit(
      store.transaction(
        Effect.gen(function* () {
          yield* store.tokens.insert(token)
          yield* store.tokens.update({ ...keptToken, name: "renamed", clientId: `client-${unique()}` })
          yield* store.customers.insert(customer)
          yield* store.customers.update({ ...keptCustomer, isDeleted: true })
          yield* store.internalAccounts.insert(internal)
          yield* store.externalAccounts.insert(external)
          yield* store.quotes.insert(quote)
          yield* store.quotes.update(withQuote(keptQuote, { status: "EXPIRED" }))
          yield* store.transactions.insert(txRow)
          yield* store.transactions.update({ ...keptTransaction, state: "FAILED" })
          yield* store.ledger.record([transfer(movedRef, 1, alice, payouts, 3_000, "POSTED")])
          yield* store.ledger.resolve([hold.id], "POSTED")
          yield* store.outbox.appendEvents([event, otherEvent])
          yield* store.outbox.save({ ...numbered(keptEvent, 1), status: "DELIVERED", attempts: deliveryAttempts })
          yield* store.counters.add(counter, 7)
          yield* store.counters.add(newCounter, 3)
          yield* store.idempotency.put(idem)
          yield* store.beneficialOwners.insert(owner)
          yield* store.verifications.insert(verification)
          yield* store.contactChallenges.put(challenge)
          yield* store.documents.insert(document)
          yield* store.bulkImportJobs.insert(job)
          // The transaction reads its own writes.
          assert.deepStrictEqual(yield* store.tokens.get(token.id), token)
          assert.deepStrictEqual(yield* store.outbox.get(event.id), numbered(event, 2))
          assert.strictEqual(yield* store.counters.get(counter), 12)
          assert.deepStrictEqual(yield* store.ledger.balances([{ account: payouts, currency: "USD" }]), [
            balance(payouts, "USD", 5_000)
          ])
          return yield* end
        })
      )
    )
    check(exit)

    for (const [what, row] of [
      ["token", yield* store.tokens.get(token.id)],
      ["customer", yield* store.customers.get(customer.id)],
      ["internal account", yield* store.internalAccounts.get(internal.id)],
      ["external account", yield* store.externalAccounts.get(external.id)],
      ["quote", yield* store.quotes.get(quote.id)],
      ["transaction", yield* store.transactions.get(txRow.id)],
      ["outbox event", yield* store.outbox.get(event.id)],
      ["outbox event of another subject", yield* store.outbox.get(otherEvent.id)],
      ["idempotency record", yield* store.idempotency.get(idem.key)],
      ["beneficial owner", yield* store.beneficialOwners.get(owner.id)],
      ["verification", yield* store.verifications.get(verification.id)],
      ["contact challenge", yield* store.contactChallenges.get(challenge.key)],
      ["document", yield* store.documents.get(document.id)],
      ["bulk import job", yield* store.bulkImportJobs.get(job.id)]
    ] as const) {
      assert.isUndefined(row, `no ${what} is left`)
    }
    assert.isUndefined(yield* store.tokens.findUnique("clientId", token.clientId))
    assert.isUndefined(yield* store.customers.findUnique("platformCustomerId", customer.platformCustomerId))
    assert.isUndefined(yield* store.customers.findUnique("umaAddress", customer.umaAddress))
    assert.isUndefined(yield* store.quotes.findUnique("transactionId", quote.quote.transactionId))
    assert.deepStrictEqual(yield* store.tokens.get(keptToken.id), keptToken)
    assert.deepStrictEqual(yield* store.tokens.findUnique("clientId", keptToken.clientId), keptToken)
    assert.deepStrictEqual(yield* store.customers.get(keptCustomer.id), keptCustomer)
    assert.deepStrictEqual(
      yield* store.customers.findUnique("platformCustomerId", keptCustomer.platformCustomerId),
      keptCustomer
    )
    assert.deepStrictEqual(yield* store.quotes.get(keptQuote.id), keptQuote)
    assert.deepStrictEqual(yield* store.transactions.get(keptTransaction.id), keptTransaction)
    assert.deepStrictEqual(yield* store.ledger.balances(accounts), balancesBefore, "no ledger movement")
    assert.deepStrictEqual(yield* store.ledger.transfers(movedRef), [])
    assert.deepStrictEqual(yield* store.ledger.transfers(holdRef), [hold], "the hold is still pending")
    assert.deepStrictEqual(yield* store.outbox.get(keptEvent.id), numbered(keptEvent, 1))
    const list: ListFn<OutboxRecord, OutboxFilter> = store.outbox.list
    yield* expectList(list, { subject }, [numbered(keptEvent, 1)])
    assert.strictEqual(yield* store.counters.get(counter), 5)
    assert.strictEqual(yield* store.counters.get(newCounter), 0)
    // The subject's numbering is as committed: the next event is number 2 again.
    const next = newEvent(subject, "OUTGOING_PAYMENT.FAILED")
    yield* store.transaction(store.outbox.appendEvents([next]))
    assert.deepStrictEqual(yield* store.outbox.get(next.id), numbered(next, 2))
  })

const storeTransactionTests = (it: It) => {
  it.effect("a transaction that fails leaves no trace and passes its error on", () =>
    leavesNoTrace(Effect.fail("abort"), (exit) => {
      assert.isTrue(Exit.isFailure(exit) && Exit.hasFails(exit) && !Exit.hasDies(exit), "fails with the error")
      assert.strictEqual(Option.getOrUndefined(Exit.findErrorOption(exit)), "abort", "with its own error")
    })
  )

  it.effect("a transaction that dies leaves no trace", () =>
    leavesNoTrace(Effect.die(new Error("boom")), (exit) => {
      assert.isTrue(Exit.isFailure(exit) && Exit.hasDies(exit), "dies")
    })
  )

  it.effect("a committed transaction returns its value and its writes are visible afterwards", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const token = tokenFull(s)
      const subject = newId("Transaction")
      const event = newEvent(subject, "OUTGOING_PAYMENT.PENDING")
      const a = ledgerAccount()
      const b = ledgerAccount()
      const ref = newId("Transaction")
      const counter = `volume:${s.customerId}:USD`
      const idem = idempotencyRecord(`POST /quotes:${unique()}`)
      const value = yield* store.transaction(
        Effect.gen(function* () {
          yield* store.tokens.insert(token)
          yield* store.outbox.appendEvents([event])
          yield* store.ledger.record([transfer(ref, 1, a, b, 250, "POSTED")])
          yield* store.idempotency.put(idem)
          return yield* store.counters.add(counter, 9)
        })
      )
      assert.strictEqual(value, 9)
      assert.deepStrictEqual(yield* store.tokens.get(token.id), token)
      assert.deepStrictEqual(yield* store.outbox.get(event.id), numbered(event, 1))
      assert.deepStrictEqual(yield* store.ledger.balances([{ account: b, currency: "USD" }]), [balance(b, "USD", 250)])
      assert.deepStrictEqual(yield* store.idempotency.get(idem.key), idem)
      assert.strictEqual(yield* store.counters.get(counter), 9)
    })
  )

  it.effect("a nested transaction joins the outer one: it sees the outer writes and the outer failure undoes it", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const outer = tokenMinimal(s)
      const inner = tokenMinimal(s)
      const event = newEvent(newId("Transaction"), "OUTGOING_PAYMENT.PENDING")
      const counter = `volume:${s.customerId}:USD`
      const ref = newId("Transaction")
      const error = yield* store
        .transaction(
          Effect.gen(function* () {
            yield* store.tokens.insert(outer)
            yield* store.transaction(
              Effect.gen(function* () {
                assert.deepStrictEqual(yield* store.tokens.get(outer.id), outer, "the inner one sees the outer writes")
                yield* store.tokens.insert(inner)
                yield* store.outbox.appendEvents([event])
                yield* store.counters.add(counter, 1)
                yield* store.ledger.record([transfer(ref, 1, ledgerAccount(), ledgerAccount(), 1, "POSTED")])
              })
            )
            assert.deepStrictEqual(yield* store.tokens.get(inner.id), inner, "the outer one sees the inner writes")
            return yield* Effect.fail("outer" as const)
          })
        )
        .pipe(Effect.flip)
      assert.strictEqual(error, "outer")
      assert.isUndefined(yield* store.tokens.get(outer.id))
      assert.isUndefined(yield* store.tokens.get(inner.id), "the inner writes are undone with the outer ones")
      assert.isUndefined(yield* store.outbox.get(event.id))
      assert.strictEqual(yield* store.counters.get(counter), 0)
      assert.deepStrictEqual(yield* store.ledger.transfers(ref), [])

      const both = yield* store.transaction(
        Effect.gen(function* () {
          yield* store.transaction(store.tokens.insert(inner))
          yield* store.tokens.insert(outer)
          return "done" as const
        })
      )
      assert.strictEqual(both, "done")
      assert.deepStrictEqual(yield* store.tokens.get(inner.id), inner)
      assert.deepStrictEqual(yield* store.tokens.get(outer.id), outer)
    })
  )

  it.effect("concurrent transactions each commit or roll back on their own", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s = makeScope()
      const counter = `volume:${s.customerId}:USD`
      const tokens = Array.from({ length: 10 }, () => tokenMinimal(s))
      const exits = yield* Effect.forEach(
        tokens,
        (token, i) =>
          Effect.exit(
            store.transaction(
              Effect.gen(function* () {
                yield* store.tokens.insert(token)
                yield* Effect.yieldNow
                yield* store.counters.add(counter, 1)
                yield* Effect.yieldNow
                if (i % 3 === 0) return yield* Effect.fail("abort" as const)
                return i
              })
            )
          ),
        { concurrency: "unbounded" }
      )
      const committed = tokens.filter((_, i) => i % 3 !== 0)
      assert.strictEqual(exits.filter(Exit.isSuccess).length, committed.length)
      assert.strictEqual(yield* store.counters.get(counter), committed.length)
      const list: ListFn<TokenRecord, TokenFilter> = store.tokens.list
      yield* expectList(list, { name: tokenName(s), includeDeleted: true }, committed)
    })
  )
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

export interface StoreConformanceOptions {
  /** How long building (and closing) the store layer may take, e.g. starting a database and migrating it. */
  readonly timeout?: Duration.Input
}

/**
 * Registers the Store conformance suite, `describe("Store conformance: <name>")`, at the top level of a
 * vitest file:
 *
 * ```ts
 * storeConformance("memory", layer)
 * ```
 *
 * **One store for the whole suite.** `layer` is built once, before the first test (with `@effect/vitest`'s
 * `layer`), and closed after the last; every test runs against that one store. A database-backed adapter can
 * pass a layer that creates one fresh schema (or PGlite instance) for the file. Tests do not interfere
 * because each one works on its own rows: fresh time-ordered ids (`<Type>:<uuid v7>`), its own names, keys,
 * subjects and customer ids, and a random window of instants for the filters that can only be scoped by time
 * (list tests check exact results where their filter is scoped, and otherwise that every listed row matches
 * the filter, that their own rows are in and the others out).
 *
 * What the store must give:
 * - it starts without a platform config (`config.get()` is `undefined` until the config test puts one): the
 *   layer must not seed one, and a second run on the same database fails that one test. Other rows already in
 *   the store are tolerated (outbox rows due before 1900 are leased away before the claim test);
 * - tests run one after another (vitest's default within a file), not concurrently.
 */
export const storeConformance = (
  name: string,
  storeLayer: Layer.Layer<Store, unknown>,
  options: StoreConformanceOptions = {}
): void => {
  layer(storeLayer, options.timeout === undefined ? {} : { timeout: options.timeout })(
    `Store conformance: ${name}`,
    (it) => {
      const collection = <T extends { readonly id: string }, F>(c: CollectionCase<T, F>, more: (it: It) => void) =>
        describe(c.name, () => {
          collectionTests(it, c)
          more(it)
        })
      collection(tokensCase, tokenTests)
      collection(customersCase, customerTests)
      collection(internalAccountsCase, internalAccountTests)
      collection(externalAccountsCase, externalAccountTests)
      collection(quotesCase, quoteTests)
      collection(transactionsCase, transactionTests)
      collection(beneficialOwnersCase, beneficialOwnerTests)
      collection(verificationsCase, verificationTests)
      collection(documentsCase, documentTests)
      collection(bulkImportJobsCase, bulkImportJobTests)
      describe("contactChallenges", () => contactChallengeTests(it))
      describe("ledger", () => ledgerTests(it))
      describe("outbox", () => outboxTests(it))
      describe("idempotency, counters, config", () => keyValueTests(it))
      describe("transaction", () => storeTransactionTests(it))
    }
  )
}
