import { randomBytes } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
// The first payment as a caller of either host makes it (one script for both host examples).
import { firstPayment } from "../../host-node-http/test/first-payment.ts"
import { PREFIX } from "../src/app.ts"
import { type RunningHost, startHost } from "../src/server.ts"

const API_TOKEN = "host-token-0123456789"
const databaseUrl = process.env.DATABASE_URL === "" ? undefined : process.env.DATABASE_URL

const databases = [
  { name: "an in-memory PGlite (no DATABASE_URL)", databaseUrl: undefined },
  ...(databaseUrl === undefined ? [] : [{ name: "the PostgreSQL server of DATABASE_URL", databaseUrl }])
]

const admin = async (databaseUrl: string, statement: string) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  await client.query(statement).finally(() => client.end())
}

describe.each(databases)("examples/host-hono on $name", ({ databaseUrl }) => {
  const schema = databaseUrl === undefined ? undefined : `host_hono_${process.pid}_${randomBytes(3).toString("hex")}`
  let host: RunningHost
  let api: string

  beforeAll(async () => {
    if (databaseUrl !== undefined) await admin(databaseUrl, `CREATE SCHEMA ${schema}`)
    host = await startHost({
      port: 0,
      databaseUrl,
      schema,
      apiToken: API_TOKEN,
      paycoreSecret: randomBytes(24).toString("hex"),
      webhookPrivateKey: randomBytes(32).toString("hex")
    })
    api = `${host.url}${PREFIX}/2025-10-13`
  })

  afterAll(async () => {
    await host?.close()
    if (databaseUrl !== undefined) await admin(databaseUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  })

  it("makes a first payment through /payments: customer, sandbox funding, quote, execute, settled", async () => {
    const { funded, transaction, balanceAfter } = await firstPayment(api, `Bearer ${API_TOKEN}`)
    expect(funded.balance.amount).toBe(100_000)
    expect(transaction.status).toBe("COMPLETED")
    expect(balanceAfter.amount).toBe(100_000 - 2_500)
  })

  it("refuses a request without the host's token before paycore sees it (Hono's bearer auth)", async () => {
    const refusals = [
      { headers: {}, status: 401 },
      { headers: { authorization: "Bearer wrong" }, status: 401 },
      // Not a Bearer header at all: Hono answers 400 (invalid_request), paycore never sees it.
      { headers: { authorization: "Basic aG9zdC1zZXJ2ZXI6eA==" }, status: 400 }
    ]
    for (const { headers, status } of refusals) {
      const response = await fetch(`${api}/customers`, { headers })
      expect(response.status).toBe(status)
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/)
      // paycore's 401 is JSON with a code; Hono's is its own.
      expect(await response.text()).not.toContain("UNAUTHORIZED")
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
