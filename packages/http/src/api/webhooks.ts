import { MAX_SECRET_OVERLAP_SECONDS, PageOf, PageQueryFields, WebhookId, WebhookSecretInfo } from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { CarriesSecret } from "../annotations.ts"
import { created } from "./shared.ts"

export const WebhookDelivery = Schema.Struct({
  id: WebhookId,
  type: Schema.String,
  subject: Schema.String,
  sequence: Schema.Int,
  createdAt: Schema.String,
  status: Schema.Literals(["PENDING", "DELIVERED", "DEAD"]),
  attempts: Schema.Array(
    Schema.Struct({
      at: Schema.String,
      url: Schema.String,
      responseStatus: Schema.optionalKey(Schema.Int),
      /** The first 2 KB (UTF-8) of the receiver's answer, as text. */
      responseBody: Schema.optionalKey(Schema.String),
      error: Schema.optionalKey(Schema.String),
      durationMs: Schema.Int
    })
  ),
  nextAttemptAt: Schema.String,
  /** The envelope as signed and sent. */
  event: Schema.Unknown
})

export const ListDeliveriesQuery = Schema.Struct({
  status: Schema.optionalKey(Schema.Literals(["PENDING", "DELIVERED", "DEAD"])),
  subject: Schema.optionalKey(Schema.String),
  type: Schema.optionalKey(Schema.String),
  ...PageQueryFields
})

/** Where a stream starts: after this event (`Last-Event-ID`, sent by a reconnecting client, wins over `after`). */
export const WebhookStreamQuery = Schema.Struct({ after: Schema.optionalKey(WebhookId) })
export const WebhookStreamHeaders = Schema.Struct({ "last-event-id": Schema.optionalKey(WebhookId) })

/**
 * Server-Sent Events: per event `id: <webhook id>`, `event: <type>`, `data: <the JSON body delivered to the
 * webhook URL>` and a blank line; a `: keep-alive` comment every 15 s.
 */
export const WebhookEventStream = Schema.String.annotate({
  description:
    "Server-Sent Events: per event `id: <webhook id>`, `event: <type>`, `data: <the JSON body delivered to the " +
    "webhook URL>` and a blank line; a `: keep-alive` comment every 15 s. `Last-Event-ID` (or `after`) resumes."
}).pipe(HttpApiSchema.asText({ contentType: "text/event-stream" }))

export const RotateSigningSecretRequest = Schema.Struct({
  /** How long the secrets being replaced keep signing beside the new one (default one day; 0: stop at once). */
  overlapSeconds: Schema.optionalKey(
    Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: MAX_SECRET_OVERLAP_SECONDS })))
  )
})

export const NewSigningSecret = Schema.Struct({
  ...WebhookSecretInfo.fields,
  /** `whsec_…`: shown this once; the HMAC-SHA256 key of the `v1` entries of `webhook-signature`. */
  secret: Schema.String
})

export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("publicKey", "/webhooks/public-key", { success: Schema.Struct({ publicKey: Schema.String }) })
  )
  .add(
    HttpApiEndpoint.get("listDeliveries", "/webhooks/deliveries", {
      query: ListDeliveriesQuery,
      success: PageOf(WebhookDelivery)
    })
  )
  .add(
    HttpApiEndpoint.post("replayDelivery", "/webhooks/deliveries/:webhookId/replay", {
      params: { webhookId: WebhookId },
      success: WebhookDelivery
    })
  )
  .add(
    HttpApiEndpoint.get("streamEvents", "/webhooks/stream", {
      query: WebhookStreamQuery,
      headers: WebhookStreamHeaders,
      success: WebhookEventStream
    })
  )
  .add(
    HttpApiEndpoint.get("listSigningSecrets", "/webhooks/signing-secrets", {
      success: Schema.Struct({ data: Schema.Array(WebhookSecretInfo) })
    })
  )
  .add(
    HttpApiEndpoint.post("rotateSigningSecret", "/webhooks/signing-secrets/rotate", {
      payload: RotateSigningSecretRequest,
      success: NewSigningSecret.pipe(created)
    }).annotate(CarriesSecret, true)
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Webhooks",
      description:
        "The signing public key, the Standard Webhooks signing secrets, every delivery with its attempts, and " +
        "the events as a stream of Server-Sent Events (an extension of the spec)"
    })
  )
