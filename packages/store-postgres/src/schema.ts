import { type Kysely, sql } from "kysely"
import type { Migration } from "kysely/migration"
import { initial } from "./migrations/0001_initial.ts"
import { onboarding } from "./migrations/0002_onboarding.ts"
import { systemBalanceShards } from "./migrations/0003_system_balance_shards.ts"
import { documentsAndImports } from "./migrations/0004_documents_and_bulk_imports.ts"
import { webhookSecrets } from "./migrations/0005_webhook_secrets.ts"
import { walletAuth } from "./migrations/0006_wallet_auth.ts"
import { delegatedKeys } from "./migrations/0007_delegated_keys.ts"
import { ownershipVerification } from "./migrations/0008_ownership_verification.ts"
import { sca } from "./migrations/0009_sca.ts"
import { scaFactors } from "./migrations/0010_sca_factors.ts"
import { scaFactorResets } from "./migrations/0011_sca_factor_resets.ts"
import { trustedBeneficiaries } from "./migrations/0012_trusted_beneficiaries.ts"
import { scaQuotes } from "./migrations/0013_sca_quotes.ts"
import { cards } from "./migrations/0014_cards.ts"
import { agentIds } from "./migrations/0015_agent_ids.ts"
import { agents } from "./migrations/0016_agents.ts"
import { invitations } from "./migrations/0017_invitations.ts"
import { stablecoins } from "./migrations/0018_stablecoins.ts"
import { transactionActions } from "./migrations/0019_transaction_actions.ts"
import { platformAccounts } from "./migrations/0020_platform_accounts.ts"
import { onChain } from "./migrations/0021_on_chain.ts"
import { transactionTransitions } from "./migrations/0022_transaction_transitions.ts"
import { ledgerAccountTransfers } from "./migrations/0023_ledger_account_transfers.ts"
import { receiverLookups } from "./migrations/0024_receiver_lookups.ts"
import { currencyConfigs } from "./migrations/0025_currency_configs.ts"
import { webhookRetryRounds } from "./migrations/0026_webhook_retry_rounds.ts"
import { transferDirection } from "./migrations/0027_transfer_direction.ts"
import { beneficiaryVerification } from "./migrations/0028_beneficiary_verification.ts"
import { sharedInstances } from "./migrations/0029_shared_instances.ts"
import { dueQueues } from "./migrations/0030_due_queues.ts"
import { transactionLookups } from "./migrations/0031_transaction_lookups.ts"

/**
 * The tables of the PostgreSQL store: each is described once in @paycore/store-tables (columns, kinds, unique keys,
 * filters), and created by the migrations in ./migrations/ (a file per migration, named by its key in `migrations`
 * below); test/migrations.test.ts checks the two agree.
 */

/** The database as Kysely sees it. The store sends SQL text (no query builder), so rows are not typed here. */
export type Database = Record<string, Record<string, unknown>>

// Migrations: forward only, applied in name order, the missing ones in one transaction.

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
  "0014_cards": cards,
  "0015_agent_ids": agentIds,
  "0016_agents": agents,
  "0017_invitations": invitations,
  "0018_stablecoins": stablecoins,
  "0019_transaction_actions": transactionActions,
  "0020_platform_accounts": platformAccounts,
  "0021_on_chain": onChain,
  "0022_transaction_transitions": transactionTransitions,
  "0023_ledger_account_transfers": ledgerAccountTransfers,
  "0024_receiver_lookups": receiverLookups,
  "0025_currency_configs": currencyConfigs,
  "0026_webhook_retry_rounds": webhookRetryRounds,
  "0027_transfer_direction": transferDirection,
  "0028_beneficiary_verification": beneficiaryVerification,
  "0029_shared_instances": sharedInstances,
  "0030_due_queues": dueQueues,
  "0031_transaction_lookups": transactionLookups
}

export const MIGRATION_TABLE = "paycore_migrations"

/**
 * Applies the migrations not applied yet, in the first schema of the connection's `search_path` (which must exist),
 * and returns their names. Safe to run concurrently and again (nothing to do).
 *
 * Not Kysely's `Migrator`: it lists every table of every schema on the server to find its own, which fails when
 * another schema is dropped meanwhile (`has_schema_privilege` on a name that just went) and slows with the number of
 * schemas. Here one transaction takes a lock of this schema, reads the applied names from the table the `Migrator`
 * kept (same table, same columns: databases it migrated carry on), and applies the rest: all or none.
 */
export const migrate = async (db: Kysely<any>): Promise<ReadonlyArray<string>> => {
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db)
  const schema = rows[0]?.schema
  if (schema === null || schema === undefined) {
    throw new Error("store-postgres: no current schema (the search_path names no existing schema)")
  }
  const names = Object.keys(migrations).sort()
  return db.transaction().execute(async (trx) => {
    // Instances starting together wait here, then find the table and the names the first one wrote.
    await sql`SELECT pg_advisory_xact_lock(hashtext(${MIGRATION_TABLE}), hashtext(${schema}))`.execute(trx)
    await sql`CREATE TABLE IF NOT EXISTS ${sql.table(MIGRATION_TABLE)} (
      name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(trx)
    const applied = (
      await sql<{ name: string }>`SELECT name FROM ${sql.table(MIGRATION_TABLE)} ORDER BY name`.execute(trx)
    ).rows.map((row) => row.name)
    const unknown = applied.filter((name) => !(name in migrations))
    if (unknown.length > 0) {
      throw new Error(
        `store-postgres: schema ${schema} has migrations this version does not know (${unknown.join(", ")}): ` +
          "it was migrated by a newer paycore"
      )
    }
    const missing = names.filter((name) => !applied.includes(name))
    const last = applied.at(-1)
    const early = last === undefined ? [] : missing.filter((name) => name < last)
    if (early.length > 0) {
      throw new Error(`store-postgres: schema ${schema} lacks migrations older than its last one (${early.join(", ")})`)
    }
    for (const name of missing) {
      try {
        await (migrations[name] as Migration).up(trx)
      } catch (error) {
        throw new Error(`store-postgres: migration ${name} failed: ${String(error)}`, { cause: error })
      }
      await sql`INSERT INTO ${sql.table(MIGRATION_TABLE)} (name, timestamp) VALUES (${name}, ${new Date().toISOString()})`.execute(
        trx
      )
    }
    return missing
  })
}
