/**
 * Once per deployment, before the new version serves:
 *
 *   DATABASE_URL=postgres://… PAYCORE_SCHEMA=paycore node src/migrate.ts
 *
 * Prints the migrations it applied, or "up to date".
 */
import { migrateDatabase, openDatabase } from "./paycore.ts"

const config = { databaseUrl: process.env.DATABASE_URL, schema: process.env.PAYCORE_SCHEMA }
const db = openDatabase(config)
try {
  const applied = await migrateDatabase(db, config.schema)
  process.stdout.write(applied.length === 0 ? "up to date\n" : `applied ${applied.join(", ")}\n`)
} finally {
  await db.destroy()
}
