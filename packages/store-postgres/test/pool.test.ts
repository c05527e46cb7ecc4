import { Socket } from "node:net"
import { sql } from "kysely"
import pg from "pg"
import { afterEach, assert, describe, it, vi } from "vitest"
import { KEEP_ALIVE_IDLE_MS } from "../src/connection.ts"
import { makePgKysely, type PgConfig } from "../src/index.ts"
import { poolOf, sqlClientOf } from "../src/sql.ts"

// The pool keeps its server connections through a lull: a new one costs a backend process, its caches, and every
// statement prepared and planned again (docs/operations.md, "Connections stay open"). node-postgres closes a
// connection after 10 s idle, above the pool's minimum; the tests move a fake clock past that. A server-only path.
const url = process.env.DATABASE_URL

/** The backends of two connections the pool opens for two statements at once, then leaves idle for a minute. */
const idleForAMinute = async (config: Partial<PgConfig>) => {
  const db = makePgKysely({ connectionString: url!, max: 2, ...config })
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] })
  const backend = async () =>
    (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`.execute(db)).rows[0]!.pid
  const pids = await Promise.all([backend(), backend()])
  assert.strictEqual(new Set(pids).size, 2, "two statements at once ran on two connections")
  vi.advanceTimersByTime(60_000)
  vi.useRealTimers()
  return { db, pids }
}

/** Which of `pids` are server backends still, once fewer than `atLeast` remain or `ms` have passed. */
const alive = async (
  pids: ReadonlyArray<number>,
  ms: number,
  atLeast = pids.length
): Promise<ReadonlyArray<number>> => {
  const client = new pg.Client({ connectionString: url! })
  await client.connect()
  try {
    const deadline = Date.now() + ms
    for (;;) {
      const { rows } = await client.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE pid = ANY($1::int[]) ORDER BY pid",
        [pids]
      )
      if (rows.length < atLeast || Date.now() >= deadline) return rows.map((r) => r.pid)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  } finally {
    await client.end()
  }
}

describe.skipIf(url === undefined)("postgres store: the pool", () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it("keeps every connection it opened through a minute idle (minConnections defaults to max)", async () => {
    const { db, pids } = await idleForAMinute({})
    try {
      assert.deepStrictEqual(
        await alive(pids, 500),
        [...pids].sort((a, b) => a - b)
      )
      // And they still answer.
      assert.strictEqual((await sql<{ n: number }>`SELECT 1 AS n`.execute(db)).rows[0]!.n, 1)
    } finally {
      await db.destroy()
    }
  })

  it("with minConnections below max, closes those above it after 10 s idle", async () => {
    const { db, pids } = await idleForAMinute({ minConnections: 1 })
    try {
      assert.strictEqual((await alive(pids, 5_000)).length, 1)
    } finally {
      await db.destroy()
    }
  })

  it("destroy() closes the pool and the sessions beside it though Kysely itself ran no statement", async () => {
    const db = makePgKysely({ connectionString: url!, max: 2 })
    const client = sqlClientOf(db)
    const backend = async (read: boolean) =>
      (await client.query("SELECT pg_backend_pid() AS pid", [], read)).rows[0]!.pid as number
    // One through the pool, one on a read session: the store's own paths, which Kysely's driver never sees.
    const pids = [await backend(false), await backend(true)]
    await db.destroy()
    assert.strictEqual(poolOf(db)!.ended, true)
    assert.deepStrictEqual(await alive(pids, 5_000, 1), [])
  })

  it("has TCP probe a connection idle for a minute, so a middlebox does not drop a connection kept through a lull", async () => {
    const asked: Array<readonly [boolean | undefined, number | undefined]> = []
    const setKeepAlive = Socket.prototype.setKeepAlive
    Socket.prototype.setKeepAlive = function (this: Socket, ...args: Array<unknown>) {
      asked.push([args[0] as boolean | undefined, args[1] as number | undefined])
      return Reflect.apply(setKeepAlive, this, args) as Socket
    } as Socket["setKeepAlive"]
    try {
      const db = makePgKysely({ connectionString: url!, max: 2 })
      try {
        // A connection of the pool and a read session beside it.
        await sql`SELECT 1`.execute(db)
        await sqlClientOf(db).query("SELECT 1 AS n", [], true)
      } finally {
        await db.destroy()
      }
    } finally {
      Socket.prototype.setKeepAlive = setKeepAlive
    }
    assert.deepStrictEqual(asked, [
      [true, KEEP_ALIVE_IDLE_MS],
      [true, KEEP_ALIVE_IDLE_MS]
    ])
  })
})
