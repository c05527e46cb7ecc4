import type { Migration } from "kysely/migration"
import { ID, INSTANT, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 14, passkey and reset slice: SCA factor resets, with the liveness session's reference and handles. The start
 * limit (5 per customer in a rolling 24 h) reads a customer's rows by `created_at`.
 */
export const scaFactorResets: Migration = {
  up: statements(
    `CREATE TABLE sca_factor_resets (
      id ${ID},
      customer_id ${ID},
      factor text NOT NULL,
      status text NOT NULL,
      liveness_nonce text NOT NULL,
      verification_link text,
      liveness_token text,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      expires_at ${INSTANT},
      completed_at ${OPTIONAL_INSTANT},
      CONSTRAINT sca_factor_resets_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX sca_factor_resets_customer_created_idx ON sca_factor_resets (customer_id, created_at)`
  )
}
