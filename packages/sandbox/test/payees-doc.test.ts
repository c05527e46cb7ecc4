/**
 * docs/payees.md shows the payee types and the deposit accounts as the code has them (AC-05, AC-19): its two tables
 * are made here from the payee types (`PAYEE_TYPES`), the sandbox's rail timing (`SETTLEMENT_SECONDS`) and primary
 * identifiers (`IDENTIFIER_FIELDS`), and the deposit accounts the core gives each currency. A table that differs
 * fails with the one to paste.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import {
  ACCOUNT_TYPE_NAMES,
  PAYEE_TYPE_ALIASES,
  PAYEE_TYPES,
  type PayeeType,
  type PayeeTypeName,
  type PaymentRail
} from "@paycore/core"
import { type Schema, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { depositTypeOf, fundingInstructionsFor } from "../../core/src/accounts/internal-accounts.ts"
import { currencyCodes, currencyKind } from "../../core/src/shared/currency.ts"
import { IDENTIFIER_FIELDS, SANDBOX_RATES_PER_USD, SETTLEMENT_SECONDS } from "../src/index.ts"

const doc = readFileSync(join(import.meta.dirname, "../../../docs/payees.md"), "utf8")
const readme = readFileSync(join(import.meta.dirname, "../README.md"), "utf8")

/** The text between `<!-- name:begin -->` and `<!-- name:end -->`. */
const section = (name: string): string => {
  const match = new RegExp(`<!-- ${name}:begin -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(doc)
  return match?.[1] ?? ""
}

const code = (text: string) => `\`${text}\``
const isOptional = (field: Schema.Constraint): boolean => field.ast.context?.isOptional === true

const duration = (seconds: number): string =>
  seconds >= 86_400
    ? `${seconds / 86_400} d`
    : seconds >= 3_600
      ? `${seconds / 3_600} h`
      : seconds >= 60
        ? `${seconds / 60} min`
        : `${seconds} s`

/** What an individual beneficiary of the type must give beyond its name (the first member of its union). */
const beneficiaryNeeds = (field: Schema.Constraint): ReadonlyArray<string> => {
  const individual = SchemaAST.isUnion(field.ast) ? field.ast.types[0] : undefined
  if (individual === undefined || !SchemaAST.isObjects(individual)) return []
  return individual.propertySignatures
    .filter((p) => p.type.context?.isOptional !== true && p.name !== "beneficiaryType" && p.name !== "fullName")
    .map((p) => String(p.name))
}

const fieldName = (name: string, field: Schema.Constraint): string => {
  if (name !== "beneficiary") return code(name)
  const needs = beneficiaryNeeds(field)
  return needs.length === 0 ? code(name) : `${code(name)} (an individual with ${needs.map(code).join(", ")})`
}

/** The required fields, and the routes of a type paid more than one way (with their rails when they differ). */
const fieldsCell = (type: PayeeType): string => {
  const inRoutes = new Set(type.routes?.flatMap((route) => route.fields) ?? [])
  const required = Object.entries(type.fields)
    .filter(([name, field]) => !isOptional(field) && !inRoutes.has(name))
    .map(([name, field]) => fieldName(name, field))
    .join(", ")
  if (type.routes === undefined) return required
  const sameRails = type.routes.every((route) => route.rails.join() === type.routes![0]!.rails.join())
  const routes = type.routes
    .map((route) => `${route.fields.map(code).join(" + ")}${sameRails ? "" : ` (${route.rails.join(", ")})`}`)
    .join(" or ")
  return required === "" ? routes : `${required}; and ${routes}`
}

const optionalCell = (type: PayeeType): string => {
  const inRoutes = new Set(type.routes?.flatMap((route) => route.fields) ?? [])
  return Object.entries(type.fields)
    .filter(([name, field]) => isOptional(field) && !inRoutes.has(name))
    .map(([name]) => code(name))
    .join(", ")
}

const railsCell = (rails: ReadonlyArray<PaymentRail>) =>
  rails.map((rail) => `${rail} (${duration(SETTLEMENT_SECONDS[rail])})`).join(", ")

const identifierCell = (type: PayeeType): string => {
  const fields = IDENTIFIER_FIELDS.filter((field) => Object.hasOwn(type.fields, field))
  const preferred = (rail: PaymentRail, field: string) =>
    type.rails.includes(rail) && fields.includes(field as never) && fields[0] !== field
      ? `; on ${rail} ${code(field)} first`
      : ""
  return fields.length === 0
    ? "—"
    : `${fields.map(code).join(", else ")}${preferred("MOBILE_MONEY", "phoneNumber")}${preferred("UPI", "vpa")}`
}

const aliasesOf = (name: PayeeTypeName) =>
  ACCOUNT_TYPE_NAMES.filter((alias) => alias !== name && (PAYEE_TYPE_ALIASES as Record<string, string>)[alias] === name)

const payeeTypesTable = (): string => {
  const rows = (Object.keys(PAYEE_TYPES) as Array<PayeeTypeName>).map((name) => {
    const type = PAYEE_TYPES[name] as unknown as PayeeType
    const aliases = aliasesOf(name)
    const nameCell = aliases.length === 0 ? code(name) : `${code(name)} (also ${aliases.map(code).join(", ")})`
    const currencies = type.currencies === "FIAT" ? "any fiat" : type.currencies.join(", ")
    return `| ${nameCell} | ${currencies} | ${fieldsCell(type)} | ${optionalCell(type) || "—"} | ${railsCell(type.rails)} | ${identifierCell(type)} |`
  })
  return [
    "| `accountType` | currency | required | optional | rails, the core's default first (sandbox settlement) | sandbox identifier |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    ""
  ].join("\n")
}

const depositTable = (): string => {
  const fiat = currencyCodes.filter((c) => currencyKind(c) === "FIAT")
  const rows = fiat.map((currency) => {
    const [instruction] = fundingInstructionsFor("InternalAccount:doc", currency, "Ada Lovelace")
    const info = instruction!.accountOrWalletInfo as unknown as Record<string, unknown>
    const common = new Set(["accountType", "reference", "accountHolderName", "bankName", "paymentRails"])
    const fields = Object.keys(info).filter((key) => !common.has(key))
    const rails = (info.paymentRails as ReadonlyArray<string>).join(", ")
    return `| ${currency} | ${code(String(info.accountType))} | ${fields.map(code).join(", ")} | ${rails} |`
  })
  return [
    "| currency | `accountType` | its fields (besides `reference`, `accountHolderName`, `bankName`, `paymentRails`) | `paymentRails` |",
    "| --- | --- | --- | --- |",
    ...rows,
    ""
  ].join("\n")
}

describe("docs/payees.md", () => {
  it("AC-19 the payee types table is the table of PAYEE_TYPES", () => {
    const expected = payeeTypesTable()
    expect(section("payee-types"), `paste between the payee-types markers:\n${expected}`).toBe(expected)
  })

  it("AC-05 the deposit accounts table is what every fiat currency's internal account answers", () => {
    const expected = depositTable()
    expect(section("deposit-accounts"), `paste between the deposit-accounts markers:\n${expected}`).toBe(expected)
    expect(depositTypeOf("JPY")).toBe("SWIFT_ACCOUNT")
  })
})

describe("the sandbox's FX (README.md, FX)", () => {
  it("has a rate for every currency the service knows, so every corridor converts", () => {
    expect(currencyCodes.filter((code) => SANDBOX_RATES_PER_USD[code] === undefined)).toEqual([])
  })

  it("the README's table is SANDBOX_RATES_PER_USD", () => {
    const table = /## FX\n[\s\S]*?\n\n((?:\|.*\n)+)/.exec(readme)?.[1] ?? ""
    const listed = Object.fromEntries(
      [...table.matchAll(/\| ([A-Z]{3,4}) \| ([0-9.]+)/g)].map(([, code, rate]) => [code, rate])
    )
    expect(listed).toEqual(SANDBOX_RATES_PER_USD)
  })
})
