import { Context, type Effect, Schema } from "effect"
import type { StoreError } from "../shared/errors.ts"
import { WebhookId, WebhookSecretId } from "../shared/ids.ts"
import { DateTimeString } from "../shared/schemas.ts"

/** The envelope POSTed to the platform. */
export const WebhookEvent = Schema.Struct({
  id: WebhookId,
  type: Schema.String,
  timestamp: DateTimeString,
  data: Schema.Unknown
})
export type WebhookEvent = typeof WebhookEvent.Type

export const DeliveryStatus = Schema.Literals(["PENDING", "DELIVERED", "DEAD"])
export type DeliveryStatus = typeof DeliveryStatus.Type

export const DeliveryAttempt = Schema.Struct({
  at: DateTimeString,
  url: Schema.String,
  responseStatus: Schema.optionalKey(Schema.Int),
  /** The start of the receiver's answer as text: at most `RESPONSE_BODY_MAX_BYTES` of UTF-8 (a whole character). */
  responseBody: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(Schema.String),
  durationMs: Schema.Int
})
export type DeliveryAttempt = typeof DeliveryAttempt.Type

/**
 * One event in the outbox, written in the same store transaction as the change it reports.
 * `subject` is the resource the event is about (a transaction id); `sequence` orders events per subject.
 */
export interface OutboxRecord {
  readonly id: WebhookId
  readonly type: string
  readonly subject: string
  readonly sequence: number
  readonly createdAt: string
  /** The exact JSON body that is signed and sent. */
  readonly body: string
  readonly status: DeliveryStatus
  readonly attempts: ReadonlyArray<DeliveryAttempt>
  readonly nextAttemptAt: string
  /**
   * A dispatcher holds the row until then, renewing it while it works on it; another may claim it after (a stopped
   * dispatcher gives it up within one lease).
   */
  readonly leaseUntil?: string | undefined
  /** Who holds the lease: a token of the dispatcher's pass that claimed it (what it renews and releases by). */
  readonly leaseOwner?: string | undefined
  /**
   * The first attempt of the current round of deliveries: retries end `webhookRetryWindowSeconds` after it (WH-19).
   * Absent before the first failed attempt, and again after a replay (which starts a new round).
   */
  readonly roundStartedAt?: string | undefined
}

/**
 * A Standard Webhooks signing secret of the platform's webhook endpoint: `whsec_` and the base64 of 32 random
 * bytes, the HMAC-SHA256 key of the `v1` signatures. Kept in clear (an HMAC needs the key itself), shown once
 * when made. A rotation gives the secrets it replaces an `expiresAt`: until then deliveries carry a `v1`
 * signature for each, so receivers can switch over without refusing a delivery.
 */
export interface WebhookSecretRecord {
  readonly id: WebhookSecretId
  readonly secret: string
  readonly createdAt: string
  readonly expiresAt?: string | undefined
}

/** What `GET /webhooks/signing-secrets` shows of a secret: never the secret itself. */
export const WebhookSecretInfo = Schema.Struct({
  id: WebhookSecretId,
  createdAt: DateTimeString,
  /** Set once a rotation retired it: deliveries stop carrying its signature then. */
  expiresAt: Schema.optionalKey(DateTimeString)
})
export type WebhookSecretInfo = typeof WebhookSecretInfo.Type

/** What the platform's endpoint answered to one delivery attempt, or why it could not be reached. */
export type WebhookReply =
  | { readonly _tag: "Response"; readonly status: number; readonly body: string }
  | { readonly _tag: "TransportError"; readonly message: string }

/**
 * A context above webhooks that acts on the platform's replies to events of some types (the incoming approvals of
 * transactions, WH-21): after each attempt to deliver an event of a type in `types`, the dispatcher calls
 * `onReply` with the event's subject and the reply. The handler runs its own store transaction; its failure is
 * logged and does not change the delivery.
 */
export interface WebhookReplyHandler {
  readonly types: ReadonlyArray<string>
  readonly onReply: (
    event: { readonly id: string; readonly type: string; readonly subject: string },
    reply: WebhookReply
  ) => Effect.Effect<void, StoreError>
}

/**
 * The reply handlers the dispatcher calls (default none: replies only decide delivery). Webhooks stays the bottom
 * layer: a context above provides the handlers (engine.ts), the dispatcher only knows this shape.
 */
export const WebhookReplies = Context.Reference<ReadonlyArray<WebhookReplyHandler>>("paycore/webhooks/WebhookReplies", {
  defaultValue: () => []
})
