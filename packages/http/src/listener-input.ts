/**
 * A request's input: its body read (up to `maxBodyBytes`) or handed on unread (a streamed multipart body), then its
 * path params, query, declared headers and JSON body decoded with the endpoint's schemas, every failure reported
 * together as 400 `INVALID_INPUT`.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { collectTextErrors, type FieldError, fieldErrorsFromIssue, issueFromCause } from "@paycore/core"
import { Exit } from "effect"
import type { FindMyWay } from "effect/http"
import { invalidInputResponse, sendError, unsupportedMediaType } from "./listener-answers.ts"
import {
  type CompiledEndpoint,
  type Decode,
  JSON_TYPE,
  type Listener,
  type Route,
  STREAMED
} from "./listener-compile.ts"
import { runHandler } from "./listener-run.ts"
import type { StreamedBody } from "./listener-types.ts"
import { mediaTypeOf } from "./multipart.ts"

const isJsonContentType = (contentType: string): boolean => {
  const mediaType = mediaTypeOf(contentType)
  return mediaType === JSON_TYPE || (mediaType.startsWith("application/") && mediaType.endsWith("+json"))
}

/**
 * The request body as an async iterable that, when the handler stops early, only stops reading: Node then
 * discards the rest after the response, so the client still gets the answer (destroying the request would
 * reset the connection under it).
 */
const streamedBody = (req: IncomingMessage): AsyncIterable<Uint8Array> => ({
  [Symbol.asyncIterator]: () => req.iterator({ destroyOnReturn: false })
})

/** Reads the whole body as text, then calls `next`; a body over `maxBodyBytes` is answered 413. */
export const readBody = <Principal, R>(
  l: Listener<Principal, R>,
  req: IncomingMessage,
  res: ServerResponse,
  next: (rawBody: string) => void
): void => {
  const maxBodyBytes = l.maxBodyBytes
  // The rest of the body is not read, so the connection cannot be reused.
  const tooLarge = () =>
    sendError(res, {
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
      message: `The request body exceeds ${maxBodyBytes} bytes`,
      headers: { connection: "close" }
    })
  if (Number(req.headers["content-length"]) > maxBodyBytes) {
    tooLarge()
    return
  }
  const chunks: Array<Buffer> = []
  let size = 0
  req.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size <= maxBodyBytes) {
      chunks.push(chunk)
    } else {
      req.removeAllListeners("data").removeAllListeners("end").resume()
      tooLarge()
    }
  })
  req.on("end", () => {
    next(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"))
  })
}

/** Decodes the request's params, query, headers and body, then runs its handler; any failure is answered 400. */
export const decodeRequest = <Principal, R>(
  l: Listener<Principal, R>,
  req: IncomingMessage,
  res: ServerResponse,
  route: CompiledEndpoint,
  found: FindMyWay.FindResult<Route>,
  principal: unknown,
  rawBody: string
): void => {
  const errors: Array<FieldError> = []
  // The text rule (no NUL, no unpaired surrogate) before the schemas: only a percent-escape can put either
  // into a path or query (Node refuses a raw NUL in the request line, and raw bytes decode to whole characters).
  if (req.url?.includes("%")) {
    collectTextErrors(found.params, PATH, errors)
    collectTextErrors(found.searchParams, QUERY, errors)
  }
  const params = route.decodeParams && decodeInto(route.decodeParams, found.params, PATH, errors)
  const query = route.decodeQuery && decodeInto(route.decodeQuery, found.searchParams, QUERY, errors)
  const headers = route.decodeHeaders ? decodeInto(route.decodeHeaders, req.headers, HEADERS, errors) : req.headers
  let payload: unknown
  const streamed = route.decodePayload === STREAMED
  if (streamed) {
    payload = { contentType: req.headers["content-type"] ?? "", body: streamedBody(req) } satisfies StreamedBody
  } else if (route.decodePayload !== undefined) {
    const contentType = req.headers["content-type"]
    if (contentType !== undefined && !isJsonContentType(contentType)) {
      sendError(res, unsupportedMediaType(`JSON (${JSON_TYPE})`, contentType))
      return
    }
    const json = rawBody === "" ? route.emptyBody : parseJson(rawBody)
    if (json === MALFORMED) {
      errors.push({ field: "body", constraint: { format: "json" }, message: "Malformed JSON" })
    } else {
      // In JSON text, only a `\u` escape can spell a NUL or an unpaired surrogate (JSON.parse refuses raw
      // control characters, and the body is decoded from UTF-8), so bodies without one skip the walk.
      if (rawBody.includes("\\u")) collectTextErrors(json, BODY, errors)
      for (let i = 0; i < errors.length; i++) if (errors[i]!.field === "") errors[i] = { ...errors[i]!, field: "body" }
      payload = decodeInto(route.decodePayload, json, BODY, errors)
    }
  }
  if (errors.length > 0) {
    sendError(res, invalidInputResponse(errors))
    return
  }
  const remoteAddress = req.socket.remoteAddress
  runHandler(l, req, res, route, { params, query, payload, headers, principal, rawBody, remoteAddress }, streamed)
}

const PATH = ["path"]
const QUERY = ["query"]
const HEADERS = ["headers"]
const BODY: ReadonlyArray<string> = []
const MALFORMED = Symbol("malformed")

/** An empty body is `undefined` (the payload schema reports it); unparsable JSON is `MALFORMED`. */
const parseJson = (rawBody: string): unknown => {
  if (rawBody === "") return undefined
  try {
    return JSON.parse(rawBody)
  } catch {
    return MALFORMED
  }
}

/** Decodes `input`, or appends its field errors to `errors` (a body-level error is named `body`). */
const decodeInto = (
  decode: Decode,
  input: unknown,
  basePath: ReadonlyArray<string>,
  errors: Array<FieldError>
): unknown => {
  const exit = decode(input)
  if (Exit.isSuccess(exit)) return exit.value
  for (const error of fieldErrorsFromIssue(issueFromCause(exit.cause), basePath)) {
    errors.push(error.field === "" ? { ...error, field: "body" } : error)
  }
  return undefined
}
