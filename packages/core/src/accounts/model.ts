import { secp256k1 } from "@noble/curves/secp256k1.js"
import { Schema } from "effect"
import { CurrencyCode } from "../shared/currency.ts"
import { CustomerId, ExternalAccountId, InternalAccountId } from "../shared/ids.ts"
import { Amount } from "../shared/money.ts"
import { PageQueryFields } from "../shared/paging.ts"
import {
  Address,
  boundedString,
  CountryCode,
  DateString,
  DateTimeString,
  Email,
  PhoneNumber
} from "../shared/schemas.ts"
import { sparkAddressOf, sparkIdentityKey } from "../shared/spark-address.ts"

export const PaymentRail = Schema.Literals([
  "ACH",
  "ACH_COLOMBIA",
  "BANK_TRANSFER",
  "BRE_B",
  "CIPS",
  "FAST",
  "FASTER_PAYMENTS",
  "FEDNOW",
  "INSTAPAY",
  "MOBILE_MONEY",
  "NEFT",
  "PAYNOW",
  "PESONET",
  "PIX",
  "RTGS",
  "RTP",
  "SEPA",
  "SEPA_INSTANT",
  "SPEI",
  "SWIFT",
  "UNIONPAY",
  "UPI",
  "WIRE",
  "INTERNAL",
  "LIGHTNING",
  "SPARK",
  "SOLANA",
  "ETHEREUM",
  "BASE",
  "POLYGON",
  "TRON",
  "PLASMA",
  "BITCOIN"
])
export type PaymentRail = typeof PaymentRail.Type

// ---- internal accounts ----

export const InternalAccountType = Schema.Literals(["INTERNAL_FIAT", "INTERNAL_CRYPTO", "EMBEDDED_WALLET"])
export type InternalAccountType = typeof InternalAccountType.Type
export const InternalAccountStatus = Schema.Literals(["PENDING", "ACTIVE", "CLOSED", "FROZEN", "FAILED"])

/** Where to send money to fund an internal account (or a quote funded by instructions). */
export const AccountOrWalletInfo = Schema.Union([
  Schema.Struct({
    accountType: Schema.Literal("US_ACCOUNT"),
    reference: Schema.String,
    accountNumber: Schema.String,
    routingNumber: Schema.String,
    accountHolderName: Schema.String,
    bankName: Schema.String,
    paymentRails: Schema.Array(PaymentRail)
  }),
  Schema.Struct({
    accountType: Schema.Literal("CLABE"),
    reference: Schema.String,
    clabeNumber: Schema.String,
    accountHolderName: Schema.String,
    bankName: Schema.String,
    /** The rails a deposit may arrive on (optional: instructions stored before it was added lack it). */
    paymentRails: Schema.optionalKey(Schema.Array(PaymentRail))
  }),
  Schema.Struct({
    accountType: Schema.Literal("IBAN"),
    reference: Schema.String,
    iban: Schema.String,
    accountHolderName: Schema.String,
    bankName: Schema.String,
    /** As for CLABE. */
    paymentRails: Schema.optionalKey(Schema.Array(PaymentRail))
  }),
  Schema.Struct({
    accountType: Schema.Literals([
      "SOLANA_WALLET",
      "ETHEREUM_WALLET",
      "BASE_WALLET",
      "POLYGON_WALLET",
      "TRON_WALLET",
      "PLASMA_WALLET"
    ]),
    assetType: Schema.Literals(["USDC", "USDT"]),
    address: Schema.String
  }),
  /** A Bitcoin L1 deposit address (upstream `PaymentBitcoinDepositAddressInfo`, AC-06). */
  Schema.Struct({
    accountType: Schema.Literal("BITCOIN_L1"),
    address: Schema.String,
    network: Schema.Literal("BITCOIN")
  }),
  Schema.Struct({ accountType: Schema.Literal("LIGHTNING"), invoice: Schema.String }),
  Schema.Struct({ accountType: Schema.Literal("EMBEDDED_WALLET"), payloadToSign: Schema.String })
])
export type AccountOrWalletInfo = typeof AccountOrWalletInfo.Type

export const PaymentInstructions = Schema.Struct({
  instructionsNotes: Schema.optionalKey(Schema.String),
  isPlatformAccount: Schema.optionalKey(Schema.Boolean),
  accountOrWalletInfo: AccountOrWalletInfo
})
export type PaymentInstructions = typeof PaymentInstructions.Type

export const CardCapabilities = Schema.Struct({
  supportsSpendLimits: Schema.Boolean,
  supportsTransactionCountLimit: Schema.Boolean
})

/** What the store keeps; balances come from the ledger. */
export const InternalAccountRecord = Schema.Struct({
  id: InternalAccountId,
  customerId: Schema.optionalKey(CustomerId),
  type: InternalAccountType,
  status: InternalAccountStatus,
  currency: CurrencyCode,
  fundingPaymentInstructions: Schema.Array(PaymentInstructions),
  cardCapabilities: CardCapabilities,
  /** Embedded wallets only (AC-01, W-34): whether the wallet's transfers are private; changed by a signed retry. */
  privateEnabled: Schema.optionalKey(Schema.Boolean),
  /**
   * A platform-owned account only (no `customerId`, AC-01): its currency, unique across internal accounts, so the
   * platform holds one account per currency however many requests create it at once. Never answered.
   */
  platformCurrency: Schema.optionalKey(CurrencyCode),
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type InternalAccountRecord = typeof InternalAccountRecord.Type

const { platformCurrency: _platformCurrency, ...answeredInternalFields } = InternalAccountRecord.fields

export const InternalAccount = Schema.Struct({
  ...answeredInternalFields,
  /** Available: what can be spent now. */
  balance: Amount,
  /** Available plus held by payments in flight. */
  totalBalance: Amount
})
export type InternalAccount = typeof InternalAccount.Type

export const ListInternalAccountsQuery = Schema.Struct({
  customerId: Schema.optionalKey(CustomerId),
  currency: Schema.optionalKey(CurrencyCode),
  type: Schema.optionalKey(InternalAccountType),
  ...PageQueryFields
})
export type ListInternalAccountsQuery = typeof ListInternalAccountsQuery.Type

/** `GET /platform/internal-accounts` (AC-01): the platform's own accounts, unpaged (one per supported currency). */
export const ListPlatformInternalAccountsQuery = Schema.Struct({
  currency: Schema.optionalKey(CurrencyCode),
  type: Schema.optionalKey(InternalAccountType)
})
export type ListPlatformInternalAccountsQuery = typeof ListPlatformInternalAccountsQuery.Type

// ---- an account's ledger postings (issue 18: the dashboard's account ledger; architecture.md) ----

/** `limit` 1-100 (default 20) and the opaque `cursor` of the previous page; always newest first. */
export const ListPostingsQuery = Schema.Struct({ limit: PageQueryFields.limit, cursor: PageQueryFields.cursor })
export type ListPostingsQuery = typeof ListPostingsQuery.Type

/**
 * One ledger transfer on the account's side. `journalEntryId` is the transfer's id (`<reference>#<n>`, the reference
 * a transaction id); `status` PENDING is a hold; `runningBalance` is the account's posted balance once this posting
 * and every earlier POSTED one moved (a PENDING or VOIDED posting leaves it as it was).
 */
export const Posting = Schema.Struct({
  journalEntryId: Schema.String,
  at: DateTimeString,
  amount: Amount,
  direction: Schema.Literals(["CREDIT", "DEBIT"]),
  status: Schema.Literals(["PENDING", "POSTED", "VOIDED"]),
  runningBalance: Amount,
  description: Schema.String
})
export type Posting = typeof Posting.Type

/** The account's balances: `pending` is what holds keep from `posted`; `available` = `posted` − `pending`. */
export const PostingBalance = Schema.Struct({ posted: Amount, pending: Amount, available: Amount })
export type PostingBalance = typeof PostingBalance.Type

export const PostingsPage = Schema.Struct({
  data: Schema.Array(Posting),
  balance: PostingBalance,
  hasMore: Schema.Boolean,
  nextCursor: Schema.optionalKey(Schema.String)
})
export type PostingsPage = typeof PostingsPage.Type

/** Who holds an account: a customer, or the platform itself (no `customerId`; the `/platform/*` routes). */
export type AccountOwner = "CUSTOMER" | "PLATFORM"

/** Whether `account` is held by `owner`: customer routes see customers' accounts only, platform routes the others. */
export const heldBy = (account: { readonly customerId?: string | undefined }, owner: AccountOwner): boolean =>
  (account.customerId === undefined) === (owner === "PLATFORM")

// ---- external accounts ----

export const IndividualBeneficiary = Schema.Struct({
  beneficiaryType: Schema.Literal("INDIVIDUAL"),
  fullName: boundedString(255),
  birthDate: Schema.optionalKey(DateString),
  nationality: Schema.optionalKey(CountryCode),
  email: Schema.optionalKey(Email),
  phoneNumber: Schema.optionalKey(PhoneNumber),
  countryOfResidence: Schema.optionalKey(CountryCode),
  address: Schema.optionalKey(Address)
})
export const BusinessBeneficiary = Schema.Struct({
  beneficiaryType: Schema.Literal("BUSINESS"),
  legalName: boundedString(255),
  registrationNumber: Schema.optionalKey(boundedString(64)),
  taxId: Schema.optionalKey(boundedString(64)),
  email: Schema.optionalKey(Email),
  phoneNumber: Schema.optionalKey(PhoneNumber),
  countryOfResidence: Schema.optionalKey(CountryCode),
  address: Schema.optionalKey(Address)
})
export const Beneficiary = Schema.Union([IndividualBeneficiary, BusinessBeneficiary])

const digits = (min: number, max: number, what: string) =>
  Schema.String.check(Schema.isPattern(new RegExp(`^\\d{${min},${max}}$`), { expected: what }))

/**
 * One struct per `accountType` value (aliases included). A single-literal discriminator lets the decoder pick the
 * variant the client named, so a bad body reports that variant's errors only (not those of every other variant).
 */
const variants = <const Types extends readonly [string, ...Array<string>], const Fields extends Schema.Struct.Fields>(
  types: Types,
  fields: Fields
) => types.map((accountType) => Schema.Struct({ accountType: Schema.Literal(accountType as Types[number]), ...fields }))

/** US bank account with the full wire beneficiary; `US_ACCOUNT` (spec) and `USD_ACCOUNT` (upstream) are one variant. */
export const UsAccountInfo = variants(["US_ACCOUNT", "USD_ACCOUNT"], {
  accountNumber: digits(1, 34, "1-34 digits"),
  routingNumber: digits(9, 9, "a 9-digit ABA routing number"),
  bankName: Schema.optionalKey(boundedString(140)),
  bankAccountType: Schema.optionalKey(Schema.Literals(["CHECKING", "SAVINGS"])),
  intermediaryBankName: Schema.optionalKey(boundedString(140)),
  intermediaryRoutingNumber: Schema.optionalKey(digits(9, 9, "a 9-digit ABA routing number")),
  fiToFiInformation: Schema.optionalKey(boundedString(210)),
  beneficiary: Beneficiary
})
export const ClabeAccountInfo = variants(["CLABE", "MXN_ACCOUNT"], {
  clabeNumber: digits(18, 18, "an 18-digit CLABE"),
  bankName: Schema.optionalKey(boundedString(140)),
  beneficiary: Beneficiary
})
export const IbanAccountInfo = variants(["IBAN", "EUR_ACCOUNT"], {
  iban: Schema.String.check(
    Schema.isPattern(/^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$/, {
      expected: "an IBAN (country, check digits, 11-30 characters)"
    })
  ),
  swiftCode: Schema.optionalKey(
    Schema.String.check(
      Schema.isPattern(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, { expected: "an 8 or 11 character BIC" })
    )
  ),
  bankName: Schema.optionalKey(boundedString(140)),
  beneficiary: Beneficiary
})
export const PixAccountInfo = variants(["PIX", "BRL_ACCOUNT"], {
  pixKey: boundedString(140),
  pixKeyType: Schema.Literals(["CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM"]),
  taxId: boundedString(32),
  bankName: Schema.optionalKey(boundedString(140)),
  beneficiary: Beneficiary
})
/** The exchange or custodian holding the wallet, one of `GET /vasps` (checked by `Accounts`, not by the schema). */
const vaspName = Schema.optionalKey(boundedString(255))

export const WalletAccountInfo = variants(
  ["SOLANA_WALLET", "ETHEREUM_WALLET", "BASE_WALLET", "POLYGON_WALLET", "TRON_WALLET", "PLASMA_WALLET"],
  {
    address: Schema.String.check(
      Schema.isPattern(/^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/, { expected: "a wallet address" })
    ),
    vaspName,
    beneficiary: Schema.optionalKey(Beneficiary)
  }
)
/** Addresses of the keys 1·G, 2·G, 3·G: what generated values of the Spark address are drawn from. */
const sparkSamples = [1n, 2n, 3n].map((k) => sparkAddressOf(secp256k1.Point.BASE.multiply(k).toBytes(true)))

/** A Spark wallet: a bech32m Spark address (shared/spark-address.ts), keyed by a Bitcoin identity key. */
export const SparkWalletAccountInfo = variants(["SPARK_WALLET"], {
  address: Schema.String.check(
    Schema.makeFilter((address: string) => sparkIdentityKey(address) !== undefined, {
      expected: "a Spark address (bech32m, spark1…)",
      arbitraryConstraint: { patterns: [{ source: `^(${sparkSamples.join("|")})$`, flags: "" }] }
    })
  ),
  vaspName,
  beneficiary: Schema.optionalKey(Beneficiary)
})
export const LightningAccountInfo = variants(["LIGHTNING"], {
  lightningAddress: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^[^\s@]+@[^\s@]+$/, { expected: "a lightning address" }))
  ),
  invoice: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^ln[a-z0-9]+$/i, { expected: "a BOLT11 invoice" }))
  ),
  beneficiary: Schema.optionalKey(Beneficiary)
})

export const AccountInfo = Schema.Union([
  ...UsAccountInfo,
  ...ClabeAccountInfo,
  ...IbanAccountInfo,
  ...PixAccountInfo,
  ...WalletAccountInfo,
  ...SparkWalletAccountInfo,
  ...LightningAccountInfo
])
export type AccountInfo = typeof AccountInfo.Type

/**
 * `accountInfo` as an external account answers it: the variant as created, plus the rails it is paid on (as the
 * upstream's responses carry them; optional because records keep the variant as created, see `withAccountInfoRails`).
 */
const withRails = Schema.fieldsAssign({ paymentRails: Schema.optionalKey(Schema.Array(PaymentRail)) })
export const ExternalAccountInfo = Schema.Union([
  ...UsAccountInfo.map((v) => withRails(v)),
  ...ClabeAccountInfo.map((v) => withRails(v)),
  ...IbanAccountInfo.map((v) => withRails(v)),
  ...PixAccountInfo.map((v) => withRails(v)),
  ...WalletAccountInfo.map((v) => withRails(v)),
  ...SparkWalletAccountInfo.map((v) => withRails(v)),
  ...LightningAccountInfo.map((v) => withRails(v))
])
export type ExternalAccountInfo = typeof ExternalAccountInfo.Type

export const ExternalAccountStatus = Schema.Literals([
  "ACTIVE",
  "PENDING_OWNERSHIP_VERIFICATION",
  "UNVERIFIED",
  "PENDING",
  "UNDER_REVIEW",
  "INACTIVE"
])

export const ExternalAccount = Schema.Struct({
  id: ExternalAccountId,
  /** Absent: the platform's own account (`/platform/external-accounts`; upstream "null if on behalf of the platform"). */
  customerId: Schema.optionalKey(CustomerId),
  status: ExternalAccountStatus,
  currency: CurrencyCode,
  platformAccountId: Schema.optionalKey(Schema.String),
  ownershipType: Schema.Literals(["FIRST_PARTY", "THIRD_PARTY"]),
  defaultUmaDepositAccount: Schema.Boolean,
  /** The rails this account can be paid on; the first is the default. */
  paymentRails: Schema.Array(PaymentRail),
  accountInfo: ExternalAccountInfo,
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type ExternalAccount = typeof ExternalAccount.Type

export const CreateExternalAccountRequest = Schema.Struct({
  customerId: CustomerId,
  currency: CurrencyCode,
  platformAccountId: Schema.optionalKey(boundedString(255)),
  ownershipType: Schema.optionalKey(Schema.Literals(["FIRST_PARTY", "THIRD_PARTY"])),
  defaultUmaDepositAccount: Schema.optionalKey(Schema.Boolean),
  accountInfo: AccountInfo
})
export type CreateExternalAccountRequest = typeof CreateExternalAccountRequest.Type

/** `POST /platform/external-accounts`: the customer body without `customerId` and `defaultUmaDepositAccount`. */
export const CreatePlatformExternalAccountRequest = Schema.Struct({
  /** Refused (400) rather than ignored: a body naming a customer is a customer's account, for the customers' route. */
  customerId: Schema.optionalKey(
    Schema.Never.annotate({ description: "Not accepted: the platform's accounts have no customer" })
  ),
  currency: CurrencyCode,
  platformAccountId: Schema.optionalKey(boundedString(255)),
  ownershipType: Schema.optionalKey(Schema.Literals(["FIRST_PARTY", "THIRD_PARTY"])),
  accountInfo: AccountInfo
})
export type CreatePlatformExternalAccountRequest = typeof CreatePlatformExternalAccountRequest.Type

export const ListExternalAccountsQuery = Schema.Struct({
  customerId: Schema.optionalKey(CustomerId),
  currency: Schema.optionalKey(CurrencyCode),
  ...PageQueryFields
})
export type ListExternalAccountsQuery = typeof ListExternalAccountsQuery.Type

/** `GET /platform/external-accounts`: the platform's own external accounts; paged. */
export const ListPlatformExternalAccountsQuery = Schema.Struct({
  currency: Schema.optionalKey(CurrencyCode),
  ...PageQueryFields
})
export type ListPlatformExternalAccountsQuery = typeof ListPlatformExternalAccountsQuery.Type

// ---- ownership verification of self-custody wallets (AC-24 … AC-30) ----

export const OwnershipVerificationMethod = Schema.Literals(["WALLET_SIGNATURE", "LIVENESS"])
export type OwnershipVerificationMethod = typeof OwnershipVerificationMethod.Type

/** `POST /customers/external-accounts/{id}/challenge` (AC-26). */
export const OwnershipChallengeRequest = Schema.Struct({ method: OwnershipVerificationMethod })
export type OwnershipChallengeRequest = typeof OwnershipChallengeRequest.Type

export const WalletSignatureChallenge = Schema.Struct({
  method: Schema.Literal("WALLET_SIGNATURE"),
  /** The exact text the wallet signs: it names the account, the address, a nonce and `expiresAt`. */
  messageToSign: Schema.String,
  expiresAt: DateTimeString
})
export const LivenessChallenge = Schema.Struct({
  method: Schema.Literal("LIVENESS"),
  verificationLink: Schema.String,
  token: Schema.optionalKey(Schema.String),
  expiresAt: DateTimeString
})
export const OwnershipChallenge = Schema.Union([WalletSignatureChallenge, LivenessChallenge])
export type OwnershipChallenge = typeof OwnershipChallenge.Type

/** `POST /customers/external-accounts/{id}/verify` (AC-27). `signatureScheme` matters to Bitcoin keys only. */
export const OwnershipVerifyRequest = Schema.Struct({
  signature: boundedString(1024),
  signatureScheme: Schema.optionalKey(Schema.Literals(["bip137", "electrum"]))
})
export type OwnershipVerifyRequest = typeof OwnershipVerifyRequest.Type

/** `POST /sandbox/external-accounts/{id}/liveness`: the sandbox liveness provider's verdict (AC-28). */
export const SandboxLivenessRequest = Schema.Struct({ result: Schema.Literals(["PASSED", "FAILED"]) })
export type SandboxLivenessRequest = typeof SandboxLivenessRequest.Type

/**
 * The open (or last) ownership challenge of an external account: one per account, so `id` is the account's id and
 * a new challenge replaces the previous one (AC-26). `OPEN` until used: a signature or a liveness verdict makes it
 * `PASSED` or `FAILED`, and a used challenge cannot be used again.
 */
export const OwnershipChallengeRecord = Schema.Struct({
  id: ExternalAccountId,
  /** The account's customer; absent for a platform-owned account. */
  customerId: Schema.optionalKey(CustomerId),
  method: OwnershipVerificationMethod,
  status: Schema.Literals(["OPEN", "PASSED", "FAILED"]),
  nonce: Schema.String,
  /** WALLET_SIGNATURE: the message as issued. */
  messageToSign: Schema.optionalKey(Schema.String),
  /** LIVENESS: the provider's hosted link and SDK token. */
  verificationLink: Schema.optionalKey(Schema.String),
  token: Schema.optionalKey(Schema.String),
  expiresAt: DateTimeString,
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type OwnershipChallengeRecord = typeof OwnershipChallengeRecord.Type

export interface OwnershipChallengeFilter {
  readonly customerId?: string | undefined
}

// ---- trusted beneficiaries (AC-22, AC-23, AC-31 … AC-39) ----

/** sca/machine.ts's `TrustedBeneficiary`: an account is `UNTRUSTED` until a trust is confirmed. */
export const TrustedBeneficiaryStatus = Schema.Literals(["UNTRUSTED", "TRUSTED"])
export type TrustedBeneficiaryStatus = typeof TrustedBeneficiaryStatus.Type

/**
 * Whether a customer trusts one of its external accounts (a USDC wallet), so its payouts skip the per-transaction SCA
 * challenge: one row per account (`id` is the account's), written by the SCA trust and untrust confirms
 * (`sca/trust.ts`). Declared here because `Accounts.deleteExternal` reads it (409 `BENEFICIARY_TRUSTED`, AC-22)
 * without importing `sca`. `challengeId` is the passed challenge of the last move; the challenges are the history.
 */
export interface TrustedBeneficiaryRecord {
  readonly id: ExternalAccountId
  readonly customerId: string
  readonly status: TrustedBeneficiaryStatus
  readonly challengeId: string
  readonly createdAt: string
  readonly updatedAt: string
}

export interface TrustedBeneficiaryFilter {
  readonly customerId?: string | undefined
}
