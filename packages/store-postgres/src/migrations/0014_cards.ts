import type { Migration } from "kysely/migration"
import { ID, INSTANT, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 15: cards (docs/design/cards.md, section 2; migration 0014). `cards` (unique `platform_card_id`; the `accountId` filter on
 * `funding_sources`), `card_transactions` (unique `issuer_transaction_token`: a retried authorization finds its first
 * decision), the `card_network_events` inbox (unique `issuer_event_id`: an event delivered twice applies once), the
 * `card_reveals` audit log. The worker's due lists are partial indexes on `due_at`.
 */
export const cards: Migration = {
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
