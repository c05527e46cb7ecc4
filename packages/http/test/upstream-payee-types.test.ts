/**
 * The payee types (`PAYEE_TYPES`, AC-19) against the upstream's own definitions of its 46 `accountInfo` variants
 * (`test/upstream/openapi.yaml`, `ExternalAccountCreateInfoOneOf`): the same names, field names, required fields,
 * enums and per-corridor individual beneficiaries, but for the few differences listed here with their reason.
 * (The responses are checked against the upstream by every HTTP test; this checks what a client may send.)
 */
import { readFileSync } from "node:fs"
import { PAYEE_TYPES, type PayeeTypeName } from "@paycore/core"
import { type Schema, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { UPSTREAM_OPENAPI } from "./conformance.ts"

type Json = Record<string, any>

const upstream = parse(readFileSync(UPSTREAM_OPENAPI, "utf8")) as Json
const schemas: Json = upstream.components.schemas

/** A schema with its `$ref`s followed and its `allOf` merged (properties, required, and the `oneOf` of a member). */
const resolve = (node: Json): Json => {
  if (node.$ref !== undefined) return resolve(schemas[(node.$ref as string).split("/").pop()!])
  if (node.allOf === undefined) return node
  const parts = (node.allOf as Array<Json>).map(resolve)
  return {
    properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
    required: [...new Set(parts.flatMap((p) => p.required ?? []))],
    oneOf: parts.find((p) => p.oneOf !== undefined)?.oneOf
  }
}

const variants: ReadonlyArray<[string, Json]> = Object.entries<string>(
  schemas.ExternalAccountCreateInfoOneOf.discriminator.mapping
).map(([name, ref]) => [name, resolve({ $ref: ref })])

const isOptional = (field: Schema.Constraint) => field.ast.context?.isOptional === true
const literalsOf = (ast: SchemaAST.AST): Array<unknown> | undefined =>
  SchemaAST.isLiteral(ast)
    ? [ast.literal]
    : SchemaAST.isUnion(ast) && ast.types.every(SchemaAST.isLiteral)
      ? ast.types.map((t) => (t as SchemaAST.Literal).literal)
      : undefined
const sorted = (values: Iterable<unknown>) => [...values].map(String).sort()

/** Fields we take beyond the upstream's, each for a reason. */
const EXTRA_FIELDS: Readonly<Record<string, ReadonlyArray<string>>> = {
  // The spec's CLABE names its bank (AC-15: `bankName` is spec-only, optional); IBAN and PIX by the same rule.
  MXN_ACCOUNT: ["bankName"],
  EUR_ACCOUNT: ["bankName"],
  BRL_ACCOUNT: ["bankName"],
  // A Lightning payee may be declared like a wallet's (AC-06).
  LIGHTNING: ["beneficiary"]
}

/** A wallet's individual beneficiary is any individual, `countryOfResidence` optional, as before issue 30. */
const WALLETS_LOOSER: ReadonlySet<string> = new Set(
  ["BASE", "ETHEREUM", "POLYGON", "PLASMA", "SOLANA", "SPARK", "TRON"].map((network) => `${network}_WALLET`)
)

describe("the payee types are the upstream's accountInfo variants (AC-19)", () => {
  it("the same 46 names", () => {
    expect(sorted(Object.keys(PAYEE_TYPES))).toEqual(sorted(variants.map(([name]) => name)))
    expect(variants).toHaveLength(46)
  })

  it.each(variants)("%s: the same fields, required fields and enums", (name, variant) => {
    const fields = PAYEE_TYPES[name as PayeeTypeName].fields as Schema.Struct.Fields
    const theirs = Object.keys(variant.properties).filter((field) => field !== "accountType")
    expect(sorted(Object.keys(fields))).toEqual(sorted([...theirs, ...(EXTRA_FIELDS[name] ?? [])]))
    const required = (variant.required as Array<string>).filter((field) => field !== "accountType")
    expect(sorted(Object.keys(fields).filter((field) => !isOptional(fields[field]!)))).toEqual(sorted(required))
    for (const field of theirs) {
      const values = variant.properties[field].enum as Array<unknown> | undefined
      if (values !== undefined)
        expect(sorted(literalsOf(SchemaAST.toType(fields[field]!.ast)) ?? []), field).toEqual(sorted(values))
    }
  })

  it.each(variants.filter(([name]) => !WALLETS_LOOSER.has(name) && name !== "LIGHTNING"))(
    "%s: the individual beneficiary has the upstream's fields and requires what it requires",
    (name, variant) => {
      const individual = (resolve(variant.properties.beneficiary).oneOf as Array<Json>)
        .map(resolve)
        .find((member) => member.properties.beneficiaryType.enum[0] === "INDIVIDUAL")!
      const ours = SchemaAST.toType(
        (PAYEE_TYPES[name as PayeeTypeName].fields as Schema.Struct.Fields).beneficiary!.ast
      )
      const member = SchemaAST.isUnion(ours) ? ours.types[0] : undefined
      if (member === undefined || !SchemaAST.isObjects(member)) throw new Error(`${name}: no individual beneficiary`)
      expect(sorted(member.propertySignatures.map((p) => p.name))).toEqual(sorted(Object.keys(individual.properties)))
      expect(
        sorted(member.propertySignatures.filter((p) => p.type.context?.isOptional !== true).map((p) => p.name))
      ).toEqual(sorted(individual.required))
    }
  )
})
