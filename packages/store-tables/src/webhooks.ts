import type { OutboxFilter, OutboxRecord, WebhookSecretRecord } from "@paycore/core"
import { below, bigint, eq, instant, json, key, optional, table, text } from "./describe.ts"

export const outbox = table<OutboxRecord, OutboxFilter>()({
  name: "outbox",
  columns: {
    id: key("id"),
    type: text("type"),
    subject: text("subject"),
    sequence: bigint("sequence"),
    createdAt: instant("created_at"),
    body: text("body"),
    status: text("status"),
    attempts: json("attempts"),
    nextAttemptAt: instant("next_attempt_at"),
    leaseUntil: optional(instant("lease_until")),
    // Absent on rows leased before heartbeats (migration 0029): those are held by no one in particular.
    leaseOwner: optional(text("lease_owner")),
    roundStartedAt: optional(instant("round_started_at"))
  },
  primaryKey: ["id"],
  filters: {
    status: eq("status"),
    subject: eq("subject"),
    type: eq("type"),
    sequenceBelow: below("sequence")
  }
})

/** The last `sequence` handed out per subject (no record of the port: the store numbers events with it). */
export interface OutboxSubject {
  readonly subject: string
  readonly lastSequence: number
}

export const outboxSubjects = table<OutboxSubject>()({
  name: "outbox_subjects",
  columns: {
    subject: text("subject"),
    lastSequence: bigint("last_sequence")
  },
  primaryKey: ["subject"]
})

/** The webhook endpoint's Standard Webhooks signing secrets (`whsec_…`, in clear: an HMAC needs the key). */
export const webhookSecrets = table<WebhookSecretRecord>()({
  name: "webhook_secrets",
  columns: {
    id: key("id"),
    secret: text("secret"),
    createdAt: instant("created_at"),
    expiresAt: optional(instant("expires_at"))
  },
  primaryKey: ["id"]
})
