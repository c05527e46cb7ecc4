import { Schema } from "effect"
import { Currency, CurrencyCode } from "../shared/currency.ts"
import { type AgentId, type CustomerId, TokenId } from "../shared/ids.ts"
import { MinorUnits, PositiveMinorUnits } from "../shared/money.ts"
import { PageQueryFields } from "../shared/paging.ts"
import { boundedString, CountryCode, DateTimeString, Email } from "../shared/schemas.ts"

// ---- API tokens ----

export const Permission = Schema.Literals(["VIEW", "TRANSACT", "MANAGE"])
export type Permission = typeof Permission.Type

/** Tokens are scoped to one environment; sandbox helpers refuse production tokens. */
export const Environment = Schema.Literals(["SANDBOX", "PRODUCTION"])
export type Environment = typeof Environment.Type

export const ApiToken = Schema.Struct({
  id: TokenId,
  name: Schema.String,
  permissions: Schema.Array(Permission),
  environment: Environment,
  clientId: Schema.String,
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type ApiToken = typeof ApiToken.Type

/** Only the create response carries the secret; it is never readable again. */
export const ApiTokenWithSecret = Schema.Struct({ ...ApiToken.fields, clientSecret: Schema.String })
export type ApiTokenWithSecret = typeof ApiTokenWithSecret.Type

/** What the store keeps: the token and the SHA-256 of its secret. */
export interface TokenRecord extends ApiToken {
  /** Lowercase hex SHA-256 of the client secret. */
  readonly secretHash: string
  /**
   * Set when the token is deleted (the Store port has no row delete): a deleted token never
   * authenticates, is 404 on get and is left out of lists.
   */
  readonly deletedAt?: string | undefined
}

export const CreateTokenRequest = Schema.Struct({
  name: boundedString(255),
  permissions: Schema.NonEmptyArray(Permission),
  environment: Schema.optionalKey(Environment)
})
export type CreateTokenRequest = typeof CreateTokenRequest.Type

export const ListTokensQuery = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  createdAfter: Schema.optionalKey(DateTimeString),
  createdBefore: Schema.optionalKey(DateTimeString),
  ...PageQueryFields
})
export type ListTokensQuery = typeof ListTokensQuery.Type

/** A platform API token (HTTP Basic), as authentication established it. */
export interface PlatformPrincipal {
  readonly kind: "PLATFORM"
  readonly tokenId: TokenId
  readonly permissions: ReadonlyArray<Permission>
  readonly environment: Environment
}

/**
 * AG-04: what an agent may do (upstream `AgentPermission`). Defined here, not in `agents/`, so the principal union
 * below can name it: `agents` is the top layer and nothing imports it (`agents/model.ts` re-exports it).
 */
export const AgentPermission = Schema.Literals([
  "VIEW_TRANSACTIONS",
  "CREATE_TRANSFERS",
  "CREATE_QUOTES",
  "EXECUTE_QUOTES",
  "MANAGE_EXTERNAL_ACCOUNTS"
])
export type AgentPermission = typeof AgentPermission.Type

/**
 * Who a Bearer `gat_…` token is (Authentication item 4), as read for this one request (never cached, AG-11):
 * every `/agents/me` call is bound to `customerId`, and its writes re-check `permissions` and `isPaused` under the
 * agent's row lock. Defined here for the `Principal` union; `agents/model.ts` re-exports it.
 */
export interface AgentPrincipal {
  readonly kind: "AGENT"
  readonly agentId: AgentId
  readonly customerId: CustomerId
  readonly platformCustomerId: string
  readonly permissions: ReadonlyArray<AgentPermission>
  readonly isPaused: boolean
}

/** The caller of a request, as authentication established it: a platform token or an agent (`kind`). */
export type Principal = PlatformPrincipal | AgentPrincipal

// ---- platform configuration ----

export const FixedFee = Schema.Struct({ amount: MinorUnits, currency: CurrencyCode })

/** Platform fee on cross-currency transactions: basis points, a fixed amount, or both; USD source only. */
export const FeeConfig = Schema.Struct({
  feeType: Schema.Literals(["CROSS_CURRENCY_TRANSACTION"]),
  sourceCurrency: CurrencyCode,
  variableFeeBps: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 }))),
  fixedFee: Schema.optionalKey(FixedFee)
})
export type FeeConfig = typeof FeeConfig.Type

const CardCap = Schema.NullOr(PositiveMinorUnits)
export const CardConfigs = Schema.Struct({
  maxSpendPerTransaction: Schema.optionalKey(CardCap),
  maxSpendPerDay: Schema.optionalKey(CardCap),
  maxTransactionsPerDay: Schema.optionalKey(CardCap)
})

export const CardTokenization2faConfig = Schema.Struct({
  displayName: Schema.optionalKey(boundedString(255)),
  logoUrl: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(512), Schema.isPattern(/^https:\/\//, { expected: "an https URL" }))
  ),
  email: Schema.optionalKey(
    Schema.Struct({
      fromAddress: Schema.optionalKey(Schema.String),
      fromName: Schema.optionalKey(Schema.String),
      replyToAddress: Schema.optionalKey(Schema.String),
      subject: Schema.optionalKey(Schema.String),
      bodyText: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(2000)))
    })
  ),
  sms: Schema.optionalKey(
    Schema.Struct({
      templateSid: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(64))),
      bodyText: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(480)))
    })
  )
})

/** An `https://` origin, or `http://localhost[:port]` (browsers treat localhost as a secure context). */
const PasskeyOrigin = Schema.String.check(
  Schema.isMaxLength(255),
  Schema.isPattern(/^(https:\/\/[a-zA-Z0-9.-]+(:\d{1,5})?|http:\/\/localhost(:\d{1,5})?)$/, {
    expected: "an https:// origin (scheme, host, optional port), or http://localhost[:port]"
  })
)

/**
 * The platform's embedded wallets (upstream `EmbeddedWalletConfig`): the OTP email's branding and the codes'
 * length, alphabet and lifetime; plus the passkey relying party (FEATURES "HPKE parameters and passkey relying
 * party"). Fields left out keep their defaults (6 digits, 300 s, rpId `localhost` on the sandbox).
 */
export const EmbeddedWalletConfig = Schema.Struct({
  appName: Schema.optionalKey(boundedString(255)),
  otpLength: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 4, maximum: 12 }))),
  alphanumeric: Schema.optionalKey(Schema.Boolean),
  expirationSeconds: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 86_400 }))),
  sendFromEmailAddress: Schema.optionalKey(Email),
  sendFromEmailSenderName: Schema.optionalKey(boundedString(255)),
  replyToEmailAddress: Schema.optionalKey(Email),
  logoUrl: Schema.optionalKey(
    Schema.String.check(Schema.isMaxLength(512), Schema.isPattern(/^https:\/\/\S+$/, { expected: "an https URL" }))
  ),
  /** The WebAuthn relying party id passkeys are registered for (a domain, no scheme or port). */
  relyingPartyId: Schema.optionalKey(
    Schema.String.check(
      Schema.isMaxLength(253),
      Schema.isPattern(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, {
        expected: "a domain name in lowercase"
      })
    )
  ),
  /** Origins a passkey ceremony may come from (`clientDataJSON.origin`). */
  passkeyAllowedOrigins: Schema.optionalKey(Schema.Array(PasskeyOrigin).check(Schema.isMaxLength(20)))
})
export type EmbeddedWalletConfig = typeof EmbeddedWalletConfig.Type

/** A kind of data about a customer or a counterparty's customer (upstream `CustomerInfoFieldName`). */
export const CustomerInfoFieldName = Schema.Literals([
  "FULL_NAME",
  "BIRTH_DATE",
  "NATIONALITY",
  "PHONE_NUMBER",
  "EMAIL",
  "POSTAL_ADDRESS",
  "TAX_ID",
  "REGISTRATION_NUMBER",
  "USER_TYPE",
  "COUNTRY_OF_RESIDENCE",
  "ACCOUNT_IDENTIFIER",
  "FI_LEGAL_ENTITY_NAME",
  "FI_ADDRESS",
  "PURPOSE_OF_PAYMENT",
  "ULTIMATE_INSTITUTION_COUNTRY",
  "IDENTIFIER",
  "BUSINESS_TYPE",
  "COMPANY_LEGAL_NAME",
  "ID_TYPE",
  "ID_NUMBER"
])
export type CustomerInfoFieldName = typeof CustomerInfoFieldName.Type

/** A piece of data about the payer a receiver asks for (`FULL_NAME`, `BIRTH_DATE`...), and whether it must be sent. */
export const CounterpartyFieldDefinition = Schema.Struct({ name: CustomerInfoFieldName, mandatory: Schema.Boolean })
export type CounterpartyFieldDefinition = typeof CounterpartyFieldDefinition.Type

/** Which way a payment goes: what a transaction is, and what a currency is enabled for. */
export const TransactionType = Schema.Literals(["INCOMING", "OUTGOING"])
export type TransactionType = typeof TransactionType.Type

/**
 * One currency the platform's customers hold, send and receive (L-19, upstream `PlatformCurrencyConfig`): the least
 * and most a payment may carry in it (smallest unit; 400 `AMOUNT_OUT_OF_RANGE` outside), which ways it may go, and
 * what the platform asks a sending institution about its customer on incoming payments.
 */
export const PlatformCurrencyConfig = Schema.Struct({
  currencyCode: CurrencyCode,
  minAmount: MinorUnits,
  maxAmount: MinorUnits,
  requiredCounterpartyFields: Schema.Array(CounterpartyFieldDefinition),
  enabledTransactionTypes: Schema.Array(TransactionType)
})
export type PlatformCurrencyConfig = typeof PlatformCurrencyConfig.Type

/**
 * A currency in `PATCH /config`: a plain code (its current settings kept, or the defaults), or a
 * `PlatformCurrencyConfig` whose fields left out take the defaults (docs/payees.md, "Currency configuration").
 */
export const CurrencySetting = Schema.Union([
  CurrencyCode,
  Schema.Struct({
    currencyCode: CurrencyCode,
    minAmount: Schema.optionalKey(MinorUnits),
    maxAmount: Schema.optionalKey(MinorUnits),
    requiredCounterpartyFields: Schema.optionalKey(Schema.Array(CounterpartyFieldDefinition)),
    enabledTransactionTypes: Schema.optionalKey(Schema.Array(TransactionType)),
    // Read-only in the upstream (what its UMA provider requires): accepted, so an object read back can be sent
    // back, and ignored.
    providerRequiredCustomerFields: Schema.optionalKey(Schema.Array(CustomerInfoFieldName)),
    providerRequiredCounterpartyCustomerFields: Schema.optionalKey(Schema.Array(CustomerInfoFieldName))
  })
])
export type CurrencySetting = typeof CurrencySetting.Type

/** Per-currency payment limits (an extension: the spec names the codes, not the thresholds). */
export const TransactionLimit = Schema.Struct({
  currency: CurrencyCode,
  maxTransactionAmount: Schema.optionalKey(PositiveMinorUnits),
  maxDailyVolume: Schema.optionalKey(PositiveMinorUnits)
})
export type TransactionLimit = typeof TransactionLimit.Type

export const PlatformConfig = Schema.Struct({
  id: Schema.String,
  umaDomain: Schema.String,
  webhookEndpoint: Schema.optionalKey(Schema.String),
  supportedCurrencies: Schema.Array(PlatformCurrencyConfig),
  isRegulatedFinancialInstitution: Schema.Boolean,
  /** Sandbox platforms: skip the verification paperwork (issue 4); kept here so config is one record. */
  skipVerificationPaperwork: Schema.Boolean,
  feeConfigs: Schema.Array(FeeConfig),
  cardConfigs: Schema.optionalKey(CardConfigs),
  cardTokenization2faConfig: Schema.optionalKey(CardTokenization2faConfig),
  embeddedWalletConfig: Schema.optionalKey(EmbeddedWalletConfig),
  transactionLimits: Schema.Array(TransactionLimit),
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type PlatformConfig = typeof PlatformConfig.Type

export const WebhookUrl = Schema.String.check(
  Schema.isMaxLength(2048),
  Schema.isPattern(/^https?:\/\/[^\s]+$/, { expected: "an http(s) URL" })
)

export const UpdateConfigRequest = Schema.Struct({
  umaDomain: Schema.optionalKey(boundedString(255)),
  webhookEndpoint: Schema.optionalKey(WebhookUrl),
  supportedCurrencies: Schema.optionalKey(Schema.NonEmptyArray(CurrencySetting)),
  feeConfigs: Schema.optionalKey(Schema.Array(FeeConfig)),
  cardConfigs: Schema.optionalKey(CardConfigs),
  cardTokenization2faConfig: Schema.optionalKey(CardTokenization2faConfig),
  embeddedWalletConfig: Schema.optionalKey(EmbeddedWalletConfig),
  transactionLimits: Schema.optionalKey(Schema.Array(TransactionLimit)),
  skipVerificationPaperwork: Schema.optionalKey(Schema.Boolean)
})
export type UpdateConfigRequest = typeof UpdateConfigRequest.Type

// ---- exchange rates, discoveries, providers, terms ----

export const ExchangeRatesQuery = Schema.Struct({
  sourceCurrency: CurrencyCode,
  /** Repeatable; all supported currencies when absent. */
  destinationCurrency: Schema.optionalKey(Schema.Union([CurrencyCode, Schema.Array(CurrencyCode)])),
  sendingAmount: Schema.optionalKey(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 9_000_000_000_000_000 }))
  )
})
export type ExchangeRatesQuery = typeof ExchangeRatesQuery.Type

export const ExchangeRate = Schema.Struct({
  sourceCurrency: Currency,
  destinationCurrency: Currency,
  destinationPaymentRail: Schema.String,
  sendingAmount: Schema.Int,
  minSendingAmount: Schema.Int,
  maxSendingAmount: Schema.Int,
  receivingAmount: Schema.Int,
  /** Receiving major units per sending major unit, platform fees included. */
  exchangeRate: Schema.Finite,
  fees: Schema.Struct({ fixed: Schema.Int, total: Schema.Int }),
  updatedAt: DateTimeString
})
export type ExchangeRate = typeof ExchangeRate.Type

export const DiscoveriesQuery = Schema.Struct({
  country: Schema.optionalKey(CountryCode),
  currency: Schema.optionalKey(CurrencyCode)
})
export type DiscoveriesQuery = typeof DiscoveriesQuery.Type

export const Institution = Schema.Struct({
  bankName: Schema.String,
  displayName: Schema.String,
  country: CountryCode,
  currency: Schema.String
})
export type Institution = typeof Institution.Type

export const UmaProvidersQuery = Schema.Struct({
  countryCode: Schema.optionalKey(CountryCode),
  currencyCode: Schema.optionalKey(CurrencyCode),
  ...PageQueryFields
})
export type UmaProvidersQuery = typeof UmaProvidersQuery.Type

export const UmaProvider = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  domain: Schema.String,
  umaAddress: Schema.String,
  supportedRegions: Schema.Array(Schema.String),
  supportedCurrencies: Schema.Array(Currency),
  /** Whether the provider is on the platform's allow list (the upstream's boolean). */
  allowListStatus: Schema.Boolean
})
export type UmaProvider = typeof UmaProvider.Type

/** `GET /vasps`: paged, alphabetical (the upstream takes `limit` and `cursor` only). */
export const VaspsQuery = Schema.Struct({ limit: PageQueryFields.limit, cursor: PageQueryFields.cursor })
export type VaspsQuery = typeof VaspsQuery.Type

/** A Virtual Asset Service Provider (an exchange, a custodian): `vaspName` is what a wallet account declares. */
export const Vasp = Schema.Struct({ vaspName: Schema.String, url: Schema.optionalKey(Schema.String) })
export type Vasp = typeof Vasp.Type

export const EndUserTerms = Schema.Struct({ version: Schema.String, url: Schema.String })
export type EndUserTerms = typeof EndUserTerms.Type
