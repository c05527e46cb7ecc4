/**
 * Several instances on one PostgreSQL database (issue 33, item 2): three `serve` processes of @paycore/server on a
 * database of their own, a mixed load at all three (quotes and executes, sandbox funding, reads) across many
 * customers, one instance SIGKILLed mid-load and started again. Then: every acknowledged payment exists exactly once
 * with its ledger effect, an `Idempotency-Key` sent again at another instance answers the same, money is conserved,
 * and PostgreSQL counted no deadlock in that database (`pg_stat_database.deadlocks`): group commit takes its rows in
 * one global order (docs/operations.md, "Transactions, isolation and locking").
 *
 * Needs DATABASE_URL (skipped without). CI runs a bounded load with a fixed seed; `PAYCORE_INSTANCES_SECONDS=60`
 * (and `PAYCORE_INSTANCES_SEED`) runs a longer one.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { createDatabase } from "./databases.ts"
import { type Answer, caller, listAll, type ServerProcess, startServerProcess, until } from "./servers.ts"

const CREDENTIALS = "instances-test:instances-test-secret-0001"
const call = caller(`Basic ${Buffer.from(CREDENTIALS).toString("base64")}`)
/** One webhook key and one wallet KEK for every instance (a shared database needs them shared). */
const WEBHOOK_KEY = "3f1c9a8e7d6b5a4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a99887766554433221100"
const WALLET_KEK = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
const INSTANCES = 3
const CUSTOMERS = 8
const CLIENTS_PER_INSTANCE = 10
const LOAD_SECONDS = Number(process.env.PAYCORE_INSTANCES_SECONDS ?? 15)
const SEED = Number(process.env.PAYCORE_INSTANCES_SEED ?? 33)
const INITIAL_FUNDS = 5_000_000

const startInstance = (databaseUrl: string, webhookLease = "60") =>
  startServerProcess({
    DATABASE_URL: databaseUrl,
    PAYCORE_SANDBOX_CREDENTIALS: CREDENTIALS,
    PAYCORE_SANDBOX_SPEEDUP: "1000000",
    PAYCORE_WEBHOOK_PRIVATE_KEY: WEBHOOK_KEY,
    PAYCORE_WALLET_KEK: WALLET_KEK,
    PAYCORE_WEBHOOK_LEASE_SECONDS: webhookLease
  })

/** mulberry32: a small seeded generator, so a run's choices replay. */
const random = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A webhook endpoint that takes every delivery: the instances' dispatchers run under the load too. */
const startReceiver = async () => {
  let received = 0
  const server: Server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      received++
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    server,
    received: () => received
  }
}

interface Customer {
  readonly id: string
  readonly account: string
  readonly payee: string
}

/** A command sent with an Idempotency-Key: its first answer, and the key to send it again. */
interface Sent {
  readonly key: string
  readonly method: string
  readonly path: string
  readonly body: unknown
  /** undefined: the instance died before it answered (outcome unknown to the client). */
  answer: Answer | undefined
}

const database = process.env.DATABASE_URL

describe.skipIf(database === undefined)("several instances on one PostgreSQL database", () => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
  })

  it("three instances, one killed and restarted mid-load: nothing lost, nothing twice, money conserved, no deadlock", async () => {
    const { name, url: databaseUrl, drop } = await createDatabase(database!, "paycore_instances")
    cleanups.push(drop)
    const admin = new pg.Client({ connectionString: database })
    await admin.connect()
    cleanups.push(() => admin.end())
    const deadlocks = async () =>
      Number(
        (await admin.query(`SELECT deadlocks FROM pg_stat_database WHERE datname = $1`, [name])).rows[0]?.deadlocks ?? 0
      )

    const receiver = await startReceiver()
    cleanups.push(() => new Promise((r) => receiver.server.close(() => r())))

    // The first instance migrates the database; the others start on it together.
    const instances: Array<ServerProcess> = [await startInstance(databaseUrl)]
    instances.push(...(await Promise.all([startInstance(databaseUrl), startInstance(databaseUrl)])))
    cleanups.push(async () => {
      for (const instance of instances) instance.process.kill("SIGKILL")
    })
    const first = instances[0]!.api
    expect((await call(first, "PATCH", "/config", { webhookEndpoint: receiver.url })).status).toBe(200)

    // ---- customers, each with a funded account and a payee, made at the three instances in turn ----
    const setUp = async (i: number): Promise<Customer> => {
      const api = instances[i % INSTANCES]!.api
      const customer = await call(api, "POST", "/customers", {
        customerType: "INDIVIDUAL",
        fullName: `Customer ${i}`,
        currencies: ["USD"],
        endUserTermsConsent: {
          acceptedAt: "2026-01-01T00:00:00Z",
          ipAddress: "203.0.113.7",
          termsVersion: "2025-10-13",
          acceptanceMethod: "CHECKBOX"
        }
      })
      expect(customer.status, JSON.stringify(customer.json)).toBe(201)
      const account = (await call(api, "GET", `/internal-account?customerId=${customer.json.id}&currency=USD`)).json
        .data[0].id
      const payee = await call(api, "POST", "/customers/external-accounts", {
        customerId: customer.json.id,
        currency: "USD",
        accountInfo: {
          accountType: "US_ACCOUNT",
          accountNumber: `1${String(i).padStart(3, "0")}56789`,
          routingNumber: "021000021",
          beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: `Payee ${i}` }
        }
      })
      expect(payee.status, JSON.stringify(payee.json)).toBe(201)
      const funded = await call(api, "POST", `/sandbox/internal-accounts/${account}/fund`, { amount: INITIAL_FUNDS })
      expect(funded.status, JSON.stringify(funded.json)).toBe(200)
      return { id: customer.json.id, account, payee: payee.json.id }
    }
    const customers = await Promise.all(Array.from({ length: CUSTOMERS }, (_, i) => setUp(i)))

    // ---- the mixed load ----
    const deadlocksBefore = await deadlocks()
    const executes: Array<Sent & { customer: Customer; quote: any }> = []
    const funds: Array<Sent & { customer: Customer; amount: number }> = []
    const mismatches: Array<string> = []
    let requests = 0
    let reads = 0
    const KILLED = 1
    let down = false
    const up = () => instances.flatMap((instance, i) => (down && i === KILLED ? [] : [instance.api]))
    /** The instances up but `api` (`api` itself when it is the only one). */
    const others = (api: string) => {
      const rest = up().filter((other) => other !== api)
      return rest.length === 0 ? [api] : rest
    }

    /** Sends a command; undefined when the instance died under it. */
    const send = async (api: string, sent: Sent): Promise<Answer | undefined> => {
      requests++
      try {
        return await call(api, sent.method, sent.path, sent.body, { "idempotency-key": sent.key })
      } catch {
        return undefined
      }
    }
    /** Sends a command again at another instance: a stored answer must come back the same. */
    const resend = async (api: string, sent: Sent) => {
      const again = await send(api, sent)
      if (again === undefined || sent.answer === undefined) return
      if (sent.answer.status < 300) {
        const same = JSON.stringify(again.json) === JSON.stringify(sent.answer.json)
        if (again.status !== sent.answer.status || !again.replayed || !same)
          mismatches.push(`${sent.path}: ${JSON.stringify(sent.answer)} then ${JSON.stringify(again)}`)
      }
    }

    const deadline = Date.now() + LOAD_SECONDS * 1000
    const client = async (n: number) => {
      const next = random(SEED * 1000 + n)
      const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(next() * xs.length)]!
      let serial = 0
      while (Date.now() < deadline) {
        const apis = up()
        const api = pick(apis)
        const customer = pick(customers)
        const roll = next()
        serial++
        if (roll < 0.55) {
          requests++
          const quote = await call(api, "POST", "/quotes", {
            source: { sourceType: "ACCOUNT", accountId: customer.account },
            destination: { destinationType: "ACCOUNT", accountId: customer.payee },
            lockedCurrencySide: "SENDING",
            lockedCurrencyAmount: 100 + Math.floor(next() * 900)
          }).catch(() => undefined)
          if (quote === undefined || quote.status !== 201) continue
          const sent = {
            key: `execute-${quote.json.id}`,
            method: "POST",
            path: `/quotes/${quote.json.id}/execute`,
            body: undefined,
            answer: undefined as Answer | undefined,
            customer,
            quote: quote.json
          }
          executes.push(sent)
          const at = pick(up())
          sent.answer = await send(at, sent)
          if (next() < 0.3) await resend(pick(others(at)), sent)
        } else if (roll < 0.75) {
          const amount = 1_000 + Math.floor(next() * 9_000)
          const sent = {
            key: `fund-${SEED}-${n}-${serial}`,
            method: "POST",
            path: `/sandbox/internal-accounts/${customer.account}/fund`,
            body: { amount },
            answer: undefined as Answer | undefined,
            customer,
            amount
          }
          funds.push(sent)
          sent.answer = await send(api, sent)
          if (next() < 0.3) await resend(pick(others(api)), sent)
        } else {
          requests++
          reads++
          const path =
            next() < 0.5
              ? `/internal-account?customerId=${customer.id}&currency=USD`
              : `/transactions?customerId=${customer.id}&limit=10`
          await call(api, "GET", path).catch(() => undefined)
        }
      }
    }
    const chaos = async () => {
      await new Promise((r) => setTimeout(r, LOAD_SECONDS * 400))
      down = true
      instances[KILLED]!.process.kill("SIGKILL")
      await instances[KILLED]!.exited
      await new Promise((r) => setTimeout(r, LOAD_SECONDS * 100))
      instances[KILLED] = await startInstance(databaseUrl)
      down = false
    }
    await Promise.all([chaos(), ...Array.from({ length: INSTANCES * CLIENTS_PER_INSTANCE }, (_, n) => client(n))])

    // ---- every command whose answer was lost, sent again with its key: the outcome is now known ----
    for (const sent of [...executes, ...funds]) {
      if (sent.answer !== undefined) continue
      sent.answer = await send(first, sent)
      expect(sent.answer, sent.path).toBeDefined()
    }
    for (const sent of [...executes, ...funds]) {
      expect(sent.answer!.status, `${sent.path}: ${JSON.stringify(sent.answer!.json)}`).toBeLessThan(500)
    }
    expect(mismatches, "answers sent again at another instance").toEqual([])
    const acknowledged = executes.filter((sent) => sent.answer!.status === 200)
    const fundsAcknowledged = funds.filter((sent) => sent.answer!.status === 200)
    expect(acknowledged.length).toBeGreaterThan(0)
    expect(fundsAcknowledged.length).toBeGreaterThan(0)

    // ---- one transaction per acknowledged execute, none for a refused one; one per acknowledged funding ----
    // (Payments are not waited for: one reserved by the killed instance is submitted again after the 60 s grace.)
    const api = first
    const outgoingNow = () => listAll(call, api, "/transactions?type=OUTGOING")
    const outgoing = await outgoingNow()
    const byId = new Map<string, number>()
    for (const t of outgoing) byId.set(t.id, (byId.get(t.id) ?? 0) + 1)
    expect([...byId.values()].every((count) => count === 1)).toBe(true)
    expect(acknowledged.every((sent) => sent.answer!.json.transactionId === sent.quote.transactionId)).toBe(true)
    const acknowledgedIds = new Set(acknowledged.map((sent) => sent.quote.transactionId as string))
    expect(
      [...acknowledgedIds].filter((id) => !byId.has(id)),
      "acknowledged, not found"
    ).toEqual([])
    // A refused execute (a limit) may leave its payment FAILED; a quote whose creation's answer was lost (the instance
    // was killed) leaves its PENDING payment, never executed. Neither moved money (the balances below).
    const refusedIds = new Set(
      executes.filter((sent) => sent.answer!.status !== 200).map((sent) => sent.quote.transactionId as string)
    )
    expect(
      outgoing
        .filter((t) => !acknowledgedIds.has(t.id))
        .filter((t) => !(refusedIds.has(t.id) && t.status === "FAILED"))
        .map((t) => {
          const sent = executes.find((e) => e.quote.transactionId === t.id)
          return `${t.id} ${t.status} ${sent === undefined ? "untracked" : JSON.stringify(sent.answer)}`
        })
        .filter((line) => !line.endsWith(" PENDING untracked")),
      "payments without an acknowledged execute"
    ).toEqual([])
    const incoming = await listAll(call, api, "/transactions?type=INCOMING")
    expect(incoming.length).toBe(CUSTOMERS + fundsAcknowledged.length)

    // ---- each customer's available balance is what its acknowledged commands made it ----
    // A payment the rail failed gives its money back: the failed ones are read before and after the balances.
    const failedIds = (rows: Array<any>) =>
      new Set(rows.filter((t) => t.status === "FAILED").map((t) => t.id as string))
    await until("balances read between two equal lists of failed payments", async () => {
      const failed = failedIds(await outgoingNow())
      const balances = new Map<string, number>()
      for (const customer of customers) {
        const read = await call(api, "GET", `/internal-account?customerId=${customer.id}&currency=USD`)
        balances.set(customer.id, read.json.data[0].balance.amount)
      }
      const failedAfter = failedIds(await outgoingNow())
      if (failedAfter.size !== failed.size) return undefined
      for (const customer of customers) {
        const expected =
          INITIAL_FUNDS +
          fundsAcknowledged.filter((s) => s.customer === customer).reduce((sum, s) => sum + s.amount, 0) -
          acknowledged
            .filter((s) => s.customer === customer && !failed.has(s.quote.transactionId))
            .reduce((sum, s) => sum + s.quote.totalSendingAmount, 0)
        expect(balances.get(customer.id), customer.id).toBe(expected)
      }
      return true
    })

    // ---- money conserved: every currency's balances sum to zero, holds match, no account below zero ----
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    const sums = await db.query(
      `SELECT currency, sum(posted)::bigint AS posted, sum(pending_debits)::bigint AS debits, ` +
        `sum(pending_credits)::bigint AS credits FROM ledger_balances GROUP BY currency`
    )
    for (const row of sums.rows) {
      expect({ currency: row.currency, posted: Number(row.posted), held: Number(row.debits) }).toEqual({
        currency: row.currency,
        posted: 0,
        held: Number(row.credits)
      })
    }
    const negative = await db.query(
      `SELECT account FROM ledger_balances WHERE NOT starts_with(account, 'system:') ` +
        `GROUP BY account HAVING sum(posted) - sum(pending_debits) < 0`
    )
    expect(negative.rows, "accounts below zero").toEqual([])

    // ---- the deadlocks PostgreSQL counted in this database: read once every session ended (a backend reports its
    // counts when idle for a while or when it exits) ----
    for (const instance of instances) instance.process.kill("SIGKILL")
    await Promise.all(instances.map((instance) => instance.exited))
    await db.end()
    await until("every session of the database ended", async () => {
      const open = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1`, [name])
      return open.rows[0].n === 0 ? true : undefined
    })
    const found = (await deadlocks()) - deadlocksBefore
    console.log(
      `instances: ${INSTANCES} (1 SIGKILLed and restarted), ${LOAD_SECONDS} s, seed ${SEED}: ${requests} requests ` +
        `(${executes.length} executes, ${acknowledged.length} acknowledged; ${funds.length} fundings; ${reads} reads), ` +
        `${receiver.received()} webhook deliveries, ${found} deadlocks`
    )
    expect(found).toBe(0)
  }, 240_000)
})
