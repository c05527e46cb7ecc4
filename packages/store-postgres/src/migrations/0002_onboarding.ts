import type { Migration } from "kysely/migration"
import { ID, INSTANT, statements } from "./ddl.ts"

/** Issue 4: beneficial owners, verifications and contact-verification codes. */
export const onboarding: Migration = {
  up: statements(
    `CREATE TABLE beneficial_owners (
      id ${ID},
      customer_id text NOT NULL,
      roles text[] NOT NULL,
      ownership_percentage integer NOT NULL,
      personal_info jsonb NOT NULL,
      kyc_status text NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT beneficial_owners_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX beneficial_owners_customer_id_idx ON beneficial_owners (customer_id, id)`,

    `CREATE TABLE verifications (
      id ${ID},
      customer_id text NOT NULL,
      verification_status text NOT NULL,
      errors jsonb NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT verifications_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX verifications_customer_id_idx ON verifications (customer_id, id)`,
    `CREATE INDEX verifications_status_idx ON verifications (verification_status, id)`,

    `CREATE TABLE contact_challenges (
      key text NOT NULL,
      customer_id text NOT NULL,
      channel text NOT NULL,
      code_hash text NOT NULL,
      sent_to text NOT NULL,
      sent_at ${INSTANT},
      expires_at ${INSTANT},
      attempts integer NOT NULL,
      CONSTRAINT contact_challenges_pkey PRIMARY KEY (key)
    )`
  )
}
