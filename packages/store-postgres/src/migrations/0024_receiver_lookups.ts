import type { Migration } from "kysely/migration"
import { ID, INSTANT, statements } from "./ddl.ts"

/**
 * Issue 30: receiver lookups are kept until they expire (Q-03, C-23, Q-48): `POST /quotes` reads one by its
 * `lookupId` (the primary key).
 */
export const receiverLookups: Migration = {
  up: statements(
    `CREATE TABLE receiver_lookups (
      id ${ID},
      destination_type text NOT NULL,
      receiver text NOT NULL,
      required_payer_data_fields jsonb NOT NULL,
      customer_id text COLLATE "C",
      created_at ${INSTANT},
      expires_at ${INSTANT},
      CONSTRAINT receiver_lookups_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX receiver_lookups_customer_id_idx ON receiver_lookups (customer_id, id)`
  )
}
