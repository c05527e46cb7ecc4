/**
 * Running a request's handler and answering with what it gives: its success (through the endpoint's responder), a
 * response it built (a stream), an intercepted response (idempotency), or its failure (`mapError`, else a defect).
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Cause, Effect, Exit, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { defect, sendError, sendJson } from "./listener-answers.ts"
import type { CompiledEndpoint, Listener, UntypedRequest } from "./listener-compile.ts"
import type { EndpointInfo, InterceptedResponse, RenderedResponse } from "./listener-types.ts"
import type { Responder } from "./responder.ts"
import { underRequestSpan } from "./telemetry.ts"

/** Runs the handler of a decoded request (through `intercept` unless its body is `streamed`), and answers. */
export const runHandler = <Principal, R>(
  l: Listener<Principal, R>,
  req: IncomingMessage,
  res: ServerResponse,
  route: CompiledEndpoint,
  request: UntypedRequest,
  streamed: boolean
): void => {
  const effect = route.handler(request)
  // A streamed body has no raw text to fingerprint, so interceptors (idempotency) do not see these requests.
  const intercepted = streamed
    ? undefined
    : l.intercept?.(
        {
          info: route.info,
          method: req.method ?? "GET",
          url: req.url ?? "/",
          headers: req.headers,
          rawBody: request.rawBody,
          principal: request.principal as Principal
        },
        effect as Effect.Effect<unknown, unknown, R>,
        (value) => renderValue(route.responder(value), value)
      )
  if (intercepted !== undefined) {
    // The request's span is the parent of what runs, the interceptor's own store transaction included.
    const fiber = l.fork(underRequestSpan(req, intercepted))
    fiber.addObserver((exit) => onInterceptedExit(l, res, route, exit))
    return
  }
  // `Effect.succeed` / `Effect.fail` are already exits: no fiber needed.
  if (Exit.isExit(effect)) {
    onExit(l, res, route, effect)
    return
  }
  const fiber = l.fork(underRequestSpan(req, effect as Effect.Effect<unknown, unknown, R>))
  const exit = fiber.pollUnsafe()
  if (exit !== undefined) onExit(l, res, route, exit)
  else fiber.addObserver((exit) => onExit(l, res, route, exit))
}

// Also runs from a fiber observer, so nothing may throw out of it (a throwing `mapError` is a defect too).
const onExit = <Principal, R>(
  l: Listener<Principal, R>,
  res: ServerResponse,
  route: CompiledEndpoint,
  exit: Exit.Exit<unknown, unknown>
): void => {
  try {
    if (Exit.isSuccess(exit)) {
      if (HttpServerResponse.isHttpServerResponse(exit.value)) sendRaw(l, res, exit.value, route.info)
      else respond(res, route.responder(exit.value), exit.value, route.successHeaders)
      return
    }
    const failure = Cause.findError(exit.cause)
    const mapped = failure._tag === "Success" ? l.mapError?.(failure.success, route.info) : undefined
    if (mapped !== undefined) sendError(res, mapped)
    else defect(l, res, exit.cause, route.info)
  } catch (error) {
    defect(l, res, Cause.die(error), route.info)
  }
}

const renderValue = ({ status, serialize }: Responder, value: unknown): RenderedResponse =>
  serialize === undefined ? { status, body: undefined } : { status, body: JSON.parse(serialize(value)) }

const onInterceptedExit = <Principal, R>(
  l: Listener<Principal, R>,
  res: ServerResponse,
  route: CompiledEndpoint,
  exit: Exit.Exit<InterceptedResponse, unknown>
) => {
  if (Exit.isFailure(exit)) {
    onExit(l, res, route, exit)
    return
  }
  const { status, body } = exit.value
  const headers =
    route.successHeaders === undefined ? exit.value.headers : { ...exit.value.headers, ...route.successHeaders }
  if (body === undefined) {
    res.writeHead(status, { ...headers, ...(status === 204 ? undefined : { "content-length": 0 }) })
    res.end()
  } else {
    sendJson(res, status, JSON.stringify(body), headers)
  }
}

const respond = (
  res: ServerResponse,
  { status, serialize }: Responder,
  value: unknown,
  headers: Readonly<Record<string, string>> | undefined
): void => {
  if (serialize === undefined) {
    res.writeHead(status, status === 204 ? headers : { ...headers, "content-length": 0 })
    res.end()
  } else {
    sendJson(res, status, serialize(value), headers)
  }
}

/**
 * Sends a response its handler built (a stream of Server-Sent Events): the head at once, then each chunk as the
 * stream yields it, waiting for the socket to drain. The stream runs until it ends (the response ends), the
 * client goes away (it is interrupted) or it fails (a defect: the status is sent already, so the connection is cut).
 */
const sendRaw = <Principal, R>(
  l: Listener<Principal, R>,
  res: ServerResponse,
  response: HttpServerResponse.HttpServerResponse,
  info: EndpointInfo
): void => {
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
  const fiber = l.fork(Stream.runForEach(body.stream, (chunk) => writeChunk(res, chunk)))
  const interrupt = () => fiber.interruptUnsafe()
  res.once("close", interrupt)
  fiber.addObserver((exit) => {
    res.off("close", interrupt)
    if (Exit.isSuccess(exit)) res.end()
    else if (Cause.hasInterruptsOnly(exit.cause)) res.destroy()
    else defect(l, res, exit.cause, info)
  })
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
