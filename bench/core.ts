/**
 * Core throughput benchmark: full payment lifecycles per second through the engine on the in-memory store.
 *
 *   node --conditions=@paycore/source bench/core.ts [--seconds 5]
 *
 * A lifecycle is `Quotes.create` (ACCOUNT source: the funded USD internal account of a customer who accepted the
 * end-user terms; SENDING locked), `Quotes.execute` (limits, ledger holds, submission to the rail) and settlement
 * (the rail reports Settled, the holds are posted, transaction and quote COMPLETED). Two variants, interleaved batch
 * by batch in the same run: same-currency (USD → a US external account on RTP) and cross-currency (USD → an MXN CLABE
 * account on SPEI, through the fx liquidity accounts, service fee included).
 *
 * Settlement is driven the way the server drives it, by the worker: the sandbox rail runs with `speedUp` so that an
 * instant rail (5 s) settles after 1 ms, the runtime uses a TestClock, and after each batch of executes the bench
 * moves the TestClock by that 1 ms and runs one `Transactions.processDue()` pass, which polls and settles the batch.
 * No timer is ever waited on.
 *
 * Everything runs in one Effect runtime (layers built once, one `Effect.runPromise`). Each step is timed on the wall
 * clock and on this thread's CPU time (steadier when other processes share the machine). The baseline is measured in
 * the same run: an empty `Effect.gen` loop with as many run-loop steps per lifecycle as the engine takes (counted with
 * a counting scheduler), so `overhead` is what the engine costs beyond the bare Effect steps.
 * After the run the ledger and the transactions are checked; a broken invariant throws.
 */
import type { CreateQuoteRequest } from "@paycore/core"
import { Quotes, Store } from "@paycore/core"
import { layer as memoryStore } from "@paycore/store-memory"
import { ledgerViolations } from "@paycore/testkit"
import { Effect, Scheduler } from "effect"
import { TestClock } from "effect/testing"
import {
  AMOUNT,
  engineOn,
  FUNDING,
  MX_PAYEE,
  makePayee,
  makeSender,
  paymentRequest,
  SETTLE_MS,
  SPEED_UP,
  settlePass,
  T0,
  US_PAYEE
} from "./engine.ts"
import { fmt, numberFlag } from "./figures.ts"

// -----------------------------------------------------------------------------
// Result
// -----------------------------------------------------------------------------

export interface VariantResult {
  /** Lifecycles completed in the measured window. */
  readonly lifecycles: number
  /** Wall time spent on this variant's batches (create + execute + settle), seconds. */
  readonly seconds: number
  readonly lifecyclesPerSecond: number
  /** Each step measured on its own: lifecycles / time spent in that step. */
  readonly quotesPerSecond: number
  readonly executesPerSecond: number
  readonly settlesPerSecond: number
  /** Lifecycles per second of this thread's CPU time: what one uncontended core does (robust to other load). */
  readonly lifecyclesPerCpuSecond: number
  /** CPU time / wall time of the variant's batches: well below 1 means other processes took the core. */
  readonly cpuUtilisation: number
  /** Effect run-loop steps one lifecycle takes (counted, see `baseline`). */
  readonly stepsPerLifecycle: number
  /** The bare Effect cost of that many steps, as lifecycles per second. */
  readonly baselineLifecyclesPerSecond: number
  /** Engine CPU time / baseline CPU time for the same number of steps. */
  readonly overhead: number
}

export interface CoreBenchResult {
  readonly settlement: string
  readonly batchSize: number
  readonly warmupSeconds: number
  readonly measuredSeconds: number
  readonly sameCurrency: VariantResult
  readonly crossCurrency: VariantResult
  readonly baseline: {
    /** Run-loop steps one `yield*` of `Effect.succeed` takes inside `Effect.gen`. */
    readonly stepsPerYield: number
    /** Bare `Effect.gen` yields per second in this run. */
    readonly yieldsPerSecond: number
  }
  /** What the invariant check saw (it throws when something is off). */
  readonly invariants: {
    readonly transactions: number
    readonly completed: number
    readonly quotes: number
    readonly currencies: ReadonlyArray<string>
  }
  readonly target: number
  readonly meetsTarget: boolean
}

// -----------------------------------------------------------------------------
// Setup
// -----------------------------------------------------------------------------

const BATCH = 100
const TARGET = 20_000
const WARMUP_SECONDS = 1

const services = engineOn(memoryStore)

const setup = Effect.gen(function* () {
  yield* TestClock.setTime(T0)
  const sender = yield* makeSender("Bench Sender")
  const usPayee = yield* makePayee(sender.customerId, "USD", US_PAYEE)
  const mxPayee = yield* makePayee(sender.customerId, "MXN", MX_PAYEE)
  return {
    sourceId: sender.sourceId,
    same: paymentRequest(sender.sourceId, usPayee, "RTP"),
    cross: paymentRequest(sender.sourceId, mxPayee, "SPEI")
  }
})

// -----------------------------------------------------------------------------
// One batch of lifecycles
// -----------------------------------------------------------------------------

/** A reading of the wall clock and of this thread's CPU time (ms): other processes slow the first, not the second. */
interface Instant {
  readonly wall: number
  readonly cpu: number
}

const instant = (): Instant => {
  const cpu = process.threadCpuUsage()
  return { wall: performance.now(), cpu: (cpu.user + cpu.system) / 1000 }
}

interface Span {
  wall: number
  cpu: number
}

const addSpan = (span: Span, from: Instant, to: Instant) => {
  span.wall += to.wall - from.wall
  span.cpu += to.cpu - from.cpu
}

interface Timing {
  lifecycles: number
  readonly quote: Span
  readonly execute: Span
  readonly settle: Span
}

const newTiming = (): Timing => ({
  lifecycles: 0,
  quote: { wall: 0, cpu: 0 },
  execute: { wall: 0, cpu: 0 },
  settle: { wall: 0, cpu: 0 }
})

/** `size` lifecycles: creates, executes, then one worker pass that settles them all (added to `timing`). */
const batch = (request: CreateQuoteRequest, size: number, timing: Timing) =>
  Effect.gen(function* () {
    const quotes = yield* Quotes
    const ids: Array<string> = new Array(size)
    const t0 = instant()
    for (let i = 0; i < size; i++) ids[i] = (yield* quotes.create(request)).id
    const t1 = instant()
    // Inline, not `executeOne`: a wrapper's run-loop steps would count in stepsPerLifecycle.
    for (let i = 0; i < size; i++) {
      const executed = yield* quotes.execute(ids[i]!)
      if (executed.status !== "PROCESSING") {
        return yield* Effect.die(new Error(`bench: executed quote ${executed.id} is ${executed.status}`))
      }
    }
    const t2 = instant()
    yield* settlePass(size)
    const t3 = instant()
    timing.lifecycles += size
    addSpan(timing.quote, t0, t1)
    addSpan(timing.execute, t1, t2)
    addSpan(timing.settle, t2, t3)
  })

// -----------------------------------------------------------------------------
// Step counting and the baseline
// -----------------------------------------------------------------------------

/** The default scheduler, counting the run-loop steps it is asked about (calibration only). */
class CountingScheduler extends Scheduler.MixedScheduler {
  steps = 0
  override shouldYield(fiber: Parameters<Scheduler.Scheduler["shouldYield"]>[0]): boolean {
    this.steps++
    return super.shouldYield(fiber)
  }
}

const countSteps = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const counter = new CountingScheduler()
    yield* Effect.provideService(effect, Scheduler.Scheduler, counter)
    return counter.steps
  })

/**
 * The baseline: an empty `Effect.gen` doing `yields` yields of a trivial `Effect.sync` (the shape of a store call),
 * no store, no services. (`Effect.succeed` would not do: it is an Exit, which `Effect.gen` unwraps without a step.)
 */
const emptyLoop = (yields: number) =>
  Effect.gen(function* () {
    let sum = 0
    for (let i = 0; i < yields; i++) sum += yield* Effect.sync(() => i)
    return sum
  })

// -----------------------------------------------------------------------------
// Invariants
// -----------------------------------------------------------------------------

const checkInvariants = (sourceId: string, expected: { readonly lifecycles: number }) =>
  Effect.gen(function* () {
    const store = yield* Store
    const problems: Array<string> = [...(yield* ledgerViolations)]
    const [source] = yield* store.ledger.balances([{ account: sourceId, currency: "USD" }])
    const spent = FUNDING - (source?.posted ?? 0)
    if ((source?.pendingDebits ?? 0) !== 0) problems.push(`holds left after settlement: ${source?.pendingDebits}`)
    if (spent !== expected.lifecycles * AMOUNT) {
      problems.push(`source account spent ${spent}, expected ${expected.lifecycles} × ${AMOUNT}`)
    }
    const all = (yield* store.transactions.list({}, { limit: Number.MAX_SAFE_INTEGER, sortOrder: "asc" })).data
    const notCompleted = all.filter((r) => r.transaction.status !== "COMPLETED")
    for (const r of notCompleted.slice(0, 5)) problems.push(`${r.id} is ${r.transaction.status} (${r.state})`)
    if (notCompleted.length > 0) problems.push(`${notCompleted.length} transactions are not COMPLETED`)
    const outgoing = all.filter((r) => r.transaction.type === "OUTGOING").length
    if (outgoing !== expected.lifecycles)
      problems.push(`${outgoing} outgoing payments, expected ${expected.lifecycles}`)
    const quotes = (yield* store.quotes.list({}, { limit: Number.MAX_SAFE_INTEGER, sortOrder: "asc" })).data
    const openQuotes = quotes.filter((q) => q.quote.status !== "COMPLETED").length
    if (openQuotes > 0) problems.push(`${openQuotes} quotes are not COMPLETED`)
    if (problems.length > 0) {
      return yield* Effect.die(
        new Error(`bench: INVARIANTS BROKEN, the figures are worthless:\n  ${problems.join("\n  ")}`)
      )
    }
    return {
      transactions: all.length,
      completed: all.length - notCompleted.length,
      quotes: quotes.length,
      currencies: [...new Set((yield* store.ledger.allBalances()).map((b) => b.currency))].sort()
    }
  })

// -----------------------------------------------------------------------------
// benchCore
// -----------------------------------------------------------------------------

export async function benchCore(options: { readonly seconds?: number } = {}): Promise<CoreBenchResult> {
  const seconds = options.seconds ?? 5
  const program = Effect.gen(function* () {
    const env = yield* setup
    let lifecycles = 0
    const run = (request: CreateQuoteRequest, size: number, timing: Timing) =>
      Effect.map(batch(request, size, timing), () => {
        lifecycles += size
      })

    // ---- warm-up (both variants, not recorded) ----
    const warmupEnd = performance.now() + WARMUP_SECONDS * 1000
    while (performance.now() < warmupEnd) {
      yield* run(env.same, BATCH, newTiming())
      yield* run(env.cross, BATCH, newTiming())
    }

    // ---- steps per lifecycle (counted on a few batches, not timed) ----
    const sameSteps = (yield* countSteps(run(env.same, BATCH, newTiming()))) / BATCH
    const crossSteps = (yield* countSteps(run(env.cross, BATCH, newTiming()))) / BATCH
    const probeYields = 100_000
    const stepsPerYield = (yield* countSteps(emptyLoop(probeYields))) / probeYields
    if (!(stepsPerYield >= 0.5))
      return yield* Effect.die(new Error(`bench: the baseline loop takes ${stepsPerYield} steps per yield`))

    // ---- measured: the variants interleaved batch by batch ----
    const same = newTiming()
    const cross = newTiming()
    const start = performance.now()
    const end = start + seconds * 1000
    while (performance.now() < end) {
      yield* run(env.same, BATCH, same)
      yield* run(env.cross, BATCH, cross)
    }
    const measuredSeconds = (performance.now() - start) / 1000

    // ---- baseline: the same number of bare Effect.gen steps ----
    const baselineOf = (timing: Timing, steps: number) =>
      Effect.gen(function* () {
        const yieldsPerLifecycle = Math.max(1, Math.round(steps / stepsPerYield))
        // The baseline is several times faster: a fifth of the lifecycles gives a stable figure.
        const count = Math.max(BATCH, Math.round(timing.lifecycles / 5))
        const t0 = instant()
        for (let i = 0; i < count; i++) yield* emptyLoop(yieldsPerLifecycle)
        const t1 = instant()
        return {
          perSecond: (count * 1000) / (t1.wall - t0.wall),
          perCpuSecond: (count * 1000) / (t1.cpu - t0.cpu),
          yieldsPerSecond: (count * yieldsPerLifecycle * 1000) / (t1.wall - t0.wall)
        }
      })
    const sameBase = yield* baselineOf(same, sameSteps)
    const crossBase = yield* baselineOf(cross, crossSteps)

    const invariants = yield* checkInvariants(env.sourceId, { lifecycles })

    const variant = (
      timing: Timing,
      steps: number,
      base: { readonly perSecond: number; readonly perCpuSecond: number }
    ): VariantResult => {
      const n = timing.lifecycles
      const wall = timing.quote.wall + timing.execute.wall + timing.settle.wall
      const cpu = timing.quote.cpu + timing.execute.cpu + timing.settle.cpu
      const perCpuSecond = (n * 1000) / cpu
      return {
        lifecycles: n,
        seconds: wall / 1000,
        lifecyclesPerSecond: (n * 1000) / wall,
        quotesPerSecond: (n * 1000) / timing.quote.wall,
        executesPerSecond: (n * 1000) / timing.execute.wall,
        settlesPerSecond: (n * 1000) / timing.settle.wall,
        lifecyclesPerCpuSecond: perCpuSecond,
        cpuUtilisation: cpu / wall,
        stepsPerLifecycle: steps,
        baselineLifecyclesPerSecond: base.perSecond,
        overhead: base.perCpuSecond / perCpuSecond
      }
    }
    const sameCurrency = variant(same, sameSteps, sameBase)
    const crossCurrency = variant(cross, crossSteps, crossBase)
    return {
      settlement: `worker: sandbox rail (speedUp ${SPEED_UP}: RTP/SPEI 5 s -> ${SETTLE_MS} ms) on a TestClock; per batch of ${BATCH}, TestClock.adjust(${SETTLE_MS} ms) + one Transactions.processDue()`,
      batchSize: BATCH,
      warmupSeconds: WARMUP_SECONDS,
      measuredSeconds,
      sameCurrency,
      crossCurrency,
      baseline: { stepsPerYield, yieldsPerSecond: (sameBase.yieldsPerSecond + crossBase.yieldsPerSecond) / 2 },
      invariants,
      target: TARGET,
      meetsTarget: sameCurrency.lifecyclesPerSecond >= TARGET && crossCurrency.lifecyclesPerSecond >= TARGET
    } satisfies CoreBenchResult
  })
  return Effect.runPromise(program.pipe(Effect.provide(services)))
}

// -----------------------------------------------------------------------------
// CLI
// -----------------------------------------------------------------------------

export const formatCoreBench = (r: CoreBenchResult): string => {
  const row = (name: string, v: VariantResult) =>
    [
      `${name}: ${fmt(v.lifecyclesPerSecond)} lifecycles/s (${fmt(v.lifecycles)} in ${v.seconds.toFixed(2)} s)`,
      `    quotes/s ${fmt(v.quotesPerSecond)}   executes/s ${fmt(v.executesPerSecond)}   settles/s ${fmt(v.settlesPerSecond)}`,
      `    per CPU-second ${fmt(v.lifecyclesPerCpuSecond)} lifecycles (CPU/wall ${v.cpuUtilisation.toFixed(2)}${v.cpuUtilisation < 0.9 ? ": other load on the machine, the CPU figure is the steadier one" : ""})`,
      `    ${fmt(v.stepsPerLifecycle)} run-loop steps/lifecycle; the same number of bare Effect.gen steps: ${fmt(v.baselineLifecyclesPerSecond)} lifecycles/s -> engine/baseline x${v.overhead.toFixed(1)} (CPU time)`
    ].join("\n")
  return [
    `core bench (in-memory store; ${r.measuredSeconds.toFixed(1)} s measured after ${r.warmupSeconds} s warm-up, variants interleaved)`,
    `settlement: ${r.settlement}`,
    row("same-currency  USD -> USD (US_ACCOUNT, RTP)", r.sameCurrency),
    row("cross-currency USD -> MXN (CLABE, SPEI)    ", r.crossCurrency),
    `baseline: ${fmt(r.baseline.yieldsPerSecond)} bare Effect.gen yields/s (${r.baseline.stepsPerYield.toFixed(2)} run-loop steps per yield)`,
    `invariants OK: ${fmt(r.invariants.transactions)} transactions all COMPLETED, ${fmt(r.invariants.quotes)} quotes COMPLETED, ledger sums to 0 in ${r.invariants.currencies.join(", ")}`,
    `target ${fmt(r.target)} lifecycles/s: ${r.meetsTarget ? "met" : "NOT MET"}`
  ].join("\n")
}

if (import.meta.main) {
  const seconds = numberFlag("seconds")
  const result = await benchCore(seconds === undefined ? {} : { seconds })
  console.log(formatCoreBench(result))
}
