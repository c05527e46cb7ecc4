/**
 * The HTTP side of telemetry (docs/operations.md, "Telemetry"): a request id on every answer of an endpoint, the
 * request's span (parent of the handler's service and store spans), one log line per request, and a JSON logger.
 * Nothing here exports anything: a host installs a tracer, loggers and a metrics reader in the context it builds the
 * app in (`@paycore/server`'s `telemetryLayer`), and `makeApp` hands them on to the handlers.
 */
import { randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Cause, Context, Effect, Exit, Logger, Metric, References, Tracer } from "effect"
import { Headers, HttpTraceContext } from "effect/http"
import type { EndpointInfo } from "./listener-types.ts"

/** The references of `context` that carry telemetry: the tracer, the loggers and their level, the metric registry. */
export const telemetryReferences = (context: Context.Context<never>): Context.Context<never> =>
  Context.make(Tracer.Tracer, Context.get(context, Tracer.Tracer)).pipe(
    Context.add(References.MinimumLogLevel, Context.get(context, References.MinimumLogLevel)),
    Context.add(Logger.CurrentLoggers, Context.get(context, Logger.CurrentLoggers)),
    Context.add(Metric.MetricRegistry, Context.get(context, Metric.MetricRegistry))
  )

/** What the request listener asks of telemetry for each request routed to an endpoint. */
export interface RequestTelemetry {
  /**
   * Called before the request is authenticated: sets its `X-Request-Id`, and returns the span its handler runs under
   * (`undefined` when nobody observes spans), ended with the answer.
   */
  readonly begin: (req: IncomingMessage, res: ServerResponse, info: EndpointInfo) => void
}

/** The span of each request being answered (see `underRequestSpan`). */
const requestSpans = new WeakMap<IncomingMessage, Tracer.AnySpan>()

/** A caller's `X-Request-Id` is kept when it is this short and plain (it goes into logs); else one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export const REQUEST_ID_HEADER = "x-request-id"

export interface RequestTelemetryOptions {
  /** One log line per answered request (message `http request`), through the context's loggers. Default false. */
  readonly logRequests?: boolean | undefined
}

/**
 * Request telemetry over the references of `services` (see `telemetryReferences`). The span, `METHOD route`
 * (`POST /2025-10-13/quotes`), is opened when a tracer other than effect's default is installed or requests are
 * logged (the log line carries its trace id); its attributes are the method, the route (the template, never the
 * path: a path may hold a code), the status and the request id. A `traceparent` header makes it a child of the
 * caller's span.
 */
export const makeRequestTelemetry = (
  services: Context.Context<never>,
  options: RequestTelemetryOptions = {}
): RequestTelemetry => {
  const tracer = Context.get(services, Tracer.Tracer)
  const traced = tracer !== Tracer.nativeTracer || options.logRequests === true
  const fork = Effect.runForkWith(services)
  return {
    begin: (req, res, info) => {
      const given = req.headers[REQUEST_ID_HEADER]
      const requestId = typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID()
      res.setHeader(REQUEST_ID_HEADER, requestId)
      if (!traced) return
      const startedAt = Date.now()
      const route = `${info.method} ${info.path}`
      const span = tracer.span({
        name: route,
        parent: HttpTraceContext.w3c(Headers.fromInput(req.headers as Record<string, string>)),
        annotations: Context.empty(),
        links: [],
        startTime: BigInt(startedAt) * 1_000_000n,
        kind: "server",
        root: false,
        sampled: true
      })
      span.attribute("http.request.method", info.method)
      span.attribute("http.route", info.path)
      span.attribute("paycore.request_id", requestId)
      res.once("close", () => {
        const status = res.headersSent ? res.statusCode : 499
        const endedAt = Date.now()
        span.attribute("http.response.status_code", status)
        span.end(BigInt(endedAt) * 1_000_000n, status >= 500 ? Exit.fail(`HTTP ${status}`) : Exit.void)
        if (options.logRequests === true) {
          fork(
            Effect.logInfo("http request").pipe(
              Effect.annotateLogs({
                method: info.method,
                route: info.path,
                status,
                durationMs: endedAt - startedAt,
                requestId,
                traceId: span.traceId,
                spanId: span.spanId
              })
            )
          )
        }
      })
      requestSpans.set(req, span)
    }
  }
}

/** Runs a handler's effect as a child of its request's span (as it is without one). */
export const underRequestSpan = <A, E, R>(
  req: IncomingMessage,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const span = requestSpans.get(req)
  return span === undefined ? effect : Effect.withParentSpan(effect, span)
}

/**
 * A logger writing one JSON object per line to stdout: `timestamp`, `level`, `message`, the log's annotations as
 * fields of their own (a request's `method`, `route`, `status`, `durationMs`, `requestId`, `traceId`), and the trace
 * and span ids of the span the log was written in, when there is one. What is logged is chosen where it is logged:
 * the engine never logs a secret, a token, an OTP, an account number or a card reveal URL.
 */
export const jsonLogger: Logger.Logger<unknown, void> = Logger.make(({ cause, date, fiber, logLevel, message }) => {
  const span = fiber.cache.span
  const line: Record<string, unknown> = {
    timestamp: date.toISOString(),
    level: logLevel.toUpperCase(),
    message: Array.isArray(message) && message.length === 1 ? message[0] : message,
    ...(span === undefined ? {} : { traceId: span.traceId, spanId: span.spanId }),
    ...fiber.getRef(References.CurrentLogAnnotations)
  }
  if (cause.reasons.length > 0) line.cause = Cause.pretty(cause)
  process.stdout.write(`${safeStringify(line)}\n`)
})

const safeStringify = (value: unknown): string => {
  try {
    return JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v))
  } catch {
    return JSON.stringify({ message: String(value) })
  }
}
