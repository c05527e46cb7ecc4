import { sha256 } from "@noble/hashes/sha2.js"
import { utf8ToBytes } from "@noble/hashes/utils.js"
import { Context, Effect, Layer } from "effect"
import { DEFAULT_SUPPORTED_CURRENCIES } from "../platform/config.ts"
import { invalidCursor } from "../platform/errors.ts"
import { scanAll } from "../platform/paging.ts"
import { Directory } from "../ports/directory.ts"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { currencyKind } from "../shared/currency.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { Conflict, FieldError, InvalidInput, NotFound, StoreError } from "../shared/errors.ts"
import type { CustomerId } from "../shared/ids.ts"
import { allows } from "../shared/machine.ts"
import { amountOf } from "../shared/money.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { nowIso } from "../shared/time.ts"
import { invalidInput } from "../shared/validation.ts"
import {
  accountOwnerNotFound,
  beneficiaryTrusted,
  duplicateExternalAccount,
  externalAccountNotFound,
  internalAccountNotFound,
  platformAccountIdTaken
} from "./errors.ts"
import { externalAccountMachine } from "./machine.ts"
import {
  type AccountInfo,
  type AccountOrWalletInfo,
  type AccountOwner,
  type CreateExternalAccountRequest,
  type CreatePlatformExternalAccountRequest,
  type ExternalAccount,
  heldBy,
  type InternalAccount,
  type InternalAccountRecord,
  type InternalAccountType,
  type ListExternalAccountsQuery,
  type ListInternalAccountsQuery,
  type ListPlatformExternalAccountsQuery,
  type ListPlatformInternalAccountsQuery,
  type ListPostingsQuery,
  type PaymentInstructions,
  type PaymentRail,
  type PostingsPage
} from "./model.ts"
import { initialExternalStatus, initialPlatformExternalStatus } from "./ownership-rules.ts"
import { listPostings } from "./postings.ts"
import { unknownVasp, vaspNameOf } from "./vasps.ts"

// ---- internal accounts: provisioning ----

const SANDBOX_BANK = "Paycore Sandbox Bank"
/** A checksum-valid ABA routing number that belongs to no real bank. */
const SANDBOX_ROUTING_NUMBER = "123456780"
const US_FUNDING_RAILS: ReadonlyArray<PaymentRail> = ["ACH", "WIRE", "RTP", "FEDNOW"]
/** The counter of the platform's external accounts ever created: its row is the lock of their creation. */
const PLATFORM_EXTERNAL_ACCOUNTS_CREATED = "platform-external-accounts-created"
const REFERENCE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
const BECH32_ALPHABET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

const digest = (seed: string): Uint8Array => sha256(utf8ToBytes(seed))

const charsFrom = (bytes: Uint8Array, alphabet: string, n: number): string => {
  let out = ""
  for (let i = 0; i < n; i++) out += alphabet[bytes[i % bytes.length]! % alphabet.length]
  return out
}

const digitsFrom = (bytes: Uint8Array, n: number): string => charsFrom(bytes, "0123456789", n)

const base58 = (bytes: Uint8Array): string => {
  let n = 0n
  for (const b of bytes) n = n * 256n + BigInt(b)
  let out = ""
  while (n > 0n) {
    out = BASE58_ALPHABET[Number(n % 58n)] + out
    n /= 58n
  }
  for (const b of bytes) {
    if (b !== 0) break
    out = `1${out}`
  }
  return out
}

/** CLABE: 3-digit bank, 3-digit branch, 11-digit account, weighted (3, 7, 1) mod-10 check digit. */
const clabeFrom = (bytes: Uint8Array): string => {
  const body = `646180${digitsFrom(bytes, 11)}`
  const weights = [3, 7, 1]
  let sum = 0
  for (let i = 0; i < body.length; i++) sum += (Number(body[i]) * weights[i % 3]!) % 10
  return `${body}${(10 - (sum % 10)) % 10}`
}

/** German IBAN (`DE` + 2 check digits + 8-digit bank code + 10-digit account) with valid ISO 7064 check digits. */
const ibanFrom = (bytes: Uint8Array): string => {
  const bban = `10010010${digitsFrom(bytes, 10)}`
  const rearranged = `${bban}131400` // "DE00": D = 13, E = 14
  let rest = 0
  for (const ch of rearranged) rest = (rest * 10 + Number(ch)) % 97
  return `DE${String(98 - rest).padStart(2, "0")}${bban}`
}

/** The embedded wallet's currency (upstream: a platform supporting USDB provisions every customer a wallet). */
export const EMBEDDED_WALLET_CURRENCY = "USDB"

const accountTypeFor = (currency: string): InternalAccountType =>
  currency === EMBEDDED_WALLET_CURRENCY
    ? "EMBEDDED_WALLET"
    : currencyKind(currency) === "CRYPTO"
      ? "INTERNAL_CRYPTO"
      : "INTERNAL_FIAT"

/** Sandbox-looking, deterministic funding instructions of one internal account (none for currencies without a rail). */
export const fundingInstructionsFor = (
  accountId: string,
  currency: string,
  holderName: string
): Array<PaymentInstructions> => {
  const bytes = digest(`${accountId}/${currency}`)
  const reference = `PC${charsFrom(bytes.subarray(20), REFERENCE_ALPHABET, 6)}`
  const bankNote = `Include the reference ${reference} in the transfer so the deposit is credited to this account.`
  const one = (info: AccountOrWalletInfo, instructionsNotes?: string): Array<PaymentInstructions> => [
    instructionsNotes === undefined ? { accountOrWalletInfo: info } : { instructionsNotes, accountOrWalletInfo: info }
  ]
  switch (currency) {
    case "USD":
      return one(
        {
          accountType: "US_ACCOUNT",
          reference,
          accountNumber: `8${digitsFrom(bytes, 11)}`,
          routingNumber: SANDBOX_ROUTING_NUMBER,
          accountHolderName: holderName,
          bankName: SANDBOX_BANK,
          paymentRails: US_FUNDING_RAILS
        },
        bankNote
      )
    case "MXN":
      return one(
        {
          accountType: "CLABE",
          reference,
          clabeNumber: clabeFrom(bytes),
          accountHolderName: holderName,
          bankName: SANDBOX_BANK,
          paymentRails: variantRails.CLABE
        },
        bankNote
      )
    case "EUR":
      return one(
        {
          accountType: "IBAN",
          reference,
          iban: ibanFrom(bytes),
          accountHolderName: holderName,
          bankName: SANDBOX_BANK,
          paymentRails: variantRails.IBAN
        },
        bankNote
      )
    case "USDC":
    case "USDT":
      return one({ accountType: "SOLANA_WALLET", assetType: currency, address: base58(bytes) })
    case "BTC":
      return one({
        accountType: "LIGHTNING",
        invoice: `lnbc1p${charsFrom(bytes, BECH32_ALPHABET, 32)}${charsFrom(digest(`${accountId}/invoice`), BECH32_ALPHABET, 32)}`
      })
    default:
      return []
  }
}

/** The holder name on the platform's own accounts' funding instructions. */
export const PLATFORM_ACCOUNT_HOLDER = "Platform operating account"

/**
 * New internal accounts of a customer, one per currency it does not hold yet (`held`), as records to store. A
 * customer being created holds none. `"PLATFORM"`: the platform's own accounts (AC-01: no `customerId`; the
 * currency in `platformCurrency`, unique, so racing creators store one; never an embedded wallet, since no
 * customer signs for the platform: `USDB` is `INTERNAL_CRYPTO`).
 */
export const newInternalAccounts = Effect.fnUntraced(function* (
  owner: { readonly customerId: CustomerId; readonly holderName: string } | "PLATFORM",
  currencies: ReadonlyArray<string>,
  held: ReadonlySet<string> = new Set()
): Effect.fn.Return<Array<InternalAccountRecord>, never, Ids> {
  const ids = yield* Ids
  const created: Array<InternalAccountRecord> = []
  for (const currency of new Set(currencies)) {
    if (held.has(currency)) continue
    const id = yield* ids.make("InternalAccount")
    const now = yield* nowIso
    const byCurrency = accountTypeFor(currency)
    const type = owner === "PLATFORM" && byCurrency === "EMBEDDED_WALLET" ? "INTERNAL_CRYPTO" : byCurrency
    const holderName = owner === "PLATFORM" ? PLATFORM_ACCOUNT_HOLDER : owner.holderName
    created.push({
      id,
      ...(owner === "PLATFORM" ? {} : { customerId: owner.customerId }),
      type,
      status: "ACTIVE",
      currency,
      fundingPaymentInstructions: fundingInstructionsFor(id, currency, holderName),
      cardCapabilities: { supportsSpendLimits: true, supportsTransactionCountLimit: true },
      ...(type === "EMBEDDED_WALLET" ? { privateEnabled: false } : {}),
      ...(owner === "PLATFORM" ? { platformCurrency: currency } : {}),
      createdAt: now,
      updatedAt: now
    })
  }
  return created
})

/**
 * Creates the existing customer's missing internal accounts, one per currency (never deletes any). Call it inside
 * the `Store.transaction` that updates the customer.
 */
export const provisionInternalAccounts = Effect.fnUntraced(function* (
  owner: { readonly customerId: CustomerId; readonly holderName: string },
  currencies: ReadonlyArray<string>
): Effect.fn.Return<Array<InternalAccountRecord>, StoreError, Store | Ids> {
  const store = yield* Store
  const existing = yield* scanAll((page) => store.internalAccounts.list({ customerId: owner.customerId }, page))
  const created = yield* newInternalAccounts(owner, currencies, new Set(existing.map((a) => a.currency)))
  // Fresh ids: no key to be taken.
  yield* Effect.orDie(store.internalAccounts.insertMany(created))
  return created
})

// ---- external accounts: variant rules ----

const WALLET_CURRENCIES = ["USDC", "USDT"]

/** The currencies an `accountInfo` variant can hold (aliases share a row). */
export const variantCurrencies: Readonly<Record<AccountInfo["accountType"], ReadonlyArray<string>>> = {
  US_ACCOUNT: ["USD"],
  USD_ACCOUNT: ["USD"],
  CLABE: ["MXN"],
  MXN_ACCOUNT: ["MXN"],
  IBAN: ["EUR"],
  EUR_ACCOUNT: ["EUR"],
  PIX: ["BRL"],
  BRL_ACCOUNT: ["BRL"],
  SOLANA_WALLET: WALLET_CURRENCIES,
  ETHEREUM_WALLET: WALLET_CURRENCIES,
  BASE_WALLET: WALLET_CURRENCIES,
  POLYGON_WALLET: WALLET_CURRENCIES,
  TRON_WALLET: WALLET_CURRENCIES,
  PLASMA_WALLET: ["USDT"],
  SPARK_WALLET: ["BTC"],
  LIGHTNING: ["BTC"]
}

/** The rails an external account of this variant is paid on; the first is the default. */
export const variantRails: Readonly<Record<AccountInfo["accountType"], ReadonlyArray<PaymentRail>>> = {
  US_ACCOUNT: ["ACH", "WIRE", "RTP", "FEDNOW"],
  USD_ACCOUNT: ["ACH", "WIRE", "RTP", "FEDNOW"],
  CLABE: ["SPEI"],
  MXN_ACCOUNT: ["SPEI"],
  IBAN: ["SEPA", "SEPA_INSTANT"],
  EUR_ACCOUNT: ["SEPA", "SEPA_INSTANT"],
  PIX: ["PIX"],
  BRL_ACCOUNT: ["PIX"],
  SOLANA_WALLET: ["SOLANA"],
  ETHEREUM_WALLET: ["ETHEREUM"],
  BASE_WALLET: ["BASE"],
  POLYGON_WALLET: ["POLYGON"],
  TRON_WALLET: ["TRON"],
  PLASMA_WALLET: ["PLASMA"],
  SPARK_WALLET: ["SPARK"],
  LIGHTNING: ["LIGHTNING"]
}

/** What makes two external accounts the same account: the variant family and its number or address. */
export const accountIdentity = (info: AccountInfo): string => {
  switch (info.accountType) {
    case "US_ACCOUNT":
    case "USD_ACCOUNT":
      return `US:${info.routingNumber}:${info.accountNumber}`
    case "CLABE":
    case "MXN_ACCOUNT":
      return `CLABE:${info.clabeNumber}`
    case "IBAN":
    case "EUR_ACCOUNT":
      return `IBAN:${info.iban.toUpperCase()}`
    case "PIX":
    case "BRL_ACCOUNT":
      return `PIX:${info.pixKeyType}:${info.pixKey}`
    case "LIGHTNING":
      return `LIGHTNING:${(info.lightningAddress ?? info.invoice ?? "").toLowerCase()}`
    default:
      // EVM addresses are case-insensitive hex; base58 addresses are case-sensitive.
      return `${info.accountType}:${info.address.startsWith("0x") ? info.address.toLowerCase() : info.address}`
  }
}

const bankNameOf = (info: AccountInfo): string | undefined => ("bankName" in info ? info.bankName : undefined)

/** An external account as answered: its `accountInfo` carries the rails it is paid on (the upstream's shape). */
export const answered = (account: ExternalAccount): ExternalAccount => ({
  ...account,
  accountInfo: { ...account.accountInfo, paymentRails: account.paymentRails }
})

// ---- the service ----

export class Accounts extends Context.Service<
  Accounts,
  {
    /** `GET /internal-account` and `GET /customers/internal-accounts`: filters customerId, currency, type; paged. */
    readonly listInternal: (
      query: ListInternalAccountsQuery
    ) => Effect.Effect<Page<InternalAccount>, InvalidInput | StoreError>
    /** One internal account with its balances; 404 `NOT_FOUND`. */
    readonly getInternal: (id: string) => Effect.Effect<InternalAccount, NotFound | StoreError>
    /** `POST /customers/external-accounts` (201). */
    readonly createExternal: (
      req: CreateExternalAccountRequest
    ) => Effect.Effect<ExternalAccount, InvalidInput | NotFound | Conflict | StoreError>
    /** `GET /customers/external-accounts`: filters customerId, currency; paged; deleted accounts hidden. */
    readonly listExternal: (
      query: ListExternalAccountsQuery
    ) => Effect.Effect<Page<ExternalAccount>, InvalidInput | StoreError>
    /** `GET /customers/external-accounts/{id}`: 404 `NOT_FOUND` (also once deleted). */
    readonly getExternal: (id: string) => Effect.Effect<ExternalAccount, NotFound | StoreError>
    /**
     * `DELETE /customers/external-accounts/{id}` (204): status `INACTIVE`, hidden from lists. 409
     * `BENEFICIARY_TRUSTED` while the account is a trusted beneficiary, and the trust stays (AC-22, AC-23).
     */
    readonly deleteExternal: (id: string) => Effect.Effect<void, NotFound | Conflict | StoreError>
    /**
     * `GET /platform/internal-accounts` (AC-01): the platform's own accounts, one per supported currency (created on
     * first list; a concurrent list's insert of the same currency is ignored), filters currency and type; unpaged.
     */
    readonly listPlatformInternal: (
      query: ListPlatformInternalAccountsQuery
    ) => Effect.Effect<{ readonly data: ReadonlyArray<InternalAccount> }, StoreError>
    /** `POST /platform/external-accounts` (201): 409 `CONFLICT` when `platformAccountId` is taken. */
    readonly createPlatformExternal: (
      req: CreatePlatformExternalAccountRequest
    ) => Effect.Effect<ExternalAccount, InvalidInput | Conflict | StoreError>
    /** `GET /platform/external-accounts`: filter currency; paged; deleted accounts hidden. */
    readonly listPlatformExternal: (
      query: ListPlatformExternalAccountsQuery
    ) => Effect.Effect<Page<ExternalAccount>, InvalidInput | StoreError>
    /** `GET /platform/external-accounts/{id}`: 404 `NOT_FOUND` for a customer's account too. */
    readonly getPlatformExternal: (id: string) => Effect.Effect<ExternalAccount, NotFound | StoreError>
    /** `DELETE /platform/external-accounts/{id}` (204): 404 for a customer's account too. */
    readonly deletePlatformExternal: (id: string) => Effect.Effect<void, NotFound | Conflict | StoreError>
    /**
     * `GET /customers/internal-accounts/{id}/postings` (`CUSTOMER`) and `GET /platform/internal-accounts/{id}/postings`
     * (`PLATFORM`): the account's ledger postings newest first, with its balances (postings.ts); 404 for an account of
     * the other owner.
     */
    readonly listPostings: (
      owner: AccountOwner,
      id: string,
      query: ListPostingsQuery
    ) => Effect.Effect<PostingsPage, InvalidInput | NotFound | StoreError>
  }
>()("paycore/accounts/Accounts") {
  static readonly layer = Layer.effect(
    Accounts,
    Effect.gen(function* () {
      const store = yield* Store
      const ids = yield* Ids
      const directory = yield* Directory

      /** Adds `balance` (available = posted - held) and `totalBalance` (posted) from the ledger. */
      const withBalances = (records: ReadonlyArray<InternalAccountRecord>) =>
        Effect.map(
          store.ledger.balances(records.map((r) => ({ account: r.id, currency: r.currency }))),
          (balances): Array<InternalAccount> => {
            const byAccount = new Map(balances.map((b) => [b.account, b]))
            return records.map(({ platformCurrency: _, ...r }) => {
              const b = byAccount.get(r.id)
              const posted = b?.posted ?? 0
              const held = b?.pendingDebits ?? 0
              return { ...r, balance: amountOf(posted - held, r.currency), totalBalance: amountOf(posted, r.currency) }
            })
          }
        )

      const listInternal = Effect.fn("Accounts.listInternal")(function* (query: ListInternalAccountsQuery) {
        const page = pageRequest(query)
        if (page === undefined) return yield* invalidCursor()
        // Customers' accounts only: the platform's own are listed by `listPlatformInternal`.
        const rows = yield* store.internalAccounts.list(
          { customerId: query.customerId, ownedByCustomer: true, currency: query.currency, type: query.type },
          page
        )
        const data = yield* withBalances(rows.data)
        const result: Page<InternalAccount> = { ...rows, data }
        return result
      })

      const getInternal = Effect.fn("Accounts.getInternal")(function* (id: string) {
        const record = yield* store.internalAccounts.get(id)
        if (record === undefined) return yield* internalAccountNotFound(id)
        const [account] = yield* withBalances([record])
        return account!
      })

      /** The 400s of a new external account's body: currency of the variant, bank and VASP names, Lightning. */
      const checkNewAccount = Effect.fnUntraced(function* (currency: string, info: AccountInfo) {
        const errors: Array<FieldError> = []
        const currencies = variantCurrencies[info.accountType]
        if (!currencies.includes(currency)) {
          errors.push({
            field: "currency",
            constraint: { enum: currencies },
            message: `An ${info.accountType} account holds ${currencies.join(" or ")}, not ${currency}`
          })
        }
        const bankName = bankNameOf(info)
        if (bankName !== undefined) {
          const institutions = yield* directory.institutions()
          const allowed = [
            ...new Set(institutions.filter((i) => currencies.includes(i.currency)).map((i) => i.bankName))
          ]
          if (!allowed.includes(bankName)) {
            errors.push({
              field: "accountInfo.bankName",
              constraint: { enum: allowed },
              message: "Expected a bankName returned by GET /discoveries for this currency"
            })
          }
        }
        const vaspName = vaspNameOf(info)
        if (vaspName !== undefined) {
          const known = (yield* directory.vasps()).map((v) => v.vaspName)
          if (!known.includes(vaspName)) errors.push(unknownVasp(known))
        }
        if (info.accountType === "LIGHTNING" && info.invoice === undefined && info.lightningAddress === undefined) {
          errors.push({
            field: "accountInfo",
            constraint: { anyOf: ["invoice", "lightningAddress"] },
            message: "A LIGHTNING account needs an invoice or a lightningAddress"
          })
        }
        if (errors.length > 0) return yield* invalidInput(errors)
      })

      /**
       * Stores a new external account of a customer (`customer`) or of the platform (undefined), after the body's
       * checks: 409 when its owner already has it (same currency and number or address), or, for the platform, when
       * `platformAccountId` is taken. `status` is its first status; `isDefault` takes over the customer's default.
       */
      const insertExternal = Effect.fnUntraced(function* (
        owner: { readonly customerId: CustomerId } | undefined,
        req: Pick<CreateExternalAccountRequest, "currency" | "platformAccountId" | "ownershipType" | "accountInfo">,
        status: ExternalAccount["status"],
        isDefault: boolean
      ) {
        const info = req.accountInfo
        yield* checkNewAccount(req.currency, info)
        const identity = accountIdentity(info)
        return yield* store.transaction(
          Effect.gen(function* () {
            // The owner's lock first, so concurrent creates check the siblings one after the other: the customer's
            // row, or for the platform (no row of its own) its counter of created accounts.
            if (owner === undefined) yield* store.counters.add(PLATFORM_EXTERNAL_ACCOUNTS_CREATED, 1)
            else yield* store.customers.getForUpdate(owner.customerId)
            const siblings = yield* scanAll((page) =>
              store.externalAccounts.list(
                owner === undefined ? { ownedByCustomer: false } : { customerId: owner.customerId },
                page
              )
            )
            const duplicate = siblings.find(
              (a) => a.currency === req.currency && accountIdentity(a.accountInfo) === identity
            )
            if (duplicate !== undefined) return yield* duplicateExternalAccount(duplicate.id)
            if (owner === undefined && req.platformAccountId !== undefined) {
              const taken = siblings.find((a) => a.platformAccountId === req.platformAccountId)
              if (taken !== undefined) return yield* platformAccountIdTaken(req.platformAccountId, taken.id)
            }
            const now = yield* nowIso
            if (isDefault) {
              // At most one default UMA deposit account per customer: the new one takes over.
              for (const other of siblings) {
                if (other.defaultUmaDepositAccount) {
                  yield* Effect.orDie(
                    store.externalAccounts.update({ ...other, defaultUmaDepositAccount: false, updatedAt: now })
                  )
                }
              }
            }
            const account: ExternalAccount = {
              id: yield* ids.make("ExternalAccount"),
              ...(owner === undefined ? {} : { customerId: owner.customerId }),
              status,
              currency: req.currency,
              ...(req.platformAccountId === undefined ? {} : { platformAccountId: req.platformAccountId }),
              ownershipType: req.ownershipType ?? "FIRST_PARTY",
              defaultUmaDepositAccount: isDefault,
              paymentRails: variantRails[info.accountType],
              accountInfo: info,
              createdAt: now,
              updatedAt: now
            }
            yield* Effect.orDie(store.externalAccounts.insert(account))
            return answered(account)
          })
        )
      })

      const createExternal = Effect.fn("Accounts.createExternal")(function* (req: CreateExternalAccountRequest) {
        const customer = yield* store.customers.get(req.customerId)
        if (customer === undefined || customer.isDeleted) return yield* accountOwnerNotFound(req.customerId)
        const { travelRule } = yield* EngineConfig
        const status = initialExternalStatus(
          req.accountInfo,
          req.ownershipType ?? "FIRST_PARTY",
          customer.region,
          travelRule
        )
        return yield* insertExternal({ customerId: req.customerId }, req, status, req.defaultUmaDepositAccount ?? false)
      })

      const createPlatformExternal = Effect.fn("Accounts.createPlatformExternal")(function* (
        req: CreatePlatformExternalAccountRequest
      ) {
        const { travelRule } = yield* EngineConfig
        const status = initialPlatformExternalStatus(req.accountInfo, req.ownershipType ?? "FIRST_PARTY", travelRule)
        return yield* insertExternal(undefined, req, status, false)
      })

      const listExternal = Effect.fn("Accounts.listExternal")(function* (query: ListExternalAccountsQuery) {
        const page = pageRequest(query)
        if (page === undefined) return yield* invalidCursor()
        // Customers' accounts only: the platform's own are listed by `listPlatformExternal`.
        const rows = yield* store.externalAccounts.list(
          { customerId: query.customerId, ownedByCustomer: true, currency: query.currency },
          page
        )
        const result: Page<ExternalAccount> = { ...rows, data: rows.data.map(answered) }
        return result
      })

      const listPlatformExternal = Effect.fn("Accounts.listPlatformExternal")(function* (
        query: ListPlatformExternalAccountsQuery
      ) {
        const page = pageRequest(query)
        if (page === undefined) return yield* invalidCursor()
        const rows = yield* store.externalAccounts.list({ ownedByCustomer: false, currency: query.currency }, page)
        const result: Page<ExternalAccount> = { ...rows, data: rows.data.map(answered) }
        return result
      })

      /** The account, not deleted, of `owner`'s side: a customer route 404s on the platform's and vice versa. */
      const getExternalOf = (owner: AccountOwner, span: string) =>
        Effect.fn(span)(function* (id: string) {
          const account = yield* store.externalAccounts.get(id)
          if (account === undefined || account.status === "INACTIVE" || !heldBy(account, owner)) {
            return yield* externalAccountNotFound(id)
          }
          return answered(account)
        })

      const deleteExternalOf = (owner: AccountOwner, span: string) =>
        Effect.fn(span)(function* (id: string) {
          yield* store.transaction(
            Effect.gen(function* () {
              const account = yield* store.externalAccounts.getForUpdate(id)
              if (
                account === undefined ||
                !heldBy(account, owner) ||
                !allows(externalAccountMachine, account.status, "DELETE")
              ) {
                return yield* externalAccountNotFound(id)
              }
              // The trust confirms lock the account row too, so a trust cannot land between this read and the delete.
              if ((yield* store.trustedBeneficiaries.get(id))?.status === "TRUSTED") {
                return yield* beneficiaryTrusted(id)
              }
              const now = yield* nowIso
              yield* Effect.orDie(
                store.externalAccounts.update({
                  ...account,
                  status: "INACTIVE",
                  defaultUmaDepositAccount: false,
                  updatedAt: now
                })
              )
            })
          )
        })

      const listPlatformInternal = Effect.fn("Accounts.listPlatformInternal")(function* (
        query: ListPlatformInternalAccountsQuery
      ) {
        const listed = () => scanAll((page) => store.internalAccounts.list({ ownedByCustomer: false }, page))
        let records = yield* listed()
        const config = yield* store.config.get()
        const currencies = config?.supportedCurrencies ?? DEFAULT_SUPPORTED_CURRENCIES
        const missing = yield* Effect.provideService(
          newInternalAccounts("PLATFORM", currencies, new Set(records.map((r) => r.currency))),
          Ids,
          ids
        )
        if (missing.length > 0) {
          // One insert each, outside any transaction: a concurrent list that stored the currency first wins and
          // this insert's unique violation (platform_currency) is ignored.
          for (const record of missing) {
            yield* store.internalAccounts.insert(record).pipe(Effect.catchTag("UniqueViolation", () => Effect.void))
          }
          records = yield* listed()
        }
        const kept = records.filter(
          (r) =>
            (query.currency === undefined || r.currency === query.currency) &&
            (query.type === undefined || r.type === query.type)
        )
        const data = yield* withBalances(kept)
        return { data }
      })

      return Accounts.of({
        listInternal,
        getInternal,
        createExternal,
        listExternal,
        getExternal: getExternalOf("CUSTOMER", "Accounts.getExternal"),
        deleteExternal: deleteExternalOf("CUSTOMER", "Accounts.deleteExternal"),
        listPlatformInternal,
        createPlatformExternal,
        listPlatformExternal,
        getPlatformExternal: getExternalOf("PLATFORM", "Accounts.getPlatformExternal"),
        deletePlatformExternal: deleteExternalOf("PLATFORM", "Accounts.deletePlatformExternal"),
        listPostings: Effect.fn("Accounts.listPostings")(function* (
          owner: AccountOwner,
          id: string,
          query: ListPostingsQuery
        ) {
          return yield* listPostings(store, owner, id, query)
        })
      })
    })
  )
}
