import { Schema } from "effect"
import { CurrencyCode } from "../shared/currency.ts"
import { CustomerId, ExternalAccountId, InternalAccountId } from "../shared/ids.ts"
import { Amount } from "../shared/money.ts"
import { PageQueryFields } from "../shared/paging.ts"
import {
  ACCOUNT_TYPE_NAMES,
  type AccountTypeName,
  DEPOSIT_NAMES,
  describePayeeType,
  type FieldsOf,
  PAYEE_TYPES,
  type PayeeTypeName,
  PaymentRail,
  payeeTypeName
} from "../shared/payee-types.ts"
import { boundedString, DateTimeString } from "../shared/schemas.ts"

export {
  ACCOUNT_TYPE_NAMES,
  type AccountTypeName,
  Beneficiary,
  BusinessBeneficiary,
  DEPOSIT_NAMES,
  type DepositSeed,
  type FieldsOf,
  IndividualBeneficiary,
  PAYEE_TYPE_ALIASES,
  PAYEE_TYPES,
  type PayeeType,
  type PayeeTypeName,
  type PayeeTypeOf,
  PaymentRail
} from "../shared/payee-types.ts"

// ---- payee accounts (`accountInfo`) and deposit accounts, derived from the payee types (shared/payee-types.ts) ----

/** The struct of `accountType` `N` with fields `F` (and `Extra`). */
export type PayeeStruct<N extends string, F, Extra extends Schema.Struct.Fields = {}> = F extends Schema.Struct.Fields
  ? Schema.Struct<{ readonly accountType: Schema.Literal<N> } & F & Extra>
  : never
export type AccountInfoMember<N extends AccountTypeName> = PayeeStruct<N, FieldsOf<N>>
export type WithRails = { readonly paymentRails: Schema.optionalKey<Schema.$Array<typeof PaymentRail>> }
export type ExternalAccountInfoMember<N extends AccountTypeName> = PayeeStruct<N, FieldsOf<N>, WithRails>

const structOf = (accountType: AccountTypeName, extra: Schema.Struct.Fields = {}) =>
  Schema.Struct({
    accountType: Schema.Literal(accountType),
    ...PAYEE_TYPES[payeeTypeName(accountType)].fields,
    ...extra
  })

/**
 * A payee account (`accountInfo`): one struct per `accountType` value, aliases included. A single-literal
 * discriminator lets the decoder pick the variant the client named, so a bad body reports that variant's errors only.
 */
export interface AccountInfoSchema
  extends Schema.Union<ReadonlyArray<{ [N in AccountTypeName]: AccountInfoMember<N> }[AccountTypeName]>> {}
export const AccountInfo: AccountInfoSchema = Schema.Union(ACCOUNT_TYPE_NAMES.map((name) => structOf(name))).annotate({
  identifier: "AccountInfo"
}) as unknown as AccountInfoSchema
export type AccountInfo = typeof AccountInfo.Type

/**
 * `accountInfo` as an external account answers it: the variant as created, plus the rails it is paid on (as the
 * upstream's responses carry them; optional because records keep the variant as created).
 */
export interface ExternalAccountInfoSchema
  extends Schema.Union<ReadonlyArray<{ [N in AccountTypeName]: ExternalAccountInfoMember<N> }[AccountTypeName]>> {}
export const ExternalAccountInfo: ExternalAccountInfoSchema = Schema.Union(
  ACCOUNT_TYPE_NAMES.map((name) => structOf(name, { paymentRails: Schema.optionalKey(Schema.Array(PaymentRail)) }))
).annotate({ identifier: "ExternalAccountInfo" }) as unknown as ExternalAccountInfoSchema
export type ExternalAccountInfo = typeof ExternalAccountInfo.Type

// ---- deposit instructions: where money is sent to fund an internal account ----

/** A wallet's deposit rails and its assets (upstream `Payment…WalletInfo`). */
export const WALLET_DEPOSIT_TYPES = [
  "SOLANA_WALLET",
  "ETHEREUM_WALLET",
  "BASE_WALLET",
  "POLYGON_WALLET",
  "TRON_WALLET",
  "PLASMA_WALLET"
] as const

/** The payee types with a `deposit`: how their currency is paid in. */
export type DepositPayeeType = Exclude<
  PayeeTypeName,
  "SLV_ACCOUNT" | "SPARK_WALLET" | "LIGHTNING" | (typeof WALLET_DEPOSIT_TYPES)[number]
>
export type DepositFieldsOf<N extends DepositPayeeType> = ReturnType<NonNullable<(typeof PAYEE_TYPES)[N]["deposit"]>>
export type DepositNameOf<N extends PayeeTypeName> = N extends keyof typeof DEPOSIT_NAMES
  ? (typeof DEPOSIT_NAMES)[N]
  : N
export type DepositInfoOf<N extends DepositPayeeType> = {
  readonly accountType: DepositNameOf<N>
  readonly reference: string
  readonly accountHolderName: string
  readonly bankName: string
} & { readonly [K in keyof DepositFieldsOf<N>]: string } & (N extends keyof typeof DEPOSIT_NAMES
    ? {
        /** The rails a deposit may arrive on (optional: CLABE instructions stored before it was added lack it). */
        readonly paymentRails?: ReadonlyArray<PaymentRail>
      }
    : { readonly paymentRails: ReadonlyArray<PaymentRail> })

/**
 * A bank or mobile-money account to send a deposit to, with the `reference` that credits it to one internal account.
 * Each type names the fields of its own scheme (`PAYEE_TYPES[…].deposit`): a US account its account and routing
 * numbers, a Kenyan one a phone number and provider, a Brazilian one a PIX key and its QR code.
 */
export type BankDepositInfo = { [N in DepositPayeeType]: DepositInfoOf<N> }[DepositPayeeType]

/** The deposit accounts' Schemas, one per payee type with a `deposit`: its fields, all strings, and the common ones. */
const bankDepositInfo = (Object.keys(PAYEE_TYPES) as Array<PayeeTypeName>).flatMap((name) => {
  const deposit = describePayeeType(name).deposit
  if (deposit === undefined) return []
  const fields = Object.keys(deposit({ reference: "", digits: (n) => "0".repeat(n) }))
  const accountType = (DEPOSIT_NAMES as Readonly<Record<string, string>>)[name] ?? name
  return [
    Schema.Struct({
      accountType: Schema.Literal(accountType),
      reference: Schema.String,
      ...Object.fromEntries(fields.map((field) => [field, Schema.String])),
      accountHolderName: Schema.String,
      bankName: Schema.String,
      paymentRails: Object.hasOwn(DEPOSIT_NAMES, name)
        ? Schema.optionalKey(Schema.Array(PaymentRail))
        : Schema.Array(PaymentRail)
    })
  ]
}) as unknown as ReadonlyArray<Schema.Codec<BankDepositInfo>>

/** Where to send money to fund an internal account (or a quote funded by instructions). */
export const AccountOrWalletInfo = Schema.Union([
  ...bankDepositInfo,
  /** Euro instructions stored before they were named EUR_ACCOUNT, answered as stored. */
  Schema.Struct({
    accountType: Schema.Literal("IBAN"),
    reference: Schema.String,
    iban: Schema.String,
    accountHolderName: Schema.String,
    bankName: Schema.String,
    paymentRails: Schema.optionalKey(Schema.Array(PaymentRail))
  }),
  Schema.Struct({
    accountType: Schema.Literals(WALLET_DEPOSIT_TYPES),
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

// ---- internal accounts ----

export const InternalAccountType = Schema.Literals(["INTERNAL_FIAT", "INTERNAL_CRYPTO", "EMBEDDED_WALLET"])
export type InternalAccountType = typeof InternalAccountType.Type
export const InternalAccountStatus = Schema.Literals(["PENDING", "ACTIVE", "CLOSED", "FROZEN", "FAILED"])

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

export const ExternalAccountStatus = Schema.Literals([
  "ACTIVE",
  "PENDING_OWNERSHIP_VERIFICATION",
  "UNVERIFIED",
  "PENDING",
  "UNDER_REVIEW",
  "INACTIVE"
])

/**
 * The check of a new external account's beneficiary name against the holder its rail knows (AC-12, SB-08; the
 * upstream's `BeneficiaryVerificationStatus`): `UNSUPPORTED` when the rail (or this deployment) has no such check or
 * the account names no beneficiary; `CHECKED_BY_RECEIVING_FI` when the receiving bank checks it at payment (ACH).
 */
export const BeneficiaryVerificationStatus = Schema.Literals([
  "MATCHED",
  "PARTIAL_MATCH",
  "NOT_MATCHED",
  "UNSUPPORTED",
  "CHECKED_BY_RECEIVING_FI",
  "PENDING"
])
export type BeneficiaryVerificationStatus = typeof BeneficiaryVerificationStatus.Type

/** What the rail knows of the holder (upstream `BeneficiaryVerifiedData`): the name it has on file. */
export const BeneficiaryVerifiedData = Schema.Struct({ fullName: Schema.optionalKey(Schema.String) })
export type BeneficiaryVerifiedData = typeof BeneficiaryVerifiedData.Type

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
  /** Set once, when the account is created (absent on accounts created before the check existed). */
  beneficiaryVerificationStatus: Schema.optionalKey(BeneficiaryVerificationStatus),
  /** The holder's name as the rail has it, when the check returned one (`MATCHED`, `PARTIAL_MATCH`). */
  beneficiaryVerifiedData: Schema.optionalKey(BeneficiaryVerifiedData),
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
