/** Databases of their own for the tests that start servers on the PostgreSQL server of DATABASE_URL. */
import pg from "pg"

/**
 * The master key the test servers share (a server without the keys given keeps them sealed in the database under it:
 * docs/operations.md, "Where the data lives").
 */
export const TEST_MASTER_KEY = "5a".repeat(32)

export interface TestDatabase {
  readonly name: string
  /** `adminUrl` with this database's name. */
  readonly url: string
  /** Drops it, whatever is still connected. */
  readonly drop: () => Promise<void>
}

const run = async (connectionString: string, statement: string): Promise<void> => {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** Creates `<prefix>_<pid>_<time>` on the server of `adminUrl`: its figures (`pg_stat_database`) are the test's alone. */
export const createDatabase = async (adminUrl: string, prefix: string): Promise<TestDatabase> => {
  const name = `${prefix}_${process.pid}_${Date.now()}`
  await run(adminUrl, `CREATE DATABASE ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return { name, url: url.toString(), drop: () => run(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}
