import type { Migration } from "kysely/migration"
import { ID, INSTANT, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 16: agents (docs/design/agents.md, section 2). `agents` (unique `token_selector`: a Bearer token is looked up
 * by it; a delete clears it), `agent_device_codes` (unique `code_sha256`: only the hash of the normalized code is
 * kept), `agent_actions` (unique `open_slot`: one `PENDING_APPROVAL` action per quote). The approvals list reads
 * actions by status and creation time; an agent's own list by agent and creation time.
 */
export const agents: Migration = {
  up: statements(
    `CREATE TABLE agents (
      id ${ID},
      name text NOT NULL,
      customer_id ${ID},
      platform_customer_id text NOT NULL,
      policy jsonb NOT NULL,
      is_paused boolean NOT NULL,
      token_selector text,
      token_verifier_sha256 text,
      connected_at ${OPTIONAL_INSTANT},
      deleted_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT agents_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX agents_token_selector_key ON agents (token_selector)`,
    `CREATE INDEX agents_customer_id_idx ON agents (customer_id, id)`,

    `CREATE TABLE agent_device_codes (
      id ${ID},
      agent_id ${ID},
      code_sha256 text NOT NULL,
      state text NOT NULL,
      expires_at ${INSTANT},
      redeemed_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT agent_device_codes_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX agent_device_codes_code_sha256_key ON agent_device_codes (code_sha256)`,
    `CREATE INDEX agent_device_codes_agent_id_idx ON agent_device_codes (agent_id, id)`,

    `CREATE TABLE agent_actions (
      id ${ID},
      agent_id ${ID},
      customer_id ${ID},
      platform_customer_id text NOT NULL,
      type text NOT NULL,
      status text NOT NULL,
      quote_id text COLLATE "C",
      transaction_id text COLLATE "C",
      transfer_details jsonb,
      amount bigint NOT NULL,
      currency text NOT NULL,
      approval_reason text,
      wallet_signature text,
      rejection_reason text,
      failure_reason text,
      open_slot text,
      decided_at ${OPTIONAL_INSTANT},
      created_at ${INSTANT},
      updated_at ${INSTANT},
      CONSTRAINT agent_actions_pkey PRIMARY KEY (id)
    )`,
    `CREATE UNIQUE INDEX agent_actions_open_slot_key ON agent_actions (open_slot)`,
    `CREATE INDEX agent_actions_customer_id_idx ON agent_actions (customer_id, id)`,
    `CREATE INDEX agent_actions_status_created_idx ON agent_actions (status, created_at)`,
    `CREATE INDEX agent_actions_agent_created_idx ON agent_actions (agent_id, created_at)`
  )
}
