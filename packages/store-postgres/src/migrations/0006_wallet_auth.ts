import type { Migration } from "kysely/migration"
import { ID, INSTANT, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/** Issue 13: embedded-wallet credentials, sessions, signed-retry first legs and OTP challenges. */
export const walletAuth: Migration = {
  up: statements(
    `ALTER TABLE platform_config ADD COLUMN embedded_wallet_config jsonb`,
    `ALTER TABLE internal_accounts ADD COLUMN private_enabled boolean`,

    `CREATE TABLE wallet_credentials (
      id ${ID},
      account_id ${ID},
      customer_id ${ID},
      type text NOT NULL,
      status text NOT NULL,
      verified boolean NOT NULL,
      nickname text NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      contact text,
      passkey_credential_id text,
      passkey_public_key text,
      sign_count bigint,
      transports text[],
      oidc_issuer text,
      oidc_audience text,
      oidc_subject text,
      slot text,
      revoked_at ${OPTIONAL_INSTANT},
      CONSTRAINT wallet_credentials_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX wallet_credentials_slot_key ON wallet_credentials (slot)`,
    `CREATE INDEX wallet_credentials_account_id_idx ON wallet_credentials (account_id, id)`,
    `CREATE INDEX wallet_credentials_contact_idx ON wallet_credentials (contact, id) WHERE contact IS NOT NULL`,

    `CREATE TABLE wallet_sessions (
      id ${ID},
      account_id ${ID},
      credential_id ${ID},
      type text NOT NULL,
      nickname text NOT NULL,
      public_key text NOT NULL,
      status text NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      expires_at ${INSTANT},
      live_key text,
      CONSTRAINT wallet_sessions_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX wallet_sessions_live_key_key ON wallet_sessions (live_key)`,
    `CREATE INDEX wallet_sessions_account_id_idx ON wallet_sessions (account_id, id)`,
    `CREATE INDEX wallet_sessions_credential_id_idx ON wallet_sessions (credential_id, id)`,

    `CREATE TABLE wallet_signed_requests (
      id ${ID},
      account_id ${ID},
      operation text NOT NULL,
      subject_id ${ID},
      status text NOT NULL,
      payload_to_sign text NOT NULL,
      body_sha256 text NOT NULL,
      credential_set_sha256 text NOT NULL,
      signer text NOT NULL,
      expires_at ${INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      bound jsonb,
      stamp_sha256 text,
      CONSTRAINT wallet_signed_requests_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX wallet_signed_requests_account_id_idx ON wallet_signed_requests (account_id, id)`,

    `CREATE TABLE wallet_otp_challenges (
      id ${ID},
      account_id ${ID},
      code_sha256 text NOT NULL,
      target_public_key text NOT NULL,
      target_private_key_sealed text NOT NULL,
      attempts bigint NOT NULL,
      issued_at ${INSTANT},
      expires_at ${INSTANT},
      CONSTRAINT wallet_otp_challenges_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX wallet_otp_challenges_account_id_idx ON wallet_otp_challenges (account_id, id)`
  )
}
