/**
 * Groups of several processes never deadlock (issue 33; docs/operations.md, "No deadlocks"). Two stores, each on a
 * pool of its own with group commit (two processes' worth), share a database created for this test, so that
 * `pg_stat_database` counts only them. Both run commands of a few customers at once, each the shape of an execute
 * (the customer's daily counter, its balance locked, a pause, a transfer to a system account) or of a funding (a
 * transfer from a system account to the customer, no lock asked first), so that every group holds rows of several
 * customers and the groups of the two stores want each other's rows. PostgreSQL counts no deadlock, and the counters
 * and balances are exact. Skipped without DATABASE_URL.
 */
import { type LedgerTransfer, Store } from "@paycore/core"
import { Effect, ManagedRuntime } from "effect"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { layerPg } from "../src/index.ts"
import { wallClockPause } from "./helpers.ts"

const database = process.env.DATABASE_URL
const CUSTOMERS = 4
const COMMANDS_PER_STORE = 120
const CONCURRENCY = 16
const FUNDS = 1_000_000

const transfer = (reference: string, debit: string, credit: string, amount: number): LedgerTransfer => ({
  id: `${reference}#1`,
  debit,
  credit,
  amount,
  currency: "USD",
  state: "POSTED",
  reference,
  createdAt: "2026-11-29T08:00:00.000Z"
})

describe.skipIf(database === undefined)("group commit across processes", () => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
  })

  it("two stores' groups holding rows of several customers never deadlock; counters and balances exact", async () => {
    const name = `paycore_crossing_${process.pid}_${Date.now()}`
    const admin = new pg.Client({ connectionString: database })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    cleanups.push(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    })
    const url = new URL(database!)
    url.pathname = `/${name}`
    const first = ManagedRuntime.make(layerPg({ connectionString: url.toString(), max: 8 }))
    // Migrated by the first before the second opens (each store migrates at start).
    await first.runPromise(Effect.void)
    const second = ManagedRuntime.make(layerPg({ connectionString: url.toString(), max: 8 }))
    await second.runPromise(Effect.void)
    cleanups.push(() => first.dispose())
    cleanups.push(() => second.dispose())

    const accounts = Array.from({ length: CUSTOMERS }, (_, c) => `InternalAccount:crossing-${c}`)
    await first.runPromise(
      Effect.gen(function* () {
        const store = yield* Store
        yield* store.ledger.record(
          accounts.map((a, c) => transfer(`Transaction:seed-${c}`, "system:deposits:USD", a, FUNDS))
        )
      })
    )

    // Each store's commands: customer c pays 1 (execute-like) or is funded 2 (funding-like), in a seeded order.
    const plan = (seed: number) =>
      Array.from({ length: COMMANDS_PER_STORE }, (_, i) => ({
        customer: (i * 7 + seed * 3 + Math.floor(i / 5)) % CUSTOMERS,
        pays: (i + seed) % 3 !== 0,
        reference: `Transaction:${seed}-${i}`
      }))
    const run = (runtime: typeof first, seed: number) =>
      runtime.runPromise(
        Effect.gen(function* () {
          const store = yield* Store
          yield* Effect.forEach(
            plan(seed),
            ({ customer, pays, reference }) =>
              store.transaction(
                pays
                  ? Effect.gen(function* () {
                      yield* store.counters.add(`volume:${accounts[customer]}`, 1)
                      const [balance] = yield* store.ledger.balances([
                        { account: accounts[customer]!, currency: "USD" }
                      ])
                      expect(balance!.posted).toBeGreaterThan(0)
                      yield* wallClockPause(3)
                      yield* store.ledger.record([transfer(reference, accounts[customer]!, "system:payouts:USD", 1)])
                    })
                  : Effect.gen(function* () {
                      yield* wallClockPause(1)
                      yield* store.ledger.record([transfer(reference, "system:deposits:USD", accounts[customer]!, 2)])
                    })
              ),
            { concurrency: CONCURRENCY, discard: true }
          )
        })
      )
    await Promise.all([run(first, 1), run(second, 2)])

    // Every session of both stores ended (a backend reports its counts when it exits), then the database's count.
    await first.dispose()
    await second.dispose()
    for (;;) {
      const open = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1`, [name])
      if (open.rows[0].n === 0) break
      await new Promise((r) => setTimeout(r, 100))
    }
    const deadlocks = await admin.query(`SELECT deadlocks FROM pg_stat_database WHERE datname = $1`, [name])

    const client = new pg.Client({ connectionString: url.toString() })
    await client.connect()
    const counterRows = await client.query(`SELECT key, value FROM counters WHERE key LIKE 'volume:%'`)
    const balanceRows = await client.query(
      `SELECT account, sum(posted)::bigint AS posted FROM ledger_balances GROUP BY account`
    )
    await client.end()
    const counters = accounts.map((a) => Number(counterRows.rows.find((r) => r.key === `volume:${a}`)?.value ?? 0))
    const balances = balanceRows.rows.map((r) => ({ account: r.account as string, posted: Number(r.posted) }))
    const expected = accounts.map((_, c) => {
      const mine = [...plan(1), ...plan(2)].filter((p) => p.customer === c)
      return { pays: mine.filter((p) => p.pays).length, funded: mine.filter((p) => !p.pays).length }
    })
    expect(counters).toEqual(expected.map((e) => e.pays))
    expect(accounts.map((a) => balances.find((b) => b.account === a)?.posted)).toEqual(
      expected.map((e) => FUNDS - e.pays + 2 * e.funded)
    )
    expect(balances.reduce((sum, b) => sum + b.posted, 0)).toBe(0)
    expect(Number(deadlocks.rows[0].deadlocks)).toBe(0)
  }, 120_000)
})
