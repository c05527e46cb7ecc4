/**
 * A lean `node:http` request listener driven by an effect `HttpApi` definition.
 *
 * Routing, input decoding and success encoding are all derived from the definition (compiled once at start); only
 * the hot path is hand-written: no per-request Layer, logger, span, or HttpServerRequest wrapper.
 */
import { createHash } from "node:crypto"
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
  STATUS_CODES
} from "node:http"
import type { Duplex } from "node:stream"
import {
  collectTextErrors,
  decodeAllOptions,
  type FieldError,
  fieldErrorsFromIssue,
  invalidInput,
  issueFromCause
} from "@paycore/core"
import { Cause, Context, Effect, Exit, Schema, type SchemaIssue, SchemaParser, Stream } from "effect"
import { FindMyWay, HttpServerResponse } from "effect/http"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { SchemaJITCompiler } from "effect/schema"
import { PublicEndpoint } from "./annotations.ts"
import { AuthenticationRefused } from "./credentials.ts"
import type {
  EndpointInfo,
  ErrorBody,
  ErrorResponse,
  InterceptedResponse,
  ListenerOptions,
  RenderedResponse,
  RequestListener,
  StreamedBody
} from "./listener-types.ts"
import { mediaTypeOf } from "./multipart.ts"
import { openApiDocument, referencePageHtml, referenceRendererScript } from "./openapi.ts"
import { compileResponder, type Responder } from "./responder.ts"

// -----------------------------------------------------------------------------
// Compilation (once per endpoint)
// -----------------------------------------------------------------------------

type Decode = (input: unknown) => Exit.Exit<unknown, SchemaIssue.Issue>

interface UntypedRequest {
  readonly params: unknown
  readonly query: unknown
  readonly payload: unknown
  readonly headers: unknown
  readonly principal: unknown
  readonly rawBody: string
}

interface CompiledEndpoint {
  readonly _tag: "Endpoint"
  readonly info: EndpointInfo
  readonly decodeParams: Decode | undefined
  readonly decodeQuery: Decode | undefined
  readonly decodeHeaders: Decode | undefined
  /** A JSON body's decoder, or `STREAMED` for a multipart body the handler reads itself. */
  readonly decodePayload: Decode | typeof STREAMED | undefined
  /** What an empty body decodes as: `null` where the payload schema takes null (an optional body), else nothing. */
  readonly emptyBody: null | undefined
  readonly handler: (request: UntypedRequest) => Effect.Effect<unknown, unknown, unknown>
  readonly responder: (value: unknown) => Responder
}

interface StaticRoute {
  readonly _tag: "Static"
  readonly contentType: string
  readonly body: Buffer
  readonly cacheControl?: string | undefined
  readonly status?: number | undefined
  readonly etag?: string | undefined
}

type Route = CompiledEndpoint | StaticRoute

// HttpApi types endpoint schemas with unknown services; schemas that need services to decode or encode are not
// supported here (the missing service surfaces as a defect).
type NoServices = Schema.ConstraintDecoder<unknown> & Schema.ConstraintEncoder<unknown>

// Each input schema gets effect's JIT-compiled decoder: about 4x faster than the interpreter on a valid payload; an
// invalid one is decoded again for the full issue tree. Where `new Function` is blocked it stays interpreted.
const decoder = (schema: Schema.Top): Decode => {
  SchemaJITCompiler.enable(schema.ast)
  return SchemaParser.decodeUnknownExit(schema as unknown as NoServices, decodeAllOptions)
}

/** The payload of an endpoint whose multipart body is streamed to its handler (`StreamedBody`). */
const STREAMED = Symbol("streamed")
const MULTIPART_TYPE = "multipart/form-data"

const compilePayload = (info: EndpointInfo): Decode | typeof STREAMED | undefined => {
  const { endpoint } = info
  if (endpoint.payload.size === 0) return undefined
  if (!hasBodyMethod(endpoint.method)) {
    throw new Error(`${info.group}.${info.name}: declare \`query\` instead of a payload on ${endpoint.method}`)
  }
  const multipart = endpoint.payload.get(MULTIPART_TYPE)
  if (multipart?.encoding._tag === "Multipart" && multipart.encoding.mode === "stream" && endpoint.payload.size === 1) {
    return STREAMED
  }
  const json = endpoint.payload.get("application/json")
  if (json === undefined || endpoint.payload.size > 1 || json.encoding._tag !== "Json") {
    throw new Error(`${info.group}.${info.name}: only JSON and streamed multipart request bodies are supported`)
  }
  const [first, ...rest] = json.schemas
  return decoder(rest.length === 0 ? first : Schema.Union(json.schemas))
}

/** Whether the endpoint's JSON payload schema takes `null`: its body may be left out (`Schema.NullOr`). */
const acceptsNull = ({ endpoint }: EndpointInfo): boolean =>
  endpoint.payload.get("application/json")?.schemas.some((schema) => Schema.is(schema as Schema.Top)(null)) ?? false

const hasBodyMethod = (method: string): boolean => method !== "GET" && method !== "HEAD" && method !== "OPTIONS"

// -----------------------------------------------------------------------------
// Responses
// -----------------------------------------------------------------------------

const JSON_TYPE = "application/json"
const UNAUTHORIZED_HEADERS = { "www-authenticate": 'Basic realm="paycore"' }

/** The error body each errored response was answered with, for `onAnswered`. */
const errorBodies = new WeakMap<ServerResponse, ErrorBody>()

const sendError = (res: ServerResponse, error: ErrorResponse): void => {
  const answered: ErrorBody = {
    status: error.status,
    code: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details })
  }
  errorBodies.set(res, answered)
  sendJson(res, error.status, JSON.stringify(answered), error.headers)
}

/**
 * Sends a JSON response (every JSON response of the listener goes through here) at the end of the current I/O
 * batch, with the other responses of that batch. Written back to back, the first write wakes the client and the
 * others find it awake; written one per handler, spread over the batch, each write pays for a wake-up of its own
 * (on a 2-vCPU VM this roughly halved the server CPU per `POST /quotes`). A response waits at most for the rest of
 * its batch, and one connection has one request in flight, so nothing is reordered.
 */
const sendJson = (res: ServerResponse, status: number, body: string, headers?: OutgoingHttpHeaders): void => {
  pending.push({ res, status, body, headers })
  if (!flushScheduled) {
    flushScheduled = true
    setImmediate(flushPending)
  }
}
interface PendingResponse {
  readonly res: ServerResponse
  readonly status: number
  readonly body: string
  readonly headers: OutgoingHttpHeaders | undefined
}
let pending: Array<PendingResponse> = []
let flushScheduled = false
const flushPending = (): void => {
  const batch = pending
  pending = []
  flushScheduled = false
  for (const { res, status, body, headers } of batch) {
    // A string, not a Buffer: Node then sends the head and the body in one write (a Buffer body takes a
    // writev of two chunks).
    try {
      res.writeHead(status, { ...headers, "content-type": JSON_TYPE, "content-length": Buffer.byteLength(body) })
      res.end(body)
    } catch {
      // The connection is gone or already answered: nothing left to tell this client, and the batch goes on.
      res.destroy()
    }
  }
}

const internalError: ErrorResponse = { status: 500, code: "INTERNAL_ERROR", message: "Internal error" }

const invalidInputResponse = (errors: ReadonlyArray<FieldError>): ErrorResponse => {
  const error = invalidInput(errors)
  return { status: 400, code: "INVALID_INPUT", message: error.message, details: { errors: error.errors } }
}

const isJsonContentType = (contentType: string): boolean => {
  const mediaType = mediaTypeOf(contentType)
  return mediaType === JSON_TYPE || (mediaType.startsWith("application/") && mediaType.endsWith("+json"))
}

const unsupportedMediaType = (expected: string, contentType: string | undefined): ErrorResponse => ({
  status: 415,
  code: "UNSUPPORTED_MEDIA_TYPE",
  message: `Expected a ${expected} body, got ${contentType ?? "none"}`
})

/**
 * The request body as an async iterable that, when the handler stops early, only stops reading: Node then
 * discards the rest after the response, so the client still gets the answer (destroying the request would
 * reset the connection under it).
 */
const streamedBody = (req: IncomingMessage): AsyncIterable<Uint8Array> => ({
  [Symbol.asyncIterator]: () => req.iterator({ destroyOnReturn: false })
})

// -----------------------------------------------------------------------------
// The listener
// -----------------------------------------------------------------------------

const defaultOnDefect = (cause: Cause.Cause<unknown>, endpoint: EndpointInfo): void => {
  process.stderr.write(`[paycore/http] defect in ${endpoint.group}.${endpoint.name}:\n${Cause.pretty(cause)}\n`)
}

/**
 * Builds a `node:http` request listener serving `api` with `handlers`.
 *
 * - Routes: each endpoint's method and path under `prefix`; unknown path → 404 `NOT_FOUND`, known path with another
 *   method → 405 `METHOD_NOT_ALLOWED` (with `Allow`), `OPTIONS` → 204 with `Allow`, `HEAD` runs the `GET` endpoint.
 * - Auth: `authenticate` runs before the body is read; failure → 401 `UNAUTHORIZED` + `www-authenticate`.
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
  const prefix = (options.prefix ?? "").replace(/\/+$/, "")
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024
  const authenticate = options.authenticate
  const mapError = options.mapError
  const intercept = options.intercept
  const authorizeRequest = options.authorize
  const onDefect = options.onDefect ?? defaultOnDefect
  const onAnswered = options.onAnswered
  const publicNames = new Set(options.publicEndpoints ?? [])
  const handlerGroups = options.handlers as Record<string, Record<string, CompiledEndpoint["handler"]> | undefined>
  const fork = Effect.runForkWith(options.services)

  const protectedNames = new Set<string>()
  const router = FindMyWay.make<Route>({ caseSensitive: true })
  const methods = new Set<string>()
  const addRoute = (method: string, path: string, route: Route) => {
    router.on(method, (path === "" ? "/" : path) as FindMyWay.PathInput, route)
    methods.add(method)
  }

  HttpApi.reflect(options.api, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint, mergedAnnotations, successes }) => {
      const name = `${group.identifier}.${endpoint.identifier}`
      const handler = handlerGroups[group.identifier]?.[endpoint.identifier]
      if (handler === undefined) throw new Error(`No handler for ${name}`)
      const info: EndpointInfo = {
        group: group.identifier,
        name: endpoint.identifier,
        method: endpoint.method,
        path: prefix + endpoint.path,
        public: authenticate === undefined || publicNames.has(name) || Context.get(mergedAnnotations, PublicEndpoint),
        endpoint,
        annotations: mergedAnnotations
      }
      if (!info.public) protectedNames.add(name)
      addRoute(endpoint.method, info.path, {
        _tag: "Endpoint",
        info,
        decodeParams: endpoint.params && decoder(endpoint.params),
        decodeQuery: endpoint.query && decoder(Schema.toCodecArrayFromSingle(endpoint.query)),
        decodeHeaders: endpoint.headers && decoder(endpoint.headers),
        decodePayload: compilePayload(info),
        emptyBody: acceptsNull(info) ? null : undefined,
        handler,
        responder: compileResponder(info, successes)
      })
    }
  })

  if (options.docs ?? true) {
    const spec = openApiDocument(options.api, {
      serverUrl: prefix === "" ? undefined : prefix,
      requiresAuth: (group, endpoint) => protectedNames.has(`${group}.${endpoint}`)
    })
    addRoute("GET", `${prefix}/openapi.json`, {
      _tag: "Static",
      contentType: JSON_TYPE,
      body: Buffer.from(JSON.stringify(spec))
    })
    const renderer = referenceRendererScript()
    const rendererUrl = renderer === undefined ? undefined : `${prefix}/docs/renderer.js`
    addRoute("GET", `${prefix}/docs`, {
      _tag: "Static",
      contentType: "text/html; charset=utf-8",
      body: Buffer.from(referencePageHtml(`${prefix}/openapi.json`, rendererUrl, spec.info.title))
    })
    if (renderer !== undefined && rendererUrl !== undefined) {
      addRoute("GET", rendererUrl, {
        _tag: "Static",
        contentType: "text/javascript; charset=utf-8",
        body: renderer,
        cacheControl: "public, max-age=3600"
      })
    }
  }

  for (const file of options.files ?? []) {
    addRoute("GET", file.path, {
      _tag: "Static",
      contentType: file.contentType,
      body: file.body,
      cacheControl: file.cacheControl,
      status: file.status,
      etag: `"${createHash("sha256").update(file.body).digest("base64url").slice(0, 27)}"`
    })
  }

  const allowedMethods = (url: string): Array<string> => {
    const allowed: Array<string> = []
    for (const method of methods) if (router.find(method, url) !== undefined) allowed.push(method)
    if (allowed.includes("GET")) allowed.push("HEAD")
    if (allowed.length > 0) allowed.push("OPTIONS")
    return allowed
  }

  const noRoute = (res: ServerResponse, method: string, url: string): void => {
    const allowed = allowedMethods(url)
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

  const defect = (res: ServerResponse, cause: Cause.Cause<unknown>, info: EndpointInfo): void => {
    try {
      onDefect(cause, info)
    } catch {
      // A failing reporter must not also lose the response.
    }
    if (!res.headersSent) sendError(res, internalError)
    else res.destroy()
  }

  const respond = (res: ServerResponse, { status, serialize }: Responder, value: unknown): void => {
    if (serialize === undefined) {
      res.writeHead(status, status === 204 ? undefined : { "content-length": 0 })
      res.end()
    } else {
      sendJson(res, status, serialize(value))
    }
  }

  /**
   * Sends a response its handler built (a stream of Server-Sent Events): the head at once, then each chunk as the
   * stream yields it, waiting for the socket to drain. The stream runs until it ends (the response ends), the
   * client goes away (it is interrupted) or it fails (a defect: the status is sent already, so the connection is cut).
   */
  const sendRaw = (res: ServerResponse, response: HttpServerResponse.HttpServerResponse, info: EndpointInfo): void => {
    const body = response.body
    if (body._tag !== "Stream") throw new Error(`${info.group}.${info.name}: answer with a streamed response only`)
    // The connection ends with the stream: a server that is closing would otherwise wait for it to idle out.
    res.writeHead(response.status, {
      ...Object.fromEntries(Object.entries(response.headers)),
      "content-type": body.contentType,
      connection: "close"
    })
    // HEAD gets the head only: no body is ever sent, so the stream is not run.
    if (res.req.method === "HEAD") {
      res.end()
      return
    }
    res.flushHeaders()
    const fiber = fork(Stream.runForEach(body.stream, (chunk) => writeChunk(res, chunk)))
    const interrupt = () => fiber.interruptUnsafe()
    res.once("close", interrupt)
    fiber.addObserver((exit) => {
      res.off("close", interrupt)
      if (Exit.isSuccess(exit)) res.end()
      else if (Cause.hasInterruptsOnly(exit.cause)) res.destroy()
      else defect(res, exit.cause, info)
    })
  }

  /** Tells `onAnswered` of the request once its answer is sent, or never when the client left before it. */
  const watchAnswer = (
    req: IncomingMessage,
    res: ServerResponse,
    info: EndpointInfo,
    principal: unknown,
    startedAt: number
  ): void => {
    res.once("close", () => {
      if (onAnswered === undefined || !res.headersSent) return
      const url = req.url ?? "/"
      const query = url.indexOf("?")
      const key = req.headers["idempotency-key"]
      try {
        onAnswered({
          info,
          principal: principal as Principal,
          method: req.method ?? "GET",
          path: query === -1 ? url : url.slice(0, query),
          status: res.statusCode,
          idempotencyKey: typeof key === "string" ? key : undefined,
          startedAt,
          durationMs: Date.now() - startedAt,
          error: errorBodies.get(res)
        })
      } catch (error) {
        // An observer's failure is a defect of its own: the answer is sent already.
        onDefect(Cause.die(error), info)
      }
    })
  }

  // Also runs from a fiber observer, so nothing may throw out of it (a throwing `mapError` is a defect too).
  const onExit = (res: ServerResponse, route: CompiledEndpoint, exit: Exit.Exit<unknown, unknown>): void => {
    try {
      if (Exit.isSuccess(exit)) {
        if (HttpServerResponse.isHttpServerResponse(exit.value)) sendRaw(res, exit.value, route.info)
        else respond(res, route.responder(exit.value), exit.value)
        return
      }
      const failure = Cause.findError(exit.cause)
      const mapped = failure._tag === "Success" ? mapError?.(failure.success, route.info) : undefined
      if (mapped !== undefined) sendError(res, mapped)
      else defect(res, exit.cause, route.info)
    } catch (error) {
      defect(res, Cause.die(error), route.info)
    }
  }

  const run = (
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
        for (let i = 0; i < errors.length; i++)
          if (errors[i]!.field === "") errors[i] = { ...errors[i]!, field: "body" }
        payload = decodeInto(route.decodePayload, json, BODY, errors)
      }
    }
    if (errors.length > 0) {
      sendError(res, invalidInputResponse(errors))
      return
    }
    const effect = route.handler({ params, query, payload, headers, principal, rawBody })
    // A streamed body has no raw text to fingerprint, so interceptors (idempotency) do not see these requests.
    const intercepted = streamed
      ? undefined
      : intercept?.(
          {
            info: route.info,
            method: req.method ?? "GET",
            url: req.url ?? "/",
            headers: req.headers,
            rawBody,
            principal: principal as Principal
          },
          effect as Effect.Effect<unknown, unknown, R>,
          (value) => renderValue(route.responder(value), value)
        )
    if (intercepted !== undefined) {
      const fiber = fork(intercepted)
      fiber.addObserver((exit) => onInterceptedExit(res, route, exit))
      return
    }
    // `Effect.succeed` / `Effect.fail` are already exits: no fiber needed.
    if (Exit.isExit(effect)) {
      onExit(res, route, effect)
      return
    }
    const fiber = fork(effect as Effect.Effect<unknown, unknown, R>)
    const exit = fiber.pollUnsafe()
    if (exit !== undefined) onExit(res, route, exit)
    else fiber.addObserver((exit) => onExit(res, route, exit))
  }

  const renderValue = ({ status, serialize }: Responder, value: unknown): RenderedResponse =>
    serialize === undefined ? { status, body: undefined } : { status, body: JSON.parse(serialize(value)) }

  const onInterceptedExit = (
    res: ServerResponse,
    route: CompiledEndpoint,
    exit: Exit.Exit<InterceptedResponse, unknown>
  ) => {
    if (Exit.isFailure(exit)) {
      onExit(res, route, exit)
      return
    }
    const { status, body, headers } = exit.value
    if (body === undefined) {
      res.writeHead(status, { ...headers, ...(status === 204 ? undefined : { "content-length": 0 }) })
      res.end()
    } else {
      sendJson(res, status, JSON.stringify(body), headers)
    }
  }

  const readBody = (req: IncomingMessage, res: ServerResponse, next: (rawBody: string) => void): void => {
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

  // The principal, or `undefined` after answering 401; a promise when the credentials were not cached.
  const authorize = (
    req: IncomingMessage,
    res: ServerResponse,
    info: EndpointInfo
  ): { principal: unknown } | undefined | Promise<{ principal: unknown } | undefined> => {
    const authorization = req.headers.authorization
    if (authenticate === undefined || (info.public && authorization === undefined)) return NO_PRINCIPAL
    const settle = (result: unknown): { principal: unknown } | undefined => {
      if (!(result instanceof Error)) return { principal: result }
      if (info.public) return NO_PRINCIPAL
      const headers =
        result instanceof AuthenticationRefused ? { "www-authenticate": result.challenge } : UNAUTHORIZED_HEADERS
      sendError(res, { status: 401, code: "UNAUTHORIZED", message: result.message, headers })
      return undefined
    }
    const result = authenticate(authorization, info)
    return result instanceof Promise ? result.then(settle) : settle(result)
  }

  return (req, res) => {
    const startedAt = onAnswered === undefined ? 0 : Date.now()
    const method = req.method ?? "GET"
    const url = req.url ?? "/"
    const found = router.find(method, url) ?? (method === "HEAD" ? router.find("GET", url) : undefined)
    if (found === undefined) {
      noRoute(res, method, url)
      return
    }
    const route = found.handler
    if (route._tag === "Static") {
      const headers = {
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
      return
    }
    try {
      const auth = authorize(req, res, route.info)
      if (auth instanceof Promise) {
        auth.then(
          (settled) => settled !== undefined && proceed(req, res, route, found, settled.principal, startedAt),
          (error) => defect(res, Cause.die(error), route.info)
        )
        return
      }
      if (auth === undefined) return
      proceed(req, res, route, found, auth.principal, startedAt)
    } catch (error) {
      defect(res, Cause.die(error), route.info)
    }
  }

  function proceed(
    req: IncomingMessage,
    res: ServerResponse,
    route: CompiledEndpoint,
    found: FindMyWay.FindResult<Route>,
    principal: unknown,
    startedAt: number
  ): void {
    try {
      if (onAnswered !== undefined && principal !== undefined) watchAnswer(req, res, route.info, principal, startedAt)
      const refused = principal === undefined ? undefined : authorizeRequest?.(principal as Principal, route.info)
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
        run(req, res, route, found, principal, "")
        return
      }
      const hasBody = req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0"
      if (!hasBody) {
        run(req, res, route, found, principal, "")
        return
      }
      readBody(req, res, (rawBody) => {
        try {
          run(req, res, route, found, principal, rawBody)
        } catch (error) {
          defect(res, Cause.die(error), route.info)
        }
      })
    } catch (error) {
      defect(res, Cause.die(error), route.info)
    }
  }
}

/** Writes a chunk of a streamed answer; waits for the socket to drain when its buffer is full. */
const writeChunk = (res: ServerResponse, chunk: Uint8Array): Effect.Effect<void> =>
  res.write(chunk)
    ? Effect.void
    : Effect.callback<void>((resume) => {
        const drained = () => resume(Effect.void)
        res.once("drain", drained)
        return Effect.sync(() => res.off("drain", drained))
      })

const NO_PRINCIPAL = { principal: undefined }
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

/** A `node:http` server for a listener, answering malformed requests in the error body (`answerClientError`). */
export const createApiServer = (listener: RequestListener): Server =>
  createServer(listener).on("clientError", answerClientError)
