import type { Migration } from "kysely/migration"
import { statements } from "./ddl.ts"

/**
 * Issue 33, several instances on one database: who holds an outbox row's lease (a token of the dispatcher's pass
 * that claimed it, which renews and gives back by it).
 */
export const sharedInstances: Migration = {
  up: statements(`ALTER TABLE outbox ADD COLUMN lease_owner text`)
}
