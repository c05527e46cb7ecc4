import { Schema } from "effect"
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
  /** A dispatcher holds the row until then; another may claim it after (crash recovery). */
  readonly leaseUntil?: string | undefined
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
