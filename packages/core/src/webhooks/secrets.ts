import { hexToBytes } from "@noble/hashes/utils.js"
import { Effect } from "effect"
import { addSeconds, nowIso } from "../shared/time.ts"
import type { WebhookSecretInfo, WebhookSecretRecord } from "./model.ts"
import type { WebhookPorts } from "./ports.ts"
import { SECRET_PREFIX, toBase64 } from "./signing.ts"

// The webhook endpoint's Standard Webhooks signing secrets (`WebhookSecrets`): rotated with an overlap, listed
// without their value, a first one made at start-up.

/** Random bytes of a new secret (the Standard Webhooks reference libraries make 24 to 64). */
const SECRET_BYTES = 32

/** The records that sign at `now` (not expired), newest first; `records` as the store lists them, oldest first. */
const signingAt = (records: ReadonlyArray<WebhookSecretRecord>, now: string): Array<WebhookSecretRecord> =>
  records.filter((r) => r.expiresAt === undefined || r.expiresAt > now).reverse()

/** The secrets deliveries are signed with at `now`, newest first. */
export const activeSecrets = (records: ReadonlyArray<WebhookSecretRecord>, now: string): Array<string> =>
  signingAt(records, now).map((r) => r.secret)

const secretInfo = (r: WebhookSecretRecord): WebhookSecretInfo => ({
  id: r.id,
  createdAt: r.createdAt,
  ...(r.expiresAt === undefined ? {} : { expiresAt: r.expiresAt })
})

/** A new secret, as `POST /webhooks/signing-secrets/rotate` shows it: the only time `secret` is shown. */
export interface NewWebhookSecret extends WebhookSecretInfo {
  readonly secret: string
}

/** Longest overlap a rotation may give the secrets it retires (as long as a delivery is retried). */
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 3600
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 3600

const makeSecret = Effect.fnUntraced(function* (ports: WebhookPorts, now: string) {
  const { store, ids } = ports
  const bytes = hexToBytes(yield* ids.randomHex(SECRET_BYTES))
  const record: WebhookSecretRecord = {
    id: yield* ids.make("WebhookSecret"),
    secret: `${SECRET_PREFIX}${toBase64(bytes)}`,
    createdAt: now
  }
  yield* store.webhookSecrets.put(record)
  return { ...secretInfo(record), secret: record.secret } satisfies NewWebhookSecret
})

/** A new secret; the current ones retire after `overlapSeconds` (expired ones are deleted). One store transaction. */
export const rotateSecrets = Effect.fnUntraced(function* (
  ports: WebhookPorts,
  overlapSeconds: number = DEFAULT_SECRET_OVERLAP_SECONDS
) {
  const { store } = ports
  return yield* store.transaction(
    Effect.gen(function* () {
      const now = yield* nowIso
      const retireAt = addSeconds(now, Math.min(Math.max(0, overlapSeconds), MAX_SECRET_OVERLAP_SECONDS))
      for (const record of yield* store.webhookSecrets.list()) {
        const expiresAt = record.expiresAt === undefined || record.expiresAt > retireAt ? retireAt : record.expiresAt
        if (expiresAt <= now) yield* store.webhookSecrets.remove(record.id)
        else if (expiresAt !== record.expiresAt) yield* store.webhookSecrets.put({ ...record, expiresAt })
      }
      return yield* makeSecret(ports, now)
    })
  )
})

/** The secrets deliveries are signed with now (never their value), newest first. */
export const listSecrets = Effect.fnUntraced(function* (ports: WebhookPorts) {
  const now = yield* nowIso
  return signingAt(yield* ports.store.webhookSecrets.list(), now).map(secretInfo)
})

/** A first secret when there is none; `undefined` when one exists. */
export const ensureSecret = Effect.fnUntraced(function* (ports: WebhookPorts) {
  const { store } = ports
  return yield* store.transaction(
    Effect.gen(function* () {
      const now = yield* nowIso
      return signingAt(yield* store.webhookSecrets.list(), now).length > 0 ? undefined : yield* makeSecret(ports, now)
    })
  )
})
