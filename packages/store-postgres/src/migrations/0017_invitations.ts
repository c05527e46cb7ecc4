import type { Migration } from "kysely/migration"
import { ID, INSTANT, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 17 slice A: UMA invitations (docs/design/invitations-stablecoins.md, section 2). `code` is unique (reads,
 * claims and cancels find an invitation by it); the sweeper reads `PENDING` rows by `expires_at`.
 */
export const invitations: Migration = {
  up: statements(
    `CREATE TABLE invitations (
      id ${ID},
      code text NOT NULL,
      url text NOT NULL,
      inviter_customer_id ${ID},
      inviter_uma text NOT NULL,
      invitee_uma text,
      amount bigint,
      currency text,
      first_name text,
      state text NOT NULL,
      expires_at ${OPTIONAL_INSTANT},
      claimed_at ${OPTIONAL_INSTANT},
      cancelled_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT invitations_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX invitations_code_key ON invitations (code)`,
    `CREATE INDEX invitations_inviter_customer_id_idx ON invitations (inviter_customer_id, id)`,
    `CREATE INDEX invitations_state_expires_at_idx ON invitations (state, expires_at)`
  )
}
