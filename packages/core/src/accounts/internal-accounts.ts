/**
 * Internal accounts: their provisioning (one per currency, with sandbox-looking funding instructions), the reads
 * with their ledger balances, and the platform's own accounts (AC-01).
 */
import { sha256 } from "@noble/hashes/sha2.js"
import { utf8ToBytes } from "@noble/hashes/utils.js"
import { Effect } from "effect"
import type { LedgerBalance } from "../ledger/model.ts"
import { supportedCodes } from "../platform/currencies.ts"
import { invalidCursor } from "../platform/errors.ts"
import { scanAll } from "../platform/paging.ts"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { currencyKind } from "../shared/currency.ts"
import type { StoreError } from "../shared/errors.ts"
import type { CustomerId } from "../shared/ids.ts"
import { amountOf } from "../shared/money.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { DEPOSIT_NAMES, describePayeeType, localPayeeTypes, type PayeeTypeName } from "../shared/payee-types.ts"
import { nowIso } from "../shared/time.ts"
import { internalAccountNotFound } from "./errors.ts"
import type {
  AccountInfo,
  AccountOrWalletInfo,
  InternalAccount,
  InternalAccountRecord,
  InternalAccountType,
  ListInternalAccountsQuery,
  ListPlatformInternalAccountsQuery,
  PaymentInstructions
} from "./model.ts"
import type { AccountsPorts } from "./ports.ts"
import { railsOf } from "./variants.ts"

// ---- provisioning ----

const SANDBOX_BANK = "Paycore Sandbox Bank"
const REFERENCE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
const BECH32_ALPHABET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

const digest = (seed: string): Uint8Array => sha256(utf8ToBytes(seed))

const charsFrom = (bytes: Uint8Array, alphabet: string, n: number): string => {
  let out = ""
  for (let i = 0; i < n; i++) out += alphabet[bytes[i % bytes.length]! % alphabet.length]
  return out
}

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

/** The embedded wallet's currency (upstream: a platform supporting USDB provisions every customer a wallet). */
export const EMBEDDED_WALLET_CURRENCY = "USDB"

const accountTypeFor = (currency: string): InternalAccountType =>
  currency === EMBEDDED_WALLET_CURRENCY
    ? "EMBEDDED_WALLET"
    : currencyKind(currency) === "CRYPTO"
      ? "INTERNAL_CRYPTO"
      : "INTERNAL_FIAT"

/**
 * The payee type a fiat currency is paid in with: the one of its own that describes a deposit account, else a SWIFT
 * account (every fiat currency has one of them).
 */
export const depositTypeOf = (currency: string): PayeeTypeName =>
  localPayeeTypes(currency).find((name) => describePayeeType(name).deposit !== undefined) ?? "SWIFT_ACCOUNT"

/** A fiat currency's deposit account at the sandbox bank, its numbers drawn from `bytes` (the account's digest). */
const bankDepositInfo = (
  currency: string,
  bytes: Uint8Array,
  reference: string,
  holderName: string
): AccountOrWalletInfo => {
  const name = depositTypeOf(currency)
  const type = describePayeeType(name)
  const fields = type.deposit!({ reference, digits: (n) => charsFrom(bytes, "0123456789", n) })
  // The rails of the routes its fields give (a Bangladeshi bank account takes bank transfers, not mobile money).
  const rails = railsOf({ accountType: name, ...fields } as unknown as AccountInfo)
  return {
    accountType: (DEPOSIT_NAMES as Readonly<Record<string, string>>)[name] ?? name,
    reference,
    ...fields,
    accountHolderName: holderName,
    bankName: SANDBOX_BANK,
    paymentRails: rails.length > 0 ? rails : type.rails
  } as unknown as AccountOrWalletInfo
}

/**
 * Sandbox-looking, deterministic funding instructions of one internal account: a deposit account of the currency's
 * payee type (fiat), a wallet (stablecoins), a Lightning invoice (BTC); none for the embedded wallet's currency.
 */
export const fundingInstructionsFor = (
  accountId: string,
  currency: string,
  holderName: string
): Array<PaymentInstructions> => {
  const bytes = digest(`${accountId}/${currency}`)
  const reference = `PC${charsFrom(bytes.subarray(20), REFERENCE_ALPHABET, 6)}`
  switch (currency) {
    case "USDC":
    case "USDT":
      return [{ accountOrWalletInfo: { accountType: "SOLANA_WALLET", assetType: currency, address: base58(bytes) } }]
    case "BTC":
      return [
        {
          accountOrWalletInfo: {
            accountType: "LIGHTNING",
            invoice: `lnbc1p${charsFrom(bytes, BECH32_ALPHABET, 32)}${charsFrom(digest(`${accountId}/invoice`), BECH32_ALPHABET, 32)}`
          }
        }
      ]
    default:
      if (currencyKind(currency) === "CRYPTO") return []
      return [
        {
          instructionsNotes: `Include the reference ${reference} in the transfer so the deposit is credited to this account.`,
          accountOrWalletInfo: bankDepositInfo(currency, bytes, reference, holderName)
        }
      ]
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

// ---- reads ----

/** Adds `balance` (available = posted - held) and `totalBalance` (posted) from the ledger. */
export const withBalances = (
  store: Pick<AccountsPorts["store"], "ledger">,
  records: ReadonlyArray<InternalAccountRecord>
) =>
  Effect.map(
    store.ledger.balances(records.map((r) => ({ account: r.id, currency: r.currency }))),
    (balances): Array<InternalAccount> => {
      const byAccount = new Map(balances.map((b) => [b.account, b]))
      return records.map((r) => withBalance(r, byAccount.get(r.id)))
    }
  )

/** An account as `GET` shows it with its ledger balance `b` (none: it never moved). */
export const withBalance = (
  { platformCurrency: _, ...r }: InternalAccountRecord,
  b: Pick<LedgerBalance, "posted" | "pendingDebits"> | undefined
): InternalAccount => {
  const posted = b?.posted ?? 0
  const held = b?.pendingDebits ?? 0
  return { ...r, balance: amountOf(posted - held, r.currency), totalBalance: amountOf(posted, r.currency) }
}

/** `GET /internal-account` and `GET /customers/internal-accounts`: customers' accounts, paged. */
export const listInternalAccounts = Effect.fnUntraced(function* (
  ports: AccountsPorts,
  query: ListInternalAccountsQuery
) {
  const { store } = ports
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  // Customers' accounts only: the platform's own are listed by `listPlatformInternal`.
  const rows = yield* store.internalAccounts.list(
    { customerId: query.customerId, ownedByCustomer: true, currency: query.currency, type: query.type },
    page
  )
  const data = yield* withBalances(store, rows.data)
  const result: Page<InternalAccount> = { ...rows, data }
  return result
})

/** One internal account with its balances; 404 `NOT_FOUND`. */
export const getInternalAccount = Effect.fnUntraced(function* (ports: AccountsPorts, id: string) {
  const { store } = ports
  const record = yield* store.internalAccounts.get(id)
  if (record === undefined) return yield* internalAccountNotFound(id)
  const [account] = yield* withBalances(store, [record])
  return account!
})

/** `GET /platform/internal-accounts` (AC-01): the platform's own accounts, created on first list. */
export const listPlatformInternalAccounts = Effect.fnUntraced(function* (
  ports: AccountsPorts,
  query: ListPlatformInternalAccountsQuery
) {
  const { store, ids } = ports
  const listed = () => scanAll((page) => store.internalAccounts.list({ ownedByCustomer: false }, page))
  let records = yield* listed()
  const config = yield* store.config.get()
  const currencies = supportedCodes(config)
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
  const data = yield* withBalances(store, kept)
  return { data }
})
