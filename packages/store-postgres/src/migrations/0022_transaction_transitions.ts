import type { Migration } from "kysely/migration"
import { ID, INSTANT, statements } from "./ddl.ts"

/**
 * Issue 18: transaction timelines (docs/design/dashboard-cli.md, section 2). One row per move of a payment's or a
 * card transaction's machine, written in the store transaction of the move; a timeline reads one transaction's rows
 * in id order. Existing transactions have no rows: their timelines start with the next move.
 */
export const transactionTransitions: Migration = {
  up: statements(
    `CREATE TABLE transaction_transitions (
      id ${ID},
      transaction_id ${ID},
      from_state text,
      state text NOT NULL,
      event text,
      at ${INSTANT},
      CONSTRAINT transaction_transitions_pkey PRIMARY KEY (id)
    )`,
    `CREATE INDEX transaction_transitions_transaction_id_idx ON transaction_transitions (transaction_id, id)`
  )
}
