/**
 * Cards benchmark (issue 15; docs/design/cards.md, section 4 "Benchmark"): card authorizations per second and the
 * merged `GET /transactions` listing, each against a baseline measured in the same run.
 *
 *   node --conditions=@paycore/source bench/cards.ts [--seconds 5] [--pg-clients 16] [--pg-seconds 10] [--pg-rounds 2]
 *     [--pg-groups N] [--pg-statements]
 *   npm run bench -- --only cards
 *
 * - Authorization: one call of `CardNetwork.authorize` (decision, daily counters, hold, the card transaction row and
 *   its outbox event, one store transaction). Memory store: 1,000 cards, each on its own funded account, one fiber
 *   calling for `--seconds` round-robin over them; authorizations per second and p99 (each call timed with
 *   `performance.now()`); target ≥ 20,000/s. PostgreSQL (DATABASE_URL, pgbench on PATH): `clients` fibers on a pool of
 *   `clients` connections, each on its own cards, against `pgbench -c clients` in the same run (rounds alternate,
 *   medians), and the hot-card row (every fiber on one card with limits, so the card and counter rows are contended);
 *   targets (issue 34) ≥ 0.6× pgbench, and p99 < 20 ms on own cards and on the hot card. Where the time goes: one
 *   authorization alone, its statements counted (round trips: `--pg-statements` lists them) and the median latency
 *   of a few; during the measured windows the CPU of node, the server and the rest of the machine (/proc), per
 *   authorization too, and the pool's sessions sampled from pg_stat_activity (running, waiting for a row lock and
 *   in which statement, idle in a transaction waiting for node, idle). Until `CardNetwork.authorize` is built
 *   (slice B) it dies "not built yet": the authorization parts say so and are skipped.
 * - Listing: `Transactions.list` pages (20 rows, the first page and then nine more by cursor) over payments and card
 *   transactions together (the merge of two sides on one cursor), against the same pages of payments alone
 *   (`type=INCOMING`, one side) on the same store; pages per second, p99, and the ratio. On memory, and on
 *   PostgreSQL when DATABASE_URL is set. The card transactions are written straight to the store
 *   (`seedCardTransaction`), so this part runs before slice B.
 * After each store's run the ledger (`ledgerViolations`) and the card transactions are checked (every authorization
 * approved and held exactly once, the daily spend counter equal to the holds); a broken invariant throws.
 */
import {
  type AuthorizationRequest,
  CardNetwork,
  type CardRecord,
  cardCounters,
  type ListTransactionsQuery,
  Store,
  Transactions
} from "@paycore/core"
import { layer as memoryStore } from "@paycore/store-memory"
import { layerPg } from "@paycore/store-postgres"
import { ledgerViolations, seedCard, seedCardTransaction } from "@paycore/testkit"
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"
import { TestClock } from "effect/testing"
import { engineOn, makeSender, T0 } from "./engine.ts"
import { fmt, median, numberFlag } from "./figures.ts"
import {
  admin,
  CpuAccount,
  type CpuSplit,
  cores,
  countStatements,
  cpuPerOperation,
  describeStatements,
  listStatements,
  mergeSessions,
  mostRatio,
  onPath,
  type PostgresBenchOptions,
  pgbench,
  pgbenchRun,
  pgbenchTarget,
  postgresFlags,
  type SentStatement,
  SessionSampler,
  type SessionSplit,
  vacuumHotTables,
  waits,
  withApplicationName
} from "./postgres.ts"

// -----------------------------------------------------------------------------
// Settings and results
// -----------------------------------------------------------------------------

/** Memory authorizations per second. */
const TARGET_PER_SECOND = 20_000
/** PostgreSQL authorizations per second against pgbench tps (issue 34). */
const TARGET_PG_RATIO = 0.6
/** p99 of an authorization, on own cards and on the one hot card (issue 34). */
const TARGET_PG_P99_MS = 20
/** Lone authorizations timed (one fiber, no contention) for the median latency. */
const LONE_AUTHORIZATIONS = 20
const MEMORY_CARDS = 1_000
/** The cards the listing's card transactions are seeded on (apart from the authorization cards). */
const LISTING_CARDS = 20
/** An authorization's amount, in cents: the funded accounts never run dry. */
const AUTH_AMOUNT = 100
/** Listing rows seeded per side (memory; PostgreSQL a fifth of it). */
const LISTING_ROWS = 5_000
const PAGE = 20
const PAGES_PER_WALK = 10

export interface Rate {
  readonly count: number
  readonly seconds: number
  readonly perSecond: number
  readonly p99Ms: number
}

export type Part<T> = { readonly _tag: "Skipped"; readonly reason: string } | ({ readonly _tag: "Measured" } & T)

export interface ListingFigures {
  readonly rows: { readonly payments: number; readonly cardTransactions: number }
  /** Pages of payments and card transactions together (the merge). */
  readonly merged: Rate
  /** The same pages of payments alone (one side). */
  readonly paymentsOnly: Rate
  /** merged / paymentsOnly pages per second. */
  readonly ratio: number
}

export interface CardsBenchResult {
  readonly memory: {
    readonly authorization: Part<{
      readonly cards: number
      readonly rate: Rate
      readonly target: number
      readonly meetsTarget: boolean
    }>
    readonly listing: ListingFigures
  }
  readonly postgres: Part<{
    readonly clients: number
    readonly authorization: Part<{
      readonly pgbenchTps: ReadonlyArray<number>
      readonly spread: ReadonlyArray<Rate>
      readonly hotCard: ReadonlyArray<Rate>
      readonly median: { readonly pgbenchTps: number; readonly spread: Rate; readonly hotCard: Rate }
      readonly ratio: number
      readonly meetsTarget: boolean
      /** One authorization alone: its statements (round trips) and the median latency of a few. */
      readonly alone: { readonly statements: ReadonlyArray<SentStatement>; readonly latencyMs: number }
      /** Where the time goes: CPU by process and the pool's sessions (pg_stat_activity, sampled) per window kind. */
      readonly cpu: { readonly spread: CpuSplit | undefined; readonly hotCard: CpuSplit | undefined }
      readonly sessions: { readonly spread: SessionSplit; readonly hotCard: SessionSplit }
    }>
    readonly listing: ListingFigures
  }>
}

// -----------------------------------------------------------------------------
// The engine and its cards
// -----------------------------------------------------------------------------

/** The payment services and the card network on `store`, the sandbox and a TestClock (bench/engine.ts). */
const cardEngineOn = <E>(store: Layer.Layer<Store, E>) => CardNetwork.layer.pipe(Layer.provideMerge(engineOn(store)))

/** `count` customers, each with a funded USD account and an ACTIVE card on it (`overrides`: limits). */
const makeCards = (count: number, overrides: Partial<CardRecord> = {}) =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    (i) =>
      Effect.gen(function* () {
        const sender = yield* makeSender(`Bench Cardholder ${i}`)
        return yield* seedCard(sender.customerId, [sender.sourceId], overrides)
      })
  )

let tokens = 0
const authorizationOf = (card: CardRecord): AuthorizationRequest => ({
  cardId: card.id,
  issuerTransactionToken: `itt_bench_${process.pid}_${++tokens}`,
  kind: "AUTHORIZATION",
  amount: AUTH_AMOUNT,
  currency: card.currency,
  merchant: { descriptor: "PAYCORE BENCH MERCHANT", mcc: "5814", country: "US" }
})

/** One approved authorization; a decline stops the bench (the accounts are funded, the limits far away). */
const authorizeOne = (network: CardNetwork["Service"], card: CardRecord) =>
  Effect.flatMap(network.authorize(authorizationOf(card)), (decision) =>
    decision._tag === "Approved"
      ? Effect.void
      : Effect.die(new Error(`bench: an authorization on ${card.id} was declined (${decision.reason})`))
  )

/**
 * Whether `CardNetwork.authorize` is built: one authorization on `card` (a warm-up when it is). Until slice B it
 * dies "not built yet"; any other failure stops the bench.
 */
const authorizationBuilt = (card: CardRecord) =>
  Effect.gen(function* () {
    const network = yield* CardNetwork
    const exit = yield* Effect.exit(authorizeOne(network, card))
    if (Exit.isSuccess(exit)) return true
    if (Cause.pretty(exit.cause).includes("not built yet")) return false
    return yield* Effect.failCause(exit.cause)
  })

/** Latencies (ms) → the rate over `seconds` and the 99th percentile. */
const rateOf = (latencies: Array<number>, seconds: number): Rate => {
  latencies.sort((a, b) => a - b)
  const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? Number.NaN
  return { count: latencies.length, seconds, perSecond: latencies.length / seconds, p99Ms: p99 }
}

/**
 * `callers` fibers authorizing until `seconds` have passed, caller `i` round-robin over `cardsOf(i)`; each call
 * timed on the wall clock.
 */
const authorizationWindow = (
  callers: number,
  cardsOf: (caller: number) => ReadonlyArray<CardRecord>,
  seconds: number,
  cpu?: CpuAccount
) =>
  Effect.gen(function* () {
    const network = yield* CardNetwork
    const latencies: Array<number> = []
    const window = cpu?.begin()
    const start = performance.now()
    const deadline = start + seconds * 1000
    yield* Effect.forEach(
      Array.from({ length: callers }, (_, i) => i),
      (caller) =>
        Effect.gen(function* () {
          const cards = cardsOf(caller)
          for (let n = 0; performance.now() < deadline; n++) {
            const t0 = performance.now()
            yield* authorizeOne(network, cards[n % cards.length]!)
            latencies.push(performance.now() - t0)
          }
        }),
      { concurrency: callers, discard: true }
    )
    window?.end()
    return rateOf(latencies, (performance.now() - start) / 1000)
  })

/**
 * The card invariants after a run: every card transaction approved (`AUTHORIZED`, held in full), each card's spend
 * counter of the day equal to its holds, the ledger balanced. Throws on a broken one.
 */
const checkCards = (cards: ReadonlyArray<CardRecord>) =>
  Effect.gen(function* () {
    const store = yield* Store
    const problems: Array<string> = [...(yield* ledgerViolations)]
    const day = new Date(T0).toISOString().slice(0, 10)
    let rows = 0
    for (const card of cards) {
      const page = yield* store.cardTransactions.list(
        { cardId: card.id },
        { limit: Number.MAX_SAFE_INTEGER, sortOrder: "asc" }
      )
      let held = 0
      for (const tx of page.data) {
        if (tx.state !== "AUTHORIZED" || tx.heldAmount !== tx.authorizedAmount) {
          problems.push(`${tx.id} is ${tx.state}, holding ${tx.heldAmount} of ${tx.authorizedAmount}`)
        }
        held += tx.heldAmount
      }
      rows += page.data.length
      const counted = yield* store.counters.get(cardCounters.spend(card.id, day))
      if (counted !== held) problems.push(`card ${card.id}: spend counter ${counted}, holds ${held}`)
    }
    if (problems.length > 0) {
      return yield* Effect.die(new Error(`bench: broken card invariants:\n  ${problems.slice(0, 10).join("\n  ")}`))
    }
    return rows
  })

// -----------------------------------------------------------------------------
// The listing
// -----------------------------------------------------------------------------

/** `rows` more payments (sandbox funding) and `rows` card transactions over the cards' customers and accounts. */
const seedListing = (cards: ReadonlyArray<CardRecord>, rows: number) =>
  Effect.gen(function* () {
    const transactions = yield* Transactions
    for (let i = 0; i < rows; i++) {
      const card = cards[i % cards.length]!
      yield* transactions.fundSandbox(card.fundingSources[0]!, 1)
      yield* seedCardTransaction(card, { authorizedAmount: 1 + (i % 5_000) })
      // Ids are time-ordered by the clock: spread the rows over time as a live system would.
      if (i % 50 === 0) yield* TestClock.adjust(1)
    }
    const count = (query: ListTransactionsQuery) =>
      Effect.map(transactions.list({ ...query, limit: 1 }), (p) => p.totalCount)
    return { payments: yield* count({ type: "INCOMING" }), cardTransactions: yield* count({ type: "CARD" }) }
  })

/** Walks of `PAGES_PER_WALK` pages of `query` for `seconds`: each page timed. */
const listingWindow = (query: ListTransactionsQuery, seconds: number) =>
  Effect.gen(function* () {
    const transactions = yield* Transactions
    const latencies: Array<number> = []
    const start = performance.now()
    while (performance.now() - start < seconds * 1000) {
      let cursor: string | undefined
      for (let page = 0; page < PAGES_PER_WALK; page++) {
        const t0 = performance.now()
        const listed = yield* transactions.list({ ...query, limit: PAGE, ...(cursor === undefined ? {} : { cursor }) })
        latencies.push(performance.now() - t0)
        if (listed.data.length !== PAGE) return yield* Effect.die(new Error("bench: a listing page came back short"))
        cursor = listed.nextCursor
        if (cursor === undefined) break
      }
    }
    return rateOf(latencies, (performance.now() - start) / 1000)
  })

/** Merged pages against payment-only pages, alternating rounds of `seconds` each; medians. */
const listingFigures = (rows: ListingFigures["rows"], seconds: number, rounds: number) =>
  Effect.gen(function* () {
    const merged: Array<Rate> = []
    const paymentsOnly: Array<Rate> = []
    // Warm-up: both paths once.
    yield* listingWindow({}, 0.2)
    yield* listingWindow({ type: "INCOMING" }, 0.2)
    for (let round = 0; round < rounds; round++) {
      paymentsOnly.push(yield* listingWindow({ type: "INCOMING" }, seconds))
      merged.push(yield* listingWindow({}, seconds))
    }
    const m = medianRate(merged)
    const p = medianRate(paymentsOnly)
    return { rows, merged: m, paymentsOnly: p, ratio: m.perSecond / p.perSecond } satisfies ListingFigures
  })

const medianRate = (rates: ReadonlyArray<Rate>): Rate => ({
  count: median(rates.map((r) => r.count)),
  seconds: median(rates.map((r) => r.seconds)),
  perSecond: median(rates.map((r) => r.perSecond)),
  p99Ms: median(rates.map((r) => r.p99Ms))
})

// -----------------------------------------------------------------------------
// Memory
// -----------------------------------------------------------------------------

const benchMemory = async (seconds: number): Promise<CardsBenchResult["memory"]> => {
  const runtime = ManagedRuntime.make(cardEngineOn(memoryStore))
  try {
    return await runtime.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const cards = yield* makeCards(MEMORY_CARDS)
        // The listing first, so its rows are the seeded ones whether or not authorizations run after it; on cards
        // of its own, since its rows are written without the daily counters `checkCards` holds authorizations to.
        const rows = yield* seedListing(yield* makeCards(LISTING_CARDS), LISTING_ROWS)
        const listing = yield* listingFigures(rows, Math.max(0.5, seconds / 4), 3)
        let authorization: CardsBenchResult["memory"]["authorization"]
        if (yield* authorizationBuilt(cards[0]!)) {
          yield* authorizationWindow(1, () => cards, Math.min(1, seconds)) // warm-up
          const rate = yield* authorizationWindow(1, () => cards, seconds)
          yield* checkCards(cards)
          authorization = {
            _tag: "Measured",
            cards: cards.length,
            rate,
            target: TARGET_PER_SECOND,
            meetsTarget: rate.perSecond >= TARGET_PER_SECOND
          }
        } else {
          authorization = { _tag: "Skipped", reason: "CardNetwork.authorize is not built yet (slice B)" }
        }
        const violations = yield* ledgerViolations
        if (violations.length > 0) return yield* Effect.die(new Error(`bench: ledger: ${violations.join("; ")}`))
        return { authorization, listing }
      })
    )
  } finally {
    await runtime.dispose()
  }
}

// -----------------------------------------------------------------------------
// PostgreSQL
// -----------------------------------------------------------------------------

const benchPostgresCards = async (options: PostgresBenchOptions): Promise<CardsBenchResult["postgres"]> => {
  const url = options.url ?? process.env.DATABASE_URL
  if (url === undefined || url === "") return { _tag: "Skipped", reason: "DATABASE_URL is not set" }
  const clients = options.clients ?? 16
  const seconds = options.seconds ?? 10
  const rounds = options.rounds ?? 2
  const schema = `paycore_bench_${process.pid}_cards`
  const cleanups: Array<() => Promise<void>> = []
  try {
    await admin(url, `CREATE SCHEMA ${schema}`)
    cleanups.push(async () => {
      await admin(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    })
    const runtime = ManagedRuntime.make(
      cardEngineOn(
        layerPg({
          connectionString: withApplicationName(url, schema),
          schema,
          max: clients,
          // `--pg-groups 0`: every store transaction alone (no group commit), to tell what the groups cost or save.
          groupCommit: { groups: numberFlag("pg-groups") }
        })
      )
    )
    cleanups.push(() => runtime.dispose())
    const { cards, hot } = await runtime.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const cards = yield* makeCards(clients * 4)
        // The hot card: limits, so every authorization also counts against the card's daily caps.
        const [hot] = yield* makeCards(1, {
          maxSpendPerTransaction: 1_000_000,
          maxSpendPerDay: 9_000_000_000_000,
          maxTransactionsPerDay: 1_000_000
        })
        return { cards, hot: hot! }
      })
    )
    // The listing first, so its rows are the seeded ones whether or not authorizations run after it.
    const listing = await runtime.runPromise(
      Effect.gen(function* () {
        const rows = yield* seedListing(yield* makeCards(LISTING_CARDS), LISTING_ROWS / 5)
        return yield* listingFigures(rows, Math.max(1, seconds / 4), rounds)
      })
    )
    const built = await runtime.runPromise(authorizationBuilt(cards[0]!))

    let authorization: Extract<CardsBenchResult["postgres"], { _tag: "Measured" }>["authorization"]
    if (!built) {
      authorization = { _tag: "Skipped", reason: "CardNetwork.authorize is not built yet (slice B)" }
    } else if (!(await onPath("pgbench"))) {
      authorization = { _tag: "Skipped", reason: "pgbench is not on PATH (the baseline needs it)" }
    } else {
      const target = await pgbenchTarget(url)
      cleanups.push(target.drop)
      await pgbench(target, ["-i", "-s", String(Math.max(10, clients)), "-q"])
      const tps: Array<number> = []
      const spread: Array<Rate> = []
      const hotCard: Array<Rate> = []
      // Each caller on its own four cards; the hot row puts every caller on the one hot card.
      const own = (caller: number) => cards.slice(caller * 4, caller * 4 + 4)
      await runtime.runPromise(authorizationWindow(clients, own, 1)) // warm-up
      // One authorization alone: timed a few times, then once with its statements counted.
      const network = await runtime.runPromise(CardNetwork)
      const lone: Array<number> = []
      for (let i = 0; i < LONE_AUTHORIZATIONS; i++) {
        const t0 = performance.now()
        await runtime.runPromise(authorizeOne(network, cards[i % cards.length]!))
        lone.push(performance.now() - t0)
      }
      const counted = await countStatements(() => runtime.runPromise(authorizeOne(network, cards[0]!)))
      const cpu = { spread: new CpuAccount(), hotCard: new CpuAccount() }
      const sessions = new SessionSampler(url)
      await sessions.open()
      cleanups.push(() => sessions.close())
      const sessionSplits = { spread: [] as Array<SessionSplit>, hotCard: [] as Array<SessionSplit> }
      sessions.start(schema)
      for (let round = 0; round < rounds; round++) {
        tps.push(await pgbenchRun(target, clients, seconds))
        await vacuumHotTables(url, [schema])
        sessions.take()
        spread.push(await runtime.runPromise(authorizationWindow(clients, own, seconds / 2, cpu.spread)))
        sessionSplits.spread.push(sessions.take())
        hotCard.push(await runtime.runPromise(authorizationWindow(clients, () => [hot], seconds / 2, cpu.hotCard)))
        sessionSplits.hotCard.push(sessions.take())
      }
      sessions.stop()
      await runtime.runPromise(checkCards([...cards, hot]))
      const m = { pgbenchTps: median(tps), spread: medianRate(spread), hotCard: medianRate(hotCard) }
      const ratio = m.spread.perSecond / m.pgbenchTps
      authorization = {
        _tag: "Measured",
        pgbenchTps: tps,
        spread,
        hotCard,
        median: m,
        ratio,
        meetsTarget:
          ratio >= TARGET_PG_RATIO && m.spread.p99Ms < TARGET_PG_P99_MS && m.hotCard.p99Ms < TARGET_PG_P99_MS,
        alone: { statements: counted.sql, latencyMs: median(lone) },
        cpu: { spread: cpu.spread.split(), hotCard: cpu.hotCard.split() },
        sessions: { spread: mergeSessions(sessionSplits.spread), hotCard: mergeSessions(sessionSplits.hotCard) }
      }
    }

    const violations = await runtime.runPromise(ledgerViolations)
    if (violations.length > 0) throw new Error(`bench: ledger: ${violations.join("; ")}`)
    return { _tag: "Measured", clients, authorization, listing }
  } finally {
    for (let step = cleanups.pop(); step !== undefined; step = cleanups.pop()) {
      await step().catch((error: unknown) => console.error(`bench cleanup: ${String(error)}`))
    }
  }
}

// -----------------------------------------------------------------------------
// Entry points
// -----------------------------------------------------------------------------

export interface CardsBenchOptions {
  /** The memory authorization window. */
  readonly seconds?: number | undefined
  readonly postgres?: PostgresBenchOptions | undefined
}

export const benchCards = async (options: CardsBenchOptions = {}): Promise<CardsBenchResult> => ({
  memory: await benchMemory(options.seconds ?? 5),
  postgres: await benchPostgresCards(options.postgres ?? postgresFlags())
})

const rate = (r: Rate, unit: string) =>
  `${fmt(r.perSecond).padStart(7)} ${unit}/s  p99 ${r.p99Ms.toFixed(2).padStart(6)} ms  (${fmt(r.count)} in ${r.seconds.toFixed(1)} s)`

/** Node's and the server's CPU per authorization, and the most the rate could be against pgbench with every core busy. */
const perAuthorization = (c: CpuSplit | undefined, r: Rate, pgbenchTps: number): string => {
  const op = cpuPerOperation(c, r.perSecond)
  if (c === undefined || op === undefined) return "n/a"
  return (
    `node ${(op.node / 1000).toFixed(2)} ms, postgres ${(op.server / 1000).toFixed(2)} ms ` +
    `(at most ${mostRatio(c.cores, (op.node + op.server) / 1e6, pgbenchTps).toFixed(2)}x pgbench with every core busy)`
  )
}

const listingLines = (l: ListingFigures): ReadonlyArray<string> => [
  `  listing (${fmt(l.rows.payments)} payments + ${fmt(l.rows.cardTransactions)} card transactions, ${PAGE} a page, walks of ${PAGES_PER_WALK} pages)`,
  `    payments alone (type=INCOMING)   ${rate(l.paymentsOnly, "pages")}`,
  `    both, merged on one cursor       ${rate(l.merged, "pages")}  ${l.ratio.toFixed(2)}x`
]

export const formatCardsBench = (r: CardsBenchResult): string => {
  const lines = [`\nCards: node ${process.version}`, "memory store"]
  const a = r.memory.authorization
  lines.push(
    a._tag === "Skipped"
      ? `  authorizations: skipped (${a.reason})`
      : `  authorizations (${fmt(a.cards)} cards, one fiber) ${rate(a.rate, "auth")}  target ≥ ${fmt(a.target)}/s: ${a.meetsTarget ? "met" : "NOT met"}`
  )
  lines.push(...listingLines(r.memory.listing))
  const pg = r.postgres
  if (pg._tag === "Skipped") {
    lines.push(`PostgreSQL: skipped (${pg.reason})`)
    return lines.join("\n")
  }
  const groups = numberFlag("pg-groups")
  lines.push(
    `PostgreSQL (${pg.clients} callers, a pool of ${pg.clients}${groups === undefined ? "" : `, ${groups} commit groups`})`
  )
  const pa = pg.authorization
  if (pa._tag === "Skipped") lines.push(`  authorizations: skipped (${pa.reason})`)
  else {
    lines.push(
      `  pgbench -c ${pg.clients}                   ${fmt(pa.median.pgbenchTps).padStart(7)} tps (median of ${pa.pgbenchTps.length})`,
      `  authorizations, own cards        ${rate(pa.median.spread, "auth")}  ${pa.ratio.toFixed(2)}x pgbench`,
      `  authorizations, one hot card     ${rate(pa.median.hotCard, "auth")}`,
      `    per round: own cards ${pa.spread.map((r) => `${fmt(r.perSecond)}/s p99 ${r.p99Ms.toFixed(1)} ms`).join(" / ")}; ` +
        `hot card ${pa.hotCard.map((r) => `${fmt(r.perSecond)}/s p99 ${r.p99Ms.toFixed(1)} ms`).join(" / ")}; ` +
        `pgbench ${pa.pgbenchTps.map(fmt).join(" / ")} tps`,
      `  targets ≥ ${TARGET_PG_RATIO}x pgbench, p99 < ${TARGET_PG_P99_MS} ms on own cards and on the hot card: ${pa.meetsTarget ? "met" : "NOT met"}`,
      `    one authorization alone ${pa.alone.latencyMs.toFixed(2)} ms (median of ${LONE_AUTHORIZATIONS}): ${describeStatements(pa.alone.statements)}`,
      `    CPU, own cards: ${cores(pa.cpu.spread)}; hot card: ${cores(pa.cpu.hotCard)}`,
      `    CPU per authorization, own cards: ${perAuthorization(pa.cpu.spread, pa.median.spread, pa.median.pgbenchTps)}; hot card: ${perAuthorization(pa.cpu.hotCard, pa.median.hotCard, pa.median.pgbenchTps)}`,
      `    sessions, own cards: ${waits(pa.sessions.spread)}`,
      `    sessions, hot card: ${waits(pa.sessions.hotCard)}`
    )
    if (process.argv.includes("--pg-statements")) lines.push(listStatements("  authorization", pa.alone.statements))
  }
  lines.push(...listingLines(pg.listing))
  return lines.join("\n")
}

if (import.meta.main) {
  console.log(formatCardsBench(await benchCards({ seconds: numberFlag("seconds") ?? 5, postgres: postgresFlags() })))
}
