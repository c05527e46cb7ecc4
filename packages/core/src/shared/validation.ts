import { Cause, Exit, Result, Schema, SchemaAST, SchemaIssue, SchemaParser } from "effect"
import { type FieldError, InvalidInput } from "./errors.ts"

type Constraint = Record<string, unknown>

const formatIssue = SchemaIssue.makeFormatterDefault()

// The link `Schema.toCodecJson` puts on a plain `Schema.Number` (it also accepts "NaN", "Infinity" strings):
// a failure below it is reported as "expected a number" instead of listing those literals.
const numberJsonLink = Schema.toCodecJson(Schema.Number).ast.encoding?.[0]

const expectedOf = (ast: SchemaAST.AST): string =>
  formatIssue(new SchemaIssue.InvalidType(ast)).replace(/^Expected /, "")

const literalsOf = (ast: SchemaAST.AST): Array<unknown> | undefined => {
  switch (ast._tag) {
    case "Literal":
      return [ast.literal]
    case "Enum":
      return ast.enums.map(([, value]) => value)
    case "Union": {
      const out: Array<unknown> = []
      for (const member of ast.types) {
        const literals = literalsOf(SchemaAST.toEncoded(member))
        if (literals === undefined) return undefined
        out.push(...literals)
      }
      return out
    }
    default:
      return undefined
  }
}

const typeNameOf = (ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "String":
    case "TemplateLiteral":
      return "string"
    case "Number":
      return "number"
    case "Boolean":
      return "boolean"
    case "Null":
      return "null"
    case "Objects":
      return "object"
    case "Arrays":
      return "array"
    case "Literal":
      return typeof ast.literal
    default:
      return expectedOf(ast)
  }
}

/** `{ enum: [...] }` for literal unions, otherwise `{ type }` (a list for mixed unions, e.g. `["string", "null"]`). */
const typeConstraint = (ast: SchemaAST.AST): Constraint => {
  const literals = literalsOf(ast)
  if (literals !== undefined) return { enum: literals }
  if (ast._tag !== "Union") return { type: typeNameOf(ast) }
  const types = [...new Set(ast.types.map((member) => typeNameOf(SchemaAST.toEncoded(member))))]
  return { type: types.length === 1 ? types[0] : types }
}

/** Failed refinement: its representation payload (`{ maxLength: 80 }`), or its name when the payload is empty. */
const filterConstraint = (filter: SchemaAST.Filter<unknown>): Constraint => {
  const representation = filter.annotations?.representation
  const payload = representation?.payload
  if (payload !== null && typeof payload === "object" && !Array.isArray(payload)) return payload as Constraint
  const name = representation?.id.split("/").pop() ?? filter.annotations?.identifier ?? "filter"
  return { check: name }
}

const filterMessage = (issue: SchemaIssue.Filter): string => {
  const own = issue.filter.annotations?.message
  if (typeof own === "string") return own
  if (issue.issue._tag === "InvalidValue" && typeof issue.issue.annotations?.message === "string") {
    return issue.issue.annotations.message
  }
  const expected = issue.filter.annotations?.expected
  return `Expected ${typeof expected === "string" ? expected : "a valid value"}`
}

const leafConstraint = (issue: SchemaIssue.Leaf | SchemaIssue.AnyOf): Constraint => {
  switch (issue._tag) {
    case "MissingKey":
      return { required: true }
    case "InvalidType":
    case "AnyOf":
      return typeConstraint(issue.ast)
    case "UnexpectedKey":
      return { unexpected: true }
    case "OneOf":
      return { oneOf: true }
    case "InvalidValue":
    case "Forbidden":
      return { valid: true }
  }
}

interface Override {
  readonly constraint: Constraint
  readonly message: string | undefined
}

const toField = (path: ReadonlyArray<PropertyKey>): string => path.map(String).join(".")

const walk = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey>,
  override: Override | undefined,
  out: Array<FieldError>
): void => {
  switch (issue._tag) {
    case "Pointer":
      return walk(issue.issue, [...path, ...issue.path], override, out)
    case "Composite":
      for (const child of issue.issues) walk(child, path, override, out)
      return
    case "Filter":
      return walk(
        issue.issue,
        path,
        override ?? { constraint: filterConstraint(issue.filter), message: filterMessage(issue) },
        out
      )
    case "Encoding": {
      if (override === undefined && numberJsonLink !== undefined && issue.ast.encoding?.includes(numberJsonLink)) {
        out.push({ field: toField(path), constraint: { type: "number" }, message: "Expected number" })
        return
      }
      // A failed transformation (e.g. an invalid date string) is described by the type it decodes to.
      return walk(issue.issue, path, override ?? { constraint: typeConstraint(issue.ast), message: undefined }, out)
    }
    case "AnyOf":
      if (issue.issues.length > 0) {
        for (const child of issue.issues) walk(child, path, override, out)
        return
      }
      break
  }
  out.push({
    field: toField(path),
    constraint: override?.constraint ?? leafConstraint(issue),
    message: override?.message ?? formatIssue(issue)
  })
}

/**
 * Flattens a Schema issue tree (decoded with `{ errors: "all" }`) into one `FieldError` per failure.
 * `basePath` prefixes every field (`["query"]` gives `query.limit`); a failure of the root value itself has the
 * base path as its field (`""` without one).
 */
export const fieldErrorsFromIssue = (
  issue: SchemaIssue.Issue,
  basePath: ReadonlyArray<PropertyKey> = []
): Array<FieldError> => {
  const out: Array<FieldError> = []
  walk(issue, basePath, undefined, out)
  return out
}

/** The `InvalidInput` error for a list of field errors, with a message naming the invalid fields. */
export const invalidInput = (errors: ReadonlyArray<FieldError>): InvalidInput =>
  new InvalidInput({
    message: `Invalid input: ${[...new Set(errors.map((error) => error.field || "body"))].join(", ")}`,
    errors
  })

/** Reads the schema issue out of a failed decode; anything else (a throwing transformation) is a defect. */
export const issueFromCause = (cause: Cause.Cause<SchemaIssue.Issue>): SchemaIssue.Issue => {
  const found = Cause.findError(cause)
  if (Result.isSuccess(found)) return found.success
  throw Cause.squash(cause)
}

/** Options every input decoder uses: report all failures, ignore unknown properties. */
export const decodeAllOptions: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "ignore" }

/**
 * Compiles `schema` once into a synchronous decoder that reports every invalid field at once as `InvalidInput`.
 * A defect while decoding (a transformation that throws) is rethrown.
 */
export const decodeAll = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  basePath: ReadonlyArray<PropertyKey> = []
): ((input: unknown) => Result.Result<S["Type"], InvalidInput>) => {
  const decode = SchemaParser.decodeUnknownExit(schema, decodeAllOptions)
  return (input) => {
    const exit = decode(input)
    if (Exit.isSuccess(exit)) return Result.succeed(exit.value)
    return Result.fail(invalidInput(fieldErrorsFromIssue(issueFromCause(exit.cause), basePath)))
  }
}
