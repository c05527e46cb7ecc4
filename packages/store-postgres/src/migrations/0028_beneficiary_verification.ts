import type { Migration } from "kysely/migration"
import { statements } from "./ddl.ts"

/** Issue 31, AC-12 and SB-08: an external account's beneficiary name check, made when it is created. */
export const beneficiaryVerification: Migration = {
  up: statements(
    `ALTER TABLE external_accounts ADD COLUMN beneficiary_verification_status text`,
    `ALTER TABLE external_accounts ADD COLUMN beneficiary_verified_data jsonb`
  )
}
