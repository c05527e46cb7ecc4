/**
 * fast-check arbitraries for every JSON request body of paycore's API, derived from the endpoints' payload Schemas
 * (`Api`, walked with `HttpApi.reflect`, so a new endpoint is covered by itself):
 *
 * - `validBody(operation)`: bodies the endpoint's decoder accepts (a business rule may still refuse one: a currency
 *   the platform does not support, an id that does not exist).
 * - `nearValidBody(operation)`: a valid body one mutation away from valid, with the field path it broke: a required
 *   field left out, a value of the wrong JSON type, a number or a length out of range, a string off its pattern, a
 *   value outside an enum, a field the object does not declare (the server refuses unknown fields, C-11).
 *
 * Values are drawn by effect's Schema-derived generator (`Arbitrary.schema`, the same the HTTP fuzzer uses),
 * seeded by fast-check: a property replays from fast-check's seed, and shrinking goes to smaller generation sizes.
 * Refinements a generator cannot meet by chance (a point of P-256, a Spark address) carry an `arbitraryConstraint`
 * in their Schema that generates them directly; `OVERRIDES` below replaces what a Schema still generates badly.
 *
 * Multipart bodies (document uploads, the CSV import) are not JSON bodies and are not covered.
 */

import { decodeAll, type FieldError } from "@paycore/core"
import { Api } from "@paycore/http/api"
import { Arbitrary, Effect, Result, Schema, SchemaAST } from "effect"
import { HttpApi } from "effect/http-api"
import * as fc from "fast-check"

/** A JSON value as it travels in a request body. */
export type JsonBody = unknown

/** One endpoint's JSON request body. */
export interface RequestBody {
  /** `group.endpoint`, as the route table and the auth matrix name it: `customers.create`. */
  readonly operation: string
  /** `POST`, `PATCH`, `PUT`, `DELETE`. */
  readonly method: string
  /** The path template without the version prefix: `/customers/:customerId`. */
  readonly path: string
  /** The payload Schema the server decodes the parsed JSON body with. */
  readonly schema: Schema.Top
}

let bodies: ReadonlyArray<RequestBody> | undefined

/** Every endpoint of the API with a JSON request body, in the order of the route table. */
export const requestBodies = (): ReadonlyArray<RequestBody> => {
  if (bodies !== undefined) return bodies
  const found: Array<RequestBody> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }) => {
      const json = endpoint.payload.get("application/json")
      if (json === undefined || json.schemas.length === 0) return
      const [first, ...rest] = json.schemas as unknown as [Schema.Top, ...Array<Schema.Top>]
      found.push({
        operation: `${group.identifier}.${endpoint.identifier}`,
        method: endpoint.method,
        path: endpoint.path,
        schema: rest.length === 0 ? first : Schema.Union([first, ...rest])
      })
    }
  })
  bodies = found
  return found
}

/** The request body of `operation` (`customers.create`); throws, naming the operations there are, for another. */
export const requestBody = (operation: string): RequestBody => {
  const body = requestBodies().find((b) => b.operation === operation)
  if (body === undefined) {
    throw new Error(
      `${operation} has no JSON request body; these do: ${requestBodies()
        .map((b) => b.operation)
        .join(", ")}`
    )
  }
  return body
}

// -----------------------------------------------------------------------------
// Decoding, as the server does
// -----------------------------------------------------------------------------

const decoders = new Map<
  string,
  (input: unknown) => Result.Result<unknown, { readonly errors: ReadonlyArray<FieldError> }>
>()

/**
 * Decodes `body` with `operation`'s payload Schema as the HTTP server does (every error, unknown properties
 * refused): `[]` when it is accepted, else the field errors (`field` is the dot path, `""` for the body itself;
 * the server names that one `body`). Under a union whose tag is wrong the server may name a member's fields too.
 */
export const bodyErrors = (operation: string, body: JsonBody): ReadonlyArray<FieldError> => {
  let decode = decoders.get(operation)
  if (decode === undefined) {
    decode = decodeAll(requestBody(operation).schema as unknown as Schema.ConstraintDecoder<unknown>)
    decoders.set(operation, decode)
  }
  const result = decode(body)
  return Result.isSuccess(result) ? [] : result.failure.errors
}

// -----------------------------------------------------------------------------
// Valid bodies
// -----------------------------------------------------------------------------

/**
 * Fields whose Schema-derived values are valid but useless to a test: replaced, by dot path (`*` for any array
 * index), after generation. Empty today: every refinement of a request body either is a pattern effect generates
 * from, or carries an `arbitraryConstraint` (the P-256 keys, the Spark address). A refinement with a check digit
 * (an IBAN's, a CLABE's) goes here rather than into a filter that would discard most values.
 */
const OVERRIDES: Readonly<Record<string, Readonly<Record<string, fc.Arbitrary<JsonBody>>>>> = {}

/** Options of `validBody` and `nearValidBody`. */
export interface ValidBodyOptions {
  /**
   * Values for fields, by dot path (`source.accountId`, `paymentInstructions.*.amount`): ids of resources the test
   * made, amounts it can afford. A field is set where its parent object is in the drawn body.
   */
  readonly fields?: Readonly<Record<string, fc.Arbitrary<JsonBody>>> | undefined
  /** The largest generation size (effect's local complexity scale: string and array lengths): 6 by default. */
  readonly maxSize?: number | undefined
}

type Path = ReadonlyArray<string | number>

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/** `value` with `pattern` (dot path, `*` for every array index) set to `next` where the parent exists. */
const setPattern = (value: JsonBody, pattern: ReadonlyArray<string>, next: JsonBody): JsonBody => {
  if (pattern.length === 0) return next
  const [head, ...rest] = pattern as [string, ...Array<string>]
  if (Array.isArray(value)) {
    if (head === "*") return value.map((item) => setPattern(item, rest, next))
    const index = Number(head)
    if (!Number.isInteger(index) || index >= value.length) return value
    return value.map((item, i) => (i === index ? setPattern(item, rest, next) : item))
  }
  if (!isObject(value)) return value
  if (rest.length > 0 && !(head in value)) return value
  return { ...value, [head]: setPattern(value[head], rest, next) }
}

const withFields = (
  body: fc.Arbitrary<JsonBody>,
  fields: Readonly<Record<string, fc.Arbitrary<JsonBody>>>
): fc.Arbitrary<JsonBody> => {
  const entries = Object.entries(fields)
  if (entries.length === 0) return body
  return fc
    .tuple(body, fc.tuple(...entries.map(([, arbitrary]) => arbitrary)))
    .map(([drawn, values]) =>
      entries.reduce<JsonBody>((acc, [path, _], i) => setPattern(acc, path.split("."), values[i]), drawn)
    )
}

/** Draws a Schema's encoded value from effect's generator, as JSON text would carry it. */
const schemaSampler = (schema: Schema.Top): ((seed: number, size: number) => JsonBody) => {
  const codec = schema as Schema.Codec<unknown, unknown>
  const arbitrary = Arbitrary.schema(codec)
  const encode = Schema.encodeUnknownSync(codec)
  return (seed, size) => {
    const [value] = Effect.runSync(Arbitrary.sampleEffect(arbitrary, { count: 1, seed, size }))
    const encoded = encode(value)
    return encoded === undefined ? undefined : JSON.parse(JSON.stringify(encoded))
  }
}

const samplers = new Map<string, (seed: number, size: number) => JsonBody>()

/**
 * Bodies of `operation` that its payload Schema accepts: a fast-check arbitrary of JSON values (`JSON.stringify`
 * one and send it). The business rules may still refuse one.
 */
export const validBody = (operation: string, options: ValidBodyOptions = {}): fc.Arbitrary<JsonBody> => {
  let sample = samplers.get(operation)
  if (sample === undefined) {
    sample = schemaSampler(requestBody(operation).schema)
    samplers.set(operation, sample)
  }
  const draw = sample
  const drawn = fc
    .tuple(fc.integer({ min: 0, max: 0x7fffffff }), fc.integer({ min: 0, max: options.maxSize ?? 6 }))
    .map(([seed, size]) => draw(seed, size))
  return withFields(withFields(drawn, OVERRIDES[operation] ?? {}), options.fields ?? {})
}

// -----------------------------------------------------------------------------
// Near-valid bodies
// -----------------------------------------------------------------------------

/** What a near-valid body broke. */
export type BodyMutation = "missingField" | "wrongType" | "outOfRange" | "offPattern" | "unknownValue" | "unknownField"

/** The field an `unknownField` mutation adds: no request object declares it, nor a name near it. */
const UNKNOWN_FIELD = "notAFieldOfThisObject"

/** A body one mutation away from valid, and where: `path` is the dot path of the broken field (`""`: the body). */
export interface NearValidBody {
  /** The body to send. */
  readonly body: JsonBody
  /** The dot path of the broken field (`paymentInstructions.0.amount`); `""` for the body itself. */
  readonly path: string
  /** What was done to it. */
  readonly mutation: BodyMutation
}

interface Candidate {
  readonly path: Path
  readonly mutation: BodyMutation
  readonly value: JsonBody | typeof REMOVE
}

const REMOVE = Symbol("remove")

const setAt = (value: JsonBody, path: Path, next: JsonBody | typeof REMOVE): JsonBody => {
  if (path.length === 0) return next === REMOVE ? undefined : next
  const [head, ...rest] = path as [string | number, ...Array<string | number>]
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? setAt(item, rest, next) : item))
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  if (next === REMOVE && rest.length === 0) delete copy[head as string]
  else copy[head as string] = setAt(copy[head as string], rest, next)
  return copy
}

const accepts = (ast: SchemaAST.AST): ((value: unknown) => boolean) => {
  const decode = decodeAll(Schema.make(ast) as unknown as Schema.ConstraintDecoder<unknown>)
  return (value) => Result.isSuccess(decode(value))
}

const acceptsByAst = new WeakMap<SchemaAST.AST, (value: unknown) => boolean>()
const acceptedBy = (ast: SchemaAST.AST, value: unknown): boolean => {
  let check = acceptsByAst.get(ast)
  if (check === undefined) {
    check = accepts(ast)
    acceptsByAst.set(ast, check)
  }
  return check(value)
}

/** A value of another JSON type than `current`. */
const otherType = (current: JsonBody): JsonBody =>
  typeof current === "string" ? 42 : typeof current === "number" ? "42" : current === null ? 42 : "text"

/** The filters of a node, groups flattened. */
const filtersOf = (ast: SchemaAST.AST): Array<SchemaAST.Filter<unknown>> => {
  const out: Array<SchemaAST.Filter<unknown>> = []
  const visit = (check: SchemaAST.Check<unknown>): void => {
    if (check._tag === "Filter") out.push(check)
    else check.checks.forEach(visit)
  }
  ast.checks?.forEach(visit)
  return out
}

type Constraint = Schema.Annotations.ToArbitrary.FilterConstraint<unknown>

/** Values that break a refinement of a number or a string and keep its type: past a bound, off a pattern. */
const brokenRefinements = (
  ast: SchemaAST.AST,
  current: JsonBody
): Array<{ readonly value: JsonBody; readonly mutation: BodyMutation }> => {
  const filters = filtersOf(ast)
  const out: Array<{ readonly value: JsonBody; readonly mutation: BodyMutation }> = []
  for (const filter of filters) {
    const c = filter.annotations?.arbitraryConstraint as Constraint | undefined
    if (typeof current === "number") {
      if (typeof c?.maximum === "number") out.push({ value: c.maximum + 1, mutation: "outOfRange" })
      if (typeof c?.minimum === "number") out.push({ value: c.minimum - 1, mutation: "outOfRange" })
      if (c?.number === "integer") out.push({ value: current + 0.5, mutation: "outOfRange" })
    } else if (typeof current === "string") {
      if (c?.maxLength !== undefined) out.push({ value: "x".repeat(c.maxLength + 1), mutation: "outOfRange" })
      if (c?.minLength !== undefined && c.minLength > 0) out.push({ value: "", mutation: "outOfRange" })
      if (c?.patterns !== undefined) {
        for (const value of ["", "!", "not a match"]) out.push({ value, mutation: "offPattern" })
      }
    }
  }
  // Kept only when the node refuses it: a bound of one filter can sit inside another's.
  return out.filter(({ value }) => filters.some((f) => f.run(value, ast, {}) !== undefined))
}

/** Every candidate mutation of `value` under the node `ast`, at `path`. */
const candidatesOf = (ast: SchemaAST.AST, value: JsonBody, path: Path, out: Array<Candidate>): void => {
  out.push({ path, mutation: "wrongType", value: otherType(value) })
  for (const broken of brokenRefinements(ast, value)) out.push({ path, ...broken })
  // A transformation's encoded side is not walked: the value as sent is the transformation's input.
  if (ast.encoding !== undefined) return
  switch (ast._tag) {
    case "Suspend":
      candidatesOf(ast.thunk(), value, path, out)
      return
    case "Literal":
    case "Enum":
      out.push({ path, mutation: "unknownValue", value: "NOT_A_KNOWN_VALUE" })
      return
    case "Union": {
      if (ast.types.every((member) => member._tag === "Literal")) {
        out.push({ path, mutation: "unknownValue", value: "NOT_A_KNOWN_VALUE" })
        return
      }
      const members = ast.types.filter((member) => acceptedBy(member, value))
      if (members.length === 1) candidatesOf(members[0]!, value, path, out)
      return
    }
    case "Objects": {
      if (!isObject(value)) return
      // A record takes any key: the refusal filter in `nearValidBody` drops the candidate there.
      out.push({ path: [...path, UNKNOWN_FIELD], mutation: "unknownField", value: true })
      for (const property of ast.propertySignatures) {
        const key = property.name
        if (typeof key !== "string") continue
        if (!SchemaAST.isOptional(property.type))
          out.push({ path: [...path, key], mutation: "missingField", value: REMOVE })
        if (key in value) candidatesOf(property.type, value[key], [...path, key], out)
      }
      return
    }
    case "Arrays": {
      if (!Array.isArray(value)) return
      value.forEach((item, i) => {
        const element = ast.elements[i] ?? ast.rest[0]
        if (element !== undefined) candidatesOf(element, item, [...path, i], out)
      })
      return
    }
    default:
      return
  }
}

/**
 * Bodies of `operation` one mutation away from valid, each with the dot path of the field it broke: for refusal
 * tests (the server answers 400 `INVALID_INPUT` with an error for that field, C-03). Drawn from `validBody`; of the
 * mutations a drawn body allows, fast-check picks one (and shrinks towards the first: the body's own type).
 */
export const nearValidBody = (operation: string, options: ValidBodyOptions = {}): fc.Arbitrary<NearValidBody> => {
  const root = requestBody(operation).schema.ast
  return validBody(operation, options).chain((body) => {
    const candidates: Array<Candidate> = []
    candidatesOf(root, body, [], candidates)
    const seen = new Set<string>()
    const mutated: Array<NearValidBody> = []
    for (const candidate of candidates) {
      const next = setAt(body, candidate.path, candidate.value)
      const key = `${candidate.path.join(".")}\u0000${JSON.stringify(next)}`
      if (seen.has(key)) continue
      seen.add(key)
      // A mutation inside a union can land on another member's shape: only refused bodies are near-valid.
      if (acceptedBy(root, next)) continue
      mutated.push({ body: next, path: candidate.path.join("."), mutation: candidate.mutation })
    }
    if (mutated.length === 0) throw new Error(`${operation}: no mutation of ${JSON.stringify(body)} is refused`)
    return fc.constantFrom(...mutated)
  })
}
