import { sql } from "kysely"
import type { Migration } from "kysely/migration"

/**
 * What the migrations' DDL shares:
 *
 * - Ids and instants are `text COLLATE "C"`: an ISO string comes back exactly as written (same fraction
 *   digits, same offset), and `<`/`>` compare code points like the memory store's string comparisons,
 *   whatever the database's collation.
 * - Money and other integers are `bigint` (read back as JS numbers: see the per-connection parsers in
 *   connection.ts); JSONB holds only free-form nested parts (addresses, business info, account info, ...).
 * - A nullable column is an optional field: NULL means "absent", never `undefined` or `null` in the record.
 */

/** Runs DDL one statement at a time (PGlite's extended protocol takes one statement per query). */
export const statements =
  (...ddl: ReadonlyArray<string>): Migration["up"] =>
  async (db) => {
    for (const statement of ddl) await sql.raw(statement).execute(db)
  }

export const ID = `text COLLATE "C" NOT NULL`
export const INSTANT = `text COLLATE "C" NOT NULL`
export const OPTIONAL_INSTANT = `text COLLATE "C"`
