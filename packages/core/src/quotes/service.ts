import { BigDecimal, Context, Effect, Layer, Option, Result } from "effect"
import type { Mutable } from "effect/Types"
import type { ExternalAccount, InternalAccountRecord, PaymentInstructions, PaymentRail } from "../accounts/model.ts"
import type { Customer } from "../customers/model.ts"
import type { ExchangeRate, ExchangeRatesQuery, PlatformConfig } from "../platform/model.ts"
import { Directory } from "../ports/directory.ts"
import { FxRates } from "../ports/fx.ts"
import { Ids } from "../ports/ids.ts"
import { Rail } from "../ports/rail.ts"
import { Store } from "../ports/store.ts"
import { currency, currencyCodes, currencyKind } from "../shared/currency.ts"
import { type CommandEnv, commandEnv, EngineConfig } from "../shared/engine-config.ts"
import { InvalidInput, type NotFound, type StoreError } from "../shared/errors.ts"
import type { IllegalTransition } from "../shared/machine.ts"
import { amountOf, MAX_AMOUNT } from "../shared/money.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import { command, traced } from "../shared/tracing.ts"
import type { Transaction, TransactionRecord, TransferOutRequest } from "../transactions/model.ts"
import { makePayments, reserveSteps } from "../transactions/service.ts"
import { emitSteps } from "../webhooks/service.ts"
import {
  accountNotActive,
  accountNotFound,
  amountOutOfRange,
  customerDeleted,
  customerNotFound,
  endUserTermsNotAccepted,
  externalAccountNotUsable,
  type QuoteError,
  quoteNotFound,
  quoteRequestFailed,
  selfPayment,
  umaNotFound
} from "./errors.ts"
import type {
  CreateQuoteRequest,
  CurrencyPreference,
  ExternalAccountLookup,
  LockedCurrencySide,
  PlatformFeeOverride,
  Quote,
  QuoteRecord,
  ReceiverLookupQuery,
  UmaLookup
} from "./model.ts"

// =============================================================================================
// Pricing: pure, exact (bigint and BigDecimal), no Effects
// =============================================================================================

const POW10_BIGINT = Array.from({ length: 64 }, (_, i) => 10n ** BigInt(i))
const pow10 = (n: number): bigint => POW10_BIGINT[n] ?? 10n ** BigInt(n)
/** ⌈a / b⌉ for a ≥ 0, b > 0. */
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b
const BPS = 10_000n

/** A positive finite decimal rate, normalized; `undefined` for anything else. */
export const parseRate = (rate: string): BigDecimal.BigDecimal | undefined => {
  const parsed = Option.getOrUndefined(BigDecimal.fromString(rate.trim()))
  return parsed !== undefined && BigDecimal.isPositive(parsed) ? BigDecimal.normalize(parsed) : undefined
}

/** Plain decimal text (never exponent notation). */
export const decimalString = (n: BigDecimal.BigDecimal): string => {
  const { value, scale } = BigDecimal.normalize(n)
  const negative = value < 0n
  const digits = `${negative ? -value : value}`
  let text: string
  if (scale <= 0) text = digits + "0".repeat(-scale)
  else {
    const padded = digits.padStart(scale + 1, "0")
    text = `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`
  }
  return negative ? `-${text}` : text
}

/** Receiving minor units per sending minor unit: `rate × 10^(receiving decimals − sending decimals)`, exact. */
export const minorUnitRate = (rate: BigDecimal.BigDecimal, sendingDecimals: number, receivingDecimals: number) =>
  BigDecimal.normalize(BigDecimal.make(rate.value, rate.scale + sendingDecimals - receivingDecimals))

/** A decimal as the exact fraction num / den. */
const fraction = (d: BigDecimal.BigDecimal): { readonly num: bigint; readonly den: bigint } =>
  d.scale >= 0 ? { num: d.value, den: pow10(d.scale) } : { num: d.value * pow10(-d.scale), den: 1n }

interface MinorRate {
  readonly num: bigint
  readonly den: bigint
  /** `decimalString` of the minor-unit rate. */
  readonly text: string
}

/** Minor-unit rates per market rate (rates are cached and reused) and pair of decimals. */
const minorRates = new WeakMap<BigDecimal.BigDecimal, Map<number, MinorRate>>()

/** `minorUnitRate` as an exact fraction and as text, computed once per rate and pair of decimals. */
const minorRateOf = (rate: BigDecimal.BigDecimal, sendingDecimals: number, receivingDecimals: number): MinorRate => {
  let byDecimals = minorRates.get(rate)
  if (byDecimals === undefined) {
    byDecimals = new Map()
    minorRates.set(rate, byDecimals)
  }
  const key = sendingDecimals * 1024 + receivingDecimals
  let found = byDecimals.get(key)
  if (found === undefined) {
    const minor = minorUnitRate(rate, sendingDecimals, receivingDecimals)
    found = { ...fraction(minor), text: decimalString(minor) }
    byDecimals.set(key, found)
  }
  return found
}

const SIGNIFICANT_DIGITS = 12

/** Exact powers of ten as doubles (every one up to 1e22 is exactly representable). */
const POW10_NUMBER = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
  1e21, 1e22
]
const decimalDigits = (n: bigint): number => `${n}`.length

/**
 * A display number: `numerator / denominator` rounded half-even to 12 significant digits. Exact
 * integer arithmetic: the quotient scaled to 12 digits, rounded, then one correctly rounded
 * division by a power of ten (the same double as parsing the rounded decimal text).
 */
const displayRatio = (numerator: bigint, denominator: bigint): number => {
  if (numerator === 0n || denominator === 0n) return 0
  if (numerator < 0n || denominator < 0n) return displayRatioDecimal(numerator, denominator)
  // integerDigits: 10^(k-1) <= q < 10^k.
  let k = decimalDigits(numerator) - decimalDigits(denominator)
  if (k >= 0 ? numerator >= denominator * pow10(k) : numerator * pow10(-k) >= denominator) k++
  const scale = SIGNIFICANT_DIGITS - k
  if (scale < -22 || scale > 22) return displayRatioDecimal(numerator, denominator)
  const n = scale >= 0 ? numerator * pow10(scale) : numerator
  const d = scale >= 0 ? denominator : denominator * pow10(-scale)
  let q = n / d
  const twice = (n - q * d) * 2n
  if (twice > d || (twice === d && (q & 1n) === 1n)) q++
  return scale >= 0 ? Number(q) / POW10_NUMBER[scale]! : Number(q) * POW10_NUMBER[-scale]!
}

/** `displayRatio` through `BigDecimal` (the general case: negative or extreme ratios). */
const displayRatioDecimal = (numerator: bigint, denominator: bigint): number => {
  const q = Option.getOrUndefined(
    BigDecimal.divide(BigDecimal.fromBigInt(numerator), BigDecimal.fromBigInt(denominator))
  )
  if (q === undefined) return 0
  const n = BigDecimal.normalize(q)
  if (n.value === 0n) return 0
  const integerDigits = `${n.value < 0n ? -n.value : n.value}`.length - n.scale
  return Number(decimalString(BigDecimal.round(n, { scale: SIGNIFICANT_DIGITS - integerDigits, mode: "half-even" })))
}

/** Fees a quote carries, as fractions of the total sending amount. */
export interface FeeSchedule {
  /** The service's own fee (`EngineConfig.serviceFeeBps`; 0 for same-currency quotes). */
  readonly serviceBps: number
  /** The platform's variable fee (config `feeConfigs` or the quote's `platformFeeOverride`). */
  readonly platformBps: number
  /** The platform's fixed fee, in the sending currency's smallest unit. */
  readonly platformFixed: number
}

export const noFees: FeeSchedule = { serviceBps: 0, platformBps: 0, platformFixed: 0 }

export interface PricingInput {
  readonly sendingCurrency: string
  readonly receivingCurrency: string
  readonly lockedCurrencySide: LockedCurrencySide
  readonly lockedCurrencyAmount: number
  /** Market rate: receiving major units per one sending major unit (1 for the same currency). */
  readonly marketRate: BigDecimal.BigDecimal
  readonly fees: FeeSchedule
}

export interface Pricing {
  /** Debited from the source: net + fees. */
  readonly totalSendingAmount: number
  /** Credited to the destination. */
  readonly totalReceivingAmount: number
  /** What is converted (or, same-currency, delivered): total − fees. */
  readonly netSendingAmount: number
  readonly serviceFee: number
  /** Fixed plus variable platform fee. */
  readonly platformFee: number
  readonly platformVariableFee: number
  readonly serviceVariableFee: number
  /** serviceFee + platformFee. */
  readonly feesIncluded: number
  readonly platformFeesIncluded: number
  /** Display only: receiving major units per net sending major unit (after fees); exactly 1 for one currency. */
  readonly exchangeRate: number
  /** The exact rate in smallest units (receiving minor per sending minor), decimal text. */
  readonly minorRate: string
}

const feesOn = (gross: bigint, fees: FeeSchedule) => {
  const serviceVariable = ceilDiv(gross * BigInt(fees.serviceBps), BPS)
  const platformVariable = ceilDiv(gross * BigInt(fees.platformBps), BPS)
  const platform = BigInt(fees.platformFixed) + platformVariable
  return { serviceVariable, platformVariable, service: serviceVariable, platform, total: serviceVariable + platform }
}

const amountField = "lockedCurrencyAmount"

/**
 * Prices a quote exactly: integers in smallest units, the rate as an exact decimal (no floating
 * point touches money; `exchangeRate` is a display number only).
 *
 * Rounding rule:
 * - Fees are fractions of the total sending amount (what the source is debited): the service fee
 *   (`serviceFeeBps`, cross-currency only) and the platform fee (fixed amount plus basis points;
 *   USD source only). Each variable part is rounded UP to the sending currency's smallest unit.
 * - SENDING locked: total = the locked amount; net = total − fees; the receiving amount is
 *   net × rate rounded DOWN to the receiving currency's smallest unit.
 * - RECEIVING locked: the receiving amount is the locked amount; the net sending amount is
 *   receiving ÷ rate rounded UP; then fees are added: the total is the smallest amount whose net
 *   after its own fees (rounded up as above) covers that net. Locking the receiving side is thus
 *   never cheaper than locking the sending side at the same rate.
 * - Every leftover of rounding stays with the FX liquidity account: it always receives at least
 *   the value it pays out.
 * - Units follow each currency's decimals (USD 2, JPY 0, USDC 6, BTC 8): the rate is scaled by
 *   10^(receiving decimals − sending decimals) before rounding.
 *
 * Fails with InvalidInput on `lockedCurrencyAmount` when nothing would be delivered (net ≤ 0 or a
 * receiving amount of 0), or an amount would exceed 9 000 000 000 000 000.
 */
export const priceQuote = (input: PricingInput): Result.Result<Pricing, InvalidInput> => {
  const send = currency(input.sendingCurrency)
  const receive = currency(input.receivingCurrency)
  const sameCurrency = send.code === receive.code
  const { num, den, text: minorRate } = minorRateOf(input.marketRate, send.decimals, receive.decimals)
  const locked = BigInt(input.lockedCurrencyAmount)
  const max = BigInt(MAX_AMOUNT)

  let gross: bigint
  let received: bigint
  if (input.lockedCurrencySide === "SENDING") {
    gross = locked
    const net = gross - feesOn(gross, input.fees).total
    if (net <= 0n) {
      return Result.fail(
        InvalidInput.one(
          amountField,
          { minimum: minimumSendingAmount(input) },
          `${input.lockedCurrencyAmount} ${send.code} (smallest unit) does not cover the fees of this quote`
        )
      )
    }
    received = (net * num) / den
    if (received <= 0n) {
      return Result.fail(
        InvalidInput.one(
          amountField,
          { minimum: minimumSendingAmount(input) },
          `${input.lockedCurrencyAmount} ${send.code} (smallest unit) is too small to deliver any ${receive.code}`
        )
      )
    }
  } else {
    received = locked
    const netNeeded = ceilDiv(received * den, num)
    const variableBps = BigInt(input.fees.serviceBps + input.fees.platformBps)
    if (variableBps >= BPS) {
      return Result.fail(InvalidInput.one(amountField, { valid: true }, "The fees of this quote take the whole amount"))
    }
    // A lower bound (the fees before rounding up); step up to the first total that covers the net.
    gross = ceilDiv((netNeeded + BigInt(input.fees.platformFixed)) * BPS, BPS - variableBps)
    while (gross - feesOn(gross, input.fees).total < netNeeded) gross += 1n
  }
  if (gross > max || received > max) {
    return Result.fail(
      InvalidInput.one(amountField, { maximum: MAX_AMOUNT }, "The amounts of this quote would exceed 9000000000000000")
    )
  }
  const fees = feesOn(gross, input.fees)
  const net = gross - fees.total
  const exchangeRate = sameCurrency ? 1 : displayRatio(received * pow10(send.decimals), net * pow10(receive.decimals))
  return Result.succeed({
    totalSendingAmount: Number(gross),
    totalReceivingAmount: Number(received),
    netSendingAmount: Number(net),
    serviceFee: Number(fees.service),
    platformFee: Number(fees.platform),
    platformVariableFee: Number(fees.platformVariable),
    serviceVariableFee: Number(fees.serviceVariable),
    feesIncluded: Number(fees.total),
    platformFeesIncluded: Number(fees.platform),
    exchangeRate,
    minorRate
  })
}

/** The smallest sending amount that delivers one smallest unit of the receiving currency. */
export const minimumSendingAmount = (
  input: Omit<PricingInput, "lockedCurrencySide" | "lockedCurrencyAmount">
): number => {
  const priced = priceQuote({ ...input, lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: 1 })
  return Result.isSuccess(priced) ? priced.success.totalSendingAmount : MAX_AMOUNT
}

/**
 * The platform's fee for a quote: the request's `platformFeeOverride` (USD source only; its fixed
 * fee must be in the source currency) replaces the configured fee; the configured
 * `CROSS_CURRENCY_TRANSACTION` fee applies to cross-currency quotes from USD. Otherwise none.
 */
export const platformFeeFor = (
  sendingCurrency: string,
  receivingCurrency: string,
  config: PlatformConfig | undefined,
  override: PlatformFeeOverride | undefined
): Result.Result<{ readonly bps: number; readonly fixed: number }, InvalidInput> => {
  if (override !== undefined) {
    if (sendingCurrency !== "USD") {
      return Result.fail(
        InvalidInput.one(
          "platformFeeOverride",
          { sourceCurrency: "USD" },
          `platformFeeOverride requires a USD source currency; this quote sends ${sendingCurrency}`
        )
      )
    }
    if (override.platformFixedFee.currency !== sendingCurrency) {
      return Result.fail(
        InvalidInput.one(
          "platformFeeOverride.platformFixedFee.currency",
          { enum: [sendingCurrency] },
          `The fixed platform fee must be in the source currency ${sendingCurrency}`
        )
      )
    }
    return Result.succeed({ bps: override.platformVariableFeeBps, fixed: override.platformFixedFee.amount })
  }
  if (sendingCurrency === receivingCurrency || sendingCurrency !== "USD") return Result.succeed({ bps: 0, fixed: 0 })
  const fee = config?.feeConfigs.find((f) => f.feeType === "CROSS_CURRENCY_TRANSACTION" && f.sourceCurrency === "USD")
  if (fee === undefined) return Result.succeed({ bps: 0, fixed: 0 })
  return Result.succeed({
    bps: fee.variableFeeBps ?? 0,
    fixed: fee.fixedFee !== undefined && fee.fixedFee.currency === sendingCurrency ? fee.fixedFee.amount : 0
  })
}

/** The fee schedule of a quote: service fee on cross-currency quotes, plus the platform fee. */
export const feeScheduleFor = (
  sendingCurrency: string,
  receivingCurrency: string,
  serviceFeeBps: number,
  platform: { readonly bps: number; readonly fixed: number }
): FeeSchedule => ({
  serviceBps: sendingCurrency === receivingCurrency ? 0 : serviceFeeBps,
  platformBps: platform.bps,
  platformFixed: platform.fixed
})

// =============================================================================================
// Rails and funding instructions
// =============================================================================================

/** The default payout rail per receiving currency (exchange rates; accounts that list no rail). */
export const DEFAULT_RAIL: Readonly<Record<string, PaymentRail>> = {
  USD: "ACH",
  EUR: "SEPA_INSTANT",
  GBP: "FASTER_PAYMENTS",
  MXN: "SPEI",
  BRL: "PIX",
  INR: "UPI",
  PHP: "INSTAPAY",
  NGN: "BANK_TRANSFER",
  CAD: "BANK_TRANSFER",
  COP: "BRE_B",
  KES: "MOBILE_MONEY",
  JPY: "BANK_TRANSFER",
  USDC: "SOLANA",
  USDT: "TRON",
  BTC: "LIGHTNING"
}
export const defaultRail = (code: string): PaymentRail => DEFAULT_RAIL[code] ?? "BANK_TRANSFER"

/** UMA payments settle between counterparties over Lightning. */
export const UMA_RAIL: PaymentRail = "LIGHTNING"

/** Currencies a quote can be funded in by payment instructions (instant rails and stablecoins). */
export const REALTIME_FUNDING_CURRENCIES = ["USD", "EUR", "MXN", "USDC", "USDT", "BTC"] as const

const WALLET_BY_NETWORK: Readonly<
  Record<string, "SOLANA_WALLET" | "ETHEREUM_WALLET" | "BASE_WALLET" | "POLYGON_WALLET" | "TRON_WALLET">
> = {
  SOLANA: "SOLANA_WALLET",
  ETHEREUM: "ETHEREUM_WALLET",
  BASE: "BASE_WALLET",
  POLYGON: "POLYGON_WALLET",
  TRON: "TRON_WALLET"
}

/** The reconciliation reference of a transaction: what a depositor writes in the memo. */
export const paymentReference = (transactionId: string): string => {
  // `<Type>:<uuid>`: the uuid's last group is the last 12 hex digits (no regex needed).
  const tail = transactionId.slice(-12)
  return /^[0-9a-f]{12}$/.test(tail) && transactionId.charCodeAt(transactionId.length - 13) === 45
    ? `PAYCORE-${tail.toUpperCase()}`
    : `PAYCORE-${transactionId
        .replace(/[^0-9a-f]/g, "")
        .slice(-12)
        .toUpperCase()}`
}

/**
 * Where to send the money for a quote funded by payment instructions (sandbox clearing accounts;
 * the deposit is matched by `reference`). `undefined` for a currency or network that has none.
 */
export const fundingInstructions = (
  code: string,
  reference: string,
  cryptoNetwork: string | undefined
): ReadonlyArray<PaymentInstructions> | undefined => {
  const notes = `Include the reference ${reference} in the payment memo`
  switch (code) {
    case "USD":
      return [
        {
          instructionsNotes: notes,
          isPlatformAccount: true,
          accountOrWalletInfo: {
            accountType: "US_ACCOUNT",
            reference,
            accountNumber: "9876543210",
            routingNumber: "021000021",
            accountHolderName: "Paycore Sandbox Clearing",
            bankName: "JPMorgan Chase Bank, N.A.",
            paymentRails: ["RTP", "FEDNOW"]
          }
        }
      ]
    case "EUR":
      return [
        {
          instructionsNotes: notes,
          isPlatformAccount: true,
          accountOrWalletInfo: {
            accountType: "IBAN",
            reference,
            iban: "DE89370400440532013000",
            accountHolderName: "Paycore Sandbox Clearing",
            bankName: "Deutsche Bank AG",
            paymentRails: ["SEPA_INSTANT"]
          }
        }
      ]
    case "MXN":
      return [
        {
          instructionsNotes: notes,
          isPlatformAccount: true,
          accountOrWalletInfo: {
            accountType: "CLABE",
            reference,
            clabeNumber: "002010077777777771",
            accountHolderName: "Paycore Sandbox Clearing",
            bankName: "BBVA México, S.A.",
            paymentRails: ["SPEI"]
          }
        }
      ]
    case "USDC":
    case "USDT": {
      const wallet = WALLET_BY_NETWORK[cryptoNetwork ?? ""]
      if (wallet === undefined) return undefined
      return [
        {
          instructionsNotes: `Send ${code} on ${cryptoNetwork}; the deposit is matched by amount and address`,
          isPlatformAccount: true,
          accountOrWalletInfo: {
            accountType: wallet,
            assetType: code,
            address:
              wallet === "SOLANA_WALLET"
                ? "4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg"
                : wallet === "TRON_WALLET"
                  ? "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"
                  : "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
          }
        }
      ]
    }
    case "BTC":
      return [
        {
          instructionsNotes: `Pay the Lightning invoice; reference ${reference}`,
          isPlatformAccount: true,
          accountOrWalletInfo: {
            accountType: "LIGHTNING",
            invoice: `lnbcrt1paycore${reference.toLowerCase().replace(/[^0-9a-z]/g, "")}`
          }
        }
      ]
    default:
      return undefined
  }
}

// =============================================================================================
// The service
// =============================================================================================

/** One cached market rate. */
interface CachedRate {
  readonly rate: BigDecimal.BigDecimal
  /** `rate` as a display number. */
  readonly multiplier: number
  readonly fetchedAtMs: number
}

const ONE = BigDecimal.fromBigInt(1n)

interface CreateOptions {
  /** Deprecated transfer-out: refuse a destination in another currency. */
  readonly sameCurrencyOnly?: boolean
}

export type QuotesError = QuoteError | IllegalTransition

export class Quotes extends Context.Service<
  Quotes,
  {
    /** `POST /quotes` (201); with `immediatelyExecute` the quote comes back executed. */
    readonly create: (request: CreateQuoteRequest) => Effect.Effect<Quote, QuotesError>
    /** `GET /quotes/{quoteId}` (404 `QUOTE_NOT_FOUND`). */
    readonly get: (id: string) => Effect.Effect<Quote, NotFound | StoreError>
    /** `POST /quotes/{quoteId}/execute`: the quote in PROCESSING (or further, when it settled at once). */
    readonly execute: (id: string) => Effect.Effect<Quote, QuotesError>
    /** `GET /exchange-rates`: rates from the cache (refreshed after `fxCacheSeconds`), fees included. */
    readonly exchangeRates: (query: ExchangeRatesQuery) => Effect.Effect<ReadonlyArray<ExchangeRate>, QuotesError>
    /** `GET /receiver/external-account/{accountId}`. */
    readonly lookupExternalAccount: (
      accountId: string,
      query?: ReceiverLookupQuery
    ) => Effect.Effect<ExternalAccountLookup, QuotesError>
    /** `GET /receiver/uma/{receiverUmaAddress}` (404 `UMA_NOT_FOUND`). */
    readonly lookupUma: (address: string, query?: ReceiverLookupQuery) => Effect.Effect<UmaLookup, QuotesError>
    /** Deprecated `POST /transfer-out`: a same-currency quote locked on the sending side, executed at once. */
    readonly transferOut: (request: TransferOutRequest) => Effect.Effect<Transaction, QuotesError>
  }
>()("paycore/quotes/Quotes") {
  static readonly layer: Layer.Layer<Quotes, never, Store | Ids | Rail | FxRates | Directory> = Layer.effect(
    Quotes,
    Effect.gen(function* () {
      const store = yield* Store
      const ids = yield* Ids
      const fx = yield* FxRates
      const directory = yield* Directory
      const payments = makePayments({ store, ids, rail: yield* Rail })
      const cache = new Map<string, CachedRate>()

      const fetchRate = Effect.fnUntraced(function* (from: string, to: string, nowMs: number) {
        const text = yield* fx.rate(from, to).pipe(Effect.mapError(() => quoteRequestFailed(from, to)))
        const rate = parseRate(text)
        if (rate === undefined) {
          yield* Effect.logWarning(`FxRates returned an unusable rate for ${from}/${to}: ${text}`)
          return yield* Effect.fail(quoteRequestFailed(from, to))
        }
        const entry: CachedRate = { rate, multiplier: BigDecimal.toNumberUnsafe(rate), fetchedAtMs: nowMs }
        cache.set(`${from}/${to}`, entry)
        return entry
      })

      /**
       * The market rate of a pair at `nowMs`, from the cache while it is younger than `fxCacheSeconds`
       * (a hit, or the same currency, is an already-computed Effect: no run-loop step).
       */
      const rateAt = (
        from: string,
        to: string,
        { nowMs, settings }: CommandEnv
      ): Effect.Effect<CachedRate, QuoteError> => {
        if (from === to) return Effect.succeed({ rate: ONE, multiplier: 1, fetchedAtMs: nowMs })
        const hit = cache.get(`${from}/${to}`)
        if (hit !== undefined && nowMs - hit.fetchedAtMs < settings.fxCacheSeconds * 1000) return Effect.succeed(hit)
        return fetchRate(from, to, nowMs)
      }

      /** The market rate of a pair now (see `rateAt`). */
      const rateFor = (from: string, to: string) => Effect.flatMap(commandEnv, (env) => rateAt(from, to, env))

      function* usableCustomer(customerId: string, config: PlatformConfig | undefined) {
        const customer = yield* store.customers.get(customerId)
        if (customer === undefined) return yield* Effect.fail(customerNotFound(customerId))
        if (customer.isDeleted) return yield* Effect.fail(customerDeleted(customerId))
        if (config?.isRegulatedFinancialInstitution !== true && customer.endUserTermsConsent === undefined) {
          return yield* Effect.fail(endUserTermsNotAccepted(customerId))
        }
        return customer
      }

      function* internalAccount(id: string) {
        const account = yield* store.internalAccounts.get(id)
        if (account === undefined) return yield* Effect.fail(accountNotFound(id))
        if (account.status !== "ACTIVE" && account.status !== "PENDING") {
          return yield* Effect.fail(accountNotActive(id, account.status))
        }
        return account
      }

      /**
       * The store transaction of `create`: the quote, its PENDING transaction and event; executed when asked, under
       * the limits of `config` (the command's read of it).
       */
      const createInStore = Effect.fnUntraced(function* (
        quoteRecord: QuoteRecord,
        record: TransactionRecord,
        config: PlatformConfig | undefined,
        execute: boolean,
        now: string
      ) {
        yield* store.quotes.insert(quoteRecord)
        yield* store.transactions.insert(record)
        yield* emitSteps(store, ids, ["OUTGOING_PAYMENT.PENDING"], record.id, record.transaction, now)
        if (!execute) return undefined
        return yield* reserveSteps(store, ids, config, quoteRecord, record, now)
      })

      const createQuoteGen = Effect.fnUntraced(function* (
        request: CreateQuoteRequest,
        env: CommandEnv,
        options: CreateOptions
      ) {
        const settings = env.settings
        const config = yield* store.config.get()

        // ---- source ----
        let sendingCode: string
        let sourceAccount: InternalAccountRecord | undefined
        let customerId: string | undefined
        const source = request.source
        if (source.sourceType === "ACCOUNT") {
          sourceAccount = yield* internalAccount(source.accountId)
          sendingCode = sourceAccount.currency
          customerId = sourceAccount.customerId
          if (source.customerId !== undefined && source.customerId !== customerId) {
            return yield* Effect.fail(
              InvalidInput.one(
                "source.customerId",
                { equals: customerId ?? null },
                `Account ${source.accountId} does not belong to customer ${source.customerId}`
              )
            )
          }
          if (request.immediatelyExecute === true && sourceAccount.type === "EMBEDDED_WALLET") {
            return yield* Effect.fail(
              InvalidInput.one(
                "immediatelyExecute",
                { const: false },
                "A quote from an embedded wallet must be executed with the wallet's signature; omit immediatelyExecute"
              )
            )
          }
        } else {
          sendingCode = source.currency
          customerId = source.customerId
          if (!(REALTIME_FUNDING_CURRENCIES as ReadonlyArray<string>).includes(sendingCode)) {
            return yield* Effect.fail(
              InvalidInput.one(
                "source.currency",
                { enum: [...REALTIME_FUNDING_CURRENCIES] },
                `Real-time funding is available for ${REALTIME_FUNDING_CURRENCIES.join(", ")}`
              )
            )
          }
          if (currencyKind(sendingCode) === "CRYPTO" && sendingCode !== "BTC" && source.cryptoNetwork === undefined) {
            return yield* Effect.fail(
              InvalidInput.one(
                "source.cryptoNetwork",
                { required: true },
                `A ${sendingCode} source needs its cryptoNetwork`
              )
            )
          }
          if (request.immediatelyExecute === true) {
            return yield* Effect.fail(
              InvalidInput.one(
                "immediatelyExecute",
                { const: false },
                "A quote funded by payment instructions executes when the deposit arrives; omit immediatelyExecute"
              )
            )
          }
        }
        const customer: Customer | undefined =
          customerId === undefined ? undefined : yield* usableCustomer(customerId, config)

        // ---- destination ----
        const destination = request.destination
        let receivingCode: string
        let rail: PaymentRail
        let umaLimits: { readonly min: number; readonly max: number } | undefined
        if (destination.destinationType === "ACCOUNT") {
          if (destination.accountId.startsWith("InternalAccount:")) {
            const target = yield* internalAccount(destination.accountId)
            if (target.id === sourceAccount?.id) return yield* Effect.fail(selfPayment(target.id))
            if (destination.paymentRail !== undefined && destination.paymentRail !== "INTERNAL") {
              return yield* Effect.fail(
                InvalidInput.one(
                  "destination.paymentRail",
                  { enum: ["INTERNAL"] },
                  "A transfer between internal accounts uses the INTERNAL rail"
                )
              )
            }
            receivingCode = target.currency
            rail = "INTERNAL"
          } else {
            const target: ExternalAccount | undefined = yield* store.externalAccounts.get(destination.accountId)
            if (target === undefined || target.status === "INACTIVE") {
              return yield* Effect.fail(accountNotFound(destination.accountId))
            }
            if (target.status !== "ACTIVE" && target.status !== "PENDING_OWNERSHIP_VERIFICATION") {
              return yield* Effect.fail(externalAccountNotUsable(target.id, target.status))
            }
            const rails = target.paymentRails.length > 0 ? target.paymentRails : [defaultRail(target.currency)]
            const wanted = destination.paymentRail ?? rails[0]!
            if (!rails.includes(wanted)) {
              return yield* Effect.fail(
                InvalidInput.one(
                  "destination.paymentRail",
                  { enum: rails },
                  `External account ${target.id} can be paid on ${rails.join(", ")}`
                )
              )
            }
            receivingCode = target.currency
            rail = wanted
          }
        } else {
          const receiver = yield* directory.umaReceiver(destination.umaAddress)
          if (receiver === undefined || receiver.currencies.length === 0) {
            return yield* Effect.fail(umaNotFound(destination.umaAddress))
          }
          const code = destination.currency ?? receiver.currencies[0]!
          if (!receiver.currencies.includes(code)) {
            return yield* Effect.fail(
              InvalidInput.one(
                "destination.currency",
                { enum: receiver.currencies },
                `${destination.umaAddress} receives ${receiver.currencies.join(", ")}`
              )
            )
          }
          receivingCode = code
          rail = UMA_RAIL
          umaLimits = { min: receiver.minAmount, max: receiver.maxAmount }
        }
        if (options.sameCurrencyOnly === true && receivingCode !== sendingCode) {
          return yield* Effect.fail(
            InvalidInput.one(
              "destination.accountId",
              { currency: sendingCode },
              `transfer-out is same-currency (${sendingCode} → ${receivingCode}); use POST /quotes for a conversion`
            )
          )
        }

        // ---- price ----
        const platform = yield* Effect.fromResult(
          platformFeeFor(sendingCode, receivingCode, config, request.platformFeeOverride)
        )
        const { rate, multiplier } = yield* rateAt(sendingCode, receivingCode, env)
        const fees = feeScheduleFor(sendingCode, receivingCode, settings.serviceFeeBps, platform)
        const pricing = yield* Effect.fromResult(
          priceQuote({
            sendingCurrency: sendingCode,
            receivingCurrency: receivingCode,
            lockedCurrencySide: request.lockedCurrencySide,
            lockedCurrencyAmount: request.lockedCurrencyAmount,
            marketRate: rate,
            fees
          })
        )
        if (
          umaLimits !== undefined &&
          (pricing.totalReceivingAmount < umaLimits.min || pricing.totalReceivingAmount > umaLimits.max)
        ) {
          return yield* Effect.fail(
            amountOutOfRange(pricing.totalReceivingAmount, receivingCode, umaLimits.min, umaLimits.max)
          )
        }

        // ---- records ----
        const id = yield* ids.make("Quote")
        const transactionId = yield* ids.make("Transaction")
        const now = isoOf(env.nowMs)
        const reference = paymentReference(transactionId)
        let paymentInstructions: ReadonlyArray<PaymentInstructions> = []
        if (source.sourceType === "REALTIME_FUNDING") {
          const instructions = fundingInstructions(sendingCode, reference, source.cryptoNetwork)
          if (instructions === undefined) {
            return yield* Effect.fail(
              InvalidInput.one(
                "source.cryptoNetwork",
                { enum: Object.keys(WALLET_BY_NETWORK) },
                `${sendingCode} can be deposited on ${Object.keys(WALLET_BY_NETWORK).join(", ")}`
              )
            )
          }
          paymentInstructions = instructions
        }
        const quoteDestination: Quote["destination"] =
          destination.destinationType === "ACCOUNT"
            ? { ...destination, paymentRail: rail }
            : { ...destination, currency: receivingCode as typeof destination.currency & string, paymentRail: rail }
        const totalVariableBps = fees.serviceBps + fees.platformBps
        // Optional fields are assigned when present rather than spread in: a spread of a literal takes V8's slow
        // copy path, and this runs once per quote.
        const quote: Mutable<Quote> = {
          id,
          status: "PENDING",
          createdAt: now,
          expiresAt: isoAfter(env.nowMs, settings.quoteLifetimeSeconds),
          source,
          destination: quoteDestination,
          sendingCurrency: currency(sendingCode),
          receivingCurrency: currency(receivingCode),
          totalSendingAmount: pricing.totalSendingAmount,
          totalReceivingAmount: pricing.totalReceivingAmount,
          exchangeRate: pricing.exchangeRate,
          feesIncluded: pricing.feesIncluded,
          platformFeesIncluded: pricing.platformFeesIncluded,
          transactionId,
          paymentInstructions,
          rateDetails: {
            counterpartyMultiplier: multiplier,
            counterpartyFixedFee: 0,
            serviceApiMultiplier: (10_000 - totalVariableBps) / 10_000,
            serviceApiFixedFee: fees.platformFixed,
            serviceApiVariableFeeRate: totalVariableBps / 10_000,
            serviceApiVariableFeeAmount: pricing.serviceVariableFee + pricing.platformVariableFee
          }
        }
        if (customer !== undefined) quote.customerId = customer.id
        if (request.description !== undefined) quote.description = request.description
        if (request.remittanceInformation !== undefined) quote.remittanceInformation = request.remittanceInformation
        if (request.purposeOfPayment !== undefined) quote.purposeOfPayment = request.purposeOfPayment
        const quoteRecord: QuoteRecord = {
          id,
          quote,
          pricing: {
            netSendingAmount: pricing.netSendingAmount,
            serviceFee: pricing.serviceFee,
            platformFee: pricing.platformFee,
            minorRate: pricing.minorRate
          }
        }
        const transaction: Mutable<Transaction> = {
          id: transactionId,
          status: "PENDING",
          type: "OUTGOING",
          direction: "DEBIT",
          source:
            source.sourceType === "ACCOUNT"
              ? { sourceType: "ACCOUNT", accountId: source.accountId, currency: sendingCode }
              : { sourceType: "REALTIME_FUNDING", currency: sendingCode },
          destination:
            destination.destinationType === "ACCOUNT"
              ? {
                  destinationType: "ACCOUNT",
                  accountId: destination.accountId,
                  currency: receivingCode,
                  paymentRail: rail
                }
              : {
                  destinationType: "UMA_ADDRESS",
                  umaAddress: destination.umaAddress,
                  currency: receivingCode,
                  paymentRail: rail
                },
          sentAmount: amountOf(pricing.totalSendingAmount, sendingCode),
          receivedAmount: amountOf(pricing.totalReceivingAmount, receivingCode),
          exchangeRate: pricing.exchangeRate,
          quoteId: id,
          fees: pricing.feesIncluded,
          platformFees: pricing.platformFeesIncluded,
          paymentRail: rail,
          railSelectionMode:
            destination.destinationType === "ACCOUNT" && destination.paymentRail !== undefined ? "MANUAL" : "AUTO",
          reconciliationInstructions: { reference },
          createdAt: now,
          updatedAt: now
        }
        if (customer !== undefined) {
          transaction.customerId = customer.id
          transaction.platformCustomerId = customer.platformCustomerId
        }
        if (request.description !== undefined) transaction.description = request.description
        if (request.remittanceInformation !== undefined)
          transaction.remittanceInformation = request.remittanceInformation
        const record: TransactionRecord = {
          id: transactionId,
          state: "PENDING",
          accountId: sourceAccount?.id,
          transaction
        }

        const executed = yield* store.transaction(
          createInStore(quoteRecord, record, config, request.immediatelyExecute === true, now)
        )
        if (executed === undefined) return quote
        return (yield* payments.submitReserved(executed, env.clock)).quote.quote
      })
      /** Creates a quote (a unique violation on fresh ids is a bug: a defect). */
      const createQuote = (request: CreateQuoteRequest, env: CommandEnv, options: CreateOptions = {}) =>
        createQuoteGen(request, env, options).pipe(Effect.catchTag("UniqueViolation", (e) => Effect.die(e)))

      const getQuote = (id: string): Effect.Effect<Quote, NotFound | StoreError> =>
        Effect.flatMap(store.quotes.get(id), (record) =>
          record === undefined ? Effect.fail(quoteNotFound(id)) : Effect.succeed(record.quote)
        )

      const executeQuote = (id: string, env: CommandEnv) =>
        Effect.map(payments.executeQuote(id, env.clock), (executed) => executed.quote.quote)

      /** The sender's currency for receiver lookups: the customer's first currency, else the platform's, else USD. */
      const senderCurrency = Effect.fnUntraced(function* (
        query: ReceiverLookupQuery | undefined,
        fallbackCustomer?: string
      ) {
        const customerId = query?.customerId ?? fallbackCustomer
        if (customerId !== undefined) {
          const customer = yield* store.customers.get(customerId)
          if (customer === undefined) {
            if (query?.customerId !== undefined) return yield* Effect.fail(customerNotFound(customerId))
          } else if (customer.currencies[0] !== undefined) return customer.currencies[0]
        }
        const config = yield* store.config.get()
        return config?.supportedCurrencies[0] ?? "USD"
      })

      const preference = Effect.fnUntraced(function* (from: string, to: string, min: number, max: number) {
        const { rate } = yield* rateFor(from, to)
        return {
          currency: currency(to),
          estimatedExchangeRate: BigDecimal.toNumberUnsafe(rate),
          min,
          max
        } satisfies CurrencyPreference
      })

      const exchangeRates = Effect.fnUntraced(function* (query: ExchangeRatesQuery) {
        const settings = yield* EngineConfig
        const config = yield* store.config.get()
        const source = query.sourceCurrency
        const amount = query.sendingAmount ?? 10_000
        const explicit = query.destinationCurrency !== undefined
        const wanted =
          query.destinationCurrency === undefined
            ? (config?.supportedCurrencies ?? currencyCodes).filter((c) => c !== source)
            : typeof query.destinationCurrency === "string"
              ? [query.destinationCurrency]
              : query.destinationCurrency
        const limit = config?.transactionLimits.find((l) => l.currency === source)
        const out: Array<ExchangeRate> = []
        for (const destination of [...new Set(wanted)]) {
          const found = yield* Effect.result(rateFor(source, destination))
          if (Result.isFailure(found)) {
            if (explicit) return yield* Effect.fail(found.failure)
            continue
          }
          const { rate, fetchedAtMs } = found.success
          const platform = Result.getOrElse(platformFeeFor(source, destination, config, undefined), () => ({
            bps: 0,
            fixed: 0
          }))
          const fees = feeScheduleFor(source, destination, settings.serviceFeeBps, platform)
          const base = { sendingCurrency: source, receivingCurrency: destination, marketRate: rate, fees }
          const priced =
            amount > 0
              ? priceQuote({ ...base, lockedCurrencySide: "SENDING", lockedCurrencyAmount: amount })
              : undefined
          const ok = priced !== undefined && Result.isSuccess(priced) ? priced.success : undefined
          const send = currency(source)
          const receive = currency(destination)
          const receivingAmount = ok?.totalReceivingAmount ?? 0
          // Effective rate: receiving major units per sending major unit, every fee included.
          const effective =
            receivingAmount > 0
              ? displayRatio(BigInt(receivingAmount) * pow10(send.decimals), BigInt(amount) * pow10(receive.decimals))
              : BigDecimal.toNumberUnsafe(rate)
          const feeTotal = ok?.feesIncluded ?? Number(feesOn(BigInt(amount), fees).total)
          out.push({
            sourceCurrency: send,
            destinationCurrency: receive,
            destinationPaymentRail: defaultRail(destination),
            sendingAmount: amount,
            minSendingAmount: minimumSendingAmount(base),
            maxSendingAmount: limit?.maxTransactionAmount ?? MAX_AMOUNT,
            receivingAmount,
            exchangeRate: effective,
            fees: { fixed: fees.platformFixed, total: feeTotal },
            updatedAt: new Date(fetchedAtMs).toISOString()
          })
        }
        return out
      })

      const lookupExternalAccount = Effect.fnUntraced(function* (accountId: string, query?: ReceiverLookupQuery) {
        const account = yield* store.externalAccounts.get(accountId)
        if (account === undefined || account.status === "INACTIVE")
          return yield* Effect.fail(accountNotFound(accountId))
        const from = yield* senderCurrency(query, account.customerId)
        const lookupId = yield* ids.make("Lookup")
        return {
          accountId: account.id,
          lookupId,
          supportedCurrencies: [yield* preference(from, account.currency, 1, MAX_AMOUNT)],
          requiredPayerDataFields: []
        } satisfies ExternalAccountLookup
      })

      const lookupUma = Effect.fnUntraced(function* (address: string, query?: ReceiverLookupQuery) {
        const receiver = yield* directory.umaReceiver(address)
        if (receiver === undefined) return yield* Effect.fail(umaNotFound(address))
        const from = yield* senderCurrency(query)
        const supportedCurrencies: Array<CurrencyPreference> = []
        for (const code of receiver.currencies) {
          const pref = yield* Effect.result(preference(from, code, receiver.minAmount, receiver.maxAmount))
          if (Result.isSuccess(pref)) supportedCurrencies.push(pref.success)
        }
        if (supportedCurrencies.length === 0 && receiver.currencies[0] !== undefined) {
          return yield* Effect.fail(quoteRequestFailed(from, receiver.currencies[0]))
        }
        const lookupId = yield* ids.make("Lookup")
        return {
          receiverUmaAddress: address,
          lookupId,
          supportedCurrencies,
          requiredPayerDataFields: []
        } satisfies UmaLookup
      })

      const transferOut = Effect.fnUntraced(function* (request: TransferOutRequest, env: CommandEnv) {
        const quote = yield* createQuote(
          {
            source: { sourceType: "ACCOUNT", accountId: request.source.accountId },
            destination: {
              destinationType: "ACCOUNT",
              accountId: request.destination.accountId,
              ...(request.destination.paymentRail === undefined ? {} : { paymentRail: request.destination.paymentRail })
            },
            lockedCurrencySide: "SENDING",
            lockedCurrencyAmount: request.amount,
            immediatelyExecute: true,
            ...(request.remittanceInformation === undefined
              ? {}
              : { remittanceInformation: request.remittanceInformation }),
            ...(request.purposeOfPayment === undefined ? {} : { purposeOfPayment: request.purposeOfPayment })
          },
          env,
          { sameCurrencyOnly: true }
        )
        return yield* payments.getTransaction(quote.transactionId)
      })

      return Quotes.of({
        create: (request) => command("Quotes.create", (env) => createQuote(request, env)),
        get: (id) => traced("Quotes.get", getQuote(id)),
        execute: (id) => command("Quotes.execute", (env) => executeQuote(id, env)),
        exchangeRates: (query) => traced("Quotes.exchangeRates", exchangeRates(query)),
        lookupExternalAccount: (accountId, query) =>
          traced("Quotes.lookupExternalAccount", lookupExternalAccount(accountId, query)),
        lookupUma: (address, query) => traced("Quotes.lookupUma", lookupUma(address, query)),
        transferOut: (request) => command("Quotes.transferOut", (env) => transferOut(request, env))
      })
    })
  )
}
