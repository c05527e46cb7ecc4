import type { Migration } from "kysely/migration"
import { statements } from "./ddl.ts"

/**
 * Issue 18: an account's ledger postings (`GET …/internal-accounts/{accountId}/postings`, architecture.md) read its
 * transfers newest first from either side: one index per side, in recording order (`seq`).
 */
export const ledgerAccountTransfers: Migration = {
  up: statements(
    `CREATE INDEX ledger_transfers_debit_idx ON ledger_transfers (debit, seq)`,
    `CREATE INDEX ledger_transfers_credit_idx ON ledger_transfers (credit, seq)`
  )
}
