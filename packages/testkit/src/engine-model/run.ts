/**
 * The model run: `fc.commands` over the built-in commands and yours, each run against a fresh engine, the
 * invariants checked after every step. A failure prints the shrunk command list and the seed that replays it.
 */
import type { Layer } from "effect"
import * as fc from "fast-check"
import { builtInCommands, type EngineCommand } from "./commands.ts"
import { type ModelEngine, type ModelPorts, startModelEngine } from "./engine.ts"
import { type EngineInvariant, engineInvariants } from "./invariants.ts"
import { type EngineModel, initialModel, type ModelPayees, sandboxPayees } from "./model.ts"

export interface EngineModelOptions<U> {
  /**
   * The engine's ports but the webhook transport (store, document store, ids, rail, FX, directory, notifier, KYC,
   * webhook signer...): built anew for every run, so a memory store starts empty. Yours, or the sandbox's.
   */
  readonly ports: Layer.Layer<ModelPorts, unknown>
  /** The payees of the built-in payments; default the sandbox rail's (`sandboxPayees`). */
  readonly payees?: ModelPayees
  /** Commands of your own, beside the built-in ones (`builtIns: false` leaves only yours). */
  readonly commands?: ReadonlyArray<fc.Arbitrary<EngineCommand<U>>>
  readonly builtIns?: boolean
  /** Your part of the model, fresh for each run (`model.user`). */
  readonly initialUser?: () => U
  /** Invariants of your own, checked after every step beside `engineInvariants`. */
  readonly invariants?: ReadonlyArray<EngineInvariant<U>>
  /** The longest command sequence (default 50). */
  readonly maxCommands?: number
}

/** Runs `command`, then every invariant; a broken one fails the step with what broke. */
const checked = <U>(command: EngineCommand<U>, invariants: ReadonlyArray<EngineInvariant<U>>): EngineCommand<U> => ({
  check: (model) => command.check(model),
  run: async (model: EngineModel<U>, engine: ModelEngine) => {
    await command.run(model, engine)
    const broken: Array<string> = []
    for (const invariant of invariants) {
      for (const v of await invariant.violations(model, engine)) broken.push(`${invariant.name}: ${v}`)
    }
    if (broken.length > 0) throw new Error(`after ${command.toString()}:\n  ${broken.join("\n  ")}`)
  },
  toString: () => command.toString()
})

/** The property: for every command sequence drawn, run against a fresh engine, every step keeps every invariant. */
export const engineModelProperty = <U = undefined>(
  options: EngineModelOptions<U>
): fc.IAsyncPropertyWithHooks<[Iterable<EngineCommand<U>>]> => {
  const invariants = [...engineInvariants, ...(options.invariants ?? [])]
  const commands = [
    ...(options.builtIns === false ? [] : builtInCommands<U>(options.payees ?? sandboxPayees)),
    ...(options.commands ?? [])
  ].map((arbitrary) => arbitrary.map((command) => checked(command, invariants)))
  return fc.asyncProperty(
    fc.commands(commands, { maxCommands: options.maxCommands ?? 50, size: "max" }),
    async (sequence) => {
      const engine = await startModelEngine(options.ports)
      try {
        await fc.asyncModelRun(
          () => ({ model: initialModel((options.initialUser ?? (() => undefined as U))()), real: engine }),
          sequence
        )
      } finally {
        await engine.dispose()
      }
    }
  )
}

/** `fc.assert` of `engineModelProperty` (`parameters`: fast-check's, such as `numRuns`, `seed`, `path`). */
export const checkEngineModel = <U = undefined>(
  options: EngineModelOptions<U>,
  parameters?: fc.Parameters<[Iterable<EngineCommand<U>>]>
): Promise<void> => fc.assert(engineModelProperty(options), { includeErrorInReport: true, ...parameters })
