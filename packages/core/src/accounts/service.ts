import { sha256 } from "@noble/hashes/sha2.js"
import { utf8ToBytes } from "@noble/hashes/utils.js"
import { Context, Effect, Layer } from "effect"
import { invalidCursor } from "../platform/errors.ts"
import { scanAll } from "../platform/service.ts"
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
  internalAccountNotFound
} from "./errors.ts"
import { externalAccountMachine } from "./machine.ts"
import type {
  AccountInfo,
  AccountOrWalletInfo,
  CreateExternalAccountRequest,
  ExternalAccount,
  InternalAccount,
  InternalAccountRecord,
  InternalAccountType,
  ListExternalAccountsQuery,
  ListInternalAccountsQuery,
  PaymentInstructions,
  PaymentRail
} from "./model.ts"
import { initialExternalStatus } from "./ownership-rules.ts"

// ---- internal accounts: provisioning ----

const SANDBOX_BANK = "Paycore Sandbox Bank"
/** A checksum-valid ABA routing number that belongs to no real bank. */
const SANDBOX_ROUTING_NUMBER = "123456780"
const US_FUNDING_RAILS: ReadonlyArray<PaymentRail> = ["ACH", "WIRE", "RTP", "FEDNOW"]
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

/**
 * New internal accounts of a customer, one per currency it does not hold yet (`held`), as records to store. A
 * customer being created holds none.
 */
export const newInternalAccounts = Effect.fnUntraced(function* (
  owner: { readonly customerId: CustomerId; readonly holderName: string },
  currencies: ReadonlyArray<string>,
  held: ReadonlySet<string> = new Set()
): Effect.fn.Return<Array<InternalAccountRecord>, never, Ids> {
  const ids = yield* Ids
  const created: Array<InternalAccountRecord> = []
  for (const currency of new Set(currencies)) {
    if (held.has(currency)) continue
    const id = yield* ids.make("InternalAccount")
    const now = yield* nowIso
    const type = accountTypeFor(currency)
    created.push({
      id,
      customerId: owner.customerId,
      type,
      status: "ACTIVE",
      currency,
      fundingPaymentInstructions: fundingInstructionsFor(id, currency, owner.holderName),
      cardCapabilities: { supportsSpendLimits: true, supportsTransactionCountLimit: true },
      ...(type === "EMBEDDED_WALLET" ? { privateEnabled: false } : {}),
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
            return records.map((r) => {
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
        const rows = yield* store.internalAccounts.list(
          { customerId: query.customerId, currency: query.currency, type: query.type },
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

      const createExternal = Effect.fn("Accounts.createExternal")(function* (req: CreateExternalAccountRequest) {
        const customer = yield* store.customers.get(req.customerId)
        if (customer === undefined || customer.isDeleted) return yield* accountOwnerNotFound(req.customerId)

        const info = req.accountInfo
        const errors: Array<FieldError> = []
        const currencies = variantCurrencies[info.accountType]
        if (!currencies.includes(req.currency)) {
          errors.push({
            field: "currency",
            constraint: { enum: currencies },
            message: `An ${info.accountType} account holds ${currencies.join(" or ")}, not ${req.currency}`
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
        if (info.accountType === "LIGHTNING" && info.invoice === undefined && info.lightningAddress === undefined) {
          errors.push({
            field: "accountInfo",
            constraint: { anyOf: ["invoice", "lightningAddress"] },
            message: "A LIGHTNING account needs an invoice or a lightningAddress"
          })
        }
        if (errors.length > 0) return yield* invalidInput(errors)

        const identity = accountIdentity(info)
        return yield* store.transaction(
          Effect.gen(function* () {
            const siblings = yield* scanAll((page) => store.externalAccounts.list({ customerId: req.customerId }, page))
            const duplicate = siblings.find(
              (a) => a.currency === req.currency && accountIdentity(a.accountInfo) === identity
            )
            if (duplicate !== undefined) return yield* duplicateExternalAccount(duplicate.id)
            const now = yield* nowIso
            const ownershipType = req.ownershipType ?? "FIRST_PARTY"
            const { travelRule } = yield* EngineConfig
            const isDefault = req.defaultUmaDepositAccount ?? false
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
              customerId: req.customerId,
              status: initialExternalStatus(info, ownershipType, customer.region, travelRule),
              currency: req.currency,
              ...(req.platformAccountId === undefined ? {} : { platformAccountId: req.platformAccountId }),
              ownershipType,
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

      const listExternal = Effect.fn("Accounts.listExternal")(function* (query: ListExternalAccountsQuery) {
        const page = pageRequest(query)
        if (page === undefined) return yield* invalidCursor()
        const rows = yield* store.externalAccounts.list(
          { customerId: query.customerId, currency: query.currency },
          page
        )
        const result: Page<ExternalAccount> = { ...rows, data: rows.data.map(answered) }
        return result
      })

      const getExternal = Effect.fn("Accounts.getExternal")(function* (id: string) {
        const account = yield* store.externalAccounts.get(id)
        if (account === undefined || account.status === "INACTIVE") return yield* externalAccountNotFound(id)
        return answered(account)
      })

      const deleteExternal = Effect.fn("Accounts.deleteExternal")(function* (id: string) {
        yield* store.transaction(
          Effect.gen(function* () {
            const account = yield* store.externalAccounts.getForUpdate(id)
            if (account === undefined || !allows(externalAccountMachine, account.status, "DELETE")) {
              return yield* externalAccountNotFound(id)
            }
            // The trust confirms lock the account row too, so a trust cannot land between this read and the delete.
            if ((yield* store.trustedBeneficiaries.get(id))?.status === "TRUSTED") return yield* beneficiaryTrusted(id)
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

      return Accounts.of({ listInternal, getInternal, createExternal, listExternal, getExternal, deleteExternal })
    })
  )
}
