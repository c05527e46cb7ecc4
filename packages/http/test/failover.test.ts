import { layerPg } from "@paycore/store-postgres"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "./harness.ts"
import { makePayer, type Payer, payUntilAnswered, postPayment, type Sent } from "./payment-load.ts"
import {
  type Cluster,
  hasPgBinaries,
  LEDGER_PROBLEMS_SQL,
  type Proxy,
  postgresTempDir,
  startPrimaryAndStandby,
  startProxy
} from "./pg-processes.ts"

// Issue 33, item 4: a standby that takes over. Two clusters this file creates (initdb, pg_basebackup -R, a
// replication slot, synchronous replication), two paycore instances (in-process apps on layerPg) reaching the
// primary through a TCP proxy (what a DNS name, a virtual IP or a pooler is in production), a load of payments,
// each with an Idempotency-Key and sent again after a 503; during the load the primary is stopped (immediate), the
// standby promoted and the proxy pointed at it. docs/operations.md, "Failover", describes what is checked here.
// Skipped without the PostgreSQL 15 server binaries.

const FUNDED = 1_000_000
/** The load runs this long before the primary is stopped, and this long after the switch. */
const BEFORE_MS = 2_500
const AFTER_MS = 3_000

describe.runIf(hasPgBinaries)("a standby takes over during a load of payments", () => {
  let folder: ReturnType<typeof postgresTempDir>
  let primary: Cluster
  let standby: Cluster
  let proxy: Proxy
  let servers: Array<TestServer> = []

  beforeAll(async () => {
    folder = postgresTempDir("paycore-failover-")
    ;({ primary, standby } = await startPrimaryAndStandby(folder.path))
    proxy = await startProxy(primary.port)
    const connectionString = `postgres://postgres@127.0.0.1:${proxy.port}/postgres`
    servers = await Promise.all(
      [1, 2].map(() => startTestServer({ storeLayer: layerPg({ connectionString, max: 4 }) }))
    )
  }, 60_000)

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close().catch(() => undefined)))
    await proxy?.close()
    primary?.stop("immediate")
    standby?.stop("immediate")
    folder?.remove()
  })

  it("every acknowledged payment is on the new primary, nothing twice, no 500; the instances go on after the switch", async () => {
    const [one, two] = servers as [TestServer, TestServer]
    const urls = [one.baseUrl, two.baseUrl]
    const payers: Array<Payer> = []
    for (let i = 0; i < 4; i++) payers.push(await makePayer(i % 2 ? two : one, FUNDED))

    let switchedAt = Number.POSITIVE_INFINITY
    const loadEnds = { at: Number.POSITIVE_INFINITY }
    const lane = async (payer: Payer, n: number): Promise<Array<Sent>> => {
      const sent: Array<Sent> = []
      for (let i = 0; Date.now() < loadEnds.at; i++) {
        const order = (n + i) % 2 ? urls : urls.toReversed()
        sent.push(await payUntilAnswered(order, one.admin, payer, 100 + (i % 50), Date.now() + 20_000))
      }
      return sent
    }
    const load = Promise.all(payers.flatMap((payer, p) => [lane(payer, p), lane(payer, p + 1)]))

    await new Promise((resolve) => setTimeout(resolve, BEFORE_MS))
    // The failover: the primary goes away at once (its open connections drop), the standby is promoted, and new
    // connections reach it.
    primary.stop("immediate")
    proxy.cut()
    standby.promote()
    proxy.repoint(standby.port)
    switchedAt = Date.now()
    loadEnds.at = switchedAt + AFTER_MS
    const sent = (await load).flat()

    const statuses = sent.flatMap((s) => s.statuses)
    const counts = Object.fromEntries(
      [...new Set(statuses)].map((status) => [status, statuses.filter((x) => x === status).length])
    )
    console.log(`failover: ${sent.length} payments, answers ${JSON.stringify(counts)}`)
    // During the switch: 503 (retry with the same key), never a 500; in the end every payment was answered 201.
    expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([])
    expect(sent.filter((s) => s.status !== 201)).toEqual([])
    // Payments were in flight across the switch. Each was either run again by the store (a group whose connection broke
    // before its COMMIT runs its members again alone, on a new connection) or answered 503 (a COMMIT sent and not
    // answered, a transaction alone) and sent again with its key: how many of each depends on the moment.
    expect(sent.filter((s) => s.startedAt < switchedAt && s.endedAt > switchedAt).length).toBeGreaterThan(0)
    // Payments were acknowledged before the switch, and the instances took new ones after it.
    expect(sent.some((s) => s.startedAt < switchedAt - 500)).toBe(true)
    expect(sent.filter((s) => s.startedAt > switchedAt + 500).length).toBeGreaterThan(0)

    // The same key again answers the same payment (replayed), on either instance.
    for (const [i, s] of sent.entries()) {
      const again = await postPayment(urls[i % 2]!, one.admin, s.payer, s.body.totalSendingAmount, s.key)
      expect(again.status).toBe(201)
      expect(again.body.transactionId).toBe(s.body.transactionId)
    }

    // On the new primary itself: every acknowledged payment, each payer debited once per payment, the ledger holds.
    const client = new pg.Client({ connectionString: standby.url() })
    await client.connect()
    try {
      const ids = sent.map((s) => s.body.transactionId)
      const found = await client.query("SELECT count(*)::int AS n FROM transactions WHERE id = ANY($1::text[])", [ids])
      expect(found.rows[0].n).toBe(new Set(ids).size)
      expect(new Set(ids).size).toBe(sent.length)
      expect((await client.query(LEDGER_PROBLEMS_SQL)).rows).toEqual([])
    } finally {
      await client.end()
    }
    for (const payer of payers) {
      const spent = sent.filter((s) => s.payer === payer).reduce((sum, s) => sum + s.body.totalSendingAmount, 0)
      const listed = await two.call("GET", `/internal-account?customerId=${payer.customerId}&currency=USD`)
      expect(listed.json.data[0].balance.amount).toBe(FUNDED - spent)
    }
  }, 60_000)
})
