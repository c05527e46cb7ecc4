/**
 * PostgreSQL benchmark: executes and payment lifecycles per second on a PostgreSQL server, against `pgbench`'s
 * TPC-B-like transactions per second on the same server in the same run.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --conditions=@paycore/source bench/postgres.ts [--pg-clients 16] [--pg-seconds 10] [--pg-rounds 2] [--pg-groups 2]
 *
 * Without DATABASE_URL (or without `pgbench` on PATH) it prints why the PostgreSQL part is skipped and returns.
 *
 * - Baseline: `pgbench -c <clients> -j 2 -T <seconds> -M prepared` (the default TPC-B-like script) on tables initialised
 *   by `pgbench -i` (scale = max(10, clients), so the branch rows are not the limit) in a fresh database
 *   `paycore_bench_pgbench_<pid>` (a fresh schema of the same database when the role may not create databases),
 *   dropped at the end. The figure is pgbench's `tps = … (without initial connection time)`.
 * - paycore: the engine on `@paycore/store-postgres` (`layerPg`, a pg pool of `max = clients` connections) in fresh
 *   schemas `paycore_bench_<pid>_exec` and `paycore_bench_<pid>_life`, dropped at the end. Customers with a funded USD
 *   account and a US payee are made through the services, as bench/core.ts does.
 *   - executes/s: quotes are created beforehand (not timed), then `clients` fibers run `Quotes.execute` (limits counter,
 *     ledger holds, quote and transaction to PROCESSING and the outbox event in one DB transaction, then submission to
 *     the sandbox rail and its record with one compare-and-set UPDATE) until the window ends: executed / window seconds. Each fiber pays
 *     from its own customer's account; the second row puts every fiber on one account (the hot-account worst case).
 *   - lifecycles/s: batches of `Quotes.create` → `Quotes.execute` (clients fibers), then settlement as in bench/core.ts:
 *     the sandbox rail runs with `speedUp` (an instant rail settles after 1 ms) on a TestClock, and the bench moves the
 *     TestClock by 1 ms and runs one `Transactions.processDue()` pass (the worker: on PostgreSQL 16 steps at once).
 *   Each round gives pgbench `seconds`, then paycore the same time (half to executes, a quarter each to the hot
 *   account and the lifecycles); rounds alternate so machine noise hits both; medians are reported. pgbench vacuums
 *   its hot tables before each run; paycore's (balances, counters, event subjects) are vacuumed before its turn.
 * - One lifecycle is run alone first with every SQL statement counted, and its round trips (statements sent while an
 *   earlier one of the same connection is unanswered, pipelined, share the round trip of the one they follow).
 * - CPU (from /proc, when the server is local) and the sessions' wait states (pg_stat_activity, sampled) are recorded
 *   during the measured windows, to tell where the time goes; and the WAL the server wrote during each (its insert
 *   position before and after), per operation: what an operation writes, which does not move with the machine.
 * After the run the ledger of both schemas is checked (posted balances sum to zero per currency, holds balanced, no
 * negative available balance, every executed payment held or settled exactly once); a broken invariant throws.
 */
import { execFile } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { availableParallelism } from "node:os"
import { promisify } from "node:util"
import type { CreateQuoteRequest } from "@paycore/core"
import { Quotes, Store } from "@paycore/core"
import { layerPg } from "@paycore/store-postgres"
import { ledgerViolations } from "@paycore/testkit"
import { Effect, type Layer, ManagedRuntime } from "effect"
import { TestClock } from "effect/testing"
import pg from "pg"
import {
  AMOUNT,
  engineOn,
  executeOne,
  FUNDING,
  makePayee,
  makeSender,
  paymentRequest,
  settlePass,
  T0,
  US_PAYEE
} from "./engine.ts"
import { fmt, median, numberFlag } from "./figures.ts"

const run = promisify(execFile)

// -----------------------------------------------------------------------------
// Settings
// -----------------------------------------------------------------------------

/** Issue 34's targets, each a ratio to pgbench's tps in the same run. */
const TARGETS = { executes: 0.6, hotAccount: 0.3, lifecycles: 0.25 } as const
/** Lifecycles per fiber per batch (a batch ends with one settlement pass). */
const LIFECYCLE_BATCH = 5
/** Quotes created per fiber for the first (warm-up) window, before any rate is known. */
const FIRST_POOL = 30
/** Quotes created beyond the rate measured so far × the window. */
const POOL_MARGIN = 2.5

export interface PostgresBenchOptions {
  /** The server (DATABASE_URL); the PostgreSQL part is skipped when absent. */
  readonly url?: string | undefined
  /** pgbench clients = paycore fibers = pool size. */
  readonly clients?: number | undefined
  /** pgbench seconds per round; paycore gets the same per round. */
  readonly seconds?: number | undefined
  readonly rounds?: number | undefined
}

// -----------------------------------------------------------------------------
// Result
// -----------------------------------------------------------------------------

/** Where the machine's CPU went during a window, in cores (of `cores`). */
export interface CpuSplit {
  readonly cores: number
  readonly node: number
  readonly postgres: number
  readonly pgbench: number
  readonly idle: number
}

/** Sampled sessions of one pool (session × sample counts), by what they were doing. */
export interface SessionSplit {
  readonly samples: number
  readonly sessions: number
  /** Running a statement (on CPU or on I/O, the WAL flush of a COMMIT included). */
  readonly active: number
  /** Waiting for a lock another transaction holds (a hot row). */
  readonly lockWait: number
  /** The statements that waited for a lock (`statementLabel`), and how often. */
  readonly lockWaitIn: Readonly<Record<string, number>>
  /** Idle in a transaction: waiting for the client (node) to send the next statement. */
  readonly idleInTransaction: number
  /** Idle: a pooled connection no fiber is using. */
  readonly idle: number
}

export interface WindowResult {
  readonly count: number
  readonly seconds: number
  readonly perSecond: number
  /** Every pre-created quote was executed before the window ended (the figure is then low). */
  readonly ranDry: boolean
}

export interface LifecycleWindow extends WindowResult {
  /** Quote + execute phase alone (clients fibers), lifecycles per second of that phase. */
  readonly quoteExecutePerSecond: number
  /** Settlement pass alone (the worker), settlements per second. */
  readonly settlePerSecond: number
}

export interface StatementProfile {
  readonly create: ReadonlyArray<SentStatement>
  readonly execute: ReadonlyArray<SentStatement>
  readonly settle: ReadonlyArray<SentStatement>
  /** One execute alone (one fiber, no contention), ms: the sum of its round trips and its CPU. */
  readonly executeLatencyMs: number
}

export interface PostgresBenchFigures {
  readonly server: {
    readonly version: string
    readonly target: string
    readonly settings: Readonly<Record<string, string>>
  }
  readonly clients: number
  readonly seconds: number
  readonly rounds: number
  readonly pgbenchScale: number
  readonly pgbenchWhere: string
  readonly schemas: ReadonlyArray<string>
  readonly pgbench: ReadonlyArray<number>
  readonly executes: ReadonlyArray<WindowResult>
  readonly hotAccount: ReadonlyArray<WindowResult>
  readonly lifecycles: ReadonlyArray<LifecycleWindow>
  readonly statements: StatementProfile
  readonly cpu: {
    readonly pgbench: CpuSplit | undefined
    readonly executes: CpuSplit | undefined
    readonly hotAccount: CpuSplit | undefined
    readonly lifecycles: CpuSplit | undefined
  }
  readonly sessions: {
    readonly executes: SessionSplit
    readonly hotAccount: SessionSplit
  }
  /** WAL bytes per operation (full-page images after a checkpoint included); undefined where none was measured. */
  readonly wal: {
    readonly pgbench: number | undefined
    readonly executes: number | undefined
    readonly hotAccount: number | undefined
    readonly lifecycles: number | undefined
  }
  readonly invariants: {
    readonly executed: number
    readonly settled: number
    readonly currencies: ReadonlyArray<string>
  }
  readonly median: {
    readonly pgbenchTps: number
    readonly executesPerSecond: number
    readonly hotAccountPerSecond: number
    readonly lifecyclesPerSecond: number
  }
  readonly targets: typeof TARGETS
  /** Every figure met its target (see `TARGETS`). */
  readonly meetsTarget: boolean
}

export type PostgresBenchResult =
  | { readonly _tag: "Skipped"; readonly reason: string }
  | ({ readonly _tag: "Measured" } & PostgresBenchFigures)

// -----------------------------------------------------------------------------
// Small helpers
// -----------------------------------------------------------------------------

export const sum = (values: ReadonlyArray<number>): number => values.reduce((a, b) => a + b, 0)

/**
 * The tables of which every payment or authorization updates the same few rows: balances, daily counters, the event
 * subjects' sequences. Vacuumed before each round of paycore's windows, as pgbench (run without `-n`) vacuums its own
 * (branches, tellers) before each run: else their dead row versions pile up all through a bench on a server whose
 * autovacuum is off, or has not come round (it looks at a database once a minute at most).
 */
const HOT_TABLES = ["ledger_balances", "counters", "outbox_subjects"] as const

export const vacuumHotTables = async (url: string, schemas: ReadonlyArray<string>): Promise<void> => {
  for (const schema of schemas) await admin(url, `VACUUM ${HOT_TABLES.map((table) => `${schema}.${table}`).join(", ")}`)
}

/** One statement on a short-lived connection (administration: schemas, databases, settings). */
export const admin = async <R extends pg.QueryResultRow = pg.QueryResultRow>(
  connectionString: string,
  statement: string
): Promise<Array<R>> => {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    return (await client.query<R>(statement)).rows
  } finally {
    await client.end()
  }
}

export const onPath = async (command: string): Promise<boolean> => {
  try {
    await run(command, ["--version"])
    return true
  } catch {
    return false
  }
}

// -----------------------------------------------------------------------------
// CPU split (Linux /proc; undefined elsewhere)
// -----------------------------------------------------------------------------

/** utime + stime of a process, in jiffies (fields 14 and 15 of /proc/<pid>/stat, after the `(comm)`). */
const processJiffies = (pid: string): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return Number(fields[11]) + Number(fields[12])
}

/** Jiffies of all CPUs, and of their idle (+ iowait) time. */
const machineJiffies = (): { readonly total: number; readonly idle: number } => {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
  return { total: sum(line.slice(0, 8)), idle: (line[3] ?? 0) + (line[4] ?? 0) }
}

type CpuKind = "node" | "postgres" | "pgbench"

/**
 * The CPU of this process, of the postgres processes and of pgbench over a window. Processes are sampled every
 * 100 ms, since server backends and pgbench come and go within the window (only their last < 100 ms is lost).
 */
class CpuWindow {
  /** What each pid is (`undefined`: neither node, postgres nor pgbench), and its jiffies at the last sample. */
  private readonly seen = new Map<string, { readonly kind: CpuKind | undefined; jiffies: number }>()
  readonly used: Record<CpuKind, number> = { node: 0, postgres: 0, pgbench: 0 }
  private readonly start: { readonly total: number; readonly idle: number }
  private readonly timer: ReturnType<typeof setInterval>

  constructor() {
    this.start = machineJiffies()
    this.sample(true)
    this.timer = setInterval(() => this.sample(false), 200)
  }

  private sample(first: boolean): void {
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue
      try {
        let entry = this.seen.get(pid)
        if (entry === undefined) {
          const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim()
          const kind: CpuKind | undefined =
            pid === String(process.pid)
              ? "node"
              : comm === "postgres"
                ? "postgres"
                : comm === "pgbench"
                  ? "pgbench"
                  : undefined
          // A process first seen after the start was born in the window: all its time counts.
          entry = { kind, jiffies: 0 }
          this.seen.set(pid, entry)
          if (kind === undefined) continue
          const jiffies = processJiffies(pid)
          if (!first) this.used[kind] += jiffies
          entry.jiffies = jiffies
          continue
        }
        if (entry.kind === undefined) continue
        const jiffies = processJiffies(pid)
        this.used[entry.kind] += jiffies - entry.jiffies
        entry.jiffies = jiffies
      } catch {
        // the process ended meanwhile
      }
    }
  }

  end(): { readonly wall: number; readonly idle: number; readonly used: Record<CpuKind, number> } {
    clearInterval(this.timer)
    this.sample(false)
    const end = machineJiffies()
    return {
      wall: (end.total - this.start.total) / availableParallelism(),
      idle: end.idle - this.start.idle,
      used: this.used
    }
  }
}

/**
 * Adds up the WAL the server wrote during several windows, from its insert position: what an operation writes to its
 * tables and indexes, a figure that does not move with the machine's speed (a checkpoint during a window adds the
 * full-page images of the pages first written after it).
 */
export class WalAccount {
  private bytes = 0
  private operations = 0
  private readonly url: string
  constructor(url: string) {
    this.url = url
  }
  private readonly position = async (): Promise<number> =>
    Number((await admin<{ at: string }>(this.url, `SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn AS at`))[0]!.at)
  /** Starts a window; `end(operations)` adds what the server wrote since, for that many operations. */
  async begin(): Promise<{ readonly end: (operations: number) => Promise<void> }> {
    const start = await this.position()
    return {
      end: async (operations) => {
        this.bytes += (await this.position()) - start
        this.operations += operations
      }
    }
  }
  perOperation(): number | undefined {
    return this.operations > 0 ? this.bytes / this.operations : undefined
  }
}

/** Adds up the CPU of several windows; `begin` is undefined where /proc is not there. */
export class CpuAccount {
  private readonly used: Record<CpuKind, number> = { node: 0, postgres: 0, pgbench: 0 }
  private idle = 0
  private wall = 0
  begin(): { readonly end: () => void } | undefined {
    let window: CpuWindow
    try {
      window = new CpuWindow()
    } catch {
      return undefined
    }
    return {
      end: () => {
        const w = window.end()
        this.wall += w.wall
        this.idle += w.idle
        for (const kind of ["node", "postgres", "pgbench"] as const) this.used[kind] += w.used[kind]
      }
    }
  }
  split(): CpuSplit | undefined {
    if (!(this.wall > 0)) return undefined
    return {
      cores: availableParallelism(),
      node: this.used.node / this.wall,
      postgres: this.used.postgres / this.wall,
      pgbench: this.used.pgbench / this.wall,
      idle: this.idle / this.wall
    }
  }
}

// -----------------------------------------------------------------------------
// Session sampling (pg_stat_activity)
// -----------------------------------------------------------------------------

/** Samples the states of the sessions of one pool (pg_stat_activity) while started. */
const noSessions = (): SessionSplit => ({
  samples: 0,
  sessions: 0,
  active: 0,
  lockWait: 0,
  lockWaitIn: {},
  idleInTransaction: 0,
  idle: 0
})

export const mergeSessions = (splits: ReadonlyArray<SessionSplit>): SessionSplit => {
  const lockWaitIn: Record<string, number> = {}
  for (const s of splits) for (const [k, v] of Object.entries(s.lockWaitIn)) lockWaitIn[k] = (lockWaitIn[k] ?? 0) + v
  const total = (f: (s: SessionSplit) => number) => sum(splits.map(f))
  return {
    samples: total((s) => s.samples),
    sessions: total((s) => s.sessions),
    active: total((s) => s.active),
    lockWait: total((s) => s.lockWait),
    lockWaitIn,
    idleInTransaction: total((s) => s.idleInTransaction),
    idle: total((s) => s.idle)
  }
}

export class SessionSampler {
  private counts = { ...noSessions(), lockWaitIn: {} as Record<string, number> }
  private client: pg.Client | undefined
  private timer: ReturnType<typeof setInterval> | undefined
  private busy = false
  private readonly connectionString: string

  constructor(connectionString: string) {
    this.connectionString = connectionString
  }

  async open(): Promise<void> {
    this.client = new pg.Client({ connectionString: this.connectionString })
    await this.client.connect()
  }

  /** Samples the sessions whose `application_name` is `applicationName` (one paycore pool). */
  start(applicationName: string, everyMs = 50): void {
    this.timer = setInterval(() => {
      if (this.busy || this.client === undefined) return
      this.busy = true
      this.client
        .query<{ state: string | null; wait_event_type: string | null; query: string }>(
          "SELECT state, wait_event_type, query FROM pg_stat_activity WHERE application_name = $1",
          [applicationName]
        )
        .then(
          (result) => {
            const c = this.counts
            c.samples++
            for (const row of result.rows) {
              c.sessions++
              if (row.state === "active") {
                if (row.wait_event_type === "Lock") {
                  c.lockWait++
                  const label = statementLabel(row.query)
                  c.lockWaitIn[label] = (c.lockWaitIn[label] ?? 0) + 1
                } else c.active++
              } else if (row.state === "idle in transaction") c.idleInTransaction++
              else c.idle++
            }
          },
          () => undefined
        )
        .finally(() => {
          this.busy = false
        })
    }, everyMs)
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
  }

  /** The counts since the last `take` (and resets them). */
  take(): SessionSplit {
    const c = this.counts
    this.counts = { ...noSessions(), lockWaitIn: {} }
    return c
  }

  async close(): Promise<void> {
    this.stop()
    await this.client?.end().catch(() => undefined)
  }
}

// -----------------------------------------------------------------------------
// Statement counting (every query a pg client sends is one round trip)
// -----------------------------------------------------------------------------

type Query = (this: unknown, ...args: Array<unknown>) => unknown

/** A statement a pg client sent, and how long it took to answer (ms, the round trip included). */
export interface SentStatement {
  readonly sql: string
  readonly ms: number
  /** Sent while an earlier statement of the same connection was unanswered (pipelined): no round trip of its own. */
  readonly pipelined: boolean
}

/** Runs `f` (nothing else may use the database meanwhile) and returns the statements every pg client sent. */
export const countStatements = async <A>(
  f: () => Promise<A>
): Promise<{ readonly value: A; readonly sql: Array<SentStatement>; readonly ms: number }> => {
  const proto = pg.Client.prototype as unknown as { query: Query }
  const original = proto.query
  const sql: Array<SentStatement> = []
  /** Unanswered statements per connection. */
  const unanswered = new Map<unknown, number>()
  proto.query = function (this: unknown, ...args: Array<unknown>) {
    const q = args[0]
    const waiting = unanswered.get(this) ?? 0
    // A batch of the store (sql.ts) is several statements with one answer: the first opens the round trip.
    const texts = (q as { texts?: ReadonlyArray<string> } | undefined)?.texts ?? [
      typeof q === "string" ? q : String((q as { text?: unknown } | undefined)?.text ?? "?")
    ]
    const sent = { sql: texts[0]!, ms: 0, pipelined: waiting > 0 }
    sql.push(sent)
    for (const text of texts.slice(1)) sql.push({ sql: text, ms: 0, pipelined: true })
    const t0 = performance.now()
    unanswered.set(this, waiting + 1)
    const answered = () => {
      unanswered.set(this, (unanswered.get(this) ?? 1) - 1)
      sent.ms = performance.now() - t0
    }
    // Answered through a callback (pg-pool's `query`) or a promise.
    const callback = args.findLast((a) => typeof a === "function") as ((...r: Array<unknown>) => unknown) | undefined
    if (callback !== undefined) {
      args[args.lastIndexOf(callback)] = (...r: Array<unknown>) => {
        answered()
        return callback(...r)
      }
    }
    if (texts.length > 0 && typeof (q as { handleReadyForQuery?: unknown }).handleReadyForQuery === "function") {
      // A batch answers through the handlers the client calls: its end is the ReadyForQuery, or its error.
      const batch = q as { handleReadyForQuery: () => void; handleError: (error: unknown) => void }
      const ready = batch.handleReadyForQuery.bind(batch)
      const failed = batch.handleError.bind(batch)
      batch.handleReadyForQuery = () => {
        answered()
        ready()
      }
      batch.handleError = (error) => {
        answered()
        failed(error)
      }
    }
    const result = original.apply(this, args)
    if (result instanceof Promise) void result.then(answered, answered)
    return result
  }
  const t0 = performance.now()
  try {
    const value = await f()
    return { value, sql, ms: performance.now() - t0 }
  } finally {
    proto.query = original
  }
}

/** A statement in a few words: `BEGIN`, `SELECT quotes FOR UPDATE`, `INSERT ledger_transfers + INSERT ledger_balances`. */
export const statementLabel = (text: string): string => {
  const t = text.replace(/\s+/g, " ").trim()
  const head = (t.split(" ")[0] ?? "").toUpperCase()
  if (head === "START" || head === "BEGIN") return "BEGIN"
  if (head === "COMMIT" || head === "ROLLBACK") return head
  const upsert = / ON CONFLICT \([^)]*\) DO UPDATE/i.test(t) ? " (upsert)" : ""
  const lock = / FOR UPDATE/i.test(t) ? " FOR UPDATE" : ""
  const writes = [...t.matchAll(/(?<!\b(?:DO|FOR) )\b(INSERT INTO|UPDATE|DELETE FROM) (\w+)/gi)].map(
    (m) => `${m[1]!.split(" ")[0]!.toUpperCase()} ${m[2]}`
  )
  if (writes.length > 0) return `${writes.join(" + ")}${upsert}${lock}`
  return `SELECT ${/\bFROM (\w+)/i.exec(t)?.[1] ?? "?"}${lock}`
}

/** `n statements in r round trips (k DB transactions)`: BEGIN/COMMIT included; pipelined statements share a round trip. */
export const describeStatements = (sql: ReadonlyArray<SentStatement>): string => {
  const transactions = sql.filter((s) => statementLabel(s.sql) === "BEGIN").length
  const roundTrips = sql.filter((s) => !s.pipelined).length
  return `${sql.length} statements in ${roundTrips} round trips (${transactions} DB transaction${transactions === 1 ? "" : "s"})`
}

// -----------------------------------------------------------------------------
// The engine on a schema
// -----------------------------------------------------------------------------

/** `url` with the `application_name` its sessions show in pg_stat_activity (a URL; else `url` as it is). */
export const withApplicationName = (url: string, name: string): string => {
  try {
    const u = new URL(url)
    u.searchParams.set("application_name", name)
    return u.toString()
  } catch {
    return url
  }
}

// `--pg-groups N`: commit groups in flight (default 2; 0: every store transaction alone), to tell what they cost or save.
const servicesOn = (url: string, schema: string, max: number) =>
  engineOn(
    layerPg({
      connectionString: withApplicationName(url, schema),
      schema,
      max,
      groupCommit: { groups: numberFlag("pg-groups") }
    })
  )

type Engine = ManagedRuntime.ManagedRuntime<Layer.Success<ReturnType<typeof servicesOn>>, unknown>

interface Payer {
  readonly sourceId: string
  readonly request: CreateQuoteRequest
}

/** A customer with a funded USD account and an ACTIVE US payee. */
const makePayer = Effect.fnUntraced(function* (n: number) {
  const sender = yield* makeSender(`Bench Sender ${n}`)
  const payee = yield* makePayee(sender.customerId, "USD", US_PAYEE)
  return { sourceId: sender.sourceId, request: paymentRequest(sender.sourceId, payee, "RTP") } satisfies Payer
})

const makePayers = (count: number, from: number) =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => from + i),
    makePayer,
    { concurrency: count }
  )

// -----------------------------------------------------------------------------
// Windows
// -----------------------------------------------------------------------------

/** Quotes created ahead of an execute window, per fiber (leftovers are used by the next window). */
class QuotePool {
  readonly queues: Array<Array<string>>
  /** The best executes/s seen so far, to size the next pool. */
  rate = 0
  readonly payers: ReadonlyArray<Payer>
  readonly fibers: number
  /** The pool's sessions (the schema's name). */
  readonly applicationName: string
  constructor(payers: ReadonlyArray<Payer>, fibers: number, applicationName: string) {
    this.payers = payers
    this.fibers = fibers
    this.applicationName = applicationName
    this.queues = Array.from({ length: fibers }, () => [])
  }
  /** Tops every fiber's queue up to `perFiber` quotes (not timed). */
  fill(perFiber: number) {
    const payers = this.payers
    return Effect.forEach(
      this.queues,
      (queue, i) =>
        Effect.gen(function* () {
          const quotes = yield* Quotes
          const payer = payers[i % payers.length]!
          while (queue.length < perFiber) queue.push((yield* quotes.create(payer.request)).id)
        }),
      { concurrency: this.fibers, discard: true }
    )
  }
  /** A quote from the longest queue (undefined when every queue is empty). */
  steal(): string | undefined {
    let longest: Array<string> | undefined
    for (const queue of this.queues) if (queue.length > (longest?.length ?? 0)) longest = queue
    return longest?.pop()
  }
  perFiberFor(seconds: number): number {
    return this.rate === 0 ? FIRST_POOL : Math.ceil((this.rate * seconds * POOL_MARGIN) / this.fibers) + 2
  }
}

/** Executes from the pool with one fiber per queue until `seconds` have passed (not creating any quote). */
const executeWindow = (
  pool: QuotePool,
  seconds: number,
  cpu: CpuAccount,
  sessions: SessionSampler | undefined,
  wal?: WalAccount
) =>
  Effect.gen(function* () {
    yield* pool.fill(pool.perFiberFor(seconds))
    let ranDry = false
    const walWindow = wal === undefined ? undefined : yield* Effect.promise(() => wal.begin())
    const window = cpu.begin()
    sessions?.start(pool.applicationName)
    const start = performance.now()
    const deadline = start + seconds * 1000
    const counts = yield* Effect.forEach(
      pool.queues,
      (queue) =>
        Effect.gen(function* () {
          let n = 0
          while (performance.now() < deadline) {
            // A fiber whose own quotes ran out takes from the longest other queue (another account of the pool).
            const id = queue.shift() ?? pool.steal()
            if (id === undefined) {
              ranDry = true
              break
            }
            yield* executeOne(id)
            n++
          }
          return n
        }),
      { concurrency: pool.fibers }
    )
    const elapsed = (performance.now() - start) / 1000
    sessions?.stop()
    window?.end()
    const count = sum(counts)
    if (walWindow !== undefined) yield* Effect.promise(() => walWindow.end(count))
    const perSecond = count / elapsed
    pool.rate = Math.max(pool.rate, perSecond)
    return { count, seconds: elapsed, perSecond, ranDry } satisfies WindowResult
  })

/** Batches of quote → execute (one payer per fiber), each followed by one settlement pass, for `seconds`. */
const lifecycleWindow = (payers: ReadonlyArray<Payer>, seconds: number, cpu: CpuAccount, wal?: WalAccount) =>
  Effect.gen(function* () {
    const quotes = yield* Quotes
    let count = 0
    let quoteExecuteMs = 0
    let settleMs = 0
    const walWindow = wal === undefined ? undefined : yield* Effect.promise(() => wal.begin())
    const window = cpu.begin()
    const start = performance.now()
    const end = start + seconds * 1000
    do {
      const t0 = performance.now()
      yield* Effect.forEach(
        payers,
        (payer) =>
          Effect.gen(function* () {
            for (let i = 0; i < LIFECYCLE_BATCH; i++) yield* executeOne((yield* quotes.create(payer.request)).id)
          }),
        { concurrency: payers.length, discard: true }
      )
      const t1 = performance.now()
      yield* settlePass(payers.length * LIFECYCLE_BATCH)
      const t2 = performance.now()
      count += payers.length * LIFECYCLE_BATCH
      quoteExecuteMs += t1 - t0
      settleMs += t2 - t1
    } while (performance.now() < end)
    const elapsed = (performance.now() - start) / 1000
    window?.end()
    if (walWindow !== undefined) yield* Effect.promise(() => walWindow.end(count))
    return {
      count,
      seconds: elapsed,
      perSecond: count / elapsed,
      ranDry: false,
      quoteExecutePerSecond: (count * 1000) / quoteExecuteMs,
      settlePerSecond: (count * 1000) / settleMs
    } satisfies LifecycleWindow
  })

// -----------------------------------------------------------------------------
// Invariants
// -----------------------------------------------------------------------------

/**
 * The ledger of one schema: posted balances sum to zero per currency, pending debits equal pending credits, no
 * customer account below zero available; the customers' accounts hold (or, settled, spent) `AMOUNT` per payment.
 */
const checkLedger = (
  name: string,
  payers: ReadonlyArray<Payer>,
  expected: { readonly held: number; readonly settled: number }
) =>
  Effect.gen(function* () {
    const store = yield* Store
    const problems: Array<string> = [...(yield* ledgerViolations)]
    const balances = yield* store.ledger.balances(payers.map((p) => ({ account: p.sourceId, currency: "USD" })))
    const held = sum(balances.map((b) => b.pendingDebits))
    const spent = sum(balances.map((b) => FUNDING - b.posted))
    if (held !== expected.held * AMOUNT) problems.push(`held ${held}, expected ${expected.held} × ${AMOUNT}`)
    if (spent !== expected.settled * AMOUNT) problems.push(`spent ${spent}, expected ${expected.settled} × ${AMOUNT}`)
    const processing = yield* store.transactions.list(
      { status: "PROCESSING", type: "OUTGOING" },
      { limit: 1, sortOrder: "asc" }
    )
    if (processing.totalCount !== expected.held) {
      problems.push(`${processing.totalCount} transactions PROCESSING, expected ${expected.held}`)
    }
    const completed = yield* store.transactions.list(
      { status: "COMPLETED", type: "OUTGOING" },
      { limit: 1, sortOrder: "asc" }
    )
    if (completed.totalCount !== expected.settled) {
      problems.push(`${completed.totalCount} transactions COMPLETED, expected ${expected.settled}`)
    }
    if (problems.length > 0) {
      return yield* Effect.die(
        new Error(`bench: INVARIANTS BROKEN in ${name}, the figures are worthless:\n  ${problems.join("\n  ")}`)
      )
    }
    return [...new Set((yield* store.ledger.allBalances()).map((b) => b.currency))]
  })

// -----------------------------------------------------------------------------
// pgbench
// -----------------------------------------------------------------------------

export interface PgbenchTarget {
  /** The connection string pgbench is given. */
  readonly dbname: string
  /** Extra environment (PGOPTIONS with a search_path in the schema fallback). */
  readonly env: NodeJS.ProcessEnv
  readonly where: string
  readonly drop: () => Promise<void>
}

/** A fresh database for pgbench's tables; a fresh schema of the same database when databases cannot be created. */
export const pgbenchTarget = async (url: string): Promise<PgbenchTarget> => {
  const name = `paycore_bench_pgbench_${process.pid}`
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {
    parsed = undefined
  }
  if (parsed !== undefined) {
    try {
      await admin(url, `CREATE DATABASE ${name}`)
      parsed.pathname = `/${name}`
      return {
        dbname: parsed.toString(),
        env: process.env,
        where: `database ${name}`,
        drop: async () => {
          await admin(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        }
      }
    } catch (error) {
      if ((error as { code?: unknown }).code !== "42501") throw error
    }
  }
  await admin(url, `CREATE SCHEMA ${name}`)
  return {
    dbname: url,
    env: { ...process.env, PGOPTIONS: `${process.env.PGOPTIONS ?? ""} -c search_path=${name}`.trim() },
    where: `schema ${name}`,
    drop: async () => {
      await admin(url, `DROP SCHEMA IF EXISTS ${name} CASCADE`)
    }
  }
}

export const pgbench = async (target: PgbenchTarget, args: ReadonlyArray<string>): Promise<string> => {
  const { stdout } = await run("pgbench", [...args, target.dbname], {
    env: target.env,
    maxBuffer: 16 * 1024 * 1024
  })
  return stdout
}

export const pgbenchRun = async (target: PgbenchTarget, clients: number, seconds: number): Promise<number> => {
  const jobs = Math.max(1, Math.min(clients, availableParallelism()))
  const out = await pgbench(target, [
    "-c",
    String(clients),
    "-j",
    String(jobs),
    "-T",
    String(seconds),
    "-M",
    "prepared"
  ])
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out)?.[1]
  const failed = /number of failed transactions: (\d+)/.exec(out)?.[1]
  if (tps === undefined) throw new Error(`bench: no tps in pgbench's output:\n${out}`)
  if (failed !== undefined && Number(failed) > 0) throw new Error(`bench: pgbench had ${failed} failed transactions`)
  return Number(tps)
}

// -----------------------------------------------------------------------------
// benchPostgres
// -----------------------------------------------------------------------------

const SETTINGS = ["fsync", "synchronous_commit", "shared_buffers", "max_connections", "wal_level"] as const

export async function benchPostgres(options: PostgresBenchOptions = {}): Promise<PostgresBenchResult> {
  const url = options.url ?? process.env.DATABASE_URL
  if (url === undefined || url === "") {
    return {
      _tag: "Skipped",
      reason: "DATABASE_URL is not set; e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench"
    }
  }
  if (!(await onPath("pgbench"))) return { _tag: "Skipped", reason: "pgbench is not on PATH (the baseline needs it)" }
  const clients = options.clients ?? 16
  const seconds = options.seconds ?? 10
  const rounds = options.rounds ?? 2
  if (!(Number.isInteger(clients) && clients >= 1 && seconds > 0 && Number.isInteger(rounds) && rounds >= 1)) {
    throw new Error(`bench: bad options ${JSON.stringify({ clients, seconds, rounds })}`)
  }

  const version = (await admin<{ v: string }>(url, "SELECT current_setting('server_version') AS v"))[0]!.v
  const settings: Record<string, string> = {}
  for (const name of SETTINGS) {
    settings[name] = (await admin<{ v: string }>(url, `SELECT current_setting('${name}') AS v`))[0]!.v
  }
  // Two pools of `clients` connections stay open while pgbench runs its own `clients`.
  const needed = 3 * clients + 3
  if (Number(settings.max_connections) < needed) {
    throw new Error(`bench: max_connections ${settings.max_connections} < ${needed} needed for ${clients} clients`)
  }
  const target = (() => {
    try {
      const u = new URL(url)
      return `${u.hostname}:${u.port || "5432"}${u.pathname}`
    } catch {
      return "(DATABASE_URL)"
    }
  })()

  const execSchema = `paycore_bench_${process.pid}_exec`
  const lifeSchema = `paycore_bench_${process.pid}_life`
  const scale = Math.max(10, clients)
  const cleanups: Array<() => Promise<void>> = []
  const sessions = new SessionSampler(url)
  // Drops what the bench made (each step once), also on Ctrl-C.
  const cleanUp = async () => {
    await sessions.close()
    for (let step = cleanups.pop(); step !== undefined; step = cleanups.pop()) {
      await step().catch((error: unknown) => console.error(`bench cleanup: ${String(error)}`))
    }
  }
  const interrupted = () => {
    void cleanUp().finally(() => process.exit(130))
  }
  process.once("SIGINT", interrupted)
  try {
    // ---- pgbench tables ----
    const pgb = await pgbenchTarget(url)
    cleanups.push(pgb.drop)
    await pgbench(pgb, ["-i", "-s", String(scale), "-q"])

    // ---- paycore: two schemas, the engine built once on each ----
    for (const schema of [execSchema, lifeSchema]) {
      await admin(url, `CREATE SCHEMA ${schema}`)
      cleanups.push(async () => {
        await admin(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      })
    }
    const exec: Engine = ManagedRuntime.make(servicesOn(url, execSchema, clients))
    cleanups.push(() => exec.dispose())
    const life: Engine = ManagedRuntime.make(servicesOn(url, lifeSchema, clients))
    cleanups.push(() => life.dispose())
    await sessions.open()

    const execPayers = await exec.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        return yield* makePayers(clients + 1, 0)
      })
    )
    const lifePayers = await life.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        return yield* makePayers(clients, 0)
      })
    )
    const spread = new QuotePool(execPayers.slice(0, clients), clients, execSchema)
    const hot = new QuotePool(execPayers.slice(clients), clients, execSchema)

    // ---- one fiber alone: 20 lifecycles (executes timed), then one more with its statements counted ----
    const quoteRequest = lifePayers[0]!.request
    const createQuote = Effect.gen(function* () {
      const quotes = yield* Quotes
      return yield* quotes.create(quoteRequest)
    })
    const latencies: Array<number> = []
    for (let i = 0; i < 20; i++) {
      const id = (await life.runPromise(createQuote)).id
      const t0 = performance.now()
      await life.runPromise(executeOne(id))
      latencies.push(performance.now() - t0)
    }
    await life.runPromise(settlePass(20))
    const created = await countStatements(() => life.runPromise(createQuote))
    const executed = await countStatements(() => life.runPromise(executeOne(created.value.id)))
    const settled = await countStatements(() => life.runPromise(settlePass(1)))
    let lifeSettled = 21
    const statements: StatementProfile = {
      create: created.sql,
      execute: executed.sql,
      settle: settled.sql,
      executeLatencyMs: median(latencies)
    }

    // ---- warm-up (not recorded): each kind of window once, short ----
    const scratch = new CpuAccount()
    const warm = Math.min(1, seconds / 10)
    let execHeld = 0
    execHeld += (await exec.runPromise(executeWindow(spread, warm, scratch, undefined))).count
    execHeld += (await exec.runPromise(executeWindow(hot, warm, scratch, undefined))).count
    lifeSettled += (await life.runPromise(lifecycleWindow(lifePayers, warm, scratch))).count

    // ---- measured: pgbench and paycore alternate ----
    const tps: Array<number> = []
    const executes: Array<WindowResult> = []
    const hotAccount: Array<WindowResult> = []
    const lifecycles: Array<LifecycleWindow> = []
    const cpu = {
      pgbench: new CpuAccount(),
      executes: new CpuAccount(),
      hotAccount: new CpuAccount(),
      lifecycles: new CpuAccount()
    }
    const wal = {
      pgbench: new WalAccount(url),
      executes: new WalAccount(url),
      hotAccount: new WalAccount(url),
      lifecycles: new WalAccount(url)
    }
    const sessionSplits = { executes: [] as Array<SessionSplit>, hotAccount: [] as Array<SessionSplit> }
    for (let round = 0; round < rounds; round++) {
      const walWindow = await wal.pgbench.begin()
      const window = cpu.pgbench.begin()
      const roundTps = await pgbenchRun(pgb, clients, seconds)
      window?.end()
      tps.push(roundTps)
      await walWindow.end(roundTps * seconds)
      await vacuumHotTables(url, [execSchema, lifeSchema])
      sessions.take()
      executes.push(await exec.runPromise(executeWindow(spread, seconds / 2, cpu.executes, sessions, wal.executes)))
      sessionSplits.executes.push(sessions.take())
      hotAccount.push(await exec.runPromise(executeWindow(hot, seconds / 4, cpu.hotAccount, sessions, wal.hotAccount)))
      sessionSplits.hotAccount.push(sessions.take())
      lifecycles.push(await life.runPromise(lifecycleWindow(lifePayers, seconds / 4, cpu.lifecycles, wal.lifecycles)))
    }
    await sessions.close()

    // ---- invariants ----
    execHeld += sum([...executes, ...hotAccount].map((w) => w.count))
    lifeSettled += sum(lifecycles.map((w) => w.count))
    const execCurrencies = await exec.runPromise(checkLedger(execSchema, execPayers, { held: execHeld, settled: 0 }))
    const lifeCurrencies = await life.runPromise(checkLedger(lifeSchema, lifePayers, { held: 0, settled: lifeSettled }))

    const med = {
      pgbenchTps: median(tps),
      executesPerSecond: median(executes.map((w) => w.perSecond)),
      hotAccountPerSecond: median(hotAccount.map((w) => w.perSecond)),
      lifecyclesPerSecond: median(lifecycles.map((w) => w.perSecond))
    }
    return {
      _tag: "Measured",
      server: { version, target, settings },
      clients,
      seconds,
      rounds,
      pgbenchScale: scale,
      pgbenchWhere: pgb.where,
      schemas: [execSchema, lifeSchema],
      pgbench: tps,
      executes,
      hotAccount,
      lifecycles,
      statements,
      cpu: {
        pgbench: cpu.pgbench.split(),
        executes: cpu.executes.split(),
        hotAccount: cpu.hotAccount.split(),
        lifecycles: cpu.lifecycles.split()
      },
      sessions: {
        executes: mergeSessions(sessionSplits.executes),
        hotAccount: mergeSessions(sessionSplits.hotAccount)
      },
      wal: {
        pgbench: wal.pgbench.perOperation(),
        executes: wal.executes.perOperation(),
        hotAccount: wal.hotAccount.perOperation(),
        lifecycles: wal.lifecycles.perOperation()
      },
      invariants: {
        executed: execHeld,
        settled: lifeSettled,
        currencies: [...new Set([...execCurrencies, ...lifeCurrencies])].sort()
      },
      median: med,
      targets: TARGETS,
      meetsTarget:
        med.executesPerSecond >= TARGETS.executes * med.pgbenchTps &&
        med.hotAccountPerSecond >= TARGETS.hotAccount * med.pgbenchTps &&
        med.lifecyclesPerSecond >= TARGETS.lifecycles * med.pgbenchTps
    }
  } finally {
    process.off("SIGINT", interrupted)
    await cleanUp()
  }
}

// -----------------------------------------------------------------------------
// Output
// -----------------------------------------------------------------------------

const pct = (x: number): string => `${Math.round(x * 100)}%`
export const cores = (c: CpuSplit | undefined): string => {
  if (c === undefined) return "n/a"
  const other = Math.max(0, c.cores - c.node - c.postgres - c.pgbench - c.idle)
  return (
    `node ${c.node.toFixed(2)}, postgres ${c.postgres.toFixed(2)}${c.pgbench > 0.005 ? `, pgbench ${c.pgbench.toFixed(2)}` : ""}, ` +
    `other ${other.toFixed(2)}, idle ${c.idle.toFixed(2)} (cores of ${c.cores})`
  )
}
export const waits = (s: SessionSplit): string => {
  const n = Math.max(1, s.sessions)
  const where = Object.entries(s.lockWaitIn)
    .filter(([, count]) => count / n >= 0.01)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([label, count]) => `${pct(count / n)} in ${label}`)
    .join(", ")
  return (
    `${pct(s.active / n)} running, ${pct(s.lockWait / n)} waiting for a row lock${where === "" ? "" : ` (${where})`}, ` +
    `${pct(s.idleInTransaction / n)} idle in transaction (waiting for node), ${pct(s.idle / n)} idle`
  )
}

/** CPU per operation, in µs: the node process and the server. */
export interface CpuPerOperation {
  readonly node: number
  readonly server: number
}
/** The CPU per operation of a window whose cores are `split`, at `perSecond` operations a second. */
export const cpuPerOperation = (split: CpuSplit | undefined, perSecond: number): CpuPerOperation | undefined =>
  split === undefined || !(perSecond > 0)
    ? undefined
    : { node: (split.node / perSecond) * 1e6, server: (split.postgres / perSecond) * 1e6 }
/** The operations a second over all windows of one kind. */
const rateOf = (windows: ReadonlyArray<WindowResult>): number =>
  sum(windows.map((w) => w.count)) / sum(windows.map((w) => w.seconds))

/** The most an operation's rate can be against a baseline's, with `cores` all busy at its CPU (seconds) per operation. */
export const mostRatio = (cores: number, cpuSecondsPerOperation: number, baselineTps: number): number =>
  cores / cpuSecondsPerOperation / baselineTps

/**
 * What CPU per operation allows, whatever the waiting: with every core busy at this CPU per operation, the rate
 * would be cores / CPU per operation; against pgbench's tps that is the most the ratio can reach before the
 * operation itself costs less (`all`), and with the node side free, the server's work alone (`serverOnly`). The
 * ratio targets cannot be met by waiting less when they are above these.
 */
const ceilings = (r: Extract<PostgresBenchResult, { _tag: "Measured" }>) => {
  const cores = r.cpu.pgbench?.cores ?? availableParallelism()
  const tps = r.median.pgbenchTps
  const pgbench = r.cpu.pgbench
  const perTx =
    pgbench === undefined
      ? undefined
      : { client: (pgbench.pgbench / tps) * 1e6, server: (pgbench.postgres / tps) * 1e6 }
  const of = (op: CpuPerOperation | undefined) =>
    op === undefined
      ? undefined
      : {
          ...op,
          all: mostRatio(cores, (op.node + op.server) / 1e6, tps),
          serverOnly: mostRatio(cores, op.server / 1e6, tps)
        }
  return {
    pgbench: perTx,
    executes: of(cpuPerOperation(r.cpu.executes, rateOf(r.executes))),
    hotAccount: of(cpuPerOperation(r.cpu.hotAccount, rateOf(r.hotAccount))),
    lifecycles: of(cpuPerOperation(r.cpu.lifecycles, rateOf(r.lifecycles)))
  }
}

const formatCeilings = (r: Extract<PostgresBenchResult, { _tag: "Measured" }>): string => {
  const c = ceilings(r)
  const us = (x: number) => `${Math.round(x)} µs`
  const one = (name: string, x: ReturnType<typeof ceilings>["executes"]) =>
    x === undefined
      ? `${name} n/a`
      : `${name} ${us(x.node)} + ${us(x.server)} (at most ${x.all.toFixed(2)}x; ${x.serverOnly.toFixed(2)}x with node's share free)`
  return (
    `    CPU per operation, node + server, and the most its ratio can be with every core busy: ` +
    `${c.pgbench === undefined ? "" : `pgbench TPC-B ${us(c.pgbench.client)} + ${us(c.pgbench.server)}; `}` +
    `${one("execute", c.executes)}; ${one("hot-account execute", c.hotAccount)}; ${one("lifecycle", c.lifecycles)}`
  )
}

const formatWal = (r: Extract<PostgresBenchResult, { _tag: "Measured" }>): string => {
  const kb = (bytes: number | undefined) => (bytes === undefined ? "n/a" : `${(bytes / 1024).toFixed(1)} KB`)
  return (
    `    WAL per operation (the server's insert position before and after each window): pgbench TPC-B ${kb(r.wal.pgbench)}; ` +
    `execute ${kb(r.wal.executes)}; hot-account execute ${kb(r.wal.hotAccount)}; lifecycle ${kb(r.wal.lifecycles)}`
  )
}

export const formatPostgresBench = (r: PostgresBenchResult): string => {
  if (r._tag === "Skipped") return `PostgreSQL: skipped (${r.reason})`
  const m = r.median
  const ratio = (x: number) => `${(x / m.pgbenchTps).toFixed(2)}x`
  const against = (x: number, target: number) =>
    `${fmt(x)}/s = ${ratio(x)} (target ${target}x: ${x >= target * m.pgbenchTps ? "MET" : "NOT MET"})`
  const perRound = (ws: ReadonlyArray<WindowResult>) =>
    ws.map((w) => `${fmt(w.perSecond)}${w.ranDry ? " (pool ran dry!)" : ""}`).join(" / ")
  const s = r.statements
  return [
    `\nPostgreSQL ${r.server.version} at ${r.server.target}: ${SETTINGS.map((k) => `${k} ${r.server.settings[k]}`).join(", ")}`,
    `pgbench -c ${r.clients} -j ${Math.min(r.clients, availableParallelism())} -T ${r.seconds} -M prepared (TPC-B-like, scale ${r.pgbenchScale}, ${r.pgbenchWhere}); ` +
      `paycore: ${r.clients} fibers, pool max ${r.clients}, schemas ${r.schemas.join(", ")}; ${r.rounds} alternating rounds, medians`,
    `PostgreSQL (server, ${r.clients} clients): pgbench TPC-B ${fmt(m.pgbenchTps)} tps | paycore executes ${against(m.executesPerSecond, r.targets.executes)} ` +
      `| one hot account ${against(m.hotAccountPerSecond, r.targets.hotAccount)} | lifecycles ${against(m.lifecyclesPerSecond, r.targets.lifecycles)}`,
    `    per round: pgbench ${r.pgbench.map(fmt).join(" / ")} tps; executes ${perRound(r.executes)}; hot account ${perRound(r.hotAccount)}; ` +
      `lifecycles ${perRound(r.lifecycles)} (quote+execute ${r.lifecycles.map((w) => fmt(w.quoteExecutePerSecond)).join(" / ")}/s, ` +
      `settlement pass ${r.lifecycles.map((w) => fmt(w.settlePerSecond)).join(" / ")}/s by the worker)`,
    `    round trips: execute ${describeStatements(s.execute)}, quote ${describeStatements(s.create)}, settlement ${describeStatements(s.settle)}; ` +
      `one execute alone ${s.executeLatencyMs.toFixed(2)} ms`,
    `    CPU (other: the rest of the machine, steal included), pgbench: ${cores(r.cpu.pgbench)}`,
    `    CPU, executes: ${cores(r.cpu.executes)}; hot account: ${cores(r.cpu.hotAccount)}; lifecycles: ${cores(r.cpu.lifecycles)}`,
    formatCeilings(r),
    formatWal(r),
    `    sessions, executes: ${waits(r.sessions.executes)}`,
    `    sessions, hot account: ${waits(r.sessions.hotAccount)}`,
    `invariants OK: ${fmt(r.invariants.executed)} executed payments held exactly once (${r.schemas[0]}), ${fmt(r.invariants.settled)} lifecycles settled (${r.schemas[1]}), ledger sums to 0 in ${r.invariants.currencies.join(", ")}`
  ].join("\n")
}

/** The statements of one operation, one per line: how long each waited, `+` when pipelined behind the one before. */
export const listStatements = (name: string, sql: ReadonlyArray<SentStatement>): string =>
  [
    `${name}: ${describeStatements(sql)}, ${sum(sql.map((s) => s.ms)).toFixed(2)} ms waiting for the server`,
    ...sql.map(
      (s, i) =>
        `  ${String(i + 1).padStart(2)}. ${s.ms.toFixed(2).padStart(6)} ms  ${s.pipelined ? "+ " : ""}${statementLabel(s.sql)}`
    )
  ].join("\n")

/** The statements of one execute, one per line (`--pg-statements`). */
export const formatStatements = (r: PostgresBenchResult): string => {
  if (r._tag === "Skipped") return ""
  return [
    listStatements("quote", r.statements.create),
    listStatements("execute", r.statements.execute),
    listStatements("settlement", r.statements.settle)
  ].join("\n")
}

/** The options from `--pg-clients`, `--pg-seconds`, `--pg-rounds` (bench/run.ts passes them through). */
export const postgresFlags = (): PostgresBenchOptions => ({
  clients: numberFlag("pg-clients"),
  seconds: numberFlag("pg-seconds"),
  rounds: numberFlag("pg-rounds")
})

if (import.meta.main) {
  const result = await benchPostgres(postgresFlags())
  console.log(formatPostgresBench(result))
  if (process.argv.includes("--pg-statements")) console.log(formatStatements(result))
}
