import { detectTransactionPooling, layerPg, makePgKysely } from "@paycore/store-postgres"
import { storeConformance } from "@paycore/testkit/store-conformance"
import { Layer } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { storeError } from "../../store-postgres/src/driver-errors.ts"
import { sqlClientOf } from "../../store-postgres/src/sql.ts"
import { startTestServer, type TestServer } from "./harness.ts"
import { makePayer, type Payer, payUntilAnswered } from "./payment-load.ts"
import { hasPgbouncer, LEDGER_PROBLEMS_SQL, type Pgbouncer, startPgbouncer } from "./pg-processes.ts"

// Issue 33, item 3: the store behind pgbouncer in transaction pooling (Debian's 1.18: no prepared statements at the
// protocol level), each session feature checked one by one through a real pgbouncer this file starts, then a
// workload through it. docs/operations.md, "Behind a connection pooler", says what each check means for a deployment.
// Skipped without DATABASE_URL or pgbouncer (.ci/run installs it).

const serverUrl = process.env.DATABASE_URL

const connect = async (url: string): Promise<pg.Client> => {
  const client = new pg.Client({ connectionString: url })
  client.on("error", () => undefined)
  await client.connect()
  return client
}

const backendOf = async (client: pg.Client): Promise<number> =>
  (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid

describe.runIf(serverUrl !== undefined && serverUrl !== "" && hasPgbouncer)(
  "behind pgbouncer (pool_mode=transaction)",
  () => {
    const database = `paycore_pooler_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
    let bouncer: Pgbouncer
    let url: string
    /** Two client sessions through the pooler. */
    let a: pg.Client
    let b: pg.Client

    const admin = async <A>(body: (client: pg.Client) => Promise<A>): Promise<A> => {
      const client = await connect(serverUrl!)
      try {
        return await body(client)
      } finally {
        await client.end()
      }
    }

    /**
     * Session B opens a transaction on the server connection A used last (pgbouncer hands out the connection released
     * last), so A's next statement runs on another one: what any two clients of a busy pooler meet by chance.
     */
    const takeBackendOf = async (lastOfA: number): Promise<void> => {
      await b.query("BEGIN")
      expect(await backendOf(b)).toBe(lastOfA)
    }

    beforeAll(async () => {
      await admin((client) => client.query(`CREATE DATABASE ${database}`))
      await admin((client) => client.query(`CREATE DATABASE ${database}_conformance`))
      const target = new URL(serverUrl!)
      bouncer = await startPgbouncer({
        target: { host: target.hostname, port: Number(target.port || 5432) },
        poolMode: "transaction"
      })
      url = bouncer.url(database)
      a = await connect(url)
      b = await connect(url)
    })

    afterAll(async () => {
      await Promise.all([a?.end().catch(() => undefined), b?.end().catch(() => undefined)])
      await bouncer?.stop()
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`))
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database}_conformance WITH (FORCE)`))
    })

    it("advisory locks: a session-level lock stays on a server connection the client no longer has; the store takes transaction-level ones", async () => {
      await a.query("SELECT pg_advisory_lock(33, 1)")
      const locked = await backendOf(a)
      await takeBackendOf(locked)
      // A's unlock runs on another server connection, which holds no such lock: the lock stays, held for nobody.
      const unlocked = await a.query<{ ok: boolean }>("SELECT pg_advisory_unlock(33, 1) AS ok")
      expect(unlocked.rows[0]!.ok).toBe(false)
      await b.query("SELECT pg_advisory_unlock(33, 1)")
      await b.query("ROLLBACK")
      // A transaction-level lock lives and dies with its transaction, on one server connection: two stores migrating
      // the same empty database at once (the migrations take pg_advisory_xact_lock) both start, each migration once.
      const [first, second] = await Promise.all(
        [1, 2].map(() => {
          const db = makePgKysely({ connectionString: url, max: 2, preparedStatements: false })
          return import("@paycore/store-postgres").then(({ migrate }) => migrate(db).finally(() => db.destroy()))
        })
      )
      expect([...first!, ...second!].length).toBeGreaterThan(0)
      expect(new Set([...first!, ...second!]).size).toBe(first!.length + second!.length)
    })

    it("LISTEN: the listening session is on a server connection the client no longer has (paycore does not listen)", async () => {
      await a.query("LISTEN paycore_probe")
      const listening = await backendOf(a)
      await takeBackendOf(listening)
      const channels = await a.query("SELECT pg_listening_channels() AS channel")
      expect(channels.rows).toEqual([])
      await b.query("ROLLBACK")
    })

    it("session state: SET without LOCAL is left on the server connection for the next client; SET LOCAL is not", async () => {
      await a.query("SET statement_timeout = '4321ms'")
      const set = await backendOf(a)
      await takeBackendOf(set)
      expect((await b.query("SHOW statement_timeout")).rows[0].statement_timeout).toBe("4321ms")
      await b.query("ROLLBACK")
      await a.query("RESET statement_timeout")
      await b.query("BEGIN")
      await b.query("SET LOCAL statement_timeout = '1234ms'")
      const local = await backendOf(b)
      await b.query("COMMIT")
      await a.query("BEGIN")
      expect(await backendOf(a)).toBe(local)
      expect((await a.query("SHOW statement_timeout")).rows[0].statement_timeout).not.toBe("1234ms")
      await a.query("COMMIT")
    })

    it("named prepared statements: one prepared on a server connection is missing on the next; the store finds the pooler at start and does without them", async () => {
      // Forced on: a named statement is prepared on one server connection and bound on another.
      const db = makePgKysely({ connectionString: url, max: 1, preparedStatements: true })
      try {
        const sql = sqlClientOf(db)
        await sql.query("SELECT 33 AS probe", [], true)
        const [prepared] = (await sql.query("SELECT pg_backend_pid() AS pid", [], true)).rows
        await takeBackendOf(prepared!.pid)
        const failure = await sql.query("SELECT 33 AS probe", [], true).then(
          () => undefined,
          (error: unknown) => error
        )
        await b.query("ROLLBACK")
        expect(failure).toMatchObject({ code: "26000" })
        // The store's error names the setting.
        expect(storeError(failure).message).toContain("preparedStatements: false")
      } finally {
        await db.destroy()
      }
      // What layerPg checks at start: through the pooler, yes; on the server directly, no.
      const pooled = new pg.Pool({ connectionString: url })
      const direct = new pg.Pool({ connectionString: serverUrl! })
      try {
        expect(await detectTransactionPooling(pooled)).toBe(true)
        expect(await detectTransactionPooling(direct)).toBe(false)
      } finally {
        await Promise.all([pooled.end(), direct.end()])
      }
      // A pooler with one server connection: A waits for the one B holds (a session of its own never waits).
      const target = new URL(serverUrl!)
      const tiny = await startPgbouncer({
        target: { host: target.hostname, port: Number(target.port || 5432) },
        poolMode: "transaction",
        poolSize: 1
      })
      const single = new pg.Pool({ connectionString: tiny.url(database) })
      try {
        expect(await detectTransactionPooling(single)).toBe(true)
      } finally {
        await single.end()
        await tiny.stop()
      }
      // `schema` needs the `options` startup parameter, which pgbouncer 1.18 refuses: the start says what to do.
      const withSchema = new pg.Pool({ connectionString: url, options: "-c search_path=public" } as pg.PoolConfig)
      try {
        await expect(detectTransactionPooling(withSchema)).rejects.toThrow(/leave `schema` unset/)
      } finally {
        await withSchema.end()
      }
    })

    it("a workload: two instances start (and migrate) at once through the pooler; concurrent payments all answered; the ledger holds", async () => {
      // No `preparedStatements`: each instance finds the pooler at start.
      const logBefore = bouncer.log().length
      const servers: Array<TestServer> = await Promise.all(
        [1, 2].map(() => startTestServer({ storeLayer: layerPg({ connectionString: url, max: 4 }) }))
      )
      try {
        const [one, two] = servers as [TestServer, TestServer]
        const payers: Array<Payer> = []
        for (let i = 0; i < 4; i++) payers.push(await makePayer(one, 100_000))
        const deadline = Date.now() + 20_000
        const urls = [one.baseUrl, two.baseUrl]
        const sent = await Promise.all(
          payers.flatMap((payer) =>
            Array.from({ length: 3 }, async (_, lane) => {
              const results = []
              for (let i = 0; i < 4; i++)
                results.push(
                  await payUntilAnswered(lane % 2 ? urls : urls.toReversed(), one.admin, payer, 1_000 + i, deadline)
                )
              return results
            })
          )
        ).then((lanes) => lanes.flat())
        expect(sent.map((s) => s.statuses.join(","))).toEqual(sent.map(() => "201"))
        await one.processDue()
        await two.processDue()
        for (const payer of payers) {
          const mine = sent.filter((s) => s.payer === payer)
          const spent = mine.reduce((sum, s) => sum + s.body.totalSendingAmount, 0)
          const listed = await two.call("GET", `/internal-account?customerId=${payer.customerId}&currency=USD`)
          expect(listed.json.data[0].balance.amount).toBe(100_000 - spent)
          for (const s of mine) {
            const tx = await two.call("GET", `/transactions/${s.body.transactionId}`)
            expect(tx.json.status).toBe("COMPLETED")
          }
        }
        const direct = new URL(serverUrl!)
        direct.pathname = `/${database}`
        const client = await connect(direct.toString())
        try {
          expect((await client.query(LEDGER_PROBLEMS_SQL)).rows).toEqual([])
        } finally {
          await client.end()
        }
        // pgbouncer refused nothing (no `options` startup parameter, no prepared statement missing).
        expect(bouncer.log().slice(logBefore)).not.toMatch(
          /unsupported startup parameter|prepared statement .* does not exist/
        )
      } finally {
        await Promise.all(servers.map((server) => server.close()))
      }
    })

    // The Store port's whole conformance suite (317 tests) through the pooler, on a database of its own, layerPg
    // finding the pooler: about 25 s more, so behind a flag (PAYCORE_POOLER_CONFORMANCE=1).
    if (process.env.PAYCORE_POOLER_CONFORMANCE === "1") {
      storeConformance(
        "through pgbouncer in transaction pooling",
        Layer.suspend(() => layerPg({ connectionString: bouncer.url(`${database}_conformance`), max: 4 })),
        { timeout: "60 seconds" }
      )
    }
  }
)
