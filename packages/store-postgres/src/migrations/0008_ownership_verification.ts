import type { Migration } from "kysely/migration"
import { ID, INSTANT, statements } from "./ddl.ts"

/** Issue 14: ownership challenges of self-custody wallets (AC-26 … AC-28), one per external account. */
export const ownershipVerification: Migration = {
  up: statements(
    `CREATE TABLE ownership_challenges (
      id ${ID},
      customer_id ${ID},
      method text NOT NULL,
      status text NOT NULL,
      nonce text NOT NULL,
      expires_at ${INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      message_to_sign text,
      verification_link text,
      token text,
      CONSTRAINT ownership_challenges_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX ownership_challenges_customer_id_idx ON ownership_challenges (customer_id, id)`
  )
}
