import type { Migration } from "kysely/migration"
import { statements } from "./ddl.ts"

/** Issue 31, SB-07: a deprecated transfer's direction, told to its rail (`TransactionRecord.transfer`). */
export const transferDirection: Migration = {
  up: statements(`ALTER TABLE transactions ADD COLUMN transfer text`)
}
