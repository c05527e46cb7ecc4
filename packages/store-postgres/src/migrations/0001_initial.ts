import type { Migration } from "kysely/migration"
import { ID, INSTANT, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * The first tables: tokens, customers, internal and external accounts, quotes, transactions, the ledger, the outbox,
 * idempotency, counters and the platform config.
 */
export const initial: Migration = {
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
