import { type TransportResponse, WebhookTransport } from "@paycore/core"
import { Clock, Effect, Layer } from "effect"

/** One POST the engine made. Header names as sent (`X-Service-Signature`, `webhook-id`, ...). */
export interface RecordedWebhook {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The Clock's time of the call (TestClock time in tests). */
  readonly atMillis: number
}

/**
 * How to answer one call: a status (empty body), a status and body, or a transport failure
 * (connection refused, timeout) with `error` as its message.
 */
export type RecorderAnswer = number | { readonly status: number; readonly body?: string } | { readonly error: string }

export interface WebhookRecorder {
  /** A `WebhookTransport` layer backed by this recorder. */
  readonly layer: Layer.Layer<WebhookTransport>
  readonly transport: WebhookTransport["Service"]
  /** Every request so far, oldest first. */
  readonly requests: () => ReadonlyArray<RecordedWebhook>
  /** The JSON bodies of the requests, parsed. */
  readonly events: () => ReadonlyArray<{ readonly id: string; readonly type: string; readonly data: unknown }>
  /** Answers for the next calls, in order; once used up, `respond` (or the default) answers. */
  readonly enqueue: (...answers: ReadonlyArray<RecorderAnswer>) => void
  /** The answer when the queue is empty, per call (`index` counts every call from 0). */
  readonly setResponder: (respond: (request: RecordedWebhook, index: number) => RecorderAnswer) => void
  /** Forget the requests and queued answers. */
  readonly reset: () => void
}

/** An in-memory `WebhookTransport` that records requests and answers with a programmable status per call (default 200). */
export const makeWebhookRecorder = (options?: {
  readonly respond?: (request: RecordedWebhook, index: number) => RecorderAnswer
}): WebhookRecorder => {
  const requests: Array<RecordedWebhook> = []
  const queue: Array<RecorderAnswer> = []
  let respond: (request: RecordedWebhook, index: number) => RecorderAnswer = options?.respond ?? (() => 200)

  const transport = WebhookTransport.of({
    post: (url, headers, body) =>
      Effect.flatMap(Clock.currentTimeMillis, (atMillis) => {
        const request: RecordedWebhook = { url, headers: { ...headers }, body, atMillis }
        const index = requests.length
        requests.push(request)
        const answer = queue.length > 0 ? queue.shift()! : respond(request, index)
        if (typeof answer === "number") return Effect.succeed<TransportResponse>({ status: answer, body: "" })
        if ("error" in answer) return Effect.fail({ _tag: "TransportError" as const, message: answer.error })
        return Effect.succeed<TransportResponse>({ status: answer.status, body: answer.body ?? "" })
      })
  })

  return {
    layer: Layer.succeed(WebhookTransport, transport),
    transport,
    requests: () => [...requests],
    events: () => requests.map((r) => JSON.parse(r.body) as { id: string; type: string; data: unknown }),
    enqueue: (...answers) => {
      queue.push(...answers)
    },
    setResponder: (next) => {
      respond = next
    },
    reset: () => {
      requests.length = 0
      queue.length = 0
    }
  }
}
