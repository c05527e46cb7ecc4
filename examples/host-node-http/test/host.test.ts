import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { migrateDatabase, openDatabase } from "../src/paycore.ts"
import { PREFIX, type RunningHost, startHost } from "../src/server.ts"
import { firstPayment } from "./first-payment.ts"

const API_TOKEN = "host-token-0123456789"
const databaseUrl = process.env.DATABASE_URL === "" ? undefined : process.env.DATABASE_URL

const databases = [
  { name: "an in-memory PGlite (no DATABASE_URL)", databaseUrl: undefined },
  ...(databaseUrl === undefined ? [] : [{ name: "the PostgreSQL server of DATABASE_URL", databaseUrl }])
]

describe.each(databases)("examples/host-node-http on $name", ({ databaseUrl }) => {
  const schema =
    databaseUrl === undefined ? undefined : `host_node_http_${process.pid}_${randomBytes(3).toString("hex")}`
  let host: RunningHost
  let api: string

  beforeAll(async () => {
    if (databaseUrl !== undefined) {
      // Once per deployment: the migrations, from a program of their own (src/migrate.ts does this).
      const db = openDatabase({ databaseUrl, schema })
      try {
        expect((await migrateDatabase(db, schema)).length).toBeGreaterThan(0)
        expect(await migrateDatabase(db, schema)).toEqual([])
      } finally {
        await db.destroy()
      }
    }
    host = await startHost({
      port: 0,
      databaseUrl,
      schema,
      migrateAtStart: databaseUrl === undefined,
      apiToken: API_TOKEN,
      paycoreSecret: randomBytes(24).toString("hex"),
      webhookPrivateKey: randomBytes(32).toString("hex")
    })
    api = `${host.url}${PREFIX}/2025-10-13`
  })

  afterAll(async () => {
    await host?.close()
    if (schema !== undefined) {
      const client = new pg.Client({ connectionString: databaseUrl })
      await client.connect()
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => client.end())
    }
  })

  it("makes a first payment through /payments: customer, sandbox funding, quote, execute, settled", async () => {
    const { funded, quote, transaction, balanceAfter } = await firstPayment(api, `Bearer ${API_TOKEN}`)
    expect(funded.balance.amount).toBe(100_000)
    expect(quote.totalSendingAmount).toBe(2_500)
    expect(transaction.status).toBe("COMPLETED")
    expect(transaction.settledAt).toBeTypeOf("string")
    expect(balanceAfter.amount).toBe(100_000 - 2_500)
  })

  it("refuses a request without the host's token, or with paycore's own Basic credentials, before paycore sees it", async () => {
    for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: "Basic aG9zdC1zZXJ2ZXI6eA==" }]) {
      const response = await fetch(`${api}/customers`, { headers })
      expect(response.status).toBe(401)
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="host"')
      expect(await response.json()).toEqual({ error: "unauthorized", by: "host" })
    }
  })

  it("answers paycore's own 404 under the prefix, and leaves every path outside it to the host", async () => {
    const inside = await fetch(`${host.url}${PREFIX}/2025-10-13/no-such-route`, {
      headers: { authorization: `Bearer ${API_TOKEN}` }
    })
    expect(inside.status).toBe(404)
    expect(await inside.json()).toMatchObject({ code: "NOT_FOUND" })
    expect(await (await fetch(`${host.url}/health`)).json()).toEqual({ ok: true })
    for (const path of ["/2025-10-13/customers", "/paymentsx/2025-10-13/customers", "/"]) {
      const outside = await fetch(`${host.url}${path}`, { headers: { authorization: `Bearer ${API_TOKEN}` } })
      expect(outside.status).toBe(404)
      expect(await outside.json()).toEqual({ error: "not found", by: "host" })
    }
  })
})
