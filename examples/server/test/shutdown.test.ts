/**
 * Issue 33 item 6, the graceful stop of `npm start`, with real processes: SIGTERM in the middle of a load of writes
 * (each with an `Idempotency-Key`) while webhook attempts to a slow receiver are in flight. Every request sent before
 * the signal is answered (none reset), every 2xx is in the store after a restart, the attempts in flight complete and
 * are recorded, and the process exits 0 within PAYCORE_SHUTDOWN_SECONDS; `/readyz` turns 503 at once. A request that
 * hangs does not hold the stop past the deadline. Embedded PGlite, and the PostgreSQL server when DATABASE_URL is set.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { Agent, createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { createDatabase, TEST_MASTER_KEY } from "./databases.ts"
import { caller, startServerProcess } from "./servers.ts"

const CREDENTIALS = "shutdown-test:shutdown-test-secret-0001"
const call = caller(`Basic ${Buffer.from(CREDENTIALS).toString("base64")}`)

const startServer = (target: Target, env: Record<string, string>) =>
  startServerProcess({
    ...target.env,
    PAYCORE_SANDBOX_CREDENTIALS: CREDENTIALS,
    PAYCORE_WEBHOOK_LEASE_SECONDS: "60",
    ...env
  })
/** How long the slow receiver takes to answer each webhook. */
const RECEIVER_DELAY_MILLIS = 1_500

interface Target {
  readonly name: string
  readonly env: Record<string, string>
  readonly cleanup: () => Promise<void>
}

const pgliteTarget = (): Target => {
  const dir = mkdtempSync(join(tmpdir(), "paycore-shutdown-"))
  return {
    name: "embedded PGlite",
    env: { PAYCORE_DATA_DIR: dir },
    cleanup: async () => rmSync(dir, { recursive: true, force: true })
  }
}

const serverTarget = async (databaseUrl: string): Promise<Target> => {
  const database = await createDatabase(databaseUrl, "paycore_shutdown")
  return {
    name: "PostgreSQL server",
    // A server deployment shares its keys through the database, sealed under the master key (docs/operations.md).
    env: { DATABASE_URL: database.url, PAYCORE_MASTER_KEY: TEST_MASTER_KEY },
    cleanup: database.drop
  }
}

/** A GET on a connection of its own (no pool): `/readyz` while the server stops, on the connection it already has. */
const getOn = (origin: string, path: string, agent: Agent) =>
  new Promise<{ status: number; body: any; connection: string | undefined }>((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { agent }, (res) => {
      let body = ""
      res.on("data", (chunk) => {
        body += chunk
      })
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(body), connection: res.headers.connection })
      )
    })
    req.on("error", reject)
    req.end()
  })

/** A webhook receiver that answers 200 after `delayMillis` (never, for `Infinity`); counts what it holds. */
const startReceiver = async (delayMillis: number) => {
  const received: Array<string> = []
  let holding = 0
  let onHeld: (() => void) | undefined
  const server: Server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => {
      body += chunk
    })
    req.on("end", () => {
      holding++
      onHeld?.()
      const id = (JSON.parse(body) as { id: string }).id
      if (!Number.isFinite(delayMillis)) return
      setTimeout(() => {
        holding--
        received.push(id)
        res.writeHead(200).end()
      }, delayMillis)
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    server,
    holding: () => holding,
    /** Resolves once the receiver holds a request. */
    held: () =>
      new Promise<void>((resolve) => {
        if (holding > 0) resolve()
        else onHeld = resolve
      }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}

const customer = (name: string) => ({
  customerType: "INDIVIDUAL",
  fullName: name,
  currencies: ["USD"],
  endUserTermsConsent: {
    acceptedAt: "2026-01-01T00:00:00Z",
    ipAddress: "203.0.113.7",
    termsVersion: "2025-10-13",
    acceptanceMethod: "CHECKBOX"
  }
})

interface Sent {
  readonly kind: "customer" | "fund"
  readonly key: string
  readonly amount: number
  outcome?: { readonly status: number; readonly id?: string } | { readonly error: string }
}

const targets: Array<() => Promise<Target>> = [async () => pgliteTarget()]
if (process.env.DATABASE_URL !== undefined) targets.push(() => serverTarget(process.env.DATABASE_URL!))

describe.each(targets.map((make, i) => ({ make, i })))("graceful stop of npm start ($i)", ({ make }) => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it("issue 33 item 6: SIGTERM under a load of writes answers every request sent before it, keeps every 2xx, completes the webhook attempts in flight, exits 0 within the deadline", async () => {
    const target = await make()
    cleanups.push(target.cleanup)
    const receiver = await startReceiver(RECEIVER_DELAY_MILLIS)
    cleanups.push(receiver.close)
    const shutdownSeconds = 20
    let server = await startServer(target, { PAYCORE_SHUTDOWN_SECONDS: String(shutdownSeconds) })
    cleanups.push(async () => {
      server.process.kill("SIGKILL")
    })
    const { api } = server
    expect((await call(api, "PATCH", "/config", { webhookEndpoint: receiver.url })).status).toBe(200)
    const ada = await call(api, "POST", "/customers", customer("Ada Lovelace"))
    expect(ada.status).toBe(201)
    const account = (await call(api, "GET", `/internal-account?customerId=${ada.json.id}&currency=USD`)).json.data[0].id
    // A probe's keep-alive connection, open before the stop: the readiness answer it gets then is 503.
    const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 })
    expect(await getOn(server.origin, "/readyz", probeAgent)).toMatchObject({ status: 200, body: { ok: true } })

    // The load: loops of writes, each with its own key (funding emits a webhook event; a customer does not).
    const sent: Array<Sent> = []
    let signalled = false
    const loop = async (n: number) => {
      for (let i = 0; !signalled; i++) {
        const entry: Sent =
          i % 2 === 0
            ? { kind: "fund", key: `shutdown-fund-${n}-${i}`, amount: 100 + n }
            : { kind: "customer", key: `shutdown-customer-${n}-${i}`, amount: 0 }
        sent.push(entry)
        try {
          const r =
            entry.kind === "fund"
              ? await call(
                  api,
                  "POST",
                  `/sandbox/internal-accounts/${account}/fund`,
                  { amount: entry.amount },
                  {
                    "idempotency-key": entry.key
                  }
                )
              : await call(api, "POST", "/customers", customer(`Load ${n}-${i}`), { "idempotency-key": entry.key })
          entry.outcome = { status: r.status, id: r.json?.id }
        } catch (error) {
          entry.outcome = { error: String((error as Error).cause ?? error) }
        }
      }
    }
    const loops = Promise.all([0, 1, 2, 3, 4, 5].map(loop))
    // Stop once writes are flowing and the receiver holds an attempt.
    while (sent.filter((s) => s.outcome !== undefined).length < 30) await new Promise((r) => setTimeout(r, 20))
    await receiver.held()
    const holdingAtSignal = receiver.holding()
    signalled = true
    const signalledAt = Date.now()
    server.process.kill("SIGTERM")
    // The probe's connection asks again until the server has taken the signal: from then on, 503.
    let readiness = await getOn(server.origin, "/readyz", probeAgent)
    while (readiness.status === 200) {
      await new Promise((r) => setTimeout(r, 10))
      readiness = await getOn(server.origin, "/readyz", probeAgent)
    }
    await loops
    const code = await server.exited
    const stoppedSeconds = (Date.now() - signalledAt) / 1000

    expect(code, server.output()).toBe(0)
    expect(stoppedSeconds).toBeLessThan(shutdownSeconds)
    expect(readiness.status).toBe(503)
    expect(readiness.body).toEqual({ ok: false, notReady: { draining: expect.any(String) } })
    expect(readiness.connection).toBe("close")
    // Every request sent before the signal has its answer: none was reset, none refused.
    const failed = sent.filter((s) => s.outcome === undefined || "error" in s.outcome)
    expect(failed).toEqual([])
    const acknowledged = sent.filter((s) => s.outcome !== undefined && "status" in s.outcome && s.outcome.status < 300)
    expect(acknowledged.length).toBe(sent.length)
    // The attempts in flight at the signal were answered, after the signal, and the server waited for them.
    expect(holdingAtSignal).toBeGreaterThan(0)
    expect(receiver.holding()).toBe(0)
    const deliveredFirstLife = [...receiver.received]

    // ---- after a restart on the same data: every 2xx is there ----
    server = await startServer(target, { PAYCORE_SHUTDOWN_SECONDS: String(shutdownSeconds) })
    const api2 = server.api
    const funded = acknowledged.filter((s) => s.kind === "fund").reduce((sum, s) => sum + s.amount, 0)
    const balance = (await call(api2, "GET", `/internal-account?customerId=${ada.json.id}&currency=USD`)).json.data[0]
      .balance.amount
    expect(balance).toBe(funded)
    for (const s of acknowledged.filter((a) => a.kind === "customer")) {
      const id = (s.outcome as { id: string }).id
      expect((await call(api2, "GET", `/customers/${id}`)).status).toBe(200)
    }
    // A write sent again with its key is the stored answer, never a second run.
    const again = acknowledged.find((s) => s.kind === "fund")!
    const replay = await call(
      api2,
      "POST",
      `/sandbox/internal-accounts/${account}/fund`,
      { amount: again.amount },
      {
        "idempotency-key": again.key
      }
    )
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    // Each event the receiver answered in the first life is recorded DELIVERED with that one attempt: the stop let
    // the attempts finish and be recorded, so none is sent again.
    const deliveries = new Map<string, any>()
    for (let cursor: string | undefined, more = true; more; ) {
      const page = (
        await call(api2, "GET", `/webhooks/deliveries?limit=100${cursor === undefined ? "" : `&cursor=${cursor}`}`)
      ).json
      for (const row of page.data) deliveries.set(row.id, row)
      more = page.hasMore
      cursor = page.nextCursor
    }
    expect(deliveredFirstLife.length).toBeGreaterThan(0)
    expect(new Set(deliveredFirstLife).size).toBe(deliveredFirstLife.length)
    for (const id of deliveredFirstLife) {
      expect(deliveries.get(id)?.status, id).toBe("DELIVERED")
      expect(deliveries.get(id)?.attempts, id).toHaveLength(1)
    }
    server.process.kill("SIGTERM")
    expect(await server.exited).toBe(0)
  }, 180_000)
})

describe("the stop's deadline", () => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it("issue 33 item 6: a request that hangs (a test webhook to a receiver that never answers) is cut at PAYCORE_SHUTDOWN_SECONDS; the process exits then", async () => {
    // The memory store starts in a moment; the stop's steps are the same on every store.
    const target: Target = { name: "memory", env: { PAYCORE_STORE: "memory" }, cleanup: async () => {} }
    const receiver = await startReceiver(Number.POSITIVE_INFINITY)
    cleanups.push(receiver.close)
    const shutdownSeconds = 3
    const server = await startServer(target, { PAYCORE_SHUTDOWN_SECONDS: String(shutdownSeconds) })
    cleanups.push(async () => {
      server.process.kill("SIGKILL")
    })
    expect((await call(server.api, "PATCH", "/config", { webhookEndpoint: receiver.url })).status).toBe(200)
    // The test send waits for the receiver's answer (up to the transport's 30 s): it hangs.
    const hanging = call(server.api, "POST", "/sandbox/webhooks/test").then(
      (r) => r.status,
      (error: Error) => `cut: ${String(error.cause ?? error)}`
    )
    await receiver.held()
    const signalledAt = Date.now()
    server.process.kill("SIGTERM")
    const code = await server.exited
    const stoppedSeconds = (Date.now() - signalledAt) / 1000
    expect(await hanging).toMatch(/^cut: /)
    // The deadline, and the moment a process takes to exit.
    expect(stoppedSeconds).toBeLessThan(shutdownSeconds + 2)
    expect(code, server.output()).toBe(0)
    expect(server.output()).toContain("1 request(s) cut")
  }, 120_000)
})
