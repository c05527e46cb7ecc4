import type { Migration } from "kysely/migration"
import { statements } from "./ddl.ts"

/**
 * A system account (`system:<role>:<currency>`) is credited or debited by every payment in its currency,
 * and has no balance check: its balance spreads over shard rows summed on read, so concurrent payments
 * do not queue on one row lock until commit.
 */
export const systemBalanceShards: Migration = {
  up: statements(
    `ALTER TABLE ledger_balances ADD COLUMN shard smallint NOT NULL DEFAULT 0`,
    `ALTER TABLE ledger_balances ALTER COLUMN shard DROP DEFAULT`,
    `ALTER TABLE ledger_balances DROP CONSTRAINT ledger_balances_pkey`,
    `ALTER TABLE ledger_balances ADD CONSTRAINT ledger_balances_pkey PRIMARY KEY (account, shard)`
  )
}
