/**
 * Crash safety of `npm start`: SIGKILL the server process in the middle of a stream of executes, restart it on
 * the same data, and check that nothing acknowledged was lost and nothing was done twice. Runs on embedded
 * PGlite (the default, fsync off: a killed process still loses nothing the OS has) and, when DATABASE_URL is
 * set, on the real PostgreSQL server.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Store } from "@paycore/core"
import * as PostgresStore from "@paycore/store-postgres"
import { Effect, type Layer } from "effect"
import { Webhook } from "standardwebhooks"
import { afterAll, describe, expect, it } from "vitest"
import { createDatabase, TEST_MASTER_KEY } from "./databases.ts"
import { caller, listAll, startServerProcess, until } from "./servers.ts"

const CREDENTIALS = "crash-test:crash-test-secret-0001"
const call = caller(`Basic ${Buffer.from(CREDENTIALS).toString("base64")}`)

const startServer = (target: Target) =>
  startServerProcess({
    ...target.env,
    PAYCORE_SANDBOX_CREDENTIALS: CREDENTIALS,
    PAYCORE_SANDBOX_SPEEDUP: "1000000",
    PAYCORE_WEBHOOK_LEASE_SECONDS: "1"
  })
const QUOTES = 40
const AMOUNT = 1_000
const KILL_AFTER_ACKNOWLEDGED = 12

interface Target {
  readonly name: string
  /** The server's environment for this store. */
  readonly env: Record<string, string>
  /** The same store opened in this process (after the server stopped, for PGlite). */
  readonly layer: () => Layer.Layer<Store, unknown>
  readonly cleanup: () => Promise<void>
}

const pgliteTarget = (): Target => {
  const dir = mkdtempSync(join(tmpdir(), "paycore-crash-"))
  return {
    name: "embedded PGlite",
    env: { PAYCORE_DATA_DIR: dir },
    layer: () => PostgresStore.layerPglite({ dataDir: join(dir, "pglite") }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true })
  }
}

const serverTarget = async (databaseUrl: string): Promise<Target> => {
  const database = await createDatabase(databaseUrl, "paycore_crash")
  return {
    name: "PostgreSQL server",
    // A PostgreSQL server is shared: without the keys given, they are kept sealed in it under the master key.
    env: { DATABASE_URL: database.url, PAYCORE_MASTER_KEY: TEST_MASTER_KEY },
    layer: () => PostgresStore.layerPg({ connectionString: database.url }),
    cleanup: database.drop
  }
}

/**
 * A webhook receiver as a platform writes one: verifies each delivery with the reference Standard Webhooks
 * package and the secret the server printed at its first start (400 when it does not verify), records the ids.
 */
const startReceiver = async () => {
  const received: Array<{ id: string; type: string; subject: string }> = []
  let refused = 0
  let verifier: Webhook | undefined
  const server: Server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => {
      body += chunk
    })
    req.on("end", () => {
      let event: any
      try {
        event = verifier!.verify(body, req.headers as Record<string, string>)
      } catch {
        refused++
        res.writeHead(400).end()
        return
      }
      received.push({ id: event.id, type: event.type, subject: event.data?.id })
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    server,
    useSecret: (secret: string) => {
      verifier = new Webhook(secret)
    },
    refused: () => refused
  }
}

const targets: Array<() => Promise<Target>> = [async () => pgliteTarget()]
if (process.env.DATABASE_URL !== undefined) targets.push(() => serverTarget(process.env.DATABASE_URL!))

describe.each(targets.map((make, i) => ({ make, i })))("SIGKILL during a stream of executes ($i)", ({ make }) => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it("loses nothing acknowledged, does nothing twice, delivers every committed event", async () => {
    const target = await make()
    cleanups.push(target.cleanup)
    const receiver = await startReceiver()
    cleanups.push(() => new Promise((r) => receiver.server.close(() => r())))

    // ---- first life: set up, then a stream of executes, killed midway ----
    let server = await startServer(target)
    cleanups.push(async () => {
      server.process.kill("SIGKILL")
    })
    const { api } = server
    // WH-04: the first start shows the endpoint's signing secret once; the restart below does not show it again.
    const secret = /webhook secret\s+(whsec_\S+)/.exec(server.banner)?.[1]
    expect(secret, server.banner).toBeDefined()
    receiver.useSecret(secret!)
    expect((await call(api, "PATCH", "/config", { webhookEndpoint: receiver.url })).status).toBe(200)
    const customer = await call(api, "POST", "/customers", {
      customerType: "INDIVIDUAL",
      fullName: "Ada Lovelace",
      currencies: ["USD"],
      endUserTermsConsent: {
        acceptedAt: "2026-01-01T00:00:00Z",
        ipAddress: "203.0.113.7",
        termsVersion: "2025-10-13",
        acceptanceMethod: "CHECKBOX"
      }
    })
    expect(customer.status).toBe(201)
    const account = (await call(api, "GET", `/internal-account?customerId=${customer.json.id}&currency=USD`)).json
      .data[0].id
    const payee = await call(api, "POST", "/customers/external-accounts", {
      customerId: customer.json.id,
      currency: "USD",
      accountInfo: {
        accountType: "US_ACCOUNT",
        accountNumber: "123456789",
        routingNumber: "021000021",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" }
      }
    })
    expect(payee.status).toBe(201)
    const funded = 10_000_000
    expect((await call(api, "POST", `/sandbox/internal-accounts/${account}/fund`, { amount: funded })).status).toBe(200)
    const quotes: Array<{ id: string; transactionId: string; totalSendingAmount: number }> = []
    for (let i = 0; i < QUOTES; i++) {
      const quote = await call(api, "POST", "/quotes", {
        source: { sourceType: "ACCOUNT", accountId: account },
        destination: { destinationType: "ACCOUNT", accountId: payee.json.id },
        lockedCurrencySide: "SENDING",
        lockedCurrencyAmount: AMOUNT
      })
      expect(quote.status).toBe(201)
      quotes.push(quote.json)
    }

    const acknowledged = new Set<string>()
    const queue = [...quotes]
    const execute = (id: string) =>
      call(api, "POST", `/quotes/${id}/execute`, undefined, { "idempotency-key": `execute-${id}` })
    const worker = async () => {
      for (let quote = queue.shift(); quote !== undefined; quote = queue.shift()) {
        try {
          const result = await execute(quote.id)
          if (result.status === 200) acknowledged.add(quote.id)
          if (acknowledged.size >= KILL_AFTER_ACKNOWLEDGED) server.process.kill("SIGKILL")
        } catch {
          return // the server is gone: this execute's outcome is unknown to the client
        }
      }
    }
    await Promise.all([worker(), worker(), worker(), worker()])
    await server.exited
    expect(acknowledged.size).toBeGreaterThanOrEqual(KILL_AFTER_ACKNOWLEDGED)
    expect(acknowledged.size).toBeLessThan(QUOTES)

    // ---- second life: the same data ----
    server = await startServer(target)
    expect(server.banner).toContain("webhook secret  set earlier")
    expect(server.banner).not.toContain("whsec_")
    const api2 = server.api
    // Every execute again with its key: acknowledged ones are replays of the stored answer, never a second run.
    for (const quote of quotes) {
      const again = await call(api2, "POST", `/quotes/${quote.id}/execute`, undefined, {
        "idempotency-key": `execute-${quote.id}`
      })
      expect(again.status, JSON.stringify(again.json)).toBe(200)
      if (acknowledged.has(quote.id)) expect(again.headers.get("idempotent-replayed")).toBe("true")
    }

    // Exactly one transaction per quote, all settled.
    const settled = await until("every payment COMPLETED", async () => {
      const rows = await listAll(call, api2, `/transactions?customerId=${customer.json.id}&type=OUTGOING`)
      return rows.length === QUOTES && rows.every((t) => t.status === "COMPLETED") ? rows : undefined
    })
    expect(new Set(settled.map((t) => t.id))).toEqual(new Set(quotes.map((q) => q.transactionId)))
    const balance = (await call(api2, "GET", `/internal-account?customerId=${customer.json.id}&currency=USD`)).json
      .data[0].balance.amount
    expect(balance).toBe(funded - quotes.reduce((sum, q) => sum + q.totalSendingAmount, 0))

    // Every committed event delivered at least once; nothing delivered that was not committed.
    await until("the outbox drained", async () => {
      const pending = await call(api2, "GET", "/webhooks/deliveries?status=PENDING")
      return pending.json.totalCount === 0 ? true : undefined
    })
    const committed = await listAll(call, api2, "/webhooks/deliveries")
    expect(committed.every((row) => row.status === "DELIVERED")).toBe(true)
    const committedIds = new Set(committed.map((row) => row.id))
    const receivedIds = new Set(receiver.received.map((event) => event.id))
    expect([...committedIds].filter((id) => !receivedIds.has(id))).toEqual([])
    expect([...receivedIds].filter((id) => !committedIds.has(id))).toEqual([])
    expect(receiver.refused()).toBe(0)
    for (const quote of quotes) {
      const types = committed
        .filter((row) => row.subject === quote.transactionId)
        .sort((a, b) => a.sequence - b.sequence)
        .map((row) => row.type)
      expect(types.at(-1)).toBe("OUTGOING_PAYMENT.COMPLETED")
      expect(types.filter((type) => type === "OUTGOING_PAYMENT.COMPLETED")).toHaveLength(1)
    }

    // Stop cleanly, then the ledger as the store holds it: every currency sums to zero.
    // Ctrl-C: the graceful stop runs (PGlite closes), then the server exits 0 (docs/operations.md, "Stopping").
    server.process.kill("SIGINT")
    expect(await server.exited).toBe(0)
    const balances = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* Store
        return yield* store.ledger.allBalances()
      }).pipe(Effect.provide(target.layer()))
    )
    const sums = new Map<string, number>()
    for (const b of balances) sums.set(b.currency, (sums.get(b.currency) ?? 0) + b.posted)
    for (const [currency, sum] of sums) expect(sum, currency).toBe(0)
    expect(balances.every((b) => b.pendingDebits === 0 && b.pendingCredits === 0)).toBe(true)
  }, 180_000)
})
