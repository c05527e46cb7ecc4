import type { Migration } from "kysely/migration"
import { ID, INSTANT, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 14, TOTP slice: SCA factors. `slot` holds one ACTIVE factor, `pending_slot` one PENDING enrolment, of each
 * kind per customer; the TOTP secret only sealed, recovery codes only hashed. The passkey and reset columns are
 * filled by later slices.
 */
export const scaFactors: Migration = {
  up: statements(
    `CREATE TABLE sca_factors (
      id ${ID},
      customer_id ${ID},
      factor text NOT NULL,
      status text NOT NULL,
      name text,
      credential_id text COLLATE "C",
      public_key text,
      sign_count bigint,
      totp_secret_sealed text,
      totp_last_step bigint,
      recovery_code_hashes text[],
      phone text,
      enrol_challenge text,
      enrol_expires_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      slot text,
      pending_slot text,
      CONSTRAINT sca_factors_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX sca_factors_slot_key ON sca_factors (slot)`,
    `CREATE UNIQUE INDEX sca_factors_pending_slot_key ON sca_factors (pending_slot)`,
    `CREATE INDEX sca_factors_customer_id_idx ON sca_factors (customer_id, id)`
  )
}
