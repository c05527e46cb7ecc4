/**
 * The simulation loop: sequences drawn from `(seed, index)`, each in a world of its own, invariants after every step,
 * a drain at the end; a failure names its seed, its sequence and its steps, and replays from them.
 */
import { CardNetwork, Store } from "@paycore/core"
import { Effect, type Layer } from "effect"
import { mixSeed, type SimRandom, simRandom } from "../faults/random.ts"
import { drainedViolations, stepViolations } from "./checks.ts"
import { drawCommand, runDispatcher, runWorkers } from "./commands.ts"
import { initialState } from "./model.ts"
import { makeWorld, type SimulatedDatabase, type WorldPorts } from "./process.ts"
import { drawProfile, type FaultProfile } from "./profile.ts"
import { emptyStats, makeSim, type Sim, type SimStats } from "./sim.ts"

export interface SimulationOptions {
  /** Every port but the Store, Ids and the webhook transport (the sandbox's, or yours), built anew per sequence. */
  readonly ports: Layer.Layer<WorldPorts, unknown>
  /** An empty database for sequence `index` (every `connect` a new connection to it). */
  readonly database: (index: number) => Promise<SimulatedDatabase>
  readonly seed: number
  /** How many sequences, from index `first` (default 0). */
  readonly sequences: number
  readonly first?: number | undefined
  /** Starts no sequence after this many seconds of wall time. */
  readonly seconds?: number | undefined
  /** Commands per sequence (default 4 to 24). */
  readonly steps?: { readonly min: number; readonly max: number } | undefined
  /** A sabotage between the store and the fault adapter (a test that the simulator catches a broken store). */
  readonly wrapStore?: ((store: Store["Service"]) => Store["Service"]) | undefined
  /** The faults of a sequence, from its random source (default `drawProfile`: swarm testing). */
  readonly profile?: ((random: SimRandom) => FaultProfile) | undefined
  /** How a failure says to replay it (`{seed}` and `{sequence}` are filled in). */
  readonly replay?: string | undefined
}

export interface SimulationReport extends SimStats {
  readonly seed: number
  readonly first: number
  /** Injections per fault kind. */
  readonly faults: Readonly<Record<string, number>>
  readonly wallSeconds: number
}

/** A sequence that broke an invariant (or met a defect): everything needed to replay it. */
export class SimulationFailure extends Error {
  readonly seed: number
  readonly sequence: number
  readonly steps: ReadonlyArray<string>
  constructor(seed: number, sequence: number, steps: ReadonlyArray<string>, message: string) {
    super(message)
    this.seed = seed
    this.sequence = sequence
    this.steps = steps
  }
}

/**
 * What an operator does with a payment the worker stopped retrying (`stalledAt`): due again, attempts from 0
 * (docs/state-machines.md). Once the rail answers again, it goes on.
 */
const resumeStalled = (sim: Sim) =>
  sim.read(
    Effect.gen(function* () {
      const store = yield* Store
      let resumed = 0
      for (const p of sim.state.payments) {
        const record = p.transactionId === undefined ? undefined : yield* store.transactions.get(p.transactionId)
        if (record?.stalledAt === undefined) continue
        yield* store.transactions.update({ ...record, stalledAt: undefined, attempts: 0, dueAt: record.stalledAt })
        resumed++
      }
      return resumed
    })
  )

/** Delivers what the network held back, runs the workers and the dispatcher, with time moving to what is due. */
const drain = async (sim: Sim) => {
  sim.stats.stalledResumed += await resumeStalled(sim)
  for (let round = 0; round < 80; round++) {
    const held = sim.world.heldNetworkEvents.splice(0)
    for (const event of held) await sim.exec(Effect.flatMap(CardNetwork, (n) => n.reconcile(event)))
    await runWorkers(sim)
    await runDispatcher(sim)
    const pending = await sim.read(
      Effect.flatMap(Store, (store) =>
        Effect.map(store.outbox.list({ status: "PENDING" }, { limit: 1_000, sortOrder: "asc" }), (page) => page.data)
      )
    )
    const payments = await openPayments(sim)
    if (pending.length === 0 && payments.length === 0 && sim.world.heldNetworkEvents.length === 0) return
    let due = sim.world.nowMs + 3_600_000
    for (const dueAt of payments) due = Math.min(due, Date.parse(dueAt))
    // A row leased by a process that crashed is claimable again when its lease ends, and the later rows of its
    // subject wait behind it: time moves to the first lease that ends, else to the first retry due.
    const now = sim.world.nowMs
    const leases = pending
      .map((r) => (r.leaseUntil === undefined ? 0 : Date.parse(r.leaseUntil)))
      .filter((t) => t > now)
    if (leases.length > 0) due = Math.min(due, ...leases)
    else for (const row of pending) due = Math.min(due, Date.parse(row.nextAttemptAt))
    await sim.proc.advance(Math.max(1, Math.ceil((due - sim.world.nowMs) / 1000)))
  }
}

/** When each acknowledged payment still in flight is due (its worker's next look). */
const openPayments = (sim: Sim) =>
  sim.read(
    Effect.gen(function* () {
      const store = yield* Store
      const due: Array<string> = []
      for (const p of sim.state.payments) {
        if (p.transactionId === undefined) continue
        const record = yield* store.transactions.get(p.transactionId)
        if (record?.dueAt !== undefined) due.push(record.dueAt)
      }
      return due
    })
  )

const runSequence = async (
  options: SimulationOptions,
  index: number,
  stats: SimStats,
  faults: Record<string, number>
) => {
  const seed = mixSeed(options.seed, index)
  const random = simRandom(seed)
  const profile = (options.profile ?? drawProfile)(random)
  const world = await makeWorld(options.ports, await options.database(index), random.fork(), profile, seed)
  const steps: Array<string> = []
  let sim: Sim | undefined
  const fail = (message: string): never => {
    const replay = (options.replay ?? "seed {seed}, sequence {sequence}")
      .replace("{seed}", String(options.seed))
      .replace("{sequence}", String(index))
    throw new SimulationFailure(
      options.seed,
      index,
      steps,
      [
        `simulation failed: seed ${options.seed}, sequence ${index} (faults ${profile.name}), step ${steps.length - 1}:`,
        `  ${message.split("\n").join("\n  ")}`,
        "steps:",
        ...steps.map((s, i) => `  ${i}. ${s}`),
        "last faults injected:",
        ...world.log
          .recent()
          .slice(-30)
          .map((f) => `  ${f}`),
        `replay: ${replay}`
      ].join("\n")
    )
  }
  try {
    sim = await makeSim(world, random, initialState(), stats, options.wrapStore)
    const n = random.between(options.steps?.min ?? 4, options.steps?.max ?? 24)
    for (let i = 0; i < n; i++) {
      const command = drawCommand(sim)
      steps.push(command.name)
      await command.run(sim)
      stats.steps++
      const broken = await stepViolations(sim)
      if (broken.length > 0) fail(broken.join("\n"))
    }
    steps.push("heal and drain()")
    world.faults.healed = true
    await drain(sim)
    const broken = [...(await stepViolations(sim)), ...(await drainedViolations(sim))]
    if (broken.length > 0) fail(broken.join("\n"))
    stats.acknowledged += sim.state.acks.length
    const acked = sim.state.payments.filter((p) => p.transactionId !== undefined)
    stats.payments += acked.length
    stats.paymentsEnded += (await openPayments(sim)).length === 0 ? acked.length : 0
    stats.authorizations += sim.state.authorizations.filter((a) => a.cardTransactionId !== undefined).length
    const events = await sim.read(
      Effect.flatMap(Store, (store) =>
        Effect.map(store.outbox.list({}, { limit: 1_000_000, sortOrder: "asc" }), (page) => page.data.length)
      )
    )
    stats.eventsCommitted += events
    stats.eventsTaken += world.receiver.taken.size
    stats.eventsRolledBack += world.rolledBackEvents.size
    stats.sequences++
  } catch (error) {
    if (error instanceof SimulationFailure) throw error
    fail(error instanceof Error ? (error.stack ?? error.message) : String(error))
  } finally {
    for (const [kind, count] of Object.entries(world.log.counts)) faults[kind] = (faults[kind] ?? 0) + count
    await sim?.proc.stop()
    await world.close()
  }
}

/** Runs `options.sequences` sequences (or as many as `seconds` allows); throws a `SimulationFailure` on the first broken one. */
export const runSimulation = async (options: SimulationOptions): Promise<SimulationReport> => {
  const started = performance.now()
  const stats = emptyStats()
  const faults: Record<string, number> = {}
  const first = options.first ?? 0
  for (let index = first; index < first + options.sequences; index++) {
    if (options.seconds !== undefined && (performance.now() - started) / 1000 > options.seconds) break
    await runSequence(options, index, stats, faults)
  }
  return { ...stats, seed: options.seed, first, faults, wallSeconds: (performance.now() - started) / 1000 }
}
