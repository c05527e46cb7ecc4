import { type TransportError, type TransportResponse, WebhookTransport } from "@paycore/core"
import { Effect, Layer } from "effect"

export interface FetchTransportOptions {
  /** Abort a delivery after this long (default 30 s: receivers must answer within 30 seconds). */
  readonly timeoutMillis?: number
  /** Keep at most this many characters of a response body (default 4096). */
  readonly maxBodyChars?: number
}

const transportError = (message: string): TransportError => ({ _tag: "TransportError", message })

const describe = (cause: unknown, timeoutMillis: number): string => {
  if (cause instanceof Error) {
    if (cause.name === "TimeoutError") return `no response within ${timeoutMillis} ms`
    const inner = (cause as { cause?: unknown }).cause
    return inner instanceof Error ? `${cause.message}: ${inner.message}` : cause.message
  }
  return String(cause)
}

/**
 * The `WebhookTransport` over the global `fetch`: a POST with the signed headers, no redirects followed
 * (a 3xx is a failed attempt), a timeout, and the response body kept (truncated) for operators and `TEST` sends.
 */
export const makeFetchWebhookTransport = (options?: FetchTransportOptions): WebhookTransport["Service"] => {
  const timeoutMillis = options?.timeoutMillis ?? 30_000
  const maxBodyChars = options?.maxBodyChars ?? 4096
  return WebhookTransport.of({
    post: (url, headers, body) =>
      Effect.tryPromise({
        try: async (signal): Promise<TransportResponse> => {
          const response = await fetch(url, {
            method: "POST",
            headers,
            body,
            redirect: "manual",
            signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMillis)])
          })
          const text = await response.text()
          return { status: response.status, body: text.length > maxBodyChars ? text.slice(0, maxBodyChars) : text }
        },
        catch: (cause) => transportError(describe(cause, timeoutMillis))
      })
  })
}

export const fetchWebhookTransportLayer = (options?: FetchTransportOptions): Layer.Layer<WebhookTransport> =>
  Layer.sync(WebhookTransport, () => makeFetchWebhookTransport(options))
