import { Schema } from "effect"

export const Currency = Schema.Struct({
  code: Schema.String,
  name: Schema.String,
  symbol: Schema.String,
  decimals: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})
export type Currency = typeof Currency.Type

export type CurrencyKind = "FIAT" | "CRYPTO"

interface CurrencyEntry extends Currency {
  readonly kind: CurrencyKind
}

const entries: ReadonlyArray<CurrencyEntry> = [
  { code: "USD", name: "United States Dollar", symbol: "$", decimals: 2, kind: "FIAT" },
  { code: "EUR", name: "Euro", symbol: "€", decimals: 2, kind: "FIAT" },
  { code: "GBP", name: "Pound Sterling", symbol: "£", decimals: 2, kind: "FIAT" },
  { code: "MXN", name: "Mexican Peso", symbol: "$", decimals: 2, kind: "FIAT" },
  { code: "BRL", name: "Brazilian Real", symbol: "R$", decimals: 2, kind: "FIAT" },
  { code: "INR", name: "Indian Rupee", symbol: "₹", decimals: 2, kind: "FIAT" },
  { code: "PHP", name: "Philippine Peso", symbol: "₱", decimals: 2, kind: "FIAT" },
  { code: "NGN", name: "Nigerian Naira", symbol: "₦", decimals: 2, kind: "FIAT" },
  { code: "CAD", name: "Canadian Dollar", symbol: "$", decimals: 2, kind: "FIAT" },
  { code: "COP", name: "Colombian Peso", symbol: "$", decimals: 2, kind: "FIAT" },
  { code: "KES", name: "Kenyan Shilling", symbol: "KSh", decimals: 2, kind: "FIAT" },
  { code: "JPY", name: "Japanese Yen", symbol: "¥", decimals: 0, kind: "FIAT" },
  // The corridors of every payee type (shared/payee-types.ts); decimals are ISO 4217's minor units.
  { code: "AED", name: "UAE Dirham", symbol: "د.إ", decimals: 2, kind: "FIAT" },
  { code: "BDT", name: "Bangladeshi Taka", symbol: "৳", decimals: 2, kind: "FIAT" },
  { code: "BWP", name: "Botswana Pula", symbol: "P", decimals: 2, kind: "FIAT" },
  { code: "CNY", name: "Chinese Yuan", symbol: "¥", decimals: 2, kind: "FIAT" },
  { code: "DKK", name: "Danish Krone", symbol: "kr", decimals: 2, kind: "FIAT" },
  { code: "EGP", name: "Egyptian Pound", symbol: "E£", decimals: 2, kind: "FIAT" },
  { code: "GHS", name: "Ghana Cedi", symbol: "₵", decimals: 2, kind: "FIAT" },
  { code: "GTQ", name: "Guatemalan Quetzal", symbol: "Q", decimals: 2, kind: "FIAT" },
  { code: "HKD", name: "Hong Kong Dollar", symbol: "HK$", decimals: 2, kind: "FIAT" },
  { code: "HTG", name: "Haitian Gourde", symbol: "G", decimals: 2, kind: "FIAT" },
  { code: "IDR", name: "Indonesian Rupiah", symbol: "Rp", decimals: 2, kind: "FIAT" },
  { code: "JMD", name: "Jamaican Dollar", symbol: "J$", decimals: 2, kind: "FIAT" },
  { code: "MWK", name: "Malawian Kwacha", symbol: "MK", decimals: 2, kind: "FIAT" },
  { code: "MYR", name: "Malaysian Ringgit", symbol: "RM", decimals: 2, kind: "FIAT" },
  { code: "PKR", name: "Pakistani Rupee", symbol: "₨", decimals: 2, kind: "FIAT" },
  { code: "RWF", name: "Rwandan Franc", symbol: "FRw", decimals: 0, kind: "FIAT" },
  { code: "SGD", name: "Singapore Dollar", symbol: "S$", decimals: 2, kind: "FIAT" },
  { code: "THB", name: "Thai Baht", symbol: "฿", decimals: 2, kind: "FIAT" },
  { code: "TZS", name: "Tanzanian Shilling", symbol: "TSh", decimals: 2, kind: "FIAT" },
  { code: "UGX", name: "Ugandan Shilling", symbol: "USh", decimals: 0, kind: "FIAT" },
  { code: "VND", name: "Vietnamese Dong", symbol: "₫", decimals: 0, kind: "FIAT" },
  { code: "XAF", name: "Central African CFA Franc", symbol: "FCFA", decimals: 0, kind: "FIAT" },
  { code: "XOF", name: "West African CFA Franc", symbol: "CFA", decimals: 0, kind: "FIAT" },
  { code: "ZAR", name: "South African Rand", symbol: "R", decimals: 2, kind: "FIAT" },
  { code: "ZMW", name: "Zambian Kwacha", symbol: "ZK", decimals: 2, kind: "FIAT" },
  { code: "USDC", name: "USD Coin", symbol: "USDC", decimals: 6, kind: "CRYPTO" },
  { code: "USDT", name: "Tether USD", symbol: "USDT", decimals: 6, kind: "CRYPTO" },
  // The embedded wallet's currency: a customer holding it holds it in an EMBEDDED_WALLET account.
  { code: "USDB", name: "USDB", symbol: "USDB", decimals: 6, kind: "CRYPTO" },
  { code: "BTC", name: "Bitcoin", symbol: "₿", decimals: 8, kind: "CRYPTO" }
]

const byCode: ReadonlyMap<string, CurrencyEntry> = new Map(entries.map((c) => [c.code, c]))

export const currencyCodes = entries.map((c) => c.code) as unknown as readonly [string, ...Array<string>]

/** A currency code this engine knows; unknown codes fail validation with the list of accepted ones. */
export const CurrencyCode = Schema.Literals(currencyCodes)
export type CurrencyCode = typeof CurrencyCode.Type

export const currencyKind = (code: string): CurrencyKind => byCode.get(code)?.kind ?? "FIAT"

/** The public `Currency` object for a known code (validated at the edge, so it exists). */
/** One shared, frozen `Currency` per code (every quote and amount refers to one; nothing mutates them). */
const currencies = new Map<string, Currency>()

export const currency = (code: string): Currency => {
  let found = currencies.get(code)
  if (found === undefined) {
    const entry = byCode.get(code)
    if (entry === undefined) throw new Error(`unknown currency ${code}`)
    found = Object.freeze({ code: entry.code, name: entry.name, symbol: entry.symbol, decimals: entry.decimals })
    currencies.set(code, found)
  }
  return found
}

export const isKnownCurrency = (code: string): boolean => byCode.has(code)
