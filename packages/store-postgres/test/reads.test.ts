import { assert, describe, it } from "vitest"
import { makePgKysely } from "../src/index.ts"
import { sqlClientOf } from "../src/sql.ts"

// The autocommitted reads of one turn of the event loop go to a read session as one batch (one Sync): one
// implicit transaction on the server, one answer. A server-only path: PGlite has one session and no pipelining.
const url = process.env.DATABASE_URL

describe.skipIf(url === undefined)("postgres store: autocommitted reads", () => {
  it("issued in one turn share one round trip, and a failing one fails alone", async () => {
    const db = makePgKysely({ connectionString: url!, max: 2 })
    try {
      const sql = sqlClientOf(db)
      // The session is opened by a first read, so the next ones go out together.
      await sql.query("SELECT 1 AS n", [], true)
      const divided = (divisor: number) => sql.query("SELECT 12 / $1::int AS n", [divisor], true)
      const [a, b, c, d] = await Promise.allSettled([divided(3), divided(0), divided(4), divided(6)])
      assert.deepStrictEqual(a.status === "fulfilled" ? a.value.rows : a.reason, [{ n: 4 }])
      assert.strictEqual(b.status, "rejected")
      assert.match(String((b as PromiseRejectedResult).reason), /division by zero/)
      // PostgreSQL skipped the reads after the failed one to the batch's end: they ran again, alone.
      assert.deepStrictEqual(c.status === "fulfilled" ? c.value.rows : c.reason, [{ n: 3 }])
      assert.deepStrictEqual(d.status === "fulfilled" ? d.value.rows : d.reason, [{ n: 2 }])

      // One implicit transaction: the first id a statement of it asks for is every later one's.
      const xid = () => sql.query("SELECT pg_current_xact_id()::text AS xid", [], true)
      const ids = (await Promise.all([xid(), xid(), xid()])).map((answer) => answer.rows[0]!.xid)
      assert.strictEqual(new Set(ids).size, 1, `one transaction, got ${ids.join(", ")}`)
      // Reads of different turns are transactions of their own.
      const later = (await xid()).rows[0]!.xid
      assert.notStrictEqual(later, ids[0])
    } finally {
      await db.destroy()
    }
  })
})
