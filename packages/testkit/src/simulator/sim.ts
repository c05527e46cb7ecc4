import type { Store } from "@paycore/core"
import { Cause, type Effect, Exit } from "effect"
import type { SimRandom } from "../faults/random.ts"
import type { SimState } from "./model.ts"
import { type SimContext, type SimProcess, startProcess, type World } from "./process.ts"

/** Counts of one simulation run (over all its sequences). */
export interface SimStats {
  sequences: number
  steps: number
  /** Commands per outcome: `ok` (acknowledged), `refused` (a domain refusal), `faulted` (an injected fault reached the client). */
  outcomes: Record<"ok" | "refused" | "faulted", number>
  crashes: number
  restarts: number
  acknowledged: number
  /** Payments executed (acknowledged) and how many of them completed or failed with their refund done. */
  payments: number
  paymentsEnded: number
  /** Card authorizations approved, network events applied. */
  authorizations: number
  /** Payments the worker stopped retrying (`stalledAt`), resumed by the drain as an operator does. */
  stalledResumed: number
  eventsCommitted: number
  eventsTaken: number
  eventsRolledBack: number
}

export const emptyStats = (): SimStats => ({
  sequences: 0,
  steps: 0,
  outcomes: { ok: 0, refused: 0, faulted: 0 },
  crashes: 0,
  restarts: 0,
  acknowledged: 0,
  payments: 0,
  paymentsEnded: 0,
  authorizations: 0,
  stalledResumed: 0,
  eventsCommitted: 0,
  eventsTaken: 0,
  eventsRolledBack: 0
})

/** What a client got back from one command. */
export type Outcome<A> =
  | { readonly _tag: "ok"; readonly value: A }
  | { readonly _tag: "refused"; readonly code: string }
  | { readonly _tag: "faulted"; readonly message: string }

/** An engine defect that no injected fault explains: the simulation found a bug. */
export class EngineDefect extends Error {}

/** The running simulation of one sequence: the world, the current process, what the clients know. */
export interface Sim {
  readonly world: World
  readonly state: SimState
  readonly random: SimRandom
  readonly stats: SimStats
  proc: SimProcess
  /** Runs `effect` as a client's command; a crash restarts the process (the command's outcome is then unknown). */
  readonly exec: <A, E>(effect: Effect.Effect<A, E, SimContext>) => Promise<Outcome<A>>
  readonly restart: () => Promise<void>
  readonly read: <A, E>(effect: Effect.Effect<A, E, Store>) => Promise<A>
}

const INJECTED = /injected|SimulatedCrash|simulated crash/

/** PostgreSQL errors of the server, not of a statement: too many clients, shutdown, connection failures. */
const ENVIRONMENT = /\[(53300|57P0\d|08\d\d\d)\]/

/** The domain code of a failure (`Refused/INSUFFICIENT_FUNDS`), or undefined when it is a defect. */
const failureCode = (cause: Cause.Cause<unknown>): string | undefined => {
  const error = Cause.findErrorOption(cause)
  if (error._tag === "None") return undefined
  const e = error.value as { _tag?: string; code?: string; message?: string }
  return `${e._tag ?? "?"}/${e.code ?? e.message ?? ""}`
}

export const makeSim = async (
  world: World,
  random: SimRandom,
  state: SimState,
  stats: SimStats,
  wrapStore: ((store: Store["Service"]) => Store["Service"]) | undefined
): Promise<Sim> => {
  const sim: Sim = {
    world,
    state,
    random,
    stats,
    proc: await startProcess(world, wrapStore, true),
    restart: async () => {
      await sim.proc.stop()
      sim.proc = await startProcess(world, wrapStore)
      stats.restarts++
    },
    read: (effect) => sim.proc.read(effect),
    exec: async (effect) => {
      const exit = await sim.proc.exit(effect)
      const crashed = sim.proc.faulty.crashed()
      if (crashed) {
        stats.crashes++
        await sim.restart()
      }
      if (Exit.isSuccess(exit)) {
        stats.outcomes.ok++
        return { _tag: "ok", value: exit.value }
      }
      const pretty = Cause.pretty(exit.cause)
      if (crashed || INJECTED.test(pretty)) {
        stats.outcomes.faulted++
        return { _tag: "faulted", message: pretty.split("\n")[0] ?? "" }
      }
      const code = failureCode(exit.cause)
      if (code === undefined) throw new EngineDefect(`a defect no fault explains:\n${pretty}`)
      if (code.startsWith("StoreError/") && ENVIRONMENT.test(code)) {
        // The database server itself (a shared test server out of connections): not the engine's doing.
        world.log.record("environment.database", code)
        stats.outcomes.faulted++
        return { _tag: "faulted", message: code }
      }
      if (code.startsWith("StoreError/")) throw new EngineDefect(`a store error no fault explains: ${code}`)
      stats.outcomes.refused++
      return { _tag: "refused", code }
    }
  }
  return sim
}
