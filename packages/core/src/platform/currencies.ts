/**
 * The platform's currencies (L-19): what each one allows, how a `PATCH /config` list of codes and
 * `PlatformCurrencyConfig` objects becomes the stored list, and the range an amount must fall in.
 */
import type { FieldError } from "../shared/errors.ts"
import { MAX_AMOUNT } from "../shared/money.ts"
import type { CurrencySetting, PlatformConfig, PlatformCurrencyConfig, TransactionType } from "./model.ts"

/** The currencies a new platform supports. */
export const DEFAULT_SUPPORTED_CURRENCIES: ReadonlyArray<string> = [
  "USD",
  "EUR",
  "MXN",
  "BRL",
  "GBP",
  "INR",
  "PHP",
  "NGN",
  "CAD",
  "USDC",
  "USDT",
  "BTC"
]

/** A currency enabled by its code alone: any amount a payment can carry, both ways, nothing asked of senders. */
export const defaultCurrencyConfig = (currencyCode: string): PlatformCurrencyConfig => ({
  currencyCode,
  minAmount: 1,
  maxAmount: MAX_AMOUNT,
  requiredCounterpartyFields: [],
  enabledTransactionTypes: ["OUTGOING", "INCOMING"]
})

/** The codes of the platform's currencies, in its order (the defaults before the config is first stored). */
export const supportedCodes = (config: PlatformConfig | undefined): ReadonlyArray<string> =>
  config === undefined ? DEFAULT_SUPPORTED_CURRENCIES : config.supportedCurrencies.map((c) => c.currencyCode)

/** The settings of one of the platform's currencies; `undefined` for a currency it does not list. */
export const currencyConfigOf = (
  config: PlatformConfig | undefined,
  code: string
): PlatformCurrencyConfig | undefined =>
  config === undefined
    ? DEFAULT_SUPPORTED_CURRENCIES.includes(code)
      ? defaultCurrencyConfig(code)
      : undefined
    : config.supportedCurrencies.find((c) => c.currencyCode === code)

/**
 * The range a payment's amount in `code` must fall in (smallest unit): a currency the platform does not list has no
 * range of its own (the payee's currency of a payout, say).
 */
export const amountRange = (
  config: PlatformConfig | undefined,
  code: string
): { readonly min: number; readonly max: number } | undefined => {
  const settings = currencyConfigOf(config, code)
  return settings === undefined ? undefined : { min: settings.minAmount, max: settings.maxAmount }
}

/** Whether payments of `type` may be made in `code` (a currency the platform does not list: no rule of its own). */
export const isEnabledFor = (config: PlatformConfig | undefined, code: string, type: TransactionType): boolean =>
  currencyConfigOf(config, code)?.enabledTransactionTypes.includes(type) ?? true

/** Every broken rule of a `supportedCurrencies` list, all at once, given what it resolves to (`resolved`, same order). */
export const currencySettingErrors = (
  settings: ReadonlyArray<CurrencySetting>,
  resolved: ReadonlyArray<PlatformCurrencyConfig>
): Array<FieldError> => {
  const errors: Array<FieldError> = []
  const seen = new Set<string>()
  settings.forEach((setting, i) => {
    const code = typeof setting === "string" ? setting : setting.currencyCode
    if (seen.has(code)) {
      errors.push({
        field: `supportedCurrencies.${i}`,
        constraint: { unique: "currencyCode" },
        message: `${code} is listed twice`
      })
    }
    seen.add(code)
    const { minAmount, maxAmount } = resolved[i] ?? defaultCurrencyConfig(code)
    if (minAmount > maxAmount) {
      errors.push({
        field: `supportedCurrencies.${i}.minAmount`,
        constraint: { maximum: maxAmount },
        message: `minAmount ${minAmount} is above maxAmount ${maxAmount}`
      })
    }
    if (typeof setting === "string") return
    const names = new Set<string>()
    setting.requiredCounterpartyFields?.forEach((field, j) => {
      if (names.has(field.name)) {
        errors.push({
          field: `supportedCurrencies.${i}.requiredCounterpartyFields.${j}.name`,
          constraint: { unique: true },
          message: `${field.name} is listed twice`
        })
      }
      names.add(field.name)
    })
  })
  return errors
}

/**
 * The stored list for a checked `supportedCurrencies`: a plain code keeps the currency's current settings (or takes
 * the defaults); an object's fields left out keep the current value, else the default.
 */
export const resolveCurrencySettings = (
  current: ReadonlyArray<PlatformCurrencyConfig>,
  settings: ReadonlyArray<CurrencySetting>
): ReadonlyArray<PlatformCurrencyConfig> =>
  settings.map((setting) => {
    const code = typeof setting === "string" ? setting : setting.currencyCode
    const base = current.find((c) => c.currencyCode === code) ?? defaultCurrencyConfig(code)
    if (typeof setting === "string") return base
    return {
      currencyCode: code,
      minAmount: setting.minAmount ?? base.minAmount,
      maxAmount: setting.maxAmount ?? base.maxAmount,
      requiredCounterpartyFields: setting.requiredCounterpartyFields ?? base.requiredCounterpartyFields,
      enabledTransactionTypes: setting.enabledTransactionTypes ?? base.enabledTransactionTypes
    }
  })
