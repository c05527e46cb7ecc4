import {
  InvalidInput,
  type OutboxRecord,
  pageRequest,
  WebhookDispatcher,
  WebhookSecrets,
  WebhookSigner
} from "@paycore/core"
import { Effect } from "effect"
import { eventStreamResponse, STREAM_POLL_MILLIS } from "../webhook-stream.ts"
import type { GroupHandlers, HttpObservations } from "./shared.ts"

/** The operator view of an outbox row: no lease bookkeeping; the signed body is the event itself. */
const toDelivery = (r: OutboxRecord) => ({
  id: r.id,
  type: r.type,
  subject: r.subject,
  sequence: r.sequence,
  createdAt: r.createdAt,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.nextAttemptAt,
  event: JSON.parse(r.body) as unknown
})

/** The `webhooks` group: the signing key and secrets, deliveries and their replay, the event stream. */
export const webhooksHandlers = Effect.fnUntraced(function* (observations: HttpObservations) {
  const webhooks = yield* WebhookDispatcher
  const signer = yield* WebhookSigner
  const signingSecrets = yield* WebhookSecrets
  const handlers: GroupHandlers<"webhooks"> = {
    publicKey: () => Effect.succeed({ publicKey: signer.publicKeyPem }),
    listDeliveries: ({ query }) => {
      const page = pageRequest(query)
      if (page === undefined) {
        return Effect.fail(InvalidInput.one("cursor", { format: "cursor" }, "The cursor was not issued by this server"))
      }
      return Effect.map(
        webhooks.list({ status: query.status, subject: query.subject, type: query.type }, page),
        (p) => ({
          ...p,
          data: p.data.map(toDelivery)
        })
      )
    },
    replayDelivery: ({ params }) => Effect.map(webhooks.replay(params.webhookId), toDelivery),
    streamEvents: ({ query, headers }) =>
      Effect.map(
        webhooks.follow(headers["last-event-id"] ?? query.after, {
          wake: observations.writes.wake(),
          pollMillis: STREAM_POLL_MILLIS
        }),
        // Stopping the app ends the event streams, so their connections end and the server can close.
        (events) => eventStreamResponse(events, observations.closing)
      ),
    listSigningSecrets: () => Effect.map(signingSecrets.list(), (data) => ({ data })),
    rotateSigningSecret: ({ payload }) => signingSecrets.rotate(payload.overlapSeconds)
  }
  return handlers
})
