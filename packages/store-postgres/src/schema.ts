import { type Kysely, sql } from "kysely"
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration"

/**
 * The tables of the PostgreSQL store: each is described once in @paycore/store-tables (columns, kinds, unique keys,
 * filters), and created by the migrations below; test/migrations.test.ts checks the two agree.
 *
 * - Ids and instants are `text COLLATE "C"`: an ISO string comes back exactly as written (same fraction
 *   digits, same offset), and `<`/`>` compare code points like the memory store's string comparisons,
 *   whatever the database's collation.
 * - Money and other integers are `bigint` (read back as JS numbers: see the per-connection parsers in
 *   connection.ts); JSONB holds only free-form nested parts (addresses, business info, account info, ...).
 * - A nullable column is an optional field: NULL means "absent", never `undefined` or `null` in the record.
 */

/** The database as Kysely sees it. The store sends SQL text (no query builder), so rows are not typed here. */
export type Database = Record<string, Record<string, unknown>>

// ---------------------------------------------------------------------------------------------
// Migrations: forward only, applied in name order, each in its own transaction.
// ---------------------------------------------------------------------------------------------

/** Runs DDL one statement at a time (PGlite's extended protocol takes one statement per query). */
const statements =
  (...ddl: ReadonlyArray<string>): Migration["up"] =>
  async (db) => {
    for (const statement of ddl) await sql.raw(statement).execute(db)
  }

const ID = `text COLLATE "C" NOT NULL`
const INSTANT = `text COLLATE "C" NOT NULL`
const OPTIONAL_INSTANT = `text COLLATE "C"`

const initial: Migration = {
  up: statements(
    `CREATE TABLE tokens (
      id ${ID},
      name text NOT NULL,
      permissions text[] NOT NULL,
      environment text NOT NULL,
      client_id text NOT NULL,
      secret_hash text NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      deleted_at ${OPTIONAL_INSTANT},
      CONSTRAINT tokens_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX tokens_client_id_key ON tokens (client_id)`,
    `CREATE INDEX tokens_name_idx ON tokens (name, id)`,
    `CREATE INDEX tokens_created_at_idx ON tokens (created_at)`,

    `CREATE TABLE customers (
      id ${ID},
      customer_type text NOT NULL,
      platform_customer_id text NOT NULL,
      region text,
      currencies text[] NOT NULL,
      email text,
      phone_number text,
      uma_address text NOT NULL,
      email_verification text NOT NULL,
      phone_verification text NOT NULL,
      end_user_terms_consent jsonb,
      is_deleted boolean NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      kyc_status text NOT NULL,
      kyb_status text,
      address jsonb,
      business_info jsonb,
      full_name text,
      birth_date text,
      nationality text,
      id_type text,
      identifier text,
      country_of_issuance text,
      source_of_funds_categories text[],
      source_of_funds_other_description text,
      source_of_wealth_categories text[],
      source_of_wealth_other_description text,
      purpose_of_account text,
      purpose_of_account_other_description text,
      expected_monthly_transaction_count text,
      expected_monthly_transaction_volume text,
      annual_income_range text,
      net_worth_range text,
      pep_status text,
      CONSTRAINT customers_pkey PRIMARY KEY (id)
    )`,
    // A deleted customer frees its platform id and UMA address (as in the memory store).
    `CREATE UNIQUE INDEX customers_platform_customer_id_key ON customers (platform_customer_id) WHERE NOT is_deleted`,
    `CREATE UNIQUE INDEX customers_uma_address_key ON customers (uma_address) WHERE NOT is_deleted`,
    // Lists that include deleted customers cannot use the partial unique indexes.
    `CREATE INDEX customers_platform_customer_id_idx ON customers (platform_customer_id, id)`,
    `CREATE INDEX customers_uma_address_idx ON customers (uma_address, id)`,
    `CREATE INDEX customers_region_idx ON customers (region, id)`,
    `CREATE INDEX customers_currencies_idx ON customers USING gin (currencies)`,
    `CREATE INDEX customers_created_at_idx ON customers (created_at)`,
    `CREATE INDEX customers_updated_at_idx ON customers (updated_at)`,

    `CREATE TABLE internal_accounts (
      id ${ID},
      customer_id text,
      type text NOT NULL,
      status text NOT NULL,
      currency text NOT NULL,
      funding_payment_instructions jsonb NOT NULL,
      supports_spend_limits boolean NOT NULL,
      supports_transaction_count_limit boolean NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT internal_accounts_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX internal_accounts_customer_id_idx ON internal_accounts (customer_id, id)`,
    `CREATE INDEX internal_accounts_currency_idx ON internal_accounts (currency, id)`,
    `CREATE INDEX internal_accounts_type_idx ON internal_accounts (type, id)`,

    `CREATE TABLE external_accounts (
      id ${ID},
      customer_id text NOT NULL,
      status text NOT NULL,
      currency text NOT NULL,
      platform_account_id text,
      ownership_type text NOT NULL,
      default_uma_deposit_account boolean NOT NULL,
      payment_rails text[] NOT NULL,
      account_info jsonb NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT external_accounts_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX external_accounts_customer_id_idx ON external_accounts (customer_id, id)`,
    `CREATE INDEX external_accounts_currency_idx ON external_accounts (currency, id)`,

    `CREATE TABLE quotes (
      id ${ID},
      status text NOT NULL,
      created_at ${INSTANT},
      expires_at ${INSTANT},
      customer_id text,
      source jsonb NOT NULL,
      destination jsonb NOT NULL,
      sending_currency jsonb NOT NULL,
      receiving_currency jsonb NOT NULL,
      total_sending_amount bigint NOT NULL,
      total_receiving_amount bigint NOT NULL,
      exchange_rate double precision NOT NULL,
      fees_included bigint NOT NULL,
      platform_fees_included bigint NOT NULL,
      transaction_id text NOT NULL,
      description text,
      remittance_information text,
      purpose_of_payment text,
      payment_instructions jsonb NOT NULL,
      rate_details jsonb NOT NULL,
      net_sending_amount bigint NOT NULL,
      service_fee bigint NOT NULL,
      platform_fee bigint NOT NULL,
      minor_rate text NOT NULL,
      CONSTRAINT quotes_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX quotes_transaction_id_key ON quotes (transaction_id)`,
    `CREATE INDEX quotes_status_idx ON quotes (status, id)`,
    // The expiry worker: waiting quotes past `expiresAt`.
    `CREATE INDEX quotes_expiry_idx ON quotes (expires_at) WHERE status IN ('PENDING', 'PENDING_AUTHORIZATION')`,

    `CREATE TABLE transactions (
      id ${ID},
      state text NOT NULL,
      account_id text,
      rail_reference text,
      due_at ${OPTIONAL_INSTANT},
      attempts integer,
      stalled_at ${OPTIONAL_INSTANT},
      status text NOT NULL,
      type text NOT NULL,
      direction text NOT NULL,
      source jsonb NOT NULL,
      destination jsonb NOT NULL,
      source_account_id text GENERATED ALWAYS AS (source ->> 'accountId') STORED,
      destination_account_id text GENERATED ALWAYS AS (destination ->> 'accountId') STORED,
      customer_id text,
      platform_customer_id text,
      sent_amount bigint NOT NULL,
      sent_currency jsonb NOT NULL,
      received_amount bigint NOT NULL,
      received_currency jsonb NOT NULL,
      exchange_rate double precision,
      quote_id text,
      description text,
      failure_reason text,
      pending_reason text,
      refund jsonb,
      fees bigint,
      platform_fees bigint,
      payment_rail text,
      rail_selection_mode text,
      expected_settlement_at ${OPTIONAL_INSTANT},
      settlement_timeline_seconds bigint,
      remittance_information text,
      reconciliation_reference text,
      settled_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT transactions_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX transactions_customer_id_idx ON transactions (customer_id, id)`,
    `CREATE INDEX transactions_platform_customer_id_idx ON transactions (platform_customer_id, id)`,
    `CREATE INDEX transactions_source_account_id_idx ON transactions (source_account_id, id)`,
    `CREATE INDEX transactions_destination_account_id_idx ON transactions (destination_account_id, id)`,
    `CREATE INDEX transactions_status_idx ON transactions (status, id)`,
    `CREATE INDEX transactions_reconciliation_reference_idx ON transactions (reconciliation_reference)`,
    `CREATE INDEX transactions_created_at_idx ON transactions (created_at)`,
    // The settlement worker: transactions due by now (most rows have no `dueAt` once settled).
    `CREATE INDEX transactions_due_idx ON transactions (due_at) WHERE due_at IS NOT NULL`,

    `CREATE TABLE ledger_transfers (
      seq bigint GENERATED ALWAYS AS IDENTITY,
      id ${ID},
      debit text NOT NULL,
      credit text NOT NULL,
      amount bigint NOT NULL,
      currency text NOT NULL,
      state text NOT NULL,
      reference text NOT NULL,
      created_at ${INSTANT},
      CONSTRAINT ledger_transfers_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX ledger_transfers_reference_idx ON ledger_transfers (reference, seq)`,

    `CREATE TABLE ledger_balances (
      account text COLLATE "C" NOT NULL,
      currency text NOT NULL,
      posted bigint NOT NULL,
      pending_debits bigint NOT NULL,
      pending_credits bigint NOT NULL,
      CONSTRAINT ledger_balances_pkey PRIMARY KEY (account)
    )`,

    `CREATE TABLE outbox (
      id ${ID},
      type text NOT NULL,
      subject text NOT NULL,
      sequence bigint NOT NULL,
      created_at ${INSTANT},
      body text NOT NULL,
      status text NOT NULL,
      attempts jsonb NOT NULL,
      next_attempt_at ${INSTANT},
      lease_until ${OPTIONAL_INSTANT},
      CONSTRAINT outbox_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX outbox_subject_idx ON outbox (subject, sequence)`,
    `CREATE INDEX outbox_status_idx ON outbox (status, id)`,
    `CREATE INDEX outbox_type_idx ON outbox (type, id)`,
    // The dispatcher's claim: pending rows (delivered and dead ones leave the index).
    `CREATE INDEX outbox_due_idx ON outbox (next_attempt_at, id) WHERE status = 'PENDING'`,

    `CREATE TABLE outbox_subjects (
      subject text NOT NULL,
      last_sequence bigint NOT NULL,
      CONSTRAINT outbox_subjects_pkey PRIMARY KEY (subject)
    )`,

    `CREATE TABLE idempotency (
      key text NOT NULL,
      fingerprint text NOT NULL,
      status integer NOT NULL,
      body text NOT NULL,
      created_at ${INSTANT},
      CONSTRAINT idempotency_pkey PRIMARY KEY (key)
    )`,

    `CREATE TABLE counters (
      key text NOT NULL,
      value bigint NOT NULL,
      CONSTRAINT counters_pkey PRIMARY KEY (key)
    )`,

    `CREATE TABLE platform_config (
      singleton boolean NOT NULL DEFAULT true CHECK (singleton),
      id text NOT NULL,
      uma_domain text NOT NULL,
      webhook_endpoint text,
      supported_currencies text[] NOT NULL,
      is_regulated_financial_institution boolean NOT NULL,
      skip_verification_paperwork boolean NOT NULL,
      fee_configs jsonb NOT NULL,
      card_configs jsonb,
      card_tokenization_2fa_config jsonb,
      transaction_limits jsonb NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT platform_config_pkey PRIMARY KEY (singleton)
    )`
  )
}

/** Issue 4: beneficial owners, verifications and contact-verification codes. */
const onboarding: Migration = {
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

/**
 * A system account (`system:<role>:<currency>`) is credited or debited by every payment in its currency,
 * and has no balance check: its balance spreads over shard rows summed on read, so concurrent payments
 * do not queue on one row lock until commit.
 */
const systemBalanceShards: Migration = {
  up: statements(
    `ALTER TABLE ledger_balances ADD COLUMN shard smallint NOT NULL DEFAULT 0`,
    `ALTER TABLE ledger_balances ALTER COLUMN shard DROP DEFAULT`,
    `ALTER TABLE ledger_balances DROP CONSTRAINT ledger_balances_pkey`,
    `ALTER TABLE ledger_balances ADD CONSTRAINT ledger_balances_pkey PRIMARY KEY (account, shard)`
  )
}

/** Issue 4, continued: documents' metadata and bulk customer import jobs. */
const documentsAndImports: Migration = {
  up: statements(
    `CREATE TABLE documents (
      id ${ID},
      document_holder text COLLATE "C" NOT NULL,
      document jsonb NOT NULL,
      files jsonb NOT NULL,
      submitted_at ${OPTIONAL_INSTANT},
      deleted_at ${OPTIONAL_INSTANT},
      CONSTRAINT documents_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX documents_holder_idx ON documents (document_holder, id)`,

    `CREATE TABLE bulk_import_jobs (
      id ${ID},
      status text NOT NULL,
      job jsonb NOT NULL,
      file_key text NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT bulk_import_jobs_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX bulk_import_jobs_status_idx ON bulk_import_jobs (status, id)`
  )
}

/** Issue 12: Standard Webhooks signing secrets. */
const webhookSecrets: Migration = {
  up: statements(
    `CREATE TABLE webhook_secrets (
      id ${ID},
      secret text NOT NULL,
      created_at ${INSTANT},
      expires_at text COLLATE "C",
      CONSTRAINT webhook_secrets_pkey PRIMARY KEY (id)
    )`
  )
}

/** Issue 13: embedded-wallet credentials, sessions, signed-retry first legs and OTP challenges. */
const walletAuth: Migration = {
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

/** Issue 13: delegated keys of card funding sources (W-42 … W-47); `active_slot` holds one ACTIVE key each (L-11). */
const delegatedKeys: Migration = {
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

/** Issue 14: ownership challenges of self-custody wallets (AC-26 … AC-28), one per external account. */
const ownershipVerification: Migration = {
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

/**
 * Issue 14, first slice: SCA challenges (`open_slot` holds one open challenge per login, quote step or trust
 * operation), login sessions, and each customer's failed-proof count and lock.
 */
const sca: Migration = {
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

/**
 * Issue 14, TOTP slice: SCA factors. `slot` holds one ACTIVE factor, `pending_slot` one PENDING enrolment, of each
 * kind per customer; the TOTP secret only sealed, recovery codes only hashed. The passkey and reset columns are
 * filled by later slices.
 */
const scaFactors: Migration = {
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

/**
 * Issue 14, passkey and reset slice: SCA factor resets, with the liveness session's reference and handles. The start
 * limit (5 per customer in a rolling 24 h) reads a customer's rows by `created_at`.
 */
const scaFactorResets: Migration = {
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

/**
 * Issue 14, trust slice: trusted beneficiaries (AC-31 … AC-38), one row per external account a customer trusted (the
 * account's id), `status` TRUSTED or UNTRUSTED; the delete of an external account reads it (AC-22).
 */
const trustedBeneficiaries: Migration = {
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

/**
 * Issue 14, quotes under SCA: the challenge a quote waiting for authorization carries (`quote.scaChallenge`), the
 * factor asked for at creation, and when a real-time-funded quote was authorized (its deposit is not challenged).
 * The expiry worker's index holds PENDING quotes only now (the quote machine lets no other state expire).
 */
const scaQuotes: Migration = {
  up: statements(
    `ALTER TABLE quotes ADD COLUMN sca_challenge jsonb`,
    `ALTER TABLE quotes ADD COLUMN sca_factor text`,
    `ALTER TABLE quotes ADD COLUMN sca_authorized_at ${OPTIONAL_INSTANT}`,
    // A quote waiting for authorization no longer expires by its own expiresAt (its challenge's expiry fails it).
    `DROP INDEX quotes_expiry_idx`,
    `CREATE INDEX quotes_expiry_idx ON quotes (expires_at) WHERE status IN ('PENDING')`
  )
}

/**
 * Issue 15: cards (docs/design/cards.md, section 2; migration 0014). `cards` (unique `platform_card_id`; the `accountId` filter on
 * `funding_sources`), `card_transactions` (unique `issuer_transaction_token`: a retried authorization finds its first
 * decision), the `card_network_events` inbox (unique `issuer_event_id`: an event delivered twice applies once), the
 * `card_reveals` audit log. The worker's due lists are partial indexes on `due_at`.
 */
const cards: Migration = {
  up: statements(
    `CREATE TABLE cards (
      id ${ID},
      cardholder_id ${ID},
      platform_card_id text NOT NULL,
      platform_card_id_given boolean NOT NULL,
      state text NOT NULL,
      state_reason text,
      brand text,
      form text NOT NULL,
      last4 text,
      exp_month integer,
      exp_year integer,
      funding_sources text[] NOT NULL,
      bindings jsonb NOT NULL,
      currency text NOT NULL,
      max_spend_per_transaction bigint,
      max_spend_per_day bigint,
      max_transactions_per_day bigint,
      card_capabilities jsonb NOT NULL,
      processor_ref text,
      issuer_ref text,
      three_ds_password_sealed text,
      issuer_sync jsonb,
      due_at ${OPTIONAL_INSTANT},
      attempts integer,
      stalled_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT cards_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX cards_platform_card_id_key ON cards (platform_card_id)`,
    `CREATE INDEX cards_cardholder_id_idx ON cards (cardholder_id, id)`,
    `CREATE INDEX cards_funding_sources_idx ON cards USING gin (funding_sources)`,
    `CREATE INDEX cards_state_idx ON cards (state, id)`,
    `CREATE INDEX cards_due_idx ON cards (due_at) WHERE due_at IS NOT NULL`,

    `CREATE TABLE card_transactions (
      id ${ID},
      card_id ${ID},
      customer_id ${ID},
      platform_customer_id text NOT NULL,
      issuer_transaction_token text NOT NULL,
      kind text NOT NULL,
      direction text NOT NULL,
      state text NOT NULL,
      decline_reason text,
      merchant jsonb NOT NULL,
      currency text NOT NULL,
      authorized_amount bigint NOT NULL,
      settled_amount bigint NOT NULL,
      refunded_amount bigint NOT NULL,
      held_amount bigint NOT NULL,
      account_id ${ID},
      funding_source_id text COLLATE "C",
      pull_summary jsonb NOT NULL,
      settlement_summary jsonb NOT NULL,
      refund_summary jsonb NOT NULL,
      returns jsonb NOT NULL,
      pull_signature text,
      day text NOT NULL,
      authorized_at ${INSTANT},
      last_event_at ${OPTIONAL_INSTANT},
      due_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT card_transactions_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX card_transactions_issuer_transaction_token_key ON card_transactions (issuer_transaction_token)`,
    `CREATE INDEX card_transactions_card_id_idx ON card_transactions (card_id, id)`,
    `CREATE INDEX card_transactions_customer_id_idx ON card_transactions (customer_id, id)`,
    `CREATE INDEX card_transactions_platform_customer_id_idx ON card_transactions (platform_customer_id, id)`,
    `CREATE INDEX card_transactions_account_id_idx ON card_transactions (account_id, id)`,
    `CREATE INDEX card_transactions_created_at_idx ON card_transactions (created_at)`,
    `CREATE INDEX card_transactions_due_idx ON card_transactions (due_at) WHERE due_at IS NOT NULL`,

    `CREATE TABLE card_network_events (
      id ${ID},
      issuer_event_id text NOT NULL,
      card_id ${ID},
      card_transaction_id text COLLATE "C",
      kind text NOT NULL,
      event jsonb NOT NULL,
      due_at ${OPTIONAL_INSTANT},
      applied_at ${OPTIONAL_INSTANT},
      outcome jsonb,
      created_at ${INSTANT},
      CONSTRAINT card_network_events_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX card_network_events_issuer_event_id_key ON card_network_events (issuer_event_id)`,
    `CREATE INDEX card_network_events_card_id_idx ON card_network_events (card_id, id)`,
    // The worker: events waiting for their time (an applied event leaves the index).
    `CREATE INDEX card_network_events_due_idx ON card_network_events (due_at) WHERE due_at IS NOT NULL AND applied_at IS NULL`,

    `CREATE TABLE card_reveals (
      id ${ID},
      card_id ${ID},
      actor text NOT NULL,
      requested_at ${INSTANT},
      expires_at ${INSTANT},
      CONSTRAINT card_reveals_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX card_reveals_card_id_idx ON card_reveals (card_id, id)`
  )
}

/** Every migration, by name (applied in name order; never edit one that shipped: add the next). */
export const migrations: Readonly<Record<string, Migration>> = {
  "0001_initial": initial,
  "0002_onboarding": onboarding,
  "0003_system_balance_shards": systemBalanceShards,
  "0004_documents_and_bulk_imports": documentsAndImports,
  "0005_webhook_secrets": webhookSecrets,
  "0006_wallet_auth": walletAuth,
  "0007_delegated_keys": delegatedKeys,
  "0008_ownership_verification": ownershipVerification,
  "0009_sca": sca,
  "0010_sca_factors": scaFactors,
  "0011_sca_factor_resets": scaFactorResets,
  "0012_trusted_beneficiaries": trustedBeneficiaries,
  "0013_sca_quotes": scaQuotes,
  "0014_cards": cards
}

const provider: MigrationProvider = { getMigrations: async () => ({ ...migrations }) }

export const MIGRATION_TABLE = "paycore_migrations"
export const MIGRATION_LOCK_TABLE = "paycore_migrations_lock"

/**
 * Applies the migrations not applied yet, in the first schema of the connection's `search_path` (which
 * must exist), and returns their names. Safe to run concurrently (Kysely takes an advisory lock) and
 * again (nothing to do).
 */
export const migrate = async (db: Kysely<any>): Promise<ReadonlyArray<string>> => {
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db)
  const schema = rows[0]?.schema
  if (schema === null || schema === undefined) {
    throw new Error("store-postgres: no current schema (the search_path names no existing schema)")
  }
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    // Without an explicit schema Kysely would take a migration table in any schema for ours.
    migrationTableSchema: schema
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName
    throw new Error(`store-postgres: migration ${failed ?? "setup"} failed: ${String(error)}`, { cause: error })
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName)
}
