/**
 * A lean `node:http` request listener driven by an effect `HttpApi` definition.
 *
 * Routing, input decoding and success encoding are all derived from the definition (compiled once at start); only
 * the hot path is hand-written: no per-request Layer, logger, span, or HttpServerRequest wrapper.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"
import { Cause } from "effect"
import type { FindMyWay } from "effect/http"
import type { HttpApiGroup } from "effect/http-api"
import { AuthenticationRefused, RequestRefused } from "./credentials.ts"
import { defect, sendError, UNAUTHORIZED_HEADERS, unsupportedMediaType, watchAnswer } from "./listener-answers.ts"
import {
  allowedMethods,
  type CompiledEndpoint,
  compileListener,
  JSON_TYPE,
  type Listener,
  MULTIPART_TYPE,
  type Route,
  STATIC_HEADERS,
  STREAMED,
  type StaticRoute
} from "./listener-compile.ts"
import { decodeRequest, readBody } from "./listener-input.ts"
import type { EndpointInfo, ListenerOptions, RequestListener } from "./listener-types.ts"
import { mediaTypeOf } from "./multipart.ts"

/**
 * Builds a `node:http` request listener serving `api` with `handlers`.
 *
 * - Routes: each endpoint's method and path under `prefix`; unknown path → 404 `NOT_FOUND`, known path with another
 *   method → 405 `METHOD_NOT_ALLOWED` (with `Allow`), `OPTIONS` → 204 with `Allow`, `HEAD` runs the `GET` endpoint.
 * - Auth: `authenticate` runs before the body is read; failure → 401 `UNAUTHORIZED` + `www-authenticate`; a
 *   `RequestRefused` → its own answer (429 `RATE_LIMITED` of the rate limits).
 * - Input: path params, query (repeated keys are arrays), declared headers and the JSON body are decoded with the
 *   endpoint's schemas; all failures are reported together as 400 `INVALID_INPUT` with `details.errors`, fields named
 *   `path.<param>`, `query.<key>`, `headers.<name>` and, for the body, its own field path (`address.postalCode`) or
 *   `body` for the body as a whole. Bodies over `maxBodyBytes` → 413 `PAYLOAD_TOO_LARGE`; a non-JSON content type on
 *   an endpoint with a payload → 415 `UNSUPPORTED_MEDIA_TYPE`.
 * - Streamed multipart bodies: an endpoint whose payload is `HttpApiSchema.asMultipartStream()` gets the unread body
 *   (`StreamedBody`) after params, query and headers are decoded; anything but `multipart/form-data` → 415. Its
 *   handler owns the body's limits; `intercept` is not called for it (there is no raw body to fingerprint).
 * - Success: each endpoint declares one success schema; its status (`HttpApiSchema.status`, 200 by default) is the
 *   response status, no-content schemas (`HttpApiSchema.NoContent`, the default) send no body, and the value is
 *   encoded with the schema's JSON codec, or `JSON.stringify`-ed directly when that codec changes nothing.
 * - Failures go through `mapError`; defects (and unmapped failures) → 500 `INTERNAL_ERROR` and `onDefect`.
 */
export const makeRequestListener = <
  Id extends string,
  Groups extends HttpApiGroup.Constraint,
  Principal = undefined,
  R = never
>(
  options: ListenerOptions<Id, Groups, Principal, R>
): RequestListener => {
  const l = compileListener(options)
  const { router, onAnswered } = l
  return (req, res) => {
    const startedAt = onAnswered === undefined ? 0 : Date.now()
    const method = req.method ?? "GET"
    const url = req.url ?? "/"
    const found = router.find(method, url) ?? (method === "HEAD" ? router.find("GET", url) : undefined)
    if (found === undefined) {
      noRoute(l, res, method, url)
      return
    }
    const route = found.handler
    if (route._tag === "Static") {
      sendStatic(req, res, route)
      return
    }
    try {
      l.telemetry?.begin(req, res, route.info)
      const auth = authorize(l, req, res, route.info)
      if (auth instanceof Promise) {
        auth.then(
          (settled) => settled !== undefined && proceed(l, req, res, route, found, settled.principal, startedAt),
          (error) => defect(l, res, Cause.die(error), route.info)
        )
        return
      }
      if (auth === undefined) return
      proceed(l, req, res, route, found, auth.principal, startedAt)
    } catch (error) {
      defect(l, res, Cause.die(error), route.info)
    }
  }
}

/** No route for the method: 404 `NOT_FOUND` when the path has none, else 405 (with `Allow`), or 204 to `OPTIONS`. */
const noRoute = <Principal, R>(l: Listener<Principal, R>, res: ServerResponse, method: string, url: string): void => {
  const allowed = allowedMethods(l, url)
  if (allowed.length === 0) {
    sendError(res, { status: 404, code: "NOT_FOUND", message: "No such route" })
  } else if (method === "OPTIONS") {
    res.writeHead(204, { allow: allowed.join(", ") })
    res.end()
  } else {
    sendError(res, {
      status: 405,
      code: "METHOD_NOT_ALLOWED",
      message: `${method} is not allowed here; use ${allowed.join(", ")}`,
      headers: { allow: allowed.join(", ") }
    })
  }
}

/** A static file (the docs, `files`): 304 when the client has it (its ETag), else the file. */
const sendStatic = (req: IncomingMessage, res: ServerResponse, route: StaticRoute): void => {
  const headers = {
    ...STATIC_HEADERS,
    ...route.headers,
    ...(route.cacheControl === undefined ? {} : { "cache-control": route.cacheControl }),
    ...(route.etag === undefined ? {} : { etag: route.etag })
  }
  if (route.etag !== undefined && req.headers["if-none-match"] === route.etag) {
    res.writeHead(304, headers)
    res.end()
    return
  }
  res.writeHead(route.status ?? 200, {
    ...headers,
    "content-type": route.contentType,
    "content-length": route.body.length
  })
  res.end(route.body)
}

// The principal, or `undefined` after answering 401; a promise when the credentials were not cached.
const authorize = <Principal, R>(
  l: Listener<Principal, R>,
  req: IncomingMessage,
  res: ServerResponse,
  info: EndpointInfo
): { principal: unknown } | undefined | Promise<{ principal: unknown } | undefined> => {
  const authenticate = l.authenticate
  const authorization = req.headers.authorization
  if (authenticate === undefined || (info.public && authorization === undefined)) return NO_PRINCIPAL
  const settle = (result: unknown): { principal: unknown } | undefined => {
    if (!(result instanceof Error)) return { principal: result }
    if (result instanceof RequestRefused) {
      sendError(res, result.response)
      return undefined
    }
    if (info.public) return NO_PRINCIPAL
    const headers =
      result instanceof AuthenticationRefused ? { "www-authenticate": result.challenge } : UNAUTHORIZED_HEADERS
    sendError(res, { status: 401, code: "UNAUTHORIZED", message: result.message, headers })
    return undefined
  }
  const result = authenticate(authorization, info, req)
  return result instanceof Promise ? result.then(settle) : settle(result)
}

const NO_PRINCIPAL = { principal: undefined }

/** After authentication: the principal's permissions, then the body (read, or streamed to the handler), then the run. */
const proceed = <Principal, R>(
  l: Listener<Principal, R>,
  req: IncomingMessage,
  res: ServerResponse,
  route: CompiledEndpoint,
  found: FindMyWay.FindResult<Route>,
  principal: unknown,
  startedAt: number
): void => {
  try {
    if (l.onAnswered !== undefined && principal !== undefined)
      watchAnswer(l, req, res, route.info, principal, startedAt)
    const refused = principal === undefined ? undefined : l.authorize?.(principal as Principal, route.info)
    if (refused !== undefined) {
      sendError(res, refused)
      return
    }
    if (route.decodePayload === STREAMED) {
      const contentType = req.headers["content-type"]
      if (contentType === undefined || mediaTypeOf(contentType) !== MULTIPART_TYPE) {
        sendError(res, unsupportedMediaType(MULTIPART_TYPE, contentType))
        return
      }
      decodeRequest(l, req, res, route, found, principal, "")
      return
    }
    const hasBody = req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0"
    if (!hasBody) {
      decodeRequest(l, req, res, route, found, principal, "")
      return
    }
    readBody(l, req, res, (rawBody) => {
      try {
        decodeRequest(l, req, res, route, found, principal, rawBody)
      } catch (error) {
        defect(l, res, Cause.die(error), route.info)
      }
    })
  } catch (error) {
    defect(l, res, Cause.die(error), route.info)
  }
}

/**
 * Answers what Node's HTTP parser refuses before a request exists (a NUL or another forbidden character in a
 * header, a broken request line, headers too large, a request that never finished) in the error body, instead of
 * Node's bare `400 Bad Request`; the connection is closed after it, as Node does.
 */
export const answerClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const [status, code, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "REQUEST_HEADER_FIELDS_TOO_LARGE", "The request headers are too large"]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "REQUEST_TIMEOUT", "The request did not arrive in time"]
        : [400, "INVALID_INPUT", `Malformed HTTP request (${error.code ?? "parse error"})`]
  const body = JSON.stringify({ status, code, message })
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: ${JSON_TYPE}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  )
}

/**
 * How long an idle keep-alive connection stays open (Node's default is 5 s): past the idle timeout of the load balancers
 * in front (60 s on AWS's and Google Cloud's), so a balancer never sends a request on a connection the server is closing
 * at that moment, which its client sees as a 502. Answers say so (`Keep-Alive: timeout=65`): clients close first.
 */
export const KEEP_ALIVE_MILLIS = 65_000

/** A `node:http` server for a listener, answering malformed requests in the error body (`answerClientError`). */
export const createApiServer = (listener: RequestListener): Server => {
  const server = createServer(listener).on("clientError", answerClientError)
  server.keepAliveTimeout = KEEP_ALIVE_MILLIS
  return server
}
