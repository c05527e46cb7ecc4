import type { Migration } from "kysely/migration"
import { OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 31: a webhook delivery is retried for 7 days from the first attempt of its round (WH-19), not for a number of
 * attempts: the row keeps when its round began. Nullable: a row not yet attempted, or replayed, has no round yet; a
 * row pending from before this migration starts its round at its next attempt.
 */
export const webhookRetryRounds: Migration = {
  up: statements(`ALTER TABLE outbox ADD COLUMN round_started_at ${OPTIONAL_INSTANT}`)
}
