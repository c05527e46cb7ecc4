import type { Migration } from "kysely/migration"
import { statements } from "./ddl.ts"

/**
 * Issue 34, the workers' due walks (the port's `DueQueue`): each due index holds `(due instant, id)`, the walk's
 * order, so a page is an index range read from its cursor, and a backlog of due rows costs a pass in proportion to
 * its size (a list by id counted every due row on every page). Each index is built again in the migration's
 * transaction, which holds off writes to its table meanwhile: seconds on tables of millions of rows.
 */
export const dueQueues: Migration = {
  up: statements(
    `DROP INDEX transactions_due_idx`,
    `CREATE INDEX transactions_due_idx ON transactions (due_at, id) WHERE due_at IS NOT NULL`,
    `DROP INDEX quotes_expiry_idx`,
    `CREATE INDEX quotes_expiry_idx ON quotes (expires_at, id) WHERE status IN ('PENDING')`,
    `DROP INDEX cards_due_idx`,
    `CREATE INDEX cards_due_idx ON cards (due_at, id) WHERE due_at IS NOT NULL`,
    `DROP INDEX card_network_events_due_idx`,
    `CREATE INDEX card_network_events_due_idx ON card_network_events (due_at, id) WHERE due_at IS NOT NULL AND applied_at IS NULL`,
    `DROP INDEX stablecoin_operations_due_idx`,
    `CREATE INDEX stablecoin_operations_due_idx ON stablecoin_operations (due_at, id) WHERE due_at IS NOT NULL`,
    `CREATE INDEX invitations_due_idx ON invitations (expires_at, id) WHERE state = 'PENDING'`
  )
}
