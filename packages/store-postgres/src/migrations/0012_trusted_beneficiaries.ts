import type { Migration } from "kysely/migration"
import { ID, INSTANT, statements } from "./ddl.ts"

/**
 * Issue 14, trust slice: trusted beneficiaries (AC-31 … AC-38), one row per external account a customer trusted (the
 * account's id), `status` TRUSTED or UNTRUSTED; the delete of an external account reads it (AC-22).
 */
export const trustedBeneficiaries: Migration = {
  up: statements(
    `CREATE TABLE trusted_beneficiaries (
      id ${ID},
      customer_id ${ID},
      status text NOT NULL,
      challenge_id ${ID},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT trusted_beneficiaries_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX trusted_beneficiaries_customer_id_idx ON trusted_beneficiaries (customer_id, id)`
  )
}
