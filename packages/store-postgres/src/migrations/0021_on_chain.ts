import type { Migration } from "kysely/migration"
import { statements } from "./ddl.ts"

/**
 * Issue 17 slice C (docs/design/invitations-stablecoins.md, section 3, "Crypto"): an UMA payment's inter-VASP
 * settlement hash, `reconciliationInstructions.transactionHash`. Nullable: only UMA payouts that settled
 * have one. (`onChainTransaction` lives in the `source` and `destination` JSON columns.)
 */
export const onChain: Migration = {
  up: statements(`ALTER TABLE transactions ADD COLUMN reconciliation_transaction_hash text`)
}
