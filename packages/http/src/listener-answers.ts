/**
 * How the request listener (serve.ts) answers: JSON responses batched per I/O turn, error answers, defects (500),
 * and telling `onAnswered` of an answer once it is sent.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http"
import { type FieldError, invalidInput } from "@paycore/core"
import { Cause } from "effect"
import { JSON_TYPE, type Listener } from "./listener-compile.ts"
import type { EndpointInfo, ErrorBody, ErrorResponse } from "./listener-types.ts"

export const UNAUTHORIZED_HEADERS = { "www-authenticate": 'Basic realm="paycore"' }

/** The error body each errored response was answered with, for `onAnswered`. */
const errorBodies = new WeakMap<ServerResponse, ErrorBody>()

export const sendError = (res: ServerResponse, error: ErrorResponse): void => {
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
export const sendJson = (res: ServerResponse, status: number, body: string, headers?: OutgoingHttpHeaders): void => {
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

export const invalidInputResponse = (errors: ReadonlyArray<FieldError>): ErrorResponse => {
  const error = invalidInput(errors)
  return { status: 400, code: "INVALID_INPUT", message: error.message, details: { errors: error.errors } }
}

export const unsupportedMediaType = (expected: string, contentType: string | undefined): ErrorResponse => ({
  status: 415,
  code: "UNSUPPORTED_MEDIA_TYPE",
  message: `Expected a ${expected} body, got ${contentType ?? "none"}`
})

/** Tells `onDefect` of a defect, and answers 500 `INTERNAL_ERROR` (or cuts the connection when the head is sent). */
export const defect = <Principal, R>(
  l: Listener<Principal, R>,
  res: ServerResponse,
  cause: Cause.Cause<unknown>,
  info: EndpointInfo
): void => {
  try {
    l.onDefect(cause, info)
  } catch {
    // A failing reporter must not also lose the response.
  }
  if (!res.headersSent) sendError(res, internalError)
  else res.destroy()
}

/** Tells `onAnswered` of the request once its answer is sent, or never when the client left before it. */
export const watchAnswer = <Principal, R>(
  l: Listener<Principal, R>,
  req: IncomingMessage,
  res: ServerResponse,
  info: EndpointInfo,
  principal: unknown,
  startedAt: number
): void => {
  res.once("close", () => {
    if (l.onAnswered === undefined || !res.headersSent) return
    const url = req.url ?? "/"
    const query = url.indexOf("?")
    const key = req.headers["idempotency-key"]
    try {
      l.onAnswered({
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
      l.onDefect(Cause.die(error), info)
    }
  })
}
