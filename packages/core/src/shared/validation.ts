import { Cause, Exit, Result, Schema, SchemaAST, SchemaIssue, SchemaParser } from "effect"
import { type FieldError, InvalidInput } from "./errors.ts"

type Constraint = Record<string, unknown>

// A failed refinement: `message` is its own message annotation, `fallback` is used when the leaf has none either.
interface FilterFailure {
  readonly constraint: Constraint
  readonly message: string | undefined
  readonly fallback: string
}

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

/**
 * The allowed values: `{ enum: [...] }` when they are strings (the upstream's `FieldConstraint.enum` is a list of
 * strings), otherwise `{ const: value }` for one value and `{ anyOf: [{ const }, ...] }` for several.
 */
export const valuesConstraint = (values: ReadonlyArray<unknown>): Constraint =>
  values.every((v) => typeof v === "string")
    ? { enum: values }
    : values.length === 1
      ? { const: values[0] }
      : { anyOf: values.map((v) => ({ const: v })) }

/** `{ enum: [...] }` for literal unions, otherwise `{ type }` (a list for mixed unions, e.g. `["string", "null"]`). */
const typeConstraint = (ast: SchemaAST.AST): Constraint => {
  const literals = literalsOf(ast)
  if (literals !== undefined) return valuesConstraint(literals)
  if (ast._tag !== "Union") return { type: typeNameOf(ast) }
  const types = [...new Set(ast.types.map((member) => typeNameOf(SchemaAST.toEncoded(member))))]
  return { type: types.length === 1 ? types[0] : types }
}

/** Failed refinement: its representation payload (`{ maxLength: 80 }`), or its name when the payload is empty. */
const filterConstraint = (filter: SchemaAST.Filter<unknown>): Constraint => {
  const representation = filter.annotations?.representation
  const payload = representation?.payload
  if (representation?.id === "effect/schema/isPattern" && payload !== null && typeof payload === "object") {
    return { pattern: (payload as { readonly source: string }).source }
  }
  if (payload !== null && typeof payload === "object" && !Array.isArray(payload)) return payload as Constraint
  return { check: representation?.id.split("/").pop() ?? filter.annotations?.identifier ?? "filter" }
}

const filterFailure = (filter: SchemaAST.Filter<unknown>): FilterFailure => {
  const message = filter.annotations?.message
  const expected = filter.annotations?.expected
  return {
    constraint: filterConstraint(filter),
    message: typeof message === "string" ? message : undefined,
    fallback: `Expected ${typeof expected === "string" ? expected : "a valid value"}`
  }
}

// `cus_${string}`: the template a template-literal string must match.
const templateOf = (ast: SchemaAST.TemplateLiteral): string =>
  ast.parts.map((part) => (part._tag === "Literal" ? String(part.literal) : `\${${typeNameOf(part)}}`)).join("")

/** What a failed transformation expected: a format for declarations (`DateTime.Utc`), a pattern for templates. */
const transformationConstraint = (ast: SchemaAST.AST): Constraint => {
  switch (ast._tag) {
    case "Declaration":
      return { format: expectedOf(ast) }
    case "TemplateLiteral":
      return { pattern: templateOf(ast) }
    default:
      return typeConstraint(ast)
  }
}

// An unknown key is reported by `unknownFieldError`.
type ValueIssue = Exclude<SchemaIssue.Leaf, SchemaIssue.UnexpectedKey> | SchemaIssue.AnyOf

const leafConstraint = (issue: ValueIssue, transformed: SchemaAST.AST | undefined) => {
  switch (issue._tag) {
    case "MissingKey":
      return { required: true }
    case "InvalidType":
    case "AnyOf":
      return typeConstraint(issue.ast)
    case "OneOf":
      return { oneOf: true }
    case "InvalidValue":
    case "Forbidden":
      return transformed === undefined ? { valid: true } : transformationConstraint(transformed)
  }
}

const leafMessage = (issue: ValueIssue, transformed: SchemaAST.AST | undefined): string => {
  // A union of object shapes would print every member; the caller only needs to know an object was expected.
  if (issue._tag === "AnyOf" && issue.ast.types.every((m) => SchemaAST.toEncoded(m)._tag === "Objects")) {
    return "Expected an object"
  }
  if (issue._tag !== "InvalidValue" || transformed === undefined || ownMessage(issue) !== undefined) {
    return formatIssue(issue)
  }
  if (transformed._tag === "TemplateLiteral") return `Expected a string matching ${templateOf(transformed)}`
  return issue.annotations === undefined ? `Expected ${expectedOf(transformed)}` : formatIssue(issue)
}

const ownMessage = (issue: SchemaIssue.Leaf | SchemaIssue.AnyOf): string | undefined => {
  const message = "annotations" in issue ? issue.annotations?.message : undefined
  return typeof message === "string" ? message : undefined
}

const toField = (path: ReadonlyArray<PropertyKey>): string => path.map(String).join(".")

interface Discriminator {
  readonly key: string
  /** Every member's accepted values of `key`, in member order. */
  readonly values: ReadonlyArray<unknown>
  /** The input's value of `key`. */
  readonly value: unknown
}

/** The literal values an object schema accepts for `key`, or `undefined` when it is not a literal there. */
const tagValues = (ast: SchemaAST.AST, key: PropertyKey): ReadonlyArray<unknown> | undefined => {
  if (ast._tag !== "Objects") return undefined
  const property = ast.propertySignatures.find((p) => p.name === key)
  return property === undefined ? undefined : literalsOf(SchemaAST.toEncoded(property.type))
}

/**
 * The tag of a union of object shapes (`customerType`, `accountType`, `type`...): the first property that is a
 * literal in every member, with the value the input gives it; `undefined` when the input is no object or the
 * members share no tag.
 */
const discriminatorOf = (issue: SchemaIssue.AnyOf): Discriminator | undefined => {
  const input = SchemaIssue.hasInput(issue) ? issue.input : undefined
  if (input === null || typeof input !== "object" || Array.isArray(input)) return undefined
  const members = issue.ast.types.map((member) => SchemaAST.toEncoded(member))
  const first = members[0]
  if (first === undefined || first._tag !== "Objects") return undefined
  for (const candidate of first.propertySignatures) {
    const values: Array<unknown> = []
    const allTagged = members.every((member) => {
      const literals = tagValues(member, candidate.name)
      if (literals !== undefined) values.push(...literals)
      return literals !== undefined
    })
    if (allTagged) {
      const key = String(candidate.name)
      return { key, values, value: (input as Record<string, unknown>)[key] }
    }
  }
  return undefined
}

/**
 * The failures of the members a tagged union's input selects by its tag: a body `{ "type": "OAUTH", ... }` is
 * judged by the `OAUTH` member only, so neither another member's required fields nor its unknown-field refusals
 * (`oidcToken` is not a field of the OTP member) are reported. All the failures when the tag selects none.
 */
const selectedFailures = (issue: SchemaIssue.AnyOf): ReadonlyArray<SchemaIssue.Issue> => {
  const tag = discriminatorOf(issue)
  if (tag === undefined) return issue.issues
  const selected = issue.issues.filter((child) => {
    const values = "ast" in child ? tagValues(child.ast, tag.key) : undefined
    return values === undefined || values.includes(tag.value)
  })
  return selected.length > 0 ? selected : issue.issues
}

// -----------------------------------------------------------------------------
// "Did you mean ...?": the nearest known name or value
// -----------------------------------------------------------------------------

// Optimal string alignment distance: Levenshtein's, with a swap of two neighbours counting as one edit.
const editDistance = (a: string, b: string): number => {
  let before: Array<number> = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      current.push(d)
    }
    before = previous
    previous = current
  }
  return previous[b.length]!
}

/**
 * The known name `name` most likely meant, or `undefined`: one that differs only in case; else the closest by
 * edit distance, ignoring case, among those within a third of the longer name's length or containing it (`name` →
 * `fullName`, `lin2` → `line2`). Ties go to the first known name.
 */
export const nearestName = (name: string, known: ReadonlyArray<string>): string | undefined => {
  const wanted = name.toLowerCase()
  const sameButCase = known.find((k) => k.toLowerCase() === wanted)
  if (sameButCase !== undefined) return sameButCase
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of known) {
    const lower = candidate.toLowerCase()
    const allowed = Math.max(1, Math.floor(Math.max(wanted.length, lower.length) / 3))
    const contains = wanted.length >= 3 && lower.includes(wanted)
    // The distance is at least the difference in length: a long hostile key costs no quadratic work.
    if (!contains && Math.abs(wanted.length - lower.length) > allowed) continue
    const distance = editDistance(wanted, lower)
    if ((contains || distance <= allowed) && distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

const didYouMean = (suggestion: string): string => `did you mean \`${suggestion}\`?`

/** A field of an object that declares no such field: `Unknown field; did you mean `fullName`?` */
const unknownFieldError = (
  issue: SchemaIssue.UnexpectedKey,
  path: ReadonlyArray<PropertyKey>,
  suggest: boolean
): FieldError => {
  const key = path[path.length - 1]
  const known = issue.ast._tag === "Objects" ? issue.ast.propertySignatures.map((p) => p.name) : []
  const suggestion =
    suggest && typeof key === "string"
      ? nearestName(
          key,
          known.filter((k) => typeof k === "string")
        )
      : undefined
  return suggestion === undefined
    ? { field: toField(path), constraint: { unexpected: true }, message: "Unknown field" }
    : {
        field: toField(path),
        constraint: { unexpected: true, suggestion },
        message: `Unknown field; ${didYouMean(suggestion)}`
      }
}

/** The allowed value a string input only miscases (`"individual"` for `INDIVIDUAL`), or `undefined`. */
const miscased = (input: unknown, values: ReadonlyArray<unknown>): string | undefined => {
  if (typeof input !== "string") return undefined
  const wanted = input.toLowerCase()
  return values.find((v): v is string => typeof v === "string" && v !== input && v.toLowerCase() === wanted)
}

/** `error` with the value its input only miscases named: in its message and as `constraint.suggestion`. */
const withCaseSuggestion = (error: FieldError, input: unknown, values: ReadonlyArray<unknown> | undefined) => {
  const suggestion = values === undefined ? undefined : miscased(input, values)
  if (suggestion === undefined) return error
  return {
    ...error,
    constraint: { ...error.constraint, suggestion },
    message: `${error.message}; ${didYouMean(suggestion)}`
  }
}

// What a walk has found: the field errors, and how many of them are unknown fields.
interface Report {
  readonly errors: Array<FieldError>
  unknownFields: number
}

/** The most unknown fields of one body for which the nearest known name is looked for. */
const MAX_SUGGESTIONS = 100

// `filter`: the failed refinement the leaf belongs to (it may point to a nested path, so it survives pointers);
// `transformed`: the outermost transformation of the current value, describing a bare InvalidValue.
const walk = (
  issue: SchemaIssue.Issue,
  path: ReadonlyArray<PropertyKey>,
  filter: FilterFailure | undefined,
  transformed: SchemaAST.AST | undefined,
  out: Report
): void => {
  switch (issue._tag) {
    case "Pointer":
      walk(issue.issue, [...path, ...issue.path], filter, undefined, out)
      return
    case "Composite": {
      const inner = transformed ?? (issue.ast._tag === "TemplateLiteral" ? issue.ast : undefined)
      for (const child of issue.issues) walk(child, path, filter, inner, out)
      return
    }
    case "Filter":
      walk(issue.issue, path, filter ?? filterFailure(issue.filter), transformed, out)
      return
    case "Encoding":
      if (filter === undefined && numberJsonLink !== undefined && issue.ast.encoding?.includes(numberJsonLink)) {
        out.errors.push({ field: toField(path), constraint: { type: "number" }, message: "Expected number" })
        return
      }
      walk(issue.issue, path, filter, transformed ?? issue.ast, out)
      return
    case "AnyOf": {
      // A tag matching no member, whatever the members' own failures (a member whose tag is a list of literals
      // reports some): name the tag field and its values instead of dumping every member's shape.
      const tag = discriminatorOf(issue)
      if (tag !== undefined && !tag.values.includes(tag.value)) {
        const error = {
          field: toField([...path, tag.key]),
          constraint: valuesConstraint(tag.values),
          message: `Expected one of ${tag.values.map((v) => JSON.stringify(v)).join(", ")}`
        }
        out.errors.push(withCaseSuggestion(error, tag.value, tag.values))
        return
      }
      if (issue.issues.length > 0) {
        for (const child of selectedFailures(issue)) walk(child, path, filter, transformed, out)
        return
      }
      break
    }
    case "UnexpectedKey":
      // Past `MAX_SUGGESTIONS` unknown fields, no nearest name is looked for: a body of 100,000 of them costs
      // no more than a walk.
      out.errors.push(unknownFieldError(issue, path, out.unknownFields++ < MAX_SUGGESTIONS))
      return
  }
  const error = {
    field: toField(path),
    constraint: filter?.constraint ?? leafConstraint(issue, transformed),
    message:
      filter === undefined ? leafMessage(issue, transformed) : (filter.message ?? ownMessage(issue) ?? filter.fallback)
  }
  // A value of an enum in the wrong case (`"individual"`) is told the right one.
  const enumerated = filter === undefined && (issue._tag === "InvalidType" || issue._tag === "AnyOf")
  out.errors.push(
    enumerated && SchemaIssue.hasInput(issue) ? withCaseSuggestion(error, issue.input, literalsOf(issue.ast)) : error
  )
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
  const out: Report = { errors: [], unknownFields: 0 }
  walk(issue, basePath, undefined, undefined, out)
  return out.errors
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

/**
 * Options of the decoders of a request's path, query and headers: report all failures, ignore unknown properties
 * (a request carries headers nobody declares).
 */
// `reportInput` keeps the offending value on issues (only built on failure): a bad union tag is named from it.
export const decodeAllOptions: SchemaAST.ParseOptions = { errors: "all", onExcessProperty: "ignore", reportInput: true }

/**
 * Options of the decoders of a request body (JSON, form fields, CSV rows): `decodeAllOptions`, but a field the
 * Schema does not declare is refused (`constraint: { unexpected: true }`, with the nearest known name as
 * `suggestion`), at any depth, rather than dropped: `{ "name": ... }` must not make a customer without a name.
 */
export const decodeBodyOptions: SchemaAST.ParseOptions = { ...decodeAllOptions, onExcessProperty: "error" }

/**
 * Compiles `schema` once into a synchronous decoder of a body (`decodeBodyOptions`: unknown fields refused) that
 * reports every invalid field at once as `InvalidInput`. A defect while decoding (a transformation that throws) is
 * rethrown.
 */
export const decodeAll = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  basePath: ReadonlyArray<PropertyKey> = []
): ((input: unknown) => Result.Result<S["Type"], InvalidInput>) => {
  const decode = SchemaParser.decodeUnknownExit(schema, decodeBodyOptions)
  return (input) => {
    const exit = decode(input)
    if (Exit.isSuccess(exit)) return Result.succeed(exit.value)
    return Result.fail(invalidInput(fieldErrorsFromIssue(issueFromCause(exit.cause), basePath)))
  }
}

// -----------------------------------------------------------------------------
// Text the API accepts
// -----------------------------------------------------------------------------

/**
 * What makes a string unacceptable as text: `NUL` (U+0000, which PostgreSQL `text` and `jsonb` cannot hold) or
 * `UNPAIRED_SURROGATE` (a lone UTF-16 surrogate: it has no UTF-8 encoding, so a driver would silently store
 * U+FFFD instead and a JSON reader in another language would choke on it).
 */
export type TextFault = "NUL" | "UNPAIRED_SURROGATE"

const TEXT_FAULT_MESSAGE: Readonly<Record<TextFault, string>> = {
  NUL: "Must not contain the NUL character (U+0000)",
  UNPAIRED_SURROGATE: "Must be well-formed Unicode: an unpaired surrogate (U+D800 to U+DFFF) cannot be stored"
}

/**
 * The one rule for every string the API accepts (bodies, query strings, path parameters, headers, multipart
 * fields, CSV cells): NUL and unpaired surrogates are refused rather than stored, so every store keeps exactly
 * what the client sent, or nothing. `undefined` for acceptable text.
 */
export const textFault = (text: string): TextFault | undefined => {
  if (text.includes("\u0000")) return "NUL"
  return text.isWellFormed() ? undefined : "UNPAIRED_SURROGATE"
}

/** The field error for `field` holding unacceptable text: constraint `{ text: "NUL" | "UNPAIRED_SURROGATE" }`. */
export const textFieldError = (field: string, fault: TextFault): FieldError => ({
  field,
  constraint: { text: fault },
  message: TEXT_FAULT_MESSAGE[fault]
})

/** The most text errors one request reports: enough to fix it, bounded however hostile the input. */
export const MAX_TEXT_ERRORS = 100

// A value's place in the walk: its key and its parent's place (a path is only spelled out for a reported error,
// so the walk stays linear in the size of the value however deep it is nested).
interface Place {
  readonly key: PropertyKey
  readonly parent: Place | undefined
}

const fieldOf = (base: ReadonlyArray<PropertyKey>, place: Place | undefined): string => {
  const keys: Array<PropertyKey> = []
  for (let p = place; p !== undefined; p = p.parent) keys.push(p.key)
  return toField([...base, ...keys.reverse()])
}

/**
 * Appends a `textFieldError` for every string in `value` (a parsed JSON value, query or form) that breaks the text
 * rule, object keys included, named by its dot path under `basePath`, in document order, at most
 * `MAX_TEXT_ERRORS`. Iterative and linear: a deeply nested body can neither overflow the stack nor cost more than
 * its size.
 */
export const collectTextErrors = (
  value: unknown,
  basePath: ReadonlyArray<PropertyKey>,
  out: Array<FieldError>
): void => {
  let reported = 0
  const report = (place: Place | undefined, fault: TextFault) => {
    out.push(textFieldError(fieldOf(basePath, place), fault))
    reported++
  }
  const pending: Array<readonly [unknown, Place | undefined]> = [[value, undefined]]
  while (pending.length > 0 && reported < MAX_TEXT_ERRORS) {
    const [current, place] = pending.pop()!
    if (typeof current === "string") {
      const fault = textFault(current)
      if (fault !== undefined) report(place, fault)
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push([current[i], { key: i, parent: place }])
    } else if (current !== null && typeof current === "object") {
      const keys = Object.keys(current)
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        const fault = textFault(key)
        if (fault !== undefined) report({ key, parent: place }, fault)
        else pending.push([(current as Record<string, unknown>)[key], { key, parent: place }])
      }
    }
  }
}
