/**
 * How a handler's success becomes a response, compiled once per endpoint from its success Schemas: the status and a
 * serializer (plain `JSON.stringify` when the Schema's JSON encoding is the identity).
 */
import { Schema, SchemaAST } from "effect"
import { HttpApiSchema } from "effect/http-api"
import type { EndpointInfo } from "./listener-types.ts"
import { admits, isScalar, sentinelsOf } from "./schema-shape.ts"

export interface Responder {
  readonly status: number
  /** `undefined` for no-content responses. */
  readonly serialize: ((value: unknown) => string) | undefined
}
// HttpApi types endpoint schemas with unknown services; schemas that need services to encode are not supported here.
type NoServices = Schema.ConstraintDecoder<unknown> & Schema.ConstraintEncoder<unknown>

const resolveEncoding = SchemaAST.resolveAt<{ readonly _tag: string }>("~httpApiEncoding")

// `Schema.toCodecJson` turns every plain `Number` into a number-or-"NaN"/"Infinity" codec; for finite numbers it is
// the identity, so it does not stop a schema from being plain JSON.
const numberJsonLink = Schema.toCodecJson(Schema.Number).ast.encoding?.[0]

/** True when the JSON codec's encoded side is the value itself, so `JSON.stringify` can skip the encoder. */
const isPlainJson = (ast: SchemaAST.AST): boolean => {
  if (ast.encoding !== undefined && !(ast.encoding.length === 1 && ast.encoding[0] === numberJsonLink)) return false
  if (isScalar(ast)) return true
  switch (ast._tag) {
    case "Objects":
      return (
        ast.propertySignatures.every((property) => isPlainJson(property.type)) &&
        ast.indexSignatures.every((index) => isPlainJson(index.type))
      )
    case "Arrays":
      return ast.elements.every(isPlainJson) && ast.rest.every(isPlainJson)
    case "Union":
      return ast.types.every(isPlainJson)
    default:
      return false
  }
}

/** How one success schema is answered: its status and serializer. */
const compileSuccess = (info: EndpointInfo, status: number, schema: Schema.Top): Responder => {
  const encoding = resolveEncoding(schema.ast)?._tag ?? "Json"
  if (encoding === "Text" && !HttpApiSchema.isWithHeaders(schema)) {
    // A text answer (a stream of Server-Sent Events) is the `HttpServerResponse` its handler builds (serve.ts).
    return {
      status,
      serialize: () => {
        throw new Error(`${info.group}.${info.name}: a text answer must be an HttpServerResponse`)
      }
    }
  }
  if (HttpApiSchema.isWithHeaders(schema) || encoding !== "Json") {
    throw new Error(`${info.group}.${info.name}: only JSON, text and no-content responses are supported`)
  }
  if (HttpApiSchema.isNoContent(schema.ast)) return { status, serialize: undefined }
  if (isPlainJson(schema.ast)) return { status, serialize: (value) => JSON.stringify(value) }
  const encode = Schema.encodeUnknownSync(schema as unknown as NoServices)
  return { status, serialize: (value) => JSON.stringify(encode(value)) }
}

/**
 * How a handler's success is answered. One success schema: always with it. Several (each with its own status, as
 * a signed retry's 202 and 201): the first whose schema the value is (no-content: `undefined`); the schemas of one
 * endpoint must not overlap. The choice costs no validation where the schemas' literal properties tell them apart:
 * a choice whose literal (a `status`) the value lacks is skipped, and the last choice left is taken unchecked, as
 * a single schema's value is (`POST /quotes` validated its 201 against the 202's schema, then its own: a tenth of
 * its CPU).
 */
export const compileResponder = (
  info: EndpointInfo,
  successes: ReadonlyMap<number, readonly [Schema.Top, ...Array<Schema.Top>]>
): ((value: unknown) => Responder) => {
  const entries = [...successes].flatMap(([status, schemas]) => schemas.map((schema) => ({ status, schema })))
  if (entries.length === 0) throw new Error(`${info.group}.${info.name}: declare a success schema`)
  if (entries.length === 1) {
    const only = compileSuccess(info, entries[0]!.status, entries[0]!.schema)
    return () => only
  }
  if (successes.size !== entries.length) {
    throw new Error(`${info.group}.${info.name}: give each success schema its own status`)
  }
  const choices = entries.map(({ status, schema }) => {
    const noContent = HttpApiSchema.isNoContent(schema.ast)
    const sentinels = noContent ? [] : sentinelsOf(schema.ast)
    return {
      responder: compileSuccess(info, status, schema),
      admits: noContent ? (value: unknown) => value === undefined : (value: unknown) => admits(sentinels, value),
      is: noContent
        ? (value: unknown) => value === undefined
        : Schema.is(schema as unknown as Schema.Codec<unknown, unknown, never, never>)
    }
  })
  return (value) => {
    const candidates = choices.filter((choice) => choice.admits(value))
    const last = candidates.length - 1
    const match = candidates.find((choice, i) => i === last || choice.is(value))
    if (match === undefined) throw new Error(`${info.group}.${info.name}: the success matches none of its schemas`)
    return match.responder
  }
}
