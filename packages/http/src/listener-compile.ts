/**
 * What the request listener (serve.ts) compiles once, before it serves: a route per endpoint (its decoders, handler
 * and responder), the docs and static files, and the options the request path reads.
 */
import { createHash } from "node:crypto"
import { decodeAllOptions, decodeBodyOptions } from "@paycore/core"
import {
  Cause,
  Context,
  Effect,
  type Exit,
  type Fiber,
  Schema,
  SchemaAST,
  type SchemaIssue,
  SchemaParser
} from "effect"
import { FindMyWay } from "effect/http"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { SchemaJITCompiler } from "effect/schema"
import { CarriesSecret, PublicEndpoint, SecretAnswer } from "./annotations.ts"
import type { EndpointInfo, ListenerOptions } from "./listener-types.ts"
import {
  openApiDocument,
  REFERENCE_PAGE_CONTENT_SECURITY_POLICY,
  referenceCredentialsScript,
  referencePageHtml,
  referenceRendererScript
} from "./openapi.ts"
import { compileResponder, type Responder } from "./responder.ts"
import { excessFree } from "./schema-shape.ts"
import { SIGNED_IN_CREDENTIALS_KEY } from "./signed-in.ts"

// -----------------------------------------------------------------------------
// Compilation (once per endpoint)
// -----------------------------------------------------------------------------

export type Decode = (input: unknown) => Exit.Exit<unknown, SchemaIssue.Issue>

export interface UntypedRequest {
  readonly params: unknown
  readonly query: unknown
  readonly payload: unknown
  readonly headers: unknown
  readonly principal: unknown
  readonly rawBody: string
  readonly remoteAddress: string | undefined
}

export interface CompiledEndpoint {
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
  /** Headers of every success answer: `Cache-Control: no-store` when it carries a secret; none otherwise. */
  readonly successHeaders: Readonly<Record<string, string>> | undefined
}

/** What an answer that carries a secret is sent with: no browser or proxy keeps it (`CarriesSecret`, `SecretAnswer`). */
export const NO_STORE = { "cache-control": "no-store" } as const

export interface StaticRoute {
  readonly _tag: "Static"
  readonly contentType: string
  readonly body: Buffer
  readonly cacheControl?: string | undefined
  readonly status?: number | undefined
  readonly etag?: string | undefined
  /** Headers of its own (a page's `Content-Security-Policy`), beside `STATIC_HEADERS`. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * Sent with every static answer (the reference page, the OpenAPI document, the dashboard's files): no content-type
 * sniffing, and no `Referer` leaving a page whose URL may say what the reader is looking at.
 */
export const STATIC_HEADERS = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" } as const

export type Route = CompiledEndpoint | StaticRoute

// HttpApi types endpoint schemas with unknown services; schemas that need services to decode or encode are not
// supported here (the missing service surfaces as a defect).
type NoServices = Schema.ConstraintDecoder<unknown> & Schema.ConstraintEncoder<unknown>

// Each input schema gets effect's JIT-compiled decoder: about 4x faster than the interpreter on a valid payload; an
// invalid one is decoded again with `options` for the full issue tree. Where `new Function` is blocked it stays
// interpreted. Path, query and headers ignore what they do not declare; a body refuses it (`decodeBodyOptions`).
// The compiled decoder runs only with the default options (it hands `errors: "all"` or an `onExcessProperty` to the
// interpreter), so it runs with those, which decode a valid input to the same value; a body goes that way only when
// its fields are all declared (`excessFree`), else straight to the interpreter, which names the unknown field.
const decoder = (schema: Schema.Top, options: SchemaAST.ParseOptions = decodeAllOptions): Decode => {
  SchemaJITCompiler.enable(schema.ast)
  const full = SchemaParser.decodeUnknownExit(schema as unknown as NoServices, options)
  const fast = SchemaParser.decodeUnknownExit(schema as unknown as NoServices)
  const declared = options.onExcessProperty === "error" ? excessFree(SchemaAST.toEncoded(schema.ast)) : undefined
  return (input) => {
    if (declared !== undefined && !declared(input)) return full(input)
    const exit = fast(input)
    return exit._tag === "Success" ? exit : full(input)
  }
}

/** The payload of an endpoint whose multipart body is streamed to its handler (`StreamedBody`). */
export const STREAMED = Symbol("streamed")
export const MULTIPART_TYPE = "multipart/form-data"
export const JSON_TYPE = "application/json"

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
  return decoder(rest.length === 0 ? first : Schema.Union(json.schemas), decodeBodyOptions)
}

/** Whether the endpoint's JSON payload schema takes `null`: its body may be left out (`Schema.NullOr`). */
const acceptsNull = ({ endpoint }: EndpointInfo): boolean =>
  endpoint.payload.get("application/json")?.schemas.some((schema) => Schema.is(schema as Schema.Top)(null)) ?? false

const hasBodyMethod = (method: string): boolean => method !== "GET" && method !== "HEAD" && method !== "OPTIONS"

// -----------------------------------------------------------------------------
// The listener, compiled
// -----------------------------------------------------------------------------

/** The listener as compiled once: its routes, and the options a request reads (defaults applied). */
export interface Listener<Principal, R> {
  readonly router: FindMyWay.Router<Route>
  /** The methods of every route, for `Allow`. */
  readonly methods: ReadonlySet<string>
  readonly maxBodyBytes: number
  readonly authenticate: ListenerOptions<string, never, Principal, R>["authenticate"]
  readonly mapError: ListenerOptions<string, never, Principal, R>["mapError"]
  readonly intercept: ListenerOptions<string, never, Principal, R>["intercept"]
  readonly authorize: ListenerOptions<string, never, Principal, R>["authorize"]
  readonly onDefect: (cause: Cause.Cause<unknown>, endpoint: EndpointInfo) => void
  readonly onAnswered: ListenerOptions<string, never, Principal, R>["onAnswered"]
  readonly telemetry: ListenerOptions<string, never, Principal, R>["telemetry"]
  /** Runs a handler's effect with the listener's services. */
  readonly fork: <A, E>(effect: Effect.Effect<A, E, R>) => Fiber.Fiber<A, E>
}

const defaultOnDefect = (cause: Cause.Cause<unknown>, endpoint: EndpointInfo): void => {
  process.stderr.write(`[paycore/http] defect in ${endpoint.group}.${endpoint.name}:\n${Cause.pretty(cause)}\n`)
}

/** Compiles a route per endpoint of `options.api`, the docs' and the static files' routes, and resolves the options. */
export const compileListener = <Id extends string, Groups extends HttpApiGroup.Constraint, Principal, R>(
  options: ListenerOptions<Id, Groups, Principal, R>
): Listener<Principal, R> => {
  const prefix = (options.prefix ?? "").replace(/\/+$/, "")
  const authenticate = options.authenticate
  const publicNames = new Set(options.publicEndpoints ?? [])
  const handlerGroups = options.handlers as Record<string, Record<string, CompiledEndpoint["handler"]> | undefined>

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
        responder: compileResponder(info, successes),
        successHeaders:
          Context.get(mergedAnnotations, CarriesSecret) || Context.get(mergedAnnotations, SecretAnswer)
            ? NO_STORE
            : undefined
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
    // The page names its document and script relative to itself (`{prefix}/docs`), so it still finds them when a
    // host mounts the listener under a path of its own (docs/embedding.md).
    addRoute("GET", `${prefix}/docs`, {
      _tag: "Static",
      contentType: "text/html; charset=utf-8",
      body: Buffer.from(
        referencePageHtml(
          "openapi.json",
          rendererUrl === undefined ? undefined : "docs/renderer.js",
          spec.info.title,
          "docs/credentials.js"
        )
      ),
      headers: { "content-security-policy": REFERENCE_PAGE_CONTENT_SECURITY_POLICY }
    })
    addRoute("GET", `${prefix}/docs/credentials.js`, {
      _tag: "Static",
      contentType: "text/javascript; charset=utf-8",
      body: Buffer.from(referenceCredentialsScript(SIGNED_IN_CREDENTIALS_KEY))
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
      headers: file.headers,
      etag: `"${createHash("sha256").update(file.body).digest("base64url").slice(0, 27)}"`
    })
  }

  return {
    router,
    methods,
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    authenticate,
    mapError: options.mapError,
    intercept: options.intercept,
    authorize: options.authorize,
    onDefect: options.onDefect ?? defaultOnDefect,
    onAnswered: options.onAnswered,
    telemetry: options.telemetry,
    fork: Effect.runForkWith(options.services)
  }
}

/** The methods `url` has a route for, as `Allow` lists them (with `HEAD` where `GET` is, and `OPTIONS`). */
export const allowedMethods = <Principal, R>(l: Listener<Principal, R>, url: string): Array<string> => {
  const allowed: Array<string> = []
  for (const method of l.methods) if (l.router.find(method, url) !== undefined) allowed.push(method)
  if (allowed.includes("GET")) allowed.push("HEAD")
  if (allowed.length > 0) allowed.push("OPTIONS")
  return allowed
}
