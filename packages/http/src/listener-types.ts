/**
 * The contract of the request listener (serve.ts): what it tells handlers and hooks of a request, what they answer,
 * and its options. Types only, so the modules that implement a hook (auth, errors, uploads, the request log) depend
 * on the contract, not on the listener.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import type { Brand, Cause, Context, Effect, Schema } from "effect"
import type { HttpServerResponse } from "effect/http"
import type { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import type { RequestTelemetry } from "./telemetry.ts"

/** What the listener knows about the endpoint a request was routed to. */
export interface EndpointInfo {
  readonly group: string
  readonly name: string
  readonly method: string
  /** The routed path, prefix included (`/2025-10-13/customers/:id`). */
  readonly path: string
  readonly public: boolean
  readonly endpoint: HttpApiEndpoint.Top
  /** API, group and endpoint annotations merged. */
  readonly annotations: Context.Context<never>
}

/** The body of every error response. */
export interface ErrorBody {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly details?: object | undefined
}

/** An error response: the body plus extra headers (`retry-after`, ...). */
export interface ErrorResponse extends ErrorBody {
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** The type a schema decodes to, or `Absent` when the endpoint declares none. */
export type TypeOf<S, Absent> = [S] extends [never] ? Absent : S extends Schema.Top ? S["Type"] : Absent

/**
 * The payload of an endpoint declaring a streamed multipart body (`HttpApiSchema.asMultipartStream()`): the
 * listener does not read it; the handler reads it (e.g. with `readMultipartForm`). Its schema is documentation.
 */
export interface StreamedBody {
  /** The request's Content-Type (always `multipart/form-data`, with its boundary). */
  readonly contentType: string
  /** The request body as it arrives. Reading stops the moment the handler stops pulling it. */
  readonly body: AsyncIterable<Uint8Array>
}

/** The payload a handler receives for a payload schema: decoded, a streamed body, or `undefined`. */
export type PayloadOf<S> = [S] extends [never]
  ? undefined
  : S extends { readonly Type: Brand.Brand<HttpApiSchema.MultipartStreamTypeId> }
    ? StreamedBody
    : TypeOf<S, undefined>

/** The decoded request a handler receives; parts the endpoint does not declare are `undefined`. */
export interface HandlerRequest<Endpoint, Principal> {
  readonly params: TypeOf<HttpApiEndpoint.Params<Endpoint>, undefined>
  readonly query: TypeOf<HttpApiEndpoint.Query<Endpoint>, undefined>
  readonly payload: PayloadOf<HttpApiEndpoint.Payload<Endpoint>>
  /** The decoded declared headers, or the raw Node headers when the endpoint declares none. */
  readonly headers: TypeOf<HttpApiEndpoint.Headers<Endpoint>, IncomingHttpHeaders>
  /** `undefined` on public endpoints unless valid credentials were sent anyway. */
  readonly principal: Principal
  /** The request body as received (`""` when there is none), e.g. for signature checks. */
  readonly rawBody: string
  /** The peer's address (`socket.remoteAddress`): behind a proxy, the proxy's. */
  readonly remoteAddress: string | undefined
}

/**
 * A handler answers with its success value (encoded with the endpoint's success schema), or with a response it
 * built itself (`HttpServerResponse.stream`) when the answer is a stream: the schema then only documents it.
 */
export type Handler<Endpoint, Principal, R> = (
  request: HandlerRequest<Endpoint, Principal>
) => Effect.Effect<TypeOf<HttpApiEndpoint.Success<Endpoint>, void> | HttpServerResponse.HttpServerResponse, unknown, R>

/** One handler per endpoint: `{ [group]: { [endpoint]: handler } }`, typed from the API's groups. */
export type Handlers<Groups extends HttpApiGroup.Constraint, Principal, R> = {
  readonly [Group in Groups as HttpApiGroup.Identifier<Group>]: {
    readonly [Endpoint in HttpApiGroup.Endpoints<Group> as HttpApiEndpoint.Identifier<Endpoint>]: Handler<
      Endpoint,
      Principal,
      R
    >
  }
}

export interface ListenerOptions<Id extends string, Groups extends HttpApiGroup.Constraint, Principal, R> {
  readonly api: HttpApi.HttpApi<Id, Groups>
  // Not an inference site: the groups come from `api`, so handlers are contextually typed per endpoint.
  readonly handlers: NoInfer<Handlers<Groups, Principal, R>>
  /** The services handlers need, built once (e.g. from a Layer) before serving. */
  readonly services: Context.Context<R>
  /** Path prefix of every route, the docs included (`/2025-10-13`). */
  readonly prefix?: string | undefined
  /**
   * Checks the `Authorization` header before anything is decoded; an `Error` return means 401, a `RequestRefused`
   * its own answer (429 `RATE_LIMITED`). Called for every non-public endpoint, and for public ones only when a header
   * is sent (`request`: its peer address and headers, unread). Without it every endpoint is public.
   * Give its parameters types (or define it apart) so `Principal` is inferred from what it returns.
   */
  readonly authenticate?:
    | ((
        authorization: string | undefined,
        endpoint: EndpointInfo,
        request: IncomingMessage
      ) => Principal | Error | Promise<Principal | Error>)
    | undefined
  /**
   * Wraps a handler run, e.g. to make it idempotent: return `undefined` to run the handler as is, or an Effect
   * that runs `effect` (or not) and yields the response to send. `render` turns a success into that response.
   */
  readonly intercept?:
    | ((
        request: InterceptedRequest<Principal>,
        effect: Effect.Effect<unknown, unknown, R>,
        render: (value: unknown) => RenderedResponse
      ) => Effect.Effect<InterceptedResponse, unknown, R> | undefined)
    | undefined
  /** Checks what the authenticated principal may do, before the body is read; a response refuses the request. */
  readonly authorize?: ((principal: Principal, endpoint: EndpointInfo) => ErrorResponse | undefined) | undefined
  /** Endpoints callable without credentials, as `group.endpoint` (same effect as the `PublicEndpoint` annotation). */
  readonly publicEndpoints?: Iterable<string> | undefined
  /** Maps a handler failure to a response; `undefined` treats the failure as a defect (500). */
  readonly mapError?: ((error: unknown, endpoint: EndpointInfo) => ErrorResponse | undefined) | undefined
  /** Receives defects (500s); by default they are printed to stderr. */
  readonly onDefect?: ((cause: Cause.Cause<unknown>, endpoint: EndpointInfo) => void) | undefined
  /**
   * Told of every request that carried valid credentials, once its answer is sent (a stream's: when it ends).
   * Never told the request's body, headers or query string.
   */
  readonly onAnswered?: ((answered: AnsweredRequest<Principal>) => void) | undefined
  /** A request id, span and log line per request routed to an endpoint (telemetry.ts); none without it. */
  readonly telemetry?: RequestTelemetry | undefined
  /** Largest accepted request body; bigger ones get 413. Default 1 MiB. */
  readonly maxBodyBytes?: number | undefined
  /** Serve `{prefix}/openapi.json` and `{prefix}/docs` (public). Default `true`. */
  readonly docs?: boolean | undefined
  /** Public files served as they are, outside the prefix (e.g. the dashboard's bundle). */
  readonly files?: ReadonlyArray<StaticFile> | undefined
}

/**
 * A public file answered from memory: with an ETag (a strong hash of the body), so a browser told `no-cache` asks
 * again and gets a 304 while the file is unchanged.
 */
export interface StaticFile {
  /** A route path; `*` at the end matches the rest of the URL. */
  readonly path: string
  readonly contentType: string
  readonly body: Buffer
  /** Default 200 (a 503 page says what is missing). */
  readonly status?: number | undefined
  readonly cacheControl?: string | undefined
  /**
   * Headers of its own, e.g. a page's `Content-Security-Policy`. Every static answer also carries
   * `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** A response as data: `body` is a JSON value (`undefined` for none). */
export interface RenderedResponse {
  readonly status: number
  readonly body: unknown
}

export interface InterceptedResponse extends RenderedResponse {
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** A request answered to an authenticated caller, as `onAnswered` is told of it. */
export interface AnsweredRequest<Principal> {
  readonly info: EndpointInfo
  readonly principal: Principal
  readonly method: string
  /** The path as requested, without its query string. */
  readonly path: string
  readonly status: number
  readonly idempotencyKey: string | undefined
  /** When the request arrived (epoch milliseconds). */
  readonly startedAt: number
  readonly durationMs: number
  /** The error body answered, when the answer was one. */
  readonly error: ErrorBody | undefined
}

export interface InterceptedRequest<Principal> {
  readonly info: EndpointInfo
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly rawBody: string
  readonly principal: Principal
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void
