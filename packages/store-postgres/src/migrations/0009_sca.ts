import type { Migration } from "kysely/migration"
import { ID, INSTANT, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 14, first slice: SCA challenges (`open_slot` holds one open challenge per login, quote step or trust
 * operation), login sessions, and each customer's failed-proof count and lock.
 */
export const sca: Migration = {
  up: statements(
    `CREATE TABLE sca_challenges (
      id ${ID},
      customer_id ${ID},
      kind text NOT NULL,
      subject_id text COLLATE "C",
      step bigint NOT NULL,
      purpose text,
      factor text NOT NULL,
      available_factors text[] NOT NULL,
      status text NOT NULL,
      code_sha256 text,
      passkey_challenge text,
      linked jsonb,
      attempts bigint NOT NULL,
      sends bigint NOT NULL,
      last_sent_at ${OPTIONAL_INSTANT},
      last_failed_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      expires_at ${INSTANT},
      settled_at ${OPTIONAL_INSTANT},
      open_slot text,
      CONSTRAINT sca_challenges_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX sca_challenges_open_slot_key ON sca_challenges (open_slot)`,
    `CREATE INDEX sca_challenges_customer_id_idx ON sca_challenges (customer_id, id)`,

    `CREATE TABLE sca_sessions (
      id ${ID},
      customer_id ${ID},
      factor text NOT NULL,
      end_user_ip text NOT NULL,
      challenge_id ${ID},
      created_at ${INSTANT},
      expires_at ${INSTANT},
      revoked_at ${OPTIONAL_INSTANT},
      CONSTRAINT sca_sessions_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX sca_sessions_customer_id_idx ON sca_sessions (customer_id, expires_at)`,

    `CREATE TABLE sca_security (
      id ${ID},
      failed_attempts bigint NOT NULL,
      locked_until ${OPTIONAL_INSTANT},
      suspended boolean NOT NULL,
      updated_at ${INSTANT},
      CONSTRAINT sca_security_pkey PRIMARY KEY (id)
    )`
  )
}
