import type { Migration } from "kysely/migration"
import { OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 17 slice D: actions on transactions (docs/design/invitations-stablecoins.md, section 2). A transaction keeps
 * when the platform confirmed its receipt's delivery and why the platform rejected an incoming payment
 * awaiting approval (WH-21). Both nullable: every existing row has neither.
 */
export const transactionActions: Migration = {
  up: statements(
    `ALTER TABLE transactions ADD COLUMN receipt_delivery_confirmed_at ${OPTIONAL_INSTANT}`,
    `ALTER TABLE transactions ADD COLUMN decision_reason text`
  )
}
