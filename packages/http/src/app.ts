import {
  Agents,
  BulkImports,
  BundleSigner,
  CardsWorker,
  EngineConfig,
  EngineLayer,
  Idempotency,
  Invitations,
  KeyVault,
  makeWebhookDispatcher,
  OidcKeys,
  type Principal,
  StablecoinsWorker,
  StampVerifier,
  Store,
  Tokens,
  Transactions,
  timedPass,
  WalletVault,
  WebhookDispatcher,
  WebhookReplies
} from "@paycore/core"
import { Cause, Clock, Context, Deferred, Effect, Fiber, Layer, Schedule } from "effect"
import { PreparedCommand, SecretAnswer } from "./annotations.ts"
import { API_VERSION, Api } from "./api.ts"
import { authorize } from "./auth.ts"
import { makeAuthentication } from "./authenticate.ts"
import { toErrorResponse } from "./errors.ts"
import { defaultMissBudgetKey, type MissBudgetKey, makeHandlers } from "./handlers.ts"
import type { AnsweredRequest, EndpointInfo, RequestListener, StaticFile } from "./listener-types.ts"
import { type PreparedCall, PreparedRequest } from "./prepared.ts"
import { type AuthFailureLimit, makeRequestLimits, type RateLimit } from "./rate-limits.ts"
import { makeRequestLog } from "./request-log.ts"
import { makeRequestListener } from "./serve.ts"
import { nodeStampVerifier } from "./stamp-verifier.ts"
import { makeRequestTelemetry, telemetryReferences } from "./telemetry.ts"
import { makeWriteSignal } from "./webhook-stream.ts"

/**
 * The ports an application provides: a Store, DocumentStore, Rail, FxRates, Directory, Notifier, KycProvider,
 * WebhookTransport, WebhookSigner, Ids.
 */
export type EnginePorts = Layer.Services<typeof EngineLayer>

export interface AppOptions {
  /**
   * How often the settlement/expiry worker (with the cards worker and the invitation sweep) and the webhook
   * dispatcher run; 0 disables them (tests drive them).
   */
  readonly workerIntervalMillis?: number | undefined
  readonly webhookIntervalMillis?: number | undefined
  /**
   * How long the background dispatcher holds a claimed event without renewing it (default 10 s): it renews the lease
   * every third of it while it works on the event, so a slow receiver keeps it, and another dispatcher (or this one
   * after a restart) delivers the events of a stopped one within this long.
   */
  readonly webhookLeaseSeconds?: number | undefined
  /** How long a verified credential is trusted before the store is asked again (other processes may delete it). */
  readonly credentialTtlMillis?: number | undefined
  /** Receives 500s; defaults to stderr. Never receives request bodies or credentials. */
  readonly onDefect?: ((cause: Cause.Cause<unknown>, endpoint: EndpointInfo | undefined) => void) | undefined
  /** Public files served beside the API (the sandbox serves the dashboard: `@paycore/dashboard`'s `dashboardFiles`). */
  readonly files?: ReadonlyArray<StaticFile> | undefined
  /**
   * Whose miss budget an unknown invitation code or device code spends (IN-11, A-08; issue 31 item 7): the
   * engine's `invitationCodeMissesPerMinute` and `agentRedeemMissesPerMinute` are counted per key, so one caller
   * guessing codes blocks only itself. Default `defaultMissBudgetKey`: the API token or agent that sent the request,
   * else the peer's address. Behind a proxy, key the public redeem on the client address the proxy forwards.
   */
  readonly missBudgetKey?: MissBudgetKey | undefined
  /**
   * Requests per credential (C-43): a token bucket per API token or agent (keyed as the miss budgets key their
   * callers), `burst` at once and `perSecond` after; past it 429 `RATE_LIMITED` with `Retry-After`. Default: none.
   * Buckets are this process's: N instances allow N times the rate.
   */
  readonly rateLimit?: RateLimit | undefined
  /**
   * The throttle on failed authentication (C-43): `failures` per `windowSeconds` per caller address (as
   * `missBudgetKey` names an anonymous caller) and per client id; past it 429 `RATE_LIMITED` with `Retry-After`
   * before the credential is checked. Default: none.
   */
  readonly authFailureLimit?: AuthFailureLimit | undefined
  /**
   * One log line per request (`http request`: method, route, status, durationMs, requestId, traceId) through the
   * loggers makeApp runs with; default false. Every answer of an endpoint carries `X-Request-Id` either way.
   */
  readonly logRequests?: boolean | undefined
}

/**
 * A signed retry's second leg (it carries `Service-Wallet-Signature` or `Request-Id`) is not made idempotent by an
 * `Idempotency-Key`: its `Request-Id` already is its single-use key (W-38), and its answers must not be stored: a
 * replayed 202 would hide the retry from the service, a stored `PROCESSING` would stop the identical resend from
 * settling (W-39), and an export's answer is the wallet's sealed mnemonic, kept nowhere (W-41). First legs are made
 * idempotent as any request (a replay hands back the same challenge).
 */
const isSecondLeg = (headers: Record<string, unknown>): boolean =>
  headers["service-wallet-signature"] !== undefined || headers["request-id"] !== undefined

/** A stored answer sent again for the same `Idempotency-Key` says so in a header. */
const markReplayed = <R extends { readonly status: number; readonly body: unknown }>(response: R, replayed: boolean) =>
  replayed ? { ...response, headers: { "idempotent-replayed": "true" } } : response

/**
 * The engine served over HTTP: builds every service from the ports, binds the handlers, and
 * (unless disabled) forks the background worker (settlement, expiry, abandoned bulk imports) and webhook
 * dispatcher into the scope. Bulk imports run in the scope too.
 */
export const makeApp = (options: AppOptions = {}) =>
  Effect.gen(function* () {
    const store = yield* Store
    const clock = yield* Clock.Clock
    const context = yield* Layer.build(EngineLayer)
    const requestLog = makeRequestLog()
    const writes = makeWriteSignal()
    const missBudgetKey = options.missBudgetKey ?? defaultMissBudgetKey
    // Completed by `drain` or when the scope closes: the event streams end.
    const stopping = yield* Deferred.make<void>()
    yield* Effect.addFinalizer(() => Deferred.succeed(stopping, undefined))
    const handlers = yield* Effect.provide(
      makeHandlers({ requestLog, writes, missBudgetKey, closing: Deferred.await(stopping) }),
      context
    )
    // Auth (authenticate.ts): a cache of verified `Authorization` headers, and the rate limits (C-43).
    const { authenticate, evict } = makeAuthentication({
      tokens: Context.get(context, Tokens),
      agents: Context.get(context, Agents),
      ttlMillis: options.credentialTtlMillis ?? 30_000,
      limits: makeRequestLimits({
        rateLimit: options.rateLimit,
        authFailureLimit: options.authFailureLimit,
        callerKey: missBudgetKey,
        now: () => clock.currentTimeMillisUnsafe()
      })
    })
    const evictToken = (tokenId: string) => {
      evict(tokenId)
      requestLog.forget(tokenId)
    }

    // Every answered request of a platform token goes to its request log (not the log's own reads, nor public
    // routes, whose paths may hold an agent's device code); every answered write wakes the event streams.
    const onAnswered = (answered: AnsweredRequest<Principal>) => {
      if (answered.method !== "GET" && answered.method !== "HEAD") writes.notify()
      const { principal, info } = answered
      if (principal.kind !== "PLATFORM" || info.public || (info.group === "platform" && info.name === "requestLog")) {
        return
      }
      requestLog.record(principal.tokenId, answered)
    }

    // Mutating requests carrying `Idempotency-Key` run once per key: the response is stored in the same
    // store transaction as the command's writes and replayed for the same request. Endpoints annotated SecretAnswer
    // are the exceptions: their answers are bearer secrets, kept nowhere (the listener sends them `no-store`).
    const intercept = (
      request: {
        readonly info: EndpointInfo
        readonly principal: Principal | undefined
        readonly method: string
        readonly url: string
        readonly headers: Record<string, unknown>
        readonly rawBody: string
      },
      effect: Effect.Effect<unknown, unknown>,
      render: (value: unknown) => { readonly status: number; readonly body: unknown }
    ) => {
      const key = request.headers["idempotency-key"]
      if (request.method === "GET" || typeof key !== "string") return undefined
      if (Context.get(request.info.annotations, SecretAnswer)) return undefined
      if (isSecondLeg(request.headers)) return undefined
      const fingerprint = Idempotency.fingerprint(request.method, request.url, request.rawBody)
      // Keys are the caller's own: two agents (or an agent and the platform) sending one key never share an answer.
      const scope = request.principal?.kind === "AGENT" ? `agent:${request.principal.agentId}` : "platform"
      if (Context.get(request.info.annotations, PreparedCommand)) {
        // The handler runs `Idempotency.runPrepared` with this identity: its provider call outside any transaction.
        const call: PreparedCall = { scope, key, fingerprint, replayed: false }
        return effect.pipe(
          Effect.provideService(PreparedRequest, call),
          Effect.map((value) => markReplayed(render(value), call.replayed))
        )
      }
      return Idempotency.run(scope, key, fingerprint, effect, render).pipe(
        Effect.map((r) => markReplayed(r, r.replayed)),
        Effect.provideService(Store, store)
      )
    }

    // The wallet's ports are references: read where a handler runs. Those given to makeApp's own context are passed
    // on; stamps are checked with node:crypto (see stamp-verifier.ts).
    const references = Context.make(StampVerifier, nodeStampVerifier()).pipe(
      // The engine settings makeApp runs with reach the handlers too (e.g. incoming approvals, WH-21).
      Context.add(EngineConfig, yield* EngineConfig),
      Context.add(OidcKeys, yield* OidcKeys),
      Context.add(KeyVault, yield* KeyVault),
      Context.add(WalletVault, yield* WalletVault),
      Context.add(BundleSigner, yield* BundleSigner),
      // The tracer, loggers and metric registry makeApp runs with (a host's telemetry) reach the handlers too.
      Context.merge(telemetryReferences(yield* Effect.context<never>()))
    )
    const listener: RequestListener = makeRequestListener({
      api: Api,
      prefix: `/${API_VERSION}`,
      services: references as Context.Context<never>,
      handlers: {
        ...handlers,
        platform: {
          ...handlers.platform,
          deleteToken: (request) =>
            Effect.tap(handlers.platform.deleteToken(request), () =>
              Effect.sync(() => evictToken(request.params.tokenId))
            )
        }
      },
      authenticate,
      authorize,
      intercept,
      mapError: (error) => toErrorResponse(error),
      onDefect: options.onDefect,
      onAnswered,
      files: options.files,
      telemetry: makeRequestTelemetry(references as Context.Context<never>, { logRequests: options.logRequests })
    })

    const background: Array<Fiber.Fiber<unknown, unknown>> = []
    let dispatching: Fiber.Fiber<void> | undefined
    const worker = options.workerIntervalMillis ?? 1000
    if (worker > 0) {
      const transactions = Context.get(context, Transactions)
      const bulkImports = Context.get(context, BulkImports)
      const cardsWorker = Context.get(context, CardsWorker)
      const invitations = Context.get(context, Invitations)
      const stablecoinsWorker = Context.get(context, StablecoinsWorker)
      // The requests waiting on the event loop go between the workers' passes: on an in-process store a pass waits on
      // no I/O, so the five back to back held the loop for all of them.
      const pass = Effect.andThen(
        timedPass("payments", transactions.processDue()),
        Effect.andThen(Effect.yieldNow, timedPass("bulk_imports", bulkImports.sweep()))
      ).pipe(
        Effect.andThen(Effect.yieldNow),
        Effect.andThen(timedPass("cards", cardsWorker.processDue())),
        Effect.andThen(Effect.yieldNow),
        Effect.andThen(timedPass("invitations", invitations.processDue())),
        Effect.andThen(Effect.yieldNow),
        Effect.andThen(timedPass("stablecoins", stablecoinsWorker.processDue())),
        Effect.catchCause((cause) => Effect.logError("worker pass failed", Cause.pretty(cause)))
      )
      // Each worker's pass is timed (`paycore_worker_pass_seconds{worker}`, docs/operations.md "Telemetry"). A pass
      // is never cut: stopping the worker (drain, or the scope closing) waits for the pass under way.
      background.push(
        yield* Effect.uninterruptible(pass).pipe(Effect.repeat(Schedule.spaced(worker)), Effect.forkScoped)
      )
    }
    const dispatch = options.webhookIntervalMillis ?? 1000
    if (dispatch > 0) {
      const dispatcher =
        options.webhookLeaseSeconds === undefined
          ? Context.get(context, WebhookDispatcher)
          : yield* makeWebhookDispatcher({ leaseSeconds: options.webhookLeaseSeconds }).pipe(
              Effect.provideService(WebhookReplies, Context.get(context, WebhookReplies))
            )
      // `stopping` ends it gracefully: the attempts in flight finish, none starts, the rows not tried are given back.
      dispatching = yield* Effect.forkScoped(dispatcher.run(dispatch, stopping))
    }

    /**
     * Stops the app gracefully (issue 33 item 6), for a server that is shutting down: the event streams end, the
     * worker finishes the pass under way and the dispatcher the webhook attempts in flight; neither starts another.
     * The listener still answers meanwhile. Closing the app's scope does the same.
     */
    const drain: Effect.Effect<void> = Effect.andThen(
      Deferred.succeed(stopping, undefined),
      Effect.andThen(Fiber.interruptAll(background), dispatching === undefined ? Effect.void : Fiber.await(dispatching))
    )

    return { listener, context, drain }
  })

export type App = Effect.Success<ReturnType<typeof makeApp>>
