import type { Migration } from "kysely/migration"
import { ID, INSTANT, statements } from "./ddl.ts"

/** Issue 12: Standard Webhooks signing secrets. */
export const webhookSecrets: Migration = {
  up: statements(
    `CREATE TABLE webhook_secrets (
      id ${ID},
      secret text NOT NULL,
      created_at ${INSTANT},
      expires_at text COLLATE "C",
      CONSTRAINT webhook_secrets_pkey PRIMARY KEY (id)
    )`
  )
}
