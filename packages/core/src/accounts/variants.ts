/**
 * The payee types' rules over one account, pure, read from their descriptions (shared/payee-types.ts): the
 * currencies it can hold, the rails it is paid on, the 400s across its fields, and what makes two accounts the same.
 */
import { currencyCodes, currencyKind } from "../shared/currency.ts"
import type { FieldError } from "../shared/errors.ts"
import { describePayeeType, payeeTypeName } from "../shared/payee-types.ts"
import type { AccountInfo, AccountTypeName, PaymentRail } from "./model.ts"

/** Every fiat currency this service knows: what an account of a type holding `"FIAT"` (SWIFT) may hold. */
const FIAT_CURRENCIES = currencyCodes.filter((code) => currencyKind(code) === "FIAT")

/** An account's fields by name, whatever its type. */
const fieldsOf = (info: AccountInfo): Readonly<Record<string, unknown>> => info

/** The currencies an account of this `accountType` can hold. */
export const variantCurrencies = (accountType: AccountTypeName): ReadonlyArray<string> => {
  const { currencies } = describePayeeType(payeeTypeName(accountType))
  return currencies === "FIAT" ? FIAT_CURRENCIES : currencies
}

/** The rails of the routes the account gives (all of its type's when the type has one way only). */
const openRails = (info: AccountInfo): ReadonlyArray<PaymentRail> => {
  const { rails, routes } = describePayeeType(payeeTypeName(info.accountType))
  if (routes === undefined) return rails
  const fields = fieldsOf(info)
  const given = routes.filter((route) => route.fields.every((field) => fields[field] !== undefined))
  return rails.filter((rail) => given.some((route) => route.rails.includes(rail)))
}

/** The rails an external account is paid on, the default first: its routes' rails in its type's order, a `rail` it names first. */
export const railsOf = (info: AccountInfo): ReadonlyArray<PaymentRail> => {
  const rails = openRails(info)
  const named = fieldsOf(info).rail
  const first = rails.find((rail) => rail === named)
  return first === undefined ? rails : [first, ...rails.filter((rail) => rail !== first)]
}

/** The 400s across an account's fields: none of its type's routes given, and its type's own rules. */
export const crossFieldErrors = (info: AccountInfo): Array<FieldError> => {
  const type = describePayeeType(payeeTypeName(info.accountType))
  const errors: Array<FieldError> = []
  if (type.routes !== undefined && openRails(info).length === 0) {
    const routes = type.routes.map((route) => route.fields)
    errors.push({
      field: "accountInfo",
      constraint: { anyOf: routes.map((fields) => ({ required: fields })) },
      message: `A ${info.accountType} account needs ${routes.map((fields) => fields.join(" and ")).join(", or ")}`
    })
  }
  errors.push(...(type.check?.(fieldsOf(info)) ?? []))
  return errors
}

/** An identifying value as compared: IBANs in capitals without spaces; EVM addresses and Lightning in lower case. */
const comparable = (field: string, value: unknown): string => {
  if (typeof value !== "string") return ""
  if (field === "iban") return value.replace(/\s+/g, "").toUpperCase()
  if (field === "address") return value.startsWith("0x") ? value.toLowerCase() : value
  if (field === "lightningAddress" || field === "invoice" || field === "bolt12") return value.toLowerCase()
  return value
}

/** What makes two external accounts the same account: the payee type (aliases are one) and its identifying values. */
export const accountIdentity = (info: AccountInfo): string => {
  const name = payeeTypeName(info.accountType)
  const fields = fieldsOf(info)
  return [name, ...describePayeeType(name).identity.map((field) => comparable(field, fields[field]))].join(":")
}

/** The name an account gives its beneficiary (a person's `fullName`, a business's `legalName`), if it names one. */
export const beneficiaryName = (info: AccountInfo): string | undefined => {
  const beneficiary = fieldsOf(info).beneficiary as
    | { readonly fullName?: string; readonly legalName?: string }
    | undefined
  return beneficiary?.fullName ?? beneficiary?.legalName
}
