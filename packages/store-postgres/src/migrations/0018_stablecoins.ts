import type { Migration } from "kysely/migration"
import { ID, INSTANT, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 17 slice B: stablecoin issuance (docs/design/invitations-stablecoins.md, section 2). Provider account links
 * (unique `live_slot`, held while `ACTIVE`; the API client secret only sealed), registered stablecoins (unique
 * `registration`), and their mint and burn operations (unique `client_reference`, the provider's idempotency key;
 * listed newest first per stablecoin; the worker's due list is a partial index on `due_at`).
 */
export const stablecoins: Migration = {
  up: statements(
    `CREATE TABLE stablecoin_provider_accounts (
      id ${ID},
      provider text NOT NULL,
      provider_account_id text NOT NULL,
      environment text NOT NULL,
      status text NOT NULL,
      api_client_id text NOT NULL,
      sealed_secret text NOT NULL,
      live_slot text,
      last_verified_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT stablecoin_provider_accounts_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX stablecoin_provider_accounts_live_slot_key ON stablecoin_provider_accounts (live_slot)`,
    `CREATE INDEX stablecoin_provider_accounts_account_idx
      ON stablecoin_provider_accounts (provider, provider_account_id, environment)`,

    `CREATE TABLE stablecoins (
      id ${ID},
      name text NOT NULL,
      symbol text NOT NULL,
      base_currency text NOT NULL,
      network text NOT NULL,
      decimals integer NOT NULL,
      issuance_status text NOT NULL,
      service_operations_status text NOT NULL,
      network_token_identifier text NOT NULL,
      currency text,
      provider text NOT NULL,
      provider_account_link_id ${ID},
      environment text NOT NULL,
      provider_token_identifier text NOT NULL,
      registration text NOT NULL,
      ledger_currency text NOT NULL,
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT stablecoins_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX stablecoins_registration_key ON stablecoins (registration)`,

    `CREATE TABLE stablecoin_operations (
      id ${ID},
      stablecoin_id ${ID},
      operation_type text NOT NULL,
      state text NOT NULL,
      amount text NOT NULL,
      minor_amount bigint NOT NULL,
      base_amount bigint NOT NULL,
      base_currency text NOT NULL,
      ledger_currency text NOT NULL,
      provider text NOT NULL,
      environment text NOT NULL,
      provider_account_link_id ${ID},
      source jsonb NOT NULL,
      destination jsonb NOT NULL,
      funding_instructions jsonb,
      estimated_delivery jsonb,
      expires_at ${OPTIONAL_INSTANT},
      provider_status text,
      failure_reason text,
      description text,
      client_reference text NOT NULL,
      provider_operation_id text NOT NULL,
      held_account_id text COLLATE "C",
      due_at ${OPTIONAL_INSTANT},
      attempts integer,
      stalled_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT stablecoin_operations_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX stablecoin_operations_client_reference_key ON stablecoin_operations (client_reference)`,
    `CREATE INDEX stablecoin_operations_stablecoin_idx ON stablecoin_operations (stablecoin_id, id)`,
    `CREATE INDEX stablecoin_operations_due_idx ON stablecoin_operations (due_at) WHERE due_at IS NOT NULL`
  )
}
