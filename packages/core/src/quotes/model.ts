import { Schema } from "effect"
import { PaymentInstructions, PaymentRail } from "../accounts/model.ts"
import { CounterpartyFieldDefinition } from "../platform/model.ts"
import { ScaChallenge, ScaFactor } from "../sca/model.ts"
import { Currency, CurrencyCode } from "../shared/currency.ts"
import { type AgentId, CustomerId, InternalAccountId, LookupId, QuoteId, TransactionId } from "../shared/ids.ts"
import { MinorUnits, PositiveMinorUnits } from "../shared/money.ts"
import { CRYPTO_NETWORKS } from "../shared/payee-types.ts"
import { DateTimeString, UmaAddress } from "../shared/schemas.ts"

export const CryptoNetwork = Schema.Literals(CRYPTO_NETWORKS)
export type CryptoNetwork = typeof CryptoNetwork.Type

/** Debit an internal account. */
export const AccountSource = Schema.Struct({
  sourceType: Schema.Literal("ACCOUNT"),
  accountId: InternalAccountId,
  customerId: Schema.optionalKey(CustomerId)
})
/** Funded by a deposit to the quote's `paymentInstructions` (instant rails, stablecoins). */
export const RealtimeFundingSource = Schema.Struct({
  sourceType: Schema.Literal("REALTIME_FUNDING"),
  currency: CurrencyCode,
  customerId: Schema.optionalKey(CustomerId),
  cryptoNetwork: Schema.optionalKey(CryptoNetwork)
})
export const QuoteSource = Schema.Union([AccountSource, RealtimeFundingSource])
export type QuoteSource = typeof QuoteSource.Type

/** An external account of a customer, or another internal account (an internal transfer). */
export const AccountDestination = Schema.Struct({
  destinationType: Schema.Literal("ACCOUNT"),
  accountId: Schema.String.check(
    Schema.isPattern(/^(ExternalAccount|InternalAccount):[0-9a-f-]{36}$/, {
      expected: "an ExternalAccount or InternalAccount id"
    })
  ),
  paymentRail: Schema.optionalKey(PaymentRail)
})
export const UmaDestination = Schema.Struct({
  destinationType: Schema.Literal("UMA_ADDRESS"),
  umaAddress: UmaAddress,
  currency: Schema.optionalKey(CurrencyCode)
})
export const QuoteDestination = Schema.Union([AccountDestination, UmaDestination])
export type QuoteDestination = typeof QuoteDestination.Type

export const LockedCurrencySide = Schema.Literals(["SENDING", "RECEIVING"])
export type LockedCurrencySide = typeof LockedCurrencySide.Type

export const PurposeOfPayment = Schema.Literals([
  "GIFT",
  "SELF",
  "GOODS_OR_SERVICES",
  "EDUCATION",
  "HEALTH_OR_MEDICAL",
  "REAL_ESTATE_PURCHASE",
  "TAX_PAYMENT",
  "LOAN_PAYMENT",
  "UTILITY_BILL",
  "DONATION",
  "TRAVEL",
  "FAMILY_SUPPORT",
  "SALARY_PAYMENT",
  "OTHER"
])

/** Replaces the configured platform fee for one quote; USD source only. */
export const PlatformFeeOverride = Schema.Struct({
  platformFixedFee: Schema.Struct({ amount: MinorUnits, currency: CurrencyCode }),
  platformVariableFeeBps: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 }))
})
export type PlatformFeeOverride = typeof PlatformFeeOverride.Type

export const CreateQuoteRequest = Schema.Struct({
  lookupId: Schema.optionalKey(LookupId),
  source: QuoteSource,
  destination: QuoteDestination,
  lockedCurrencySide: LockedCurrencySide,
  lockedCurrencyAmount: PositiveMinorUnits,
  immediatelyExecute: Schema.optionalKey(Schema.Boolean),
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1024))),
  remittanceInformation: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(80))),
  purposeOfPayment: Schema.optionalKey(PurposeOfPayment),
  platformFeeOverride: Schema.optionalKey(PlatformFeeOverride),
  /**
   * S-08: the factor of the SCA challenge the quote gets (at creation for a real-time-funded source, else at
   * execute): `SMS_OTP` (default) or `PASSKEY`; `TOTP` cannot carry dynamic linking and is refused (400).
   */
  scaFactor: Schema.optionalKey(ScaFactor),
  senderCustomerInfo: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})
export type CreateQuoteRequest = typeof CreateQuoteRequest.Type

/**
 * `POST /quotes/{quoteId}/execute`'s optional body (Q-23, upstream `ExecuteQuoteRequest`): the factor of the SCA
 * challenge the call issues (S-08, as `CreateQuoteRequest.scaFactor`). No body is `null`.
 */
export const ExecuteQuoteRequest = Schema.NullOr(Schema.Struct({ scaFactor: Schema.optionalKey(ScaFactor) }))
export type ExecuteQuoteRequest = typeof ExecuteQuoteRequest.Type

export const QuoteStatus = Schema.Literals([
  "PENDING",
  "PENDING_AUTHORIZATION",
  "PROCESSING",
  "COMPLETED",
  "FAILED",
  "EXPIRED"
])
export type QuoteStatus = typeof QuoteStatus.Type

export const RateDetails = Schema.Struct({
  counterpartyMultiplier: Schema.Finite,
  counterpartyFixedFee: Schema.Int,
  serviceApiMultiplier: Schema.Finite,
  serviceApiFixedFee: Schema.Int,
  serviceApiVariableFeeRate: Schema.Finite,
  serviceApiVariableFeeAmount: Schema.Int
})

export const Quote = Schema.Struct({
  id: QuoteId,
  status: QuoteStatus,
  createdAt: DateTimeString,
  expiresAt: DateTimeString,
  customerId: Schema.optionalKey(CustomerId),
  source: QuoteSource,
  destination: Schema.Union([
    Schema.Struct({ ...AccountDestination.fields, paymentRail: PaymentRail }),
    Schema.Struct({ ...UmaDestination.fields, paymentRail: Schema.optionalKey(PaymentRail) })
  ]),
  sendingCurrency: Currency,
  receivingCurrency: Currency,
  /** Debited from the source, fees included. */
  totalSendingAmount: Schema.Int,
  /** Credited to the destination. */
  totalReceivingAmount: Schema.Int,
  /** Receiving major units per sending major unit, after fees; `1` for same-currency quotes. */
  exchangeRate: Schema.Finite,
  feesIncluded: Schema.Int,
  platformFeesIncluded: Schema.Int,
  transactionId: TransactionId,
  description: Schema.optionalKey(Schema.String),
  remittanceInformation: Schema.optionalKey(Schema.String),
  purposeOfPayment: Schema.optionalKey(PurposeOfPayment),
  paymentInstructions: Schema.Array(PaymentInstructions),
  rateDetails: RateDetails,
  /** S-03: the SCA challenge to satisfy now; present only while `PENDING_AUTHORIZATION`. */
  scaChallenge: Schema.optionalKey(ScaChallenge)
})
export type Quote = typeof Quote.Type

/**
 * S-06: a real-time-funded quote of a customer subject to SCA as `POST /quotes` creates it (202): waiting for its
 * challenge, its payment instructions withheld until it is authorized.
 */
export const QuoteAwaitingAuthorization = Schema.Struct({
  ...Quote.fields,
  status: Schema.Literal("PENDING_AUTHORIZATION"),
  source: RealtimeFundingSource,
  scaChallenge: ScaChallenge
})

/** A quote as stored: the public quote and how it was priced (exact decimals as strings). */
export interface QuoteRecord {
  readonly id: string
  readonly quote: Quote
  readonly pricing: {
    /** Sending amount converted (after fees), in the sending currency's smallest unit. */
    readonly netSendingAmount: number
    /** The service's fee and the platform's fee, in the sending currency's smallest unit. */
    readonly serviceFee: number
    readonly platformFee: number
    /** Exact receiving-minor-units per sending-minor-unit rate used (decimal string). */
    readonly minorRate: string
  }
  /** The SCA factor asked for at creation (`scaFactor`): the default of the challenge execute issues. */
  readonly scaFactor?: ScaFactor | undefined
  /**
   * When the quote's SCA challenges were passed before its money could move: a real-time-funded quote's deposit
   * then executes it without another challenge (S-06).
   */
  readonly scaAuthorizedAt?: string | undefined
  /**
   * The agent that created the quote (`CreateOptions.agentId`): its transaction carries it (AG-38). Not shown on
   * the quote (the upstream Quote has no `agentId`); the agent's own reads check it.
   */
  readonly agentId?: AgentId | undefined
}

// ---- receiver lookups ----

/** `GET /receiver/...` query: who is sending (either one; both optional). */
export const ReceiverLookupQuery = Schema.Struct({
  senderUmaAddress: Schema.optionalKey(Schema.String),
  customerId: Schema.optionalKey(CustomerId)
})
export type ReceiverLookupQuery = typeof ReceiverLookupQuery.Type

/** A currency the receiver accepts: an estimated rate from the sender's currency, min and max receivable. */
export const CurrencyPreference = Schema.Struct({
  currency: Currency,
  /** Receiving major units per sending major unit (market rate, not locked). */
  estimatedExchangeRate: Schema.Finite,
  min: Schema.Int,
  max: Schema.Int
})
export type CurrencyPreference = typeof CurrencyPreference.Type

export const ExternalAccountLookup = Schema.Struct({
  accountId: Schema.String,
  lookupId: LookupId,
  supportedCurrencies: Schema.Array(CurrencyPreference),
  requiredPayerDataFields: Schema.Array(CounterpartyFieldDefinition)
})
export type ExternalAccountLookup = typeof ExternalAccountLookup.Type

export const UmaLookup = Schema.Struct({
  receiverUmaAddress: Schema.String,
  lookupId: LookupId,
  supportedCurrencies: Schema.Array(CurrencyPreference),
  requiredPayerDataFields: Schema.Array(CounterpartyFieldDefinition)
})
export type UmaLookup = typeof UmaLookup.Type

/**
 * A receiver lookup as stored (Q-03, C-23, Q-48): what was looked up, what the receiver asks of the payer, and until
 * when a quote may name it by its `lookupId`. `POST /quotes` reads it back: a quote to an UMA address needs a live
 * lookup of that address, and its `senderCustomerInfo` must carry every mandatory field.
 */
export interface LookupRecord {
  readonly id: LookupId
  /** What was looked up, named as a quote's `destinationType`: an UMA address, or an external account. */
  readonly destinationType: "UMA_ADDRESS" | "ACCOUNT"
  /** The UMA address as it was asked for, or the external account's id. */
  readonly receiver: string
  readonly requiredPayerDataFields: ReadonlyArray<CounterpartyFieldDefinition>
  /** The sender the lookup was made for (its `customerId` query), when it named one. */
  readonly customerId?: CustomerId | undefined
  readonly createdAt: string
  /** After this instant the lookup is gone for quotes (404 `LOOKUP_REQUEST_NOT_FOUND`). */
  readonly expiresAt: string
}

export interface LookupFilter {
  readonly customerId?: string | undefined
}

/** `POST /crypto/estimate-withdrawal-fee`: a withdrawal from a crypto internal account to an address. */
export const EstimateWithdrawalFeeRequest = Schema.Struct({
  internalAccountId: InternalAccountId,
  currency: CurrencyCode,
  cryptoNetwork: CryptoNetwork,
  amount: PositiveMinorUnits,
  destinationAddress: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024))
})
export type EstimateWithdrawalFeeRequest = typeof EstimateWithdrawalFeeRequest.Type

/** Every amount but `networkFee` (in `networkFeeAsset`) is in the smallest unit of the withdrawal's currency. */
export const EstimateWithdrawalFeeResponse = Schema.Struct({
  networkFee: Schema.Int,
  networkFeeAsset: Schema.String,
  applicationFee: MinorUnits,
  /** The network fee at current rates plus `applicationFee`: deducted from `amount`. */
  totalFee: MinorUnits,
  netAmount: MinorUnits
})
export type EstimateWithdrawalFeeResponse = typeof EstimateWithdrawalFeeResponse.Type
