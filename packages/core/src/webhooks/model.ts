import { Schema } from "effect"
import { WebhookId } from "../shared/ids.ts"
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
