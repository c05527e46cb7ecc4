import type { Migration } from "kysely/migration"
import { ID, INSTANT, statements } from "./ddl.ts"

/** Issue 13: delegated keys of card funding sources (W-42 … W-47); `active_slot` holds one ACTIVE key each (L-11). */
export const delegatedKeys: Migration = {
  up: statements(
    `CREATE TABLE wallet_delegated_keys (
      id ${ID},
      card_id ${ID},
      funding_source_id ${ID},
      account_id ${ID},
      public_key text NOT NULL,
      private_key_sealed text NOT NULL,
      nickname text NOT NULL,
      status text NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      active_slot text,
      CONSTRAINT wallet_delegated_keys_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX wallet_delegated_keys_active_slot_key ON wallet_delegated_keys (active_slot)`,
    `CREATE INDEX wallet_delegated_keys_account_id_idx ON wallet_delegated_keys (account_id, id)`,
    `CREATE INDEX wallet_delegated_keys_funding_source_id_idx ON wallet_delegated_keys (funding_source_id, id)`
  )
}
