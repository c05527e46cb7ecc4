import type { Migration } from "kysely/migration"
import { INSTANT, statements } from "./ddl.ts"

/**
 * Issue 33, several instances on one database: who holds an outbox row's lease (a token of the dispatcher's pass
 * that claimed it, which renews and gives back by it); the keys the instances share, sealed (`instance_keys`).
 */
export const sharedInstances: Migration = {
  up: statements(
    `ALTER TABLE outbox ADD COLUMN lease_owner text`,
    `CREATE TABLE instance_keys (name text PRIMARY KEY, sealed text NOT NULL, created_at ${INSTANT})`
  )
}
