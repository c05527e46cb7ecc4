import type { Migration } from "kysely/migration"
import { statements } from "./ddl.ts"

/**
 * Issue 17 slice E: platform-owned accounts (docs/design/invitations-stablecoins.md, section 2). A platform internal
 * account carries its currency in `platform_currency`, unique, so concurrent first lists create one account per
 * currency; external accounts and their ownership challenges may belong to no customer (the platform's own).
 */
export const platformAccounts: Migration = {
  up: statements(
    `ALTER TABLE internal_accounts ADD COLUMN platform_currency text`,
    `CREATE UNIQUE INDEX internal_accounts_platform_currency_key ON internal_accounts (platform_currency)`,
    `ALTER TABLE external_accounts ALTER COLUMN customer_id DROP NOT NULL`,
    `ALTER TABLE ownership_challenges ALTER COLUMN customer_id DROP NOT NULL`
  )
}
