import { type Kysely, sql } from "kysely"
import { migrate } from "./schema.ts"

/**
 * The keys the instances on one database share (`instance_keys`, issue 33), as the caller sealed them: each of
 * `offered` is stored unless a key of that name is there already, and the stored ones are returned, so every
 * instance gets the same value whichever started first. Migrates `db` first (instances starting together wait
 * for the one that migrates). The values are sealed by the caller: the database never holds them in clear.
 */
export const keepInstanceKeys = async (
  db: Kysely<any>,
  offered: ReadonlyArray<{ readonly name: string; readonly sealed: string }>,
  createdAt: string
): Promise<ReadonlyMap<string, string>> => {
  await migrate(db)
  const kept = new Map<string, string>()
  for (const { name, sealed } of offered) {
    await sql`INSERT INTO instance_keys (name, sealed, created_at) VALUES (${name}, ${sealed}, ${createdAt})
      ON CONFLICT (name) DO NOTHING`.execute(db)
    const { rows } = await sql<{ sealed: string }>`SELECT sealed FROM instance_keys WHERE name = ${name}`.execute(db)
    kept.set(name, rows[0]!.sealed)
  }
  return kept
}
