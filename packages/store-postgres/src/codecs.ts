import type {
  BeneficialOwner,
  BulkImportJobRecord,
  BusinessCustomer,
  ContactChallenge,
  Customer,
  DocumentRecord,
  ExternalAccount,
  IdempotencyRecord,
  IndividualCustomer,
  InternalAccountRecord,
  LedgerBalance,
  LedgerTransfer,
  OutboxRecord,
  PlatformConfig,
  QuoteRecord,
  TokenRecord,
  TransactionRecord,
  Verification
} from "@paycore/core"
import type { Insertable, Selectable } from "kysely"
import type {
  BeneficialOwnersTable,
  BulkImportJobsTable,
  ContactChallengesTable,
  CustomersTable,
  DocumentsTable,
  ExternalAccountsTable,
  IdempotencyTable,
  InternalAccountsTable,
  LedgerBalancesTable,
  LedgerTransfersTable,
  OutboxTable,
  PlatformConfigTable,
  QuotesTable,
  TokensTable,
  TransactionsTable,
  VerificationsTable
} from "./schema.ts"

/**
 * Records to rows and back. A decoder builds exactly the keys the record had: an optional field is set
 * only when its column is not NULL (never an `undefined` or `null` key), so a record round-trips with
 * `deepStrictEqual`. Rows are trusted (the store wrote them): no schema decoding per row.
 */
export interface Codec<T, Table> {
  readonly table: string
  /** Every written column, in the order of the prepared INSERT's parameters. */
  readonly columns: ReadonlyArray<keyof Insertable<Table> & string>
  readonly encode: (value: T) => Insertable<Table>
  readonly decode: (row: Selectable<Table>) => T
}

/** The parameters of a prepared INSERT of `value`. */
export const valuesOf = <T, Table>(codec: Codec<T, Table>, value: T): Array<unknown> => {
  const row = codec.encode(value) as Record<string, unknown>
  const columns = codec.columns
  const out = new Array<unknown>(columns.length)
  for (let i = 0; i < columns.length; i++) out[i] = row[columns[i]!]
  return out
}

type Fields = Record<string, unknown>

/** Sets an optional field when its column holds a value. */
const set = (target: Fields, key: string, value: unknown): void => {
  if (value !== null) target[key] = value
}

/** A required JSONB value as the JSON text written to it. */
const json = (value: unknown): string => JSON.stringify(value)
/** An optional JSONB value: NULL when the field is absent. */
const optionalJson = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value))
/** Readonly arrays go to `text[]` parameters as they are (the driver only reads them). */
const array = (value: ReadonlyArray<string>): Array<string> => value as Array<string>

// ---- tokens ----

export const tokens: Codec<TokenRecord, TokensTable> = {
  table: "tokens",
  columns: [
    "id",
    "name",
    "permissions",
    "environment",
    "client_id",
    "secret_hash",
    "created_at",
    "updated_at",
    "deleted_at"
  ],
  encode: (t) => ({
    id: t.id,
    name: t.name,
    permissions: array(t.permissions),
    environment: t.environment,
    client_id: t.clientId,
    secret_hash: t.secretHash,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    deleted_at: t.deletedAt ?? null
  }),
  decode: (r) => {
    const t: Fields = {
      id: r.id,
      name: r.name,
      permissions: r.permissions,
      environment: r.environment,
      clientId: r.client_id,
      secretHash: r.secret_hash,
      createdAt: r.created_at,
      updatedAt: r.updated_at
    }
    set(t, "deletedAt", r.deleted_at)
    return t as unknown as TokenRecord
  }
}

// ---- customers ----

/** Either variant's fields, for writing the columns of both (the other variant's stay NULL). */
type AnyCustomer = Partial<Omit<IndividualCustomer, "customerType">> & Partial<Omit<BusinessCustomer, "customerType">>

export const customers: Codec<Customer, CustomersTable> = {
  table: "customers",
  columns: [
    "id",
    "customer_type",
    "platform_customer_id",
    "region",
    "currencies",
    "email",
    "phone_number",
    "uma_address",
    "email_verification",
    "phone_verification",
    "end_user_terms_consent",
    "is_deleted",
    "created_at",
    "updated_at",
    "kyc_status",
    "kyb_status",
    "address",
    "business_info",
    "full_name",
    "birth_date",
    "nationality",
    "id_type",
    "identifier",
    "country_of_issuance",
    "source_of_funds_categories",
    "source_of_funds_other_description",
    "source_of_wealth_categories",
    "source_of_wealth_other_description",
    "purpose_of_account",
    "purpose_of_account_other_description",
    "expected_monthly_transaction_count",
    "expected_monthly_transaction_volume",
    "annual_income_range",
    "net_worth_range",
    "pep_status"
  ],
  encode: (customer) => {
    const c = customer as AnyCustomer
    return {
      id: customer.id,
      customer_type: customer.customerType,
      platform_customer_id: customer.platformCustomerId,
      region: customer.region ?? null,
      currencies: array(customer.currencies),
      email: customer.email ?? null,
      phone_number: customer.phoneNumber ?? null,
      uma_address: customer.umaAddress,
      email_verification: customer.contactVerification.email,
      phone_verification: customer.contactVerification.phone,
      end_user_terms_consent: optionalJson(customer.endUserTermsConsent),
      is_deleted: customer.isDeleted,
      created_at: customer.createdAt,
      updated_at: customer.updatedAt,
      kyc_status: customer.kycStatus,
      kyb_status: c.kybStatus ?? null,
      address: optionalJson(c.address),
      business_info: optionalJson(c.businessInfo),
      full_name: c.fullName ?? null,
      birth_date: c.birthDate ?? null,
      nationality: c.nationality ?? null,
      id_type: c.idType ?? null,
      identifier: c.identifier ?? null,
      country_of_issuance: c.countryOfIssuance ?? null,
      source_of_funds_categories: c.sourceOfFundsCategories === undefined ? null : array(c.sourceOfFundsCategories),
      source_of_funds_other_description: c.sourceOfFundsOtherDescription ?? null,
      source_of_wealth_categories: c.sourceOfWealthCategories === undefined ? null : array(c.sourceOfWealthCategories),
      source_of_wealth_other_description: c.sourceOfWealthOtherDescription ?? null,
      purpose_of_account: c.purposeOfAccount ?? null,
      purpose_of_account_other_description: c.purposeOfAccountOtherDescription ?? null,
      expected_monthly_transaction_count: c.expectedMonthlyTransactionCount ?? null,
      expected_monthly_transaction_volume: c.expectedMonthlyTransactionVolume ?? null,
      annual_income_range: c.annualIncomeRange ?? null,
      net_worth_range: c.netWorthRange ?? null,
      pep_status: c.pepStatus ?? null
    }
  },
  decode: (r) => {
    const c: Fields = {
      id: r.id,
      customerType: r.customer_type,
      platformCustomerId: r.platform_customer_id,
      currencies: r.currencies,
      umaAddress: r.uma_address,
      contactVerification: { email: r.email_verification, phone: r.phone_verification },
      isDeleted: r.is_deleted,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      kycStatus: r.kyc_status
    }
    set(c, "region", r.region)
    set(c, "email", r.email)
    set(c, "phoneNumber", r.phone_number)
    set(c, "endUserTermsConsent", r.end_user_terms_consent)
    set(c, "kybStatus", r.kyb_status)
    set(c, "address", r.address)
    set(c, "businessInfo", r.business_info)
    set(c, "fullName", r.full_name)
    set(c, "birthDate", r.birth_date)
    set(c, "nationality", r.nationality)
    set(c, "idType", r.id_type)
    set(c, "identifier", r.identifier)
    set(c, "countryOfIssuance", r.country_of_issuance)
    set(c, "sourceOfFundsCategories", r.source_of_funds_categories)
    set(c, "sourceOfFundsOtherDescription", r.source_of_funds_other_description)
    set(c, "sourceOfWealthCategories", r.source_of_wealth_categories)
    set(c, "sourceOfWealthOtherDescription", r.source_of_wealth_other_description)
    set(c, "purposeOfAccount", r.purpose_of_account)
    set(c, "purposeOfAccountOtherDescription", r.purpose_of_account_other_description)
    set(c, "expectedMonthlyTransactionCount", r.expected_monthly_transaction_count)
    set(c, "expectedMonthlyTransactionVolume", r.expected_monthly_transaction_volume)
    set(c, "annualIncomeRange", r.annual_income_range)
    set(c, "netWorthRange", r.net_worth_range)
    set(c, "pepStatus", r.pep_status)
    return c as unknown as Customer
  }
}

// ---- accounts ----

export const internalAccounts: Codec<InternalAccountRecord, InternalAccountsTable> = {
  table: "internal_accounts",
  columns: [
    "id",
    "customer_id",
    "type",
    "status",
    "currency",
    "funding_payment_instructions",
    "supports_spend_limits",
    "supports_transaction_count_limit",
    "created_at",
    "updated_at"
  ],
  encode: (a) => ({
    id: a.id,
    customer_id: a.customerId ?? null,
    type: a.type,
    status: a.status,
    currency: a.currency,
    funding_payment_instructions: json(a.fundingPaymentInstructions),
    supports_spend_limits: a.cardCapabilities.supportsSpendLimits,
    supports_transaction_count_limit: a.cardCapabilities.supportsTransactionCountLimit,
    created_at: a.createdAt,
    updated_at: a.updatedAt
  }),
  decode: (r) => {
    const a: Fields = {
      id: r.id,
      type: r.type,
      status: r.status,
      currency: r.currency,
      fundingPaymentInstructions: r.funding_payment_instructions,
      cardCapabilities: {
        supportsSpendLimits: r.supports_spend_limits,
        supportsTransactionCountLimit: r.supports_transaction_count_limit
      },
      createdAt: r.created_at,
      updatedAt: r.updated_at
    }
    set(a, "customerId", r.customer_id)
    return a as unknown as InternalAccountRecord
  }
}

export const externalAccounts: Codec<ExternalAccount, ExternalAccountsTable> = {
  table: "external_accounts",
  columns: [
    "id",
    "customer_id",
    "status",
    "currency",
    "platform_account_id",
    "ownership_type",
    "default_uma_deposit_account",
    "payment_rails",
    "account_info",
    "created_at",
    "updated_at"
  ],
  encode: (a) => ({
    id: a.id,
    customer_id: a.customerId,
    status: a.status,
    currency: a.currency,
    platform_account_id: a.platformAccountId ?? null,
    ownership_type: a.ownershipType,
    default_uma_deposit_account: a.defaultUmaDepositAccount,
    payment_rails: array(a.paymentRails),
    account_info: json(a.accountInfo),
    created_at: a.createdAt,
    updated_at: a.updatedAt
  }),
  decode: (r) => {
    const a: Fields = {
      id: r.id,
      customerId: r.customer_id,
      status: r.status,
      currency: r.currency,
      ownershipType: r.ownership_type,
      defaultUmaDepositAccount: r.default_uma_deposit_account,
      paymentRails: r.payment_rails,
      accountInfo: r.account_info,
      createdAt: r.created_at,
      updatedAt: r.updated_at
    }
    set(a, "platformAccountId", r.platform_account_id)
    return a as unknown as ExternalAccount
  }
}

// ---- quotes (the record's id is its quote's id) ----

export const quotes: Codec<QuoteRecord, QuotesTable> = {
  table: "quotes",
  columns: [
    "id",
    "status",
    "created_at",
    "expires_at",
    "customer_id",
    "source",
    "destination",
    "sending_currency",
    "receiving_currency",
    "total_sending_amount",
    "total_receiving_amount",
    "exchange_rate",
    "fees_included",
    "platform_fees_included",
    "transaction_id",
    "description",
    "remittance_information",
    "purpose_of_payment",
    "payment_instructions",
    "rate_details",
    "net_sending_amount",
    "service_fee",
    "platform_fee",
    "minor_rate"
  ],
  encode: ({ id, quote: q, pricing: p }) => ({
    id,
    status: q.status,
    created_at: q.createdAt,
    expires_at: q.expiresAt,
    customer_id: q.customerId ?? null,
    source: json(q.source),
    destination: json(q.destination),
    sending_currency: json(q.sendingCurrency),
    receiving_currency: json(q.receivingCurrency),
    total_sending_amount: q.totalSendingAmount,
    total_receiving_amount: q.totalReceivingAmount,
    exchange_rate: q.exchangeRate,
    fees_included: q.feesIncluded,
    platform_fees_included: q.platformFeesIncluded,
    transaction_id: q.transactionId,
    description: q.description ?? null,
    remittance_information: q.remittanceInformation ?? null,
    purpose_of_payment: q.purposeOfPayment ?? null,
    payment_instructions: json(q.paymentInstructions),
    rate_details: json(q.rateDetails),
    net_sending_amount: p.netSendingAmount,
    service_fee: p.serviceFee,
    platform_fee: p.platformFee,
    minor_rate: p.minorRate
  }),
  decode: (r) => {
    const q: Fields = {
      id: r.id,
      status: r.status,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      source: r.source,
      destination: r.destination,
      sendingCurrency: r.sending_currency,
      receivingCurrency: r.receiving_currency,
      totalSendingAmount: r.total_sending_amount,
      totalReceivingAmount: r.total_receiving_amount,
      exchangeRate: r.exchange_rate,
      feesIncluded: r.fees_included,
      platformFeesIncluded: r.platform_fees_included,
      transactionId: r.transaction_id,
      paymentInstructions: r.payment_instructions,
      rateDetails: r.rate_details
    }
    set(q, "customerId", r.customer_id)
    set(q, "description", r.description)
    set(q, "remittanceInformation", r.remittance_information)
    set(q, "purposeOfPayment", r.purpose_of_payment)
    return {
      id: r.id,
      quote: q as unknown as QuoteRecord["quote"],
      pricing: {
        netSendingAmount: r.net_sending_amount,
        serviceFee: r.service_fee,
        platformFee: r.platform_fee,
        minorRate: r.minor_rate
      }
    }
  }
}

// ---- transactions (the record's id is its transaction's id) ----

export const transactions: Codec<TransactionRecord, TransactionsTable> = {
  table: "transactions",
  columns: [
    "id",
    "state",
    "account_id",
    "rail_reference",
    "due_at",
    "attempts",
    "stalled_at",
    "status",
    "type",
    "direction",
    "source",
    "destination",
    "customer_id",
    "platform_customer_id",
    "sent_amount",
    "sent_currency",
    "received_amount",
    "received_currency",
    "exchange_rate",
    "quote_id",
    "description",
    "failure_reason",
    "pending_reason",
    "refund",
    "fees",
    "platform_fees",
    "payment_rail",
    "rail_selection_mode",
    "expected_settlement_at",
    "settlement_timeline_seconds",
    "remittance_information",
    "reconciliation_reference",
    "settled_at",
    "created_at",
    "updated_at"
  ],
  encode: (record) => {
    const t = record.transaction
    return {
      id: record.id,
      state: record.state,
      account_id: record.accountId ?? null,
      rail_reference: record.railReference ?? null,
      due_at: record.dueAt ?? null,
      attempts: record.attempts ?? null,
      stalled_at: record.stalledAt ?? null,
      status: t.status,
      type: t.type,
      direction: t.direction,
      source: json(t.source),
      destination: json(t.destination),
      customer_id: t.customerId ?? null,
      platform_customer_id: t.platformCustomerId ?? null,
      sent_amount: t.sentAmount.amount,
      sent_currency: json(t.sentAmount.currency),
      received_amount: t.receivedAmount.amount,
      received_currency: json(t.receivedAmount.currency),
      exchange_rate: t.exchangeRate ?? null,
      quote_id: t.quoteId ?? null,
      description: t.description ?? null,
      failure_reason: t.failureReason ?? null,
      pending_reason: t.pendingReason ?? null,
      refund: optionalJson(t.refund),
      fees: t.fees ?? null,
      platform_fees: t.platformFees ?? null,
      payment_rail: t.paymentRail ?? null,
      rail_selection_mode: t.railSelectionMode ?? null,
      expected_settlement_at: t.expectedSettlementAt ?? null,
      settlement_timeline_seconds: t.settlementTimelineSeconds ?? null,
      remittance_information: t.remittanceInformation ?? null,
      reconciliation_reference: t.reconciliationInstructions?.reference ?? null,
      settled_at: t.settledAt ?? null,
      created_at: t.createdAt,
      updated_at: t.updatedAt
    }
  },
  decode: (r) => {
    const t: Fields = {
      id: r.id,
      status: r.status,
      type: r.type,
      direction: r.direction,
      source: r.source,
      destination: r.destination,
      sentAmount: { amount: r.sent_amount, currency: r.sent_currency },
      receivedAmount: { amount: r.received_amount, currency: r.received_currency },
      createdAt: r.created_at,
      updatedAt: r.updated_at
    }
    set(t, "customerId", r.customer_id)
    set(t, "platformCustomerId", r.platform_customer_id)
    set(t, "exchangeRate", r.exchange_rate)
    set(t, "quoteId", r.quote_id)
    set(t, "description", r.description)
    set(t, "failureReason", r.failure_reason)
    set(t, "pendingReason", r.pending_reason)
    set(t, "refund", r.refund)
    set(t, "fees", r.fees)
    set(t, "platformFees", r.platform_fees)
    set(t, "paymentRail", r.payment_rail)
    set(t, "railSelectionMode", r.rail_selection_mode)
    set(t, "expectedSettlementAt", r.expected_settlement_at)
    set(t, "settlementTimelineSeconds", r.settlement_timeline_seconds)
    set(t, "remittanceInformation", r.remittance_information)
    if (r.reconciliation_reference !== null) t.reconciliationInstructions = { reference: r.reconciliation_reference }
    set(t, "settledAt", r.settled_at)
    const record: Fields = { id: r.id, transaction: t, state: r.state }
    set(record, "accountId", r.account_id)
    set(record, "railReference", r.rail_reference)
    set(record, "dueAt", r.due_at)
    set(record, "attempts", r.attempts)
    set(record, "stalledAt", r.stalled_at)
    return record as unknown as TransactionRecord
  }
}

// ---- onboarding ----

export const beneficialOwners: Codec<BeneficialOwner, BeneficialOwnersTable> = {
  table: "beneficial_owners",
  columns: [
    "id",
    "customer_id",
    "roles",
    "ownership_percentage",
    "personal_info",
    "kyc_status",
    "created_at",
    "updated_at"
  ],
  encode: (o) => ({
    id: o.id,
    customer_id: o.customerId,
    roles: array(o.roles),
    ownership_percentage: o.ownershipPercentage,
    personal_info: json(o.personalInfo),
    kyc_status: o.kycStatus,
    created_at: o.createdAt,
    updated_at: o.updatedAt
  }),
  decode: (r) =>
    ({
      id: r.id,
      customerId: r.customer_id,
      roles: r.roles,
      ownershipPercentage: r.ownership_percentage,
      personalInfo: r.personal_info,
      kycStatus: r.kyc_status,
      createdAt: r.created_at,
      updatedAt: r.updated_at
    }) as unknown as BeneficialOwner
}

export const verifications: Codec<Verification, VerificationsTable> = {
  table: "verifications",
  columns: ["id", "customer_id", "verification_status", "errors", "created_at", "updated_at"],
  encode: (v) => ({
    id: v.id,
    customer_id: v.customerId,
    verification_status: v.verificationStatus,
    errors: json(v.errors),
    created_at: v.createdAt,
    updated_at: v.updatedAt
  }),
  decode: (r) =>
    ({
      id: r.id,
      customerId: r.customer_id,
      verificationStatus: r.verification_status,
      errors: r.errors,
      createdAt: r.created_at,
      updatedAt: r.updated_at
    }) as unknown as Verification
}

export const documents: Codec<DocumentRecord, DocumentsTable> = {
  table: "documents",
  columns: ["id", "document_holder", "document", "files", "submitted_at", "deleted_at"],
  encode: (d) => ({
    id: d.id,
    document_holder: d.document.documentHolder,
    document: json(d.document),
    files: json(d.files),
    submitted_at: d.submittedAt ?? null,
    deleted_at: d.deletedAt ?? null
  }),
  decode: (r) => {
    const d: Fields = { id: r.id, document: r.document, files: r.files }
    set(d, "submittedAt", r.submitted_at)
    set(d, "deletedAt", r.deleted_at)
    return d as unknown as DocumentRecord
  }
}

export const bulkImportJobs: Codec<BulkImportJobRecord, BulkImportJobsTable> = {
  table: "bulk_import_jobs",
  columns: ["id", "status", "job", "file_key", "created_at", "updated_at"],
  encode: (j) => ({
    id: j.id,
    status: j.job.status,
    job: json(j.job),
    file_key: j.fileKey,
    created_at: j.createdAt,
    updated_at: j.updatedAt
  }),
  decode: (r) =>
    ({
      id: r.id,
      job: r.job,
      fileKey: r.file_key,
      createdAt: r.created_at,
      updatedAt: r.updated_at
    }) as unknown as BulkImportJobRecord
}

/** Keyed by `key`, not `id`: not a collection (written with its own statements). */
export const contactChallenges = {
  columns: ["key", "customer_id", "channel", "code_hash", "sent_to", "sent_at", "expires_at", "attempts"],
  encode: (c: ContactChallenge): Array<unknown> => [
    c.key,
    c.customerId,
    c.channel,
    c.codeHash,
    c.sentTo,
    c.sentAt,
    c.expiresAt,
    c.attempts
  ],
  decode: (r: Selectable<ContactChallengesTable>): ContactChallenge => ({
    key: r.key,
    customerId: r.customer_id,
    channel: r.channel as ContactChallenge["channel"],
    codeHash: r.code_hash,
    sentTo: r.sent_to,
    sentAt: r.sent_at,
    expiresAt: r.expires_at,
    attempts: r.attempts
  })
} as const

// ---- ledger ----

export const ledgerTransfer = (r: Selectable<LedgerTransfersTable>): LedgerTransfer => ({
  id: r.id,
  debit: r.debit,
  credit: r.credit,
  amount: r.amount,
  currency: r.currency,
  state: r.state as LedgerTransfer["state"],
  reference: r.reference,
  createdAt: r.created_at
})

export const ledgerBalance = (r: Selectable<LedgerBalancesTable>): LedgerBalance => ({
  account: r.account,
  currency: r.currency,
  posted: r.posted,
  pendingDebits: r.pending_debits,
  pendingCredits: r.pending_credits
})

// ---- outbox ----

export const outbox: Codec<OutboxRecord, OutboxTable> = {
  table: "outbox",
  columns: [
    "id",
    "type",
    "subject",
    "sequence",
    "created_at",
    "body",
    "status",
    "attempts",
    "next_attempt_at",
    "lease_until"
  ],
  encode: (o) => ({
    id: o.id,
    type: o.type,
    subject: o.subject,
    sequence: o.sequence,
    created_at: o.createdAt,
    body: o.body,
    status: o.status,
    attempts: json(o.attempts),
    next_attempt_at: o.nextAttemptAt,
    lease_until: o.leaseUntil ?? null
  }),
  decode: (r) => {
    const o: Fields = {
      id: r.id,
      type: r.type,
      subject: r.subject,
      sequence: r.sequence,
      createdAt: r.created_at,
      body: r.body,
      status: r.status,
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at
    }
    set(o, "leaseUntil", r.lease_until)
    return o as unknown as OutboxRecord
  }
}

// ---- idempotency, config ----

export const idempotency: Codec<IdempotencyRecord, IdempotencyTable> = {
  table: "idempotency",
  columns: ["key", "fingerprint", "status", "body", "created_at"],
  encode: (i) => ({
    key: i.key,
    fingerprint: i.fingerprint,
    status: i.status,
    body: i.body,
    created_at: i.createdAt
  }),
  decode: (r) => ({
    key: r.key,
    fingerprint: r.fingerprint,
    status: r.status,
    body: r.body,
    createdAt: r.created_at
  })
}

export const platformConfig: Codec<PlatformConfig, PlatformConfigTable> = {
  table: "platform_config",
  columns: [
    "id",
    "uma_domain",
    "webhook_endpoint",
    "supported_currencies",
    "is_regulated_financial_institution",
    "skip_verification_paperwork",
    "fee_configs",
    "card_configs",
    "card_tokenization_2fa_config",
    "transaction_limits",
    "created_at",
    "updated_at"
  ],
  encode: (c) => ({
    id: c.id,
    uma_domain: c.umaDomain,
    webhook_endpoint: c.webhookEndpoint ?? null,
    supported_currencies: array(c.supportedCurrencies),
    is_regulated_financial_institution: c.isRegulatedFinancialInstitution,
    skip_verification_paperwork: c.skipVerificationPaperwork,
    fee_configs: json(c.feeConfigs),
    card_configs: optionalJson(c.cardConfigs),
    card_tokenization_2fa_config: optionalJson(c.cardTokenization2faConfig),
    transaction_limits: json(c.transactionLimits),
    created_at: c.createdAt,
    updated_at: c.updatedAt
  }),
  decode: (r) => {
    const c: Fields = {
      id: r.id,
      umaDomain: r.uma_domain,
      supportedCurrencies: r.supported_currencies,
      isRegulatedFinancialInstitution: r.is_regulated_financial_institution,
      skipVerificationPaperwork: r.skip_verification_paperwork,
      feeConfigs: r.fee_configs,
      transactionLimits: r.transaction_limits,
      createdAt: r.created_at,
      updatedAt: r.updated_at
    }
    set(c, "webhookEndpoint", r.webhook_endpoint)
    set(c, "cardConfigs", r.card_configs)
    set(c, "cardTokenization2faConfig", r.card_tokenization_2fa_config)
    return c as unknown as PlatformConfig
  }
}
