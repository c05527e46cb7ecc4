import type { Migration } from "kysely/migration"
import { ID, OPTIONAL_INSTANT, statements } from "./ddl.ts"

/**
 * Issue 34: a payment's status and due instant change at each of its steps (executed, sent, settled), and both were
 * indexed on `transactions`, so each step's update wrote a new entry in every one of the table's nine indexes. They
 * are now indexed in `transaction_lookups` (the id and those two columns, `transactions.lookups` in
 * @paycore/store-tables), which triggers keep equal to the row in the same statement, and a step's update of the
 * row changes none of its indexes: PostgreSQL updates it in place on its page (a heap-only tuple), for which
 * `fillfactor` leaves a fifth of each new page free. The row keeps both columns: reads never join.
 *
 * Lists filtered by status and the due walk read the narrow table (store-postgres's collection.ts). Rows written
 * before the migration keep their pages as they are (full); a `VACUUM FULL transactions` would spread them.
 */
export const transactionLookups: Migration = {
  up: statements(
    `CREATE TABLE transaction_lookups (
      id ${ID},
      status text NOT NULL,
      due_at ${OPTIONAL_INSTANT},
      CONSTRAINT transaction_lookups_pkey PRIMARY KEY (id)
    )`,
    `INSERT INTO transaction_lookups (id, status, due_at) SELECT id, status, due_at FROM transactions`,
    `CREATE INDEX transaction_lookups_status_idx ON transaction_lookups (status, id)`,
    `CREATE INDEX transaction_lookups_due_idx ON transaction_lookups (due_at, id) WHERE due_at IS NOT NULL`,
    `DROP INDEX transactions_status_idx`,
    `DROP INDEX transactions_due_idx`,
    `ALTER TABLE transactions SET (fillfactor = 80)`,
    // One function for the four triggers: the row's columns copied (or its copy removed) as the row is written. It
    // names the table with this schema, which a session whose search_path names another (or none) still finds.
    `DO $do$ BEGIN EXECUTE format($f$
      CREATE FUNCTION %1$I.transaction_lookups_copy() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          DELETE FROM %1$I.transaction_lookups;
        ELSIF TG_OP = 'DELETE' THEN
          DELETE FROM %1$I.transaction_lookups WHERE id = OLD.id;
        ELSIF TG_OP = 'INSERT' THEN
          INSERT INTO %1$I.transaction_lookups (id, status, due_at) VALUES (NEW.id, NEW.status, NEW.due_at);
        ELSE
          UPDATE %1$I.transaction_lookups SET status = NEW.status, due_at = NEW.due_at WHERE id = NEW.id;
        END IF;
        RETURN NULL;
      END $$$f$, current_schema()); END $do$`,
    `CREATE TRIGGER transaction_lookups_insert AFTER INSERT ON transactions
      FOR EACH ROW EXECUTE FUNCTION transaction_lookups_copy()`,
    // Only an update that changes a looked-up column writes the copy (no statement changes an id).
    `CREATE TRIGGER transaction_lookups_update AFTER UPDATE ON transactions FOR EACH ROW
      WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.due_at IS DISTINCT FROM NEW.due_at)
      EXECUTE FUNCTION transaction_lookups_copy()`,
    `CREATE TRIGGER transaction_lookups_delete AFTER DELETE ON transactions
      FOR EACH ROW EXECUTE FUNCTION transaction_lookups_copy()`,
    // A DELETE in it, not a TRUNCATE: one TRUNCATE naming both tables has the narrow table in use meanwhile.
    `CREATE TRIGGER transaction_lookups_truncate AFTER TRUNCATE ON transactions
      FOR EACH STATEMENT EXECUTE FUNCTION transaction_lookups_copy()`
  )
}
