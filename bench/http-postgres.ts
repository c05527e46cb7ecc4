/**
 * HTTP on PostgreSQL: `GET /customers/{id}` and `POST /quotes` through the paycore server (the same `makeApp` as
 * `npm start`, auth, validation and idempotency) on the PostgreSQL server of DATABASE_URL, against `pgbench -S`
 * (select-only, as many clients as autocannon has connections) on the same server, and against the bare `node:http`
 * server of bench/http.ts, in the same run.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --conditions=@paycore/source bench/http-postgres.ts \
 *     [--connections 32] [--duration 5] [--warmup 1] [--rounds 3] [--pg-pool 32] [--pg-statements]
 *
 * - Baseline: `pgbench -S -c <connections> -j 2 -T <duration> -M prepared` on tables `pgbench -i` made in a fresh
 *   database (as bench/postgres.ts), for GET; the bare echo of bench/http.ts for POST.
 * - paycore: each round serves from a worker thread (bench/http.ts) on a fresh schema `paycore_bench_<pid>_http<n>`
 *   (migrated at start, a pool of `--pg-pool` connections), seeded with one token and one customer; autocannon loads
 *   GET then POST with `--connections` connections. pgbench, bare and paycore alternate round by round; medians.
 * - `--pg-statements`: one GET and one POST served in this process with every statement counted, and its round trips.
 * After each round the schema is checked: every quote stored is PENDING with its PENDING transaction and its
 * event, no money moved (the ledger holds only nothing or zeros), and no request failed; a broken invariant throws.
 */
import { createServer, type RequestListener } from "node:http"
import type { AddressInfo } from "node:net"
import { Store } from "@paycore/core"
import { documentStoreLayerPg, layerPg } from "@paycore/store-postgres"
import { ledgerViolations } from "@paycore/testkit"
import { Effect, ManagedRuntime } from "effect"
import { fmt, median, numberFlag } from "./figures.ts"
import { type BenchHttpResult, benchHttp, type RunResult, summarize } from "./http.ts"
import { BARE_TARGETS, PAYCORE_TARGETS, paycoreServerOn } from "./paycore-server.ts"
import {
  admin,
  CpuAccount,
  type CpuSplit,
  countStatements,
  describeStatements,
  onPath,
  type PgbenchTarget,
  pgbench,
  pgbenchTarget,
  type SentStatement,
  statementLabel,
  sum,
  withApplicationName
} from "./postgres.ts"

/** GET /customers/{id} req/s against pgbench -S tps (issue 34). */
const GET_TARGET = 0.5
/** POST /quotes p99 at 32 connections, ms (issue 34). */
const POST_P99_TARGET_MS = 15

export interface HttpPostgresOptions {
  readonly url?: string | undefined
  readonly connections?: number | undefined
  readonly durationSeconds?: number | undefined
  readonly warmupSeconds?: number | undefined
  readonly rounds?: number | undefined
  /** The paycore server's pool size (default: as many as the connections). */
  readonly pool?: number | undefined
  /** Count the statements of one GET and one POST (served in this process). */
  readonly statements?: boolean | undefined
}

export interface HttpPostgresFigures {
  readonly connections: number
  readonly pool: number
  readonly rounds: number
  readonly durationSeconds: number
  readonly pgbenchSelect: ReadonlyArray<number>
  readonly bare: ReadonlyArray<BenchHttpResult>
  readonly paycore: ReadonlyArray<BenchHttpResult>
  readonly cpu: { readonly pgbench: CpuSplit | undefined; readonly paycore: CpuSplit | undefined }
  readonly statements: { readonly get: ReadonlyArray<SentStatement>; readonly post: ReadonlyArray<SentStatement> }
  readonly invariants: { readonly quotes: number; readonly schemas: number }
}

export type HttpPostgresResult =
  | { readonly _tag: "Skipped"; readonly reason: string }
  | ({ readonly _tag: "Measured" } & HttpPostgresFigures)

// -----------------------------------------------------------------------------
// The server (in the worker thread: its settings come in the environment the worker inherits)
// -----------------------------------------------------------------------------

const ENV = { url: "PAYCORE_BENCH_PG_URL", schema: "PAYCORE_BENCH_PG_SCHEMA", pool: "PAYCORE_BENCH_PG_POOL" } as const

const pgConfig = (url: string, schema: string, max: number) => ({
  connectionString: withApplicationName(url, schema),
  schema,
  max
})

const serverOn = (url: string, schema: string, max: number) => {
  const config = pgConfig(url, schema, max)
  return paycoreServerOn(layerPg(config), documentStoreLayerPg(config))
}

/** The paycore server on the schema the environment names (bench/http.ts's worker calls it). */
export const paycorePostgresListener = (): Promise<RequestListener> =>
  serverOn(process.env[ENV.url]!, process.env[ENV.schema]!, Number(process.env[ENV.pool])).then((s) => s.listener)

// -----------------------------------------------------------------------------
// Invariants
// -----------------------------------------------------------------------------

/**
 * Every quote is PENDING with its PENDING payment and the payment's event; a quote moves no money, so the
 * ledger has nothing to say (or balances at zero). Returns the number of quotes.
 */
const checkSchema = (url: string, schema: string) => {
  const runtime = ManagedRuntime.make(layerPg(pgConfig(url, schema, 2)))
  return runtime
    .runPromise(
      Effect.gen(function* () {
        const store = yield* Store
        const problems: Array<string> = [...(yield* ledgerViolations)]
        const page = { limit: 1, sortOrder: "asc" } as const
        const quotes = (yield* store.quotes.list({}, page)).totalCount
        const pending = (yield* store.quotes.list({ status: "PENDING" }, page)).totalCount
        const transactions = (yield* store.transactions.list({ status: "PENDING" }, page)).totalCount
        const events = (yield* store.outbox.list({ type: "OUTGOING_PAYMENT.PENDING" }, page)).totalCount
        if (pending !== quotes) problems.push(`${quotes - pending} of ${quotes} quotes not PENDING`)
        if (transactions !== quotes) problems.push(`${transactions} PENDING transactions for ${quotes} quotes`)
        if (events !== quotes) problems.push(`${events} OUTGOING_PAYMENT.PENDING events for ${quotes} quotes`)
        const moved = (yield* store.ledger.allBalances()).filter((b) => b.posted !== 0 || b.pendingDebits !== 0)
        if (moved.length > 0) problems.push(`${moved.length} balances moved by quotes`)
        if (problems.length > 0) {
          return yield* Effect.die(
            new Error(`bench: INVARIANTS BROKEN in ${schema}, the figures are worthless:\n  ${problems.join("\n  ")}`)
          )
        }
        return quotes
      })
    )
    .finally(() => runtime.dispose())
}

// -----------------------------------------------------------------------------
// Statements of one GET and one POST
// -----------------------------------------------------------------------------

/** One GET and one POST (after one of each to warm up) served in this process, with every statement counted. */
const countRequestStatements = async (url: string, schema: string) => {
  const paycore = await serverOn(url, schema, 4)
  const server = createServer(paycore.listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const targets = await PAYCORE_TARGETS.prepare(base)
    const send = async (method: "GET" | "POST") => {
      const response = await fetch(base + (method === "GET" ? targets.getPath : targets.postPath), {
        method,
        headers: { ...PAYCORE_TARGETS.headers, "content-type": "application/json" },
        ...(method === "POST" ? { body: targets.postBody } : {})
      })
      if (!response.ok) throw new Error(`${method}: ${response.status} ${await response.text()}`)
      await response.arrayBuffer()
    }
    await send("GET")
    await send("POST")
    const get = await countStatements(() => send("GET"))
    const post = await countStatements(() => send("POST"))
    return { get: get.sql, post: post.sql }
  } finally {
    server.close()
    server.closeAllConnections()
    await paycore.close()
  }
}

// -----------------------------------------------------------------------------
// benchHttpPostgres
// -----------------------------------------------------------------------------

const pgbenchSelect = async (target: PgbenchTarget, clients: number, seconds: number): Promise<number> => {
  const out = await pgbench(target, ["-S", "-c", String(clients), "-j", "2", "-T", String(seconds), "-M", "prepared"])
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out)?.[1]
  if (tps === undefined) throw new Error(`bench: no tps in pgbench's output:\n${out}`)
  return Number(tps)
}

export async function benchHttpPostgres(options: HttpPostgresOptions = {}): Promise<HttpPostgresResult> {
  const url = options.url ?? process.env.DATABASE_URL
  if (url === undefined || url === "") return { _tag: "Skipped", reason: "DATABASE_URL is not set" }
  if (!(await onPath("pgbench"))) return { _tag: "Skipped", reason: "pgbench is not on PATH (the baseline needs it)" }
  const connections = options.connections ?? 32
  const pool = options.pool ?? connections
  const rounds = options.rounds ?? 3
  const durationSeconds = options.durationSeconds ?? 5
  const common = { connections, durationSeconds, warmupSeconds: options.warmupSeconds ?? 1 }

  const cleanups: Array<() => Promise<void>> = []
  const cleanUp = async () => {
    for (let step = cleanups.pop(); step !== undefined; step = cleanups.pop()) {
      await step().catch((error: unknown) => console.error(`bench cleanup: ${String(error)}`))
    }
  }
  const interrupted = () => {
    void cleanUp().finally(() => process.exit(130))
  }
  process.once("SIGINT", interrupted)
  const newSchema = async (name: string) => {
    const schema = `paycore_bench_${process.pid}_${name}`
    await admin(url, `CREATE SCHEMA ${schema}`)
    cleanups.push(async () => {
      await admin(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    })
    return schema
  }
  try {
    const pgb = await pgbenchTarget(url)
    cleanups.push(pgb.drop)
    await pgbench(pgb, ["-i", "-s", String(Math.max(10, connections)), "-q"])

    const statements =
      options.statements === true
        ? await countRequestStatements(url, await newSchema("http_statements"))
        : { get: [], post: [] }

    const cpu = { pgbench: new CpuAccount(), paycore: new CpuAccount() }
    const tps: Array<number> = []
    const bare: Array<BenchHttpResult> = []
    const paycore: Array<BenchHttpResult> = []
    let quotes = 0
    for (let round = 0; round < rounds; round++) {
      const pgWindow = cpu.pgbench.begin()
      tps.push(await pgbenchSelect(pgb, connections, durationSeconds))
      pgWindow?.end()
      bare.push(await benchHttp({ ...common, ...BARE_TARGETS }))
      // A fresh schema per round: the server seeds its token and customer at start.
      const schema = await newSchema(`http${round}`)
      Object.assign(process.env, { [ENV.url]: url, [ENV.schema]: schema, [ENV.pool]: String(pool) })
      const window = cpu.paycore.begin()
      paycore.push(
        await benchHttp({
          ...common,
          ...PAYCORE_TARGETS,
          listener: { module: new URL(import.meta.url), factory: "paycorePostgresListener" }
        })
      )
      window?.end()
      quotes += await checkSchema(url, schema)
    }
    const failures = sum(paycore.flatMap((r) => [r.get!.failures, r.post!.failures]))
    if (failures > 0) throw new Error(`bench: ${failures} paycore requests failed, the figures are worthless`)
    return {
      _tag: "Measured",
      connections,
      pool,
      rounds,
      durationSeconds,
      pgbenchSelect: tps,
      bare,
      paycore,
      cpu: { pgbench: cpu.pgbench.split(), paycore: cpu.paycore.split() },
      statements,
      invariants: { quotes, schemas: rounds }
    }
  } finally {
    process.off("SIGINT", interrupted)
    await cleanUp()
  }
}

// -----------------------------------------------------------------------------
// Output
// -----------------------------------------------------------------------------

const cores = (c: CpuSplit | undefined): string =>
  c === undefined
    ? "n/a"
    : `node ${c.node.toFixed(2)}, postgres ${c.postgres.toFixed(2)}${c.pgbench > 0.005 ? `, pgbench ${c.pgbench.toFixed(2)}` : ""}, idle ${c.idle.toFixed(2)} (cores of ${c.cores})`

const row = (name: string, run: RunResult, baseline: number, unit: string) =>
  [
    name.padEnd(34),
    `${fmt(run.requestsPerSecond).padStart(6)} req/s`,
    `p99 ${String(run.p99Ms).padStart(3)} ms`,
    `${(run.requestsPerSecond / baseline).toFixed(2)}x ${unit}`,
    `${fmt(run.capacity).padStart(6)} req/CPU-s of the server thread`
  ].join("  ")

export const formatHttpPostgresBench = (r: HttpPostgresResult): string => {
  if (r._tag === "Skipped") return `HTTP on PostgreSQL: skipped (${r.reason})`
  const tps = median(r.pgbenchSelect)
  const bare = { get: summarize(r.bare.map((b) => b.get!)), post: summarize(r.bare.map((b) => b.post!)) }
  const paycore = { get: summarize(r.paycore.map((b) => b.get!)), post: summarize(r.paycore.map((b) => b.post!)) }
  const getMet = paycore.get.requestsPerSecond >= GET_TARGET * tps
  const postMet = paycore.post.p99Ms < POST_P99_TARGET_MS
  const list = (name: string, sql: ReadonlyArray<SentStatement>) =>
    sql.length === 0
      ? []
      : [
          `    ${name}: ${describeStatements(sql)}: ${sql.map((s) => `${s.pipelined ? "+ " : ""}${statementLabel(s.sql)}`).join(", ")}`
        ]
  return [
    `\nHTTP on PostgreSQL: ${r.connections} connections (pgbench -S -c ${r.connections}), paycore pool ${r.pool}, ` +
      `${r.durationSeconds}s per run, median of ${r.rounds} alternating rounds`,
    `pgbench -S (select-only)            ${fmt(tps).padStart(6)} tps    (per round ${r.pgbenchSelect.map(fmt).join(" / ")})`,
    row("bare GET", bare.get, tps, "of pgbench -S"),
    `${row("paycore GET /customers/{id}", paycore.get, tps, "of pgbench -S")}  target ${GET_TARGET}x: ${getMet ? "MET" : "NOT MET"}`,
    row("bare POST (echo)", bare.post, bare.post.requestsPerSecond, "of bare"),
    `${row("paycore POST /quotes (USD→MXN)", paycore.post, bare.post.requestsPerSecond, "of bare")}  target p99 < ${POST_P99_TARGET_MS} ms: ${postMet ? "MET" : "NOT MET"}`,
    `    per round: GET ${r.paycore.map((p) => `${fmt(p.get!.requestsPerSecond)} (p99 ${p.get!.p99Ms})`).join(" / ")}; ` +
      `POST ${r.paycore.map((p) => `${fmt(p.post!.requestsPerSecond)} (p99 ${p.post!.p99Ms})`).join(" / ")}`,
    `    CPU, pgbench -S: ${cores(r.cpu.pgbench)}; paycore GET+POST: ${cores(r.cpu.paycore)}`,
    ...list("GET statements", r.statements.get),
    ...list("POST statements", r.statements.post),
    `invariants OK: ${fmt(r.invariants.quotes)} quotes in ${r.invariants.schemas} schemas, each PENDING with its PENDING ` +
      `payment and event; no money moved; no request failed`
  ].join("\n")
}

/** The options from the command line (bench/run.ts passes them through). */
export const httpPostgresFlags = (): HttpPostgresOptions => ({
  connections: numberFlag("connections"),
  durationSeconds: numberFlag("duration"),
  warmupSeconds: numberFlag("warmup"),
  rounds: numberFlag("rounds"),
  pool: numberFlag("pg-pool"),
  statements: process.argv.includes("--pg-statements")
})

if (import.meta.main) console.log(formatHttpPostgresBench(await benchHttpPostgres(httpPostgresFlags())))
