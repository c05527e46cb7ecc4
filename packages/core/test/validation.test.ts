import { DateTime, Exit, Result, Schema, SchemaParser } from "effect"
import { describe, expect, it } from "vitest"
import { InvalidInput } from "../src/shared/errors.ts"
import {
  collectTextErrors,
  decodeAll,
  fieldErrorsFromIssue,
  issueFromCause,
  MAX_TEXT_ERRORS,
  textFault
} from "../src/shared/validation.ts"

const Address = Schema.Struct({
  line1: Schema.String.check(Schema.isMinLength(1)),
  postalCode: Schema.String.check(Schema.isPattern(/^\d{5}$/)),
  country: Schema.Literals(["US", "MX"])
})

const Payload = Schema.Struct({
  name: Schema.String.check(Schema.isMaxLength(8)),
  age: Schema.Int.check(Schema.isGreaterThanOrEqualTo(18)),
  score: Schema.Number,
  address: Address,
  items: Schema.Array(Schema.Struct({ name: Schema.String, quantity: Schema.Int })),
  birthDate: Schema.optionalKey(Schema.DateTimeUtc),
  customerId: Schema.optionalKey(Schema.TemplateLiteral(["cus_", Schema.String])),
  nickname: Schema.optionalKey(Schema.NullOr(Schema.String)),
  code: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(2, { message: "codes are two letters" })))
})

const decode = decodeAll(Schema.toCodecJson(Payload))

const errorsOf = (input: unknown) => {
  const result = decode(input)
  if (Result.isSuccess(result)) throw new Error("expected a failure")
  return result.failure
}

const valid = {
  name: "Ada",
  age: 36,
  score: 1.5,
  address: { line1: "1 Main St", postalCode: "12345", country: "US" },
  items: [{ name: "pen", quantity: 2 }]
}

describe("decodeAll", () => {
  it("decodes valid input", () => {
    const result = decode({ ...valid, birthDate: "2024-01-02T03:04:05Z" })
    expect(Result.isSuccess(result)).toBe(true)
    if (Result.isSuccess(result)) {
      expect(result.success.name).toBe("Ada")
      expect(result.success.birthDate && DateTime.toEpochMillis(result.success.birthDate)).toBe(
        Date.UTC(2024, 0, 2, 3, 4, 5)
      )
    }
  })

  // C-11, C-31 (issue 31): a field the Schema does not declare is refused, at any depth, naming the nearest field.
  it("refuses unknown fields at any depth, suggesting the nearest known name", () => {
    const failure = errorsOf({
      ...valid,
      Name: "Ada",
      nam: "Ada",
      fulName: 1,
      address: { ...valid.address, lin1: "x", zip: "12345" },
      items: [{ name: "pen", quantity: 2, qty: 2 }]
    })
    expect(failure.errors).toEqual([
      {
        field: "Name",
        constraint: { unexpected: true, suggestion: "name" },
        message: "Unknown field; did you mean `name`?"
      },
      {
        field: "nam",
        constraint: { unexpected: true, suggestion: "name" },
        message: "Unknown field; did you mean `name`?"
      },
      { field: "fulName", constraint: { unexpected: true }, message: "Unknown field" },
      {
        field: "address.lin1",
        constraint: { unexpected: true, suggestion: "line1" },
        message: "Unknown field; did you mean `line1`?"
      },
      { field: "address.zip", constraint: { unexpected: true }, message: "Unknown field" },
      { field: "items.0.qty", constraint: { unexpected: true }, message: "Unknown field" }
    ])
    expect(failure.message).toBe("Invalid input: Name, nam, fulName, address.lin1, address.zip, items.0.qty")
  })

  it("suggests a field that contains the unknown name (`name` for `fullName`)", () => {
    const Person = Schema.Struct({
      fullName: Schema.optionalKey(Schema.String),
      email: Schema.optionalKey(Schema.String)
    })
    const failure = decodeAll(Person)({ name: "Ada", emial: "ada@example.com" })
    expect(Result.isFailure(failure) && failure.failure.errors.map((e) => [e.field, e.message])).toEqual([
      ["name", "Unknown field; did you mean `fullName`?"],
      ["emial", "Unknown field; did you mean `email`?"]
    ])
  })

  it("looks for the nearest name of the first 100 unknown fields only; every one is still named", () => {
    const items = Array.from({ length: 150 }, () => ({ name: "pen", quantity: 1, Name: "pen" }))
    const failure = errorsOf({ ...valid, items })
    expect(failure.errors).toHaveLength(150)
    expect(failure.errors.filter((e) => e.constraint.suggestion !== undefined)).toHaveLength(100)
  })

  it("judges a tagged union's body by the member its tag selects: its fields are known, its names suggested", () => {
    const Credential = Schema.Union([
      Schema.Struct({ type: Schema.Literal("PASSKEY"), nickname: Schema.String }),
      Schema.Struct({ type: Schema.Literal("OAUTH"), oidcToken: Schema.String }),
      Schema.Struct({ type: Schema.Literals(["EMAIL_OTP", "SMS_OTP"]) })
    ])
    const decodeCredential = decodeAll(Credential)
    expect(Result.isSuccess(decodeCredential({ type: "OAUTH", oidcToken: "t" }))).toBe(true)
    const failure = decodeCredential({ type: "OAUTH", oidcToken: "t", nickname: "n", oidc_token: "t" })
    expect(Result.isFailure(failure) && failure.failure.errors).toEqual([
      { field: "nickname", constraint: { unexpected: true }, message: "Unknown field" },
      {
        field: "oidc_token",
        constraint: { unexpected: true, suggestion: "oidcToken" },
        message: "Unknown field; did you mean `oidcToken`?"
      }
    ])
  })

  it("tells a value of an enum in the wrong case the right one, a union's tag too", () => {
    const Body = Schema.Union([
      Schema.Struct({ customerType: Schema.Literal("INDIVIDUAL"), status: Schema.Literals(["ACTIVE", "CLOSED"]) }),
      Schema.Struct({ customerType: Schema.Literal("BUSINESS") })
    ])
    const decodeBody = decodeAll(Body)
    const errors = (input: unknown) => {
      const result = decodeBody(input)
      return Result.isFailure(result) ? result.failure.errors : []
    }
    expect(errors({ customerType: "individual" })).toEqual([
      {
        field: "customerType",
        constraint: { enum: ["INDIVIDUAL", "BUSINESS"], suggestion: "INDIVIDUAL" },
        message: 'Expected one of "INDIVIDUAL", "BUSINESS"; did you mean `INDIVIDUAL`?'
      }
    ])
    expect(errors({ customerType: "INDIVIDUAL", status: "active" })).toEqual([
      {
        field: "status",
        constraint: { enum: ["ACTIVE", "CLOSED"], suggestion: "ACTIVE" },
        message: 'Expected "ACTIVE" | "CLOSED", got "active"; did you mean `ACTIVE`?'
      }
    ])
    // A value that is no enum member in any case gets no suggestion.
    expect(errors({ customerType: "INDIVIDUAL", status: "open" })[0]?.constraint).toEqual({
      enum: ["ACTIVE", "CLOSED"]
    })
  })

  it("reports every invalid field at once, with dot paths and constraints", () => {
    const failure = errorsOf({
      name: "much too long",
      age: 17,
      score: "high",
      address: { postalCode: "1234", country: "FR" },
      items: [{ name: 1, quantity: 1.5 }, {}]
    })
    expect(failure).toBeInstanceOf(InvalidInput)
    expect(failure.errors).toEqual([
      { field: "name", constraint: { maxLength: 8 }, message: "Expected a value with a length of at most 8" },
      { field: "age", constraint: { minimum: 18 }, message: "Expected a value greater than or equal to 18" },
      { field: "score", constraint: { type: "number" }, message: "Expected number" },
      { field: "address.line1", constraint: { required: true }, message: "Missing key" },
      {
        field: "address.postalCode",
        constraint: { pattern: "^\\d{5}$" },
        message: "Expected a string matching the RegExp ^\\d{5}$"
      },
      { field: "address.country", constraint: { enum: ["US", "MX"] }, message: 'Expected "US" | "MX", got "FR"' },
      { field: "items.0.name", constraint: { type: "string" }, message: "Expected string, got 1" },
      { field: "items.0.quantity", constraint: { check: "isInt" }, message: "Expected an integer" },
      { field: "items.1.name", constraint: { required: true }, message: "Missing key" },
      { field: "items.1.quantity", constraint: { required: true }, message: "Missing key" }
    ])
    expect(failure.message).toBe(
      "Invalid input: name, age, score, address.line1, address.postalCode, address.country, items.0.name, " +
        "items.0.quantity, items.1.name, items.1.quantity"
    )
  })

  it("describes failed transformations, unions and custom messages", () => {
    const failure = errorsOf({ ...valid, birthDate: "yesterday", customerId: "x", nickname: 3, code: "abc" })
    expect(failure.errors).toEqual([
      {
        field: "birthDate",
        constraint: { format: "DateTime.Utc" },
        message: 'Expected a valid UTC DateTime string, got "yesterday"'
      },
      {
        field: "customerId",
        constraint: { pattern: `cus_\${string}` },
        message: `Expected a string matching cus_\${string}`
      },
      { field: "nickname", constraint: { type: ["string", "null"] }, message: "Expected string | null, got 3" },
      { field: "code", constraint: { maxLength: 2 }, message: "codes are two letters" }
    ])
  })

  it("gives allowed values as a list of strings (`enum`), a non-string one as `const` and several as `anyOf`", () => {
    const Flags = Schema.Struct({
      mode: Schema.Literals(["A", "B"]),
      dryRun: Schema.Literal(false),
      level: Schema.Literals([1, 2])
    })
    const failure = decodeAll(Schema.toCodecJson(Flags))({ mode: "C", dryRun: true, level: 3 })
    // The upstream's FieldConstraint.enum is a list of strings: a client reads it as such.
    expect(Result.isFailure(failure) && failure.failure.errors.map((e) => [e.field, e.constraint])).toEqual([
      ["mode", { enum: ["A", "B"] }],
      ["dryRun", { const: false }],
      ["level", { anyOf: [{ const: 1 }, { const: 2 }] }]
    ])
  })

  it("names a failure of the whole value after the base path", () => {
    const failure = decodeAll(Schema.toCodecJson(Payload), ["body"])("nope")
    expect(Result.isFailure(failure) && failure.failure.errors).toEqual([
      { field: "body", constraint: { type: "object" }, message: 'Expected object, got "nope"' }
    ])
  })
})

describe("fieldErrorsFromIssue", () => {
  it("prefixes fields with the base path and keeps a refinement's own nested path", () => {
    const Range = Schema.Struct({ from: Schema.Int, to: Schema.Int }).check(
      Schema.makeFilter((range) => range.from <= range.to || { path: ["to"], issue: "must not be before from" })
    )
    const exit = SchemaParser.decodeUnknownExit(Range, { errors: "all" })({ from: 3, to: 1 })
    if (!Exit.isFailure(exit)) throw new Error("expected a failure")
    expect(fieldErrorsFromIssue(issueFromCause(exit.cause), ["query"])).toEqual([
      { field: "query.to", constraint: { check: "filter" }, message: "must not be before from" }
    ])
  })
})

describe("the text rule (issue 12, E-01): NUL and unpaired surrogates are refused, all else is text", () => {
  it("tells NUL and unpaired surrogates from well-formed text", () => {
    expect(textFault("a\u0000b")).toBe("NUL")
    expect(textFault("\ud800")).toBe("UNPAIRED_SURROGATE")
    expect(textFault("x\udfff")).toBe("UNPAIRED_SURROGATE")
    expect(textFault("\udc00\ud800")).toBe("UNPAIRED_SURROGATE")
    for (const ok of ["", "plain", "😀", "\ud83d\ude00", "é\u0301", "\u0001\u001f\u007f", "\uffff", "עברית"]) {
      expect(textFault(ok)).toBeUndefined()
    }
  })

  it("names every bad string of a value by its path, object keys included, in document order", () => {
    const errors: Array<{ field: string; constraint: unknown }> = []
    collectTextErrors(
      { a: "ok", b: ["x", "\u0000"], c: { "k\ud800": 1, d: "\ud800" }, n: 1, z: null },
      ["body"],
      errors as never
    )
    expect(errors.map((e) => [e.field, e.constraint])).toEqual([
      ["body.b.1", { text: "NUL" }],
      ["body.c.k\ud800", { text: "UNPAIRED_SURROGATE" }],
      ["body.c.d", { text: "UNPAIRED_SURROGATE" }]
    ])
  })

  it("reports at most MAX_TEXT_ERRORS however many strings are bad", () => {
    const errors: Array<{ field: string }> = []
    collectTextErrors(Array(10_000).fill("\u0000"), [], errors as never)
    expect(errors).toHaveLength(MAX_TEXT_ERRORS)
    expect(errors[0]!.field).toBe("0")
  })

  it("walks a value nested far deeper than the call stack allows", () => {
    let deep: unknown = "\u0000"
    for (let i = 0; i < 200_000; i++) deep = [deep]
    const errors: Array<{ field: string }> = []
    collectTextErrors(deep, [], errors as never)
    expect(errors).toHaveLength(1)
    expect(errors[0]!.field.split(".")).toHaveLength(200_000)
  })
})
