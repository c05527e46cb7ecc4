import { type NewOutboxRecord, Store, StoreError } from "@paycore/core"
import { Context, Effect, Exit } from "effect"
import type { FaultLog, FaultSwitch } from "./log.ts"
import type { SimRandom } from "./random.ts"

/**
 * The faults a `faultyStore` injects, each a probability per call:
 * - `fail`: the statement fails before it runs (`StoreError`, not retryable);
 * - `timeout`: the statement runs, then the caller gets a retryable `StoreError` (its outcome unknown to it);
 * - `crash`: the process dies before the statement (`SimulatedCrash` defect): the transaction in flight is lost
 *   and every later call of this connection dies too, until the simulator reopens the store;
 * - `commitTimeout`: a transaction commits, and its caller gets a retryable `StoreError`;
 * - `crashAfterCommit`: a transaction commits, and the process dies before its caller hears of it.
 */
export interface StoreFaultRates {
  readonly fail?: number | undefined
  readonly timeout?: number | undefined
  readonly crash?: number | undefined
  readonly commitTimeout?: number | undefined
  readonly crashAfterCommit?: number | undefined
}

/** The defect a simulated crash dies with: the process is gone, nothing after it runs. */
export class SimulatedCrash extends Error {
  readonly _tag = "SimulatedCrash"
  readonly where: string
  constructor(where: string) {
    super(`simulated crash at ${where}`)
    this.where = where
  }
}

export interface FaultyStoreOptions {
  readonly random: SimRandom
  readonly rates: StoreFaultRates
  readonly log: FaultLog
  /** Shared with the other adapters of a run: while `healed`, nothing is injected. */
  readonly faults?: FaultSwitch | undefined
  /**
   * Receives the ids of events appended in a transaction that rolled back (or never committed): nothing may ever
   * deliver them.
   */
  readonly rolledBackEvents?: Set<string> | undefined
}

export interface FaultyStore {
  readonly store: Store["Service"]
  /** True once a simulated crash killed this connection: the simulator then reopens the store. */
  readonly crashed: () => boolean
}

/** What the store wrapper knows of the transaction a fiber runs in. */
interface FaultTx {
  /** The statement fault that aborted it: every later statement fails the same way and it cannot commit. */
  aborted: StoreError | undefined
  readonly events: Array<string>
}

const CurrentTx = Context.Reference<FaultTx | undefined>("paycore/testkit/faults/CurrentTx", {
  defaultValue: () => undefined
})

/** Names of the repositories whose methods a wrapper covers (every one of the port, whatever the adapter adds). */
const isRepository = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * `inner` with faults injected at random, by `rates`, into every statement (every method of every repository) and
 * every transaction. Inside a transaction a failed statement aborts it as PostgreSQL does (later statements fail, the
 * commit fails), whatever the caller does with the error, so no store can commit half a command. Works over any
 * Store (memory, PGlite, PostgreSQL, yours): an adapter writer runs the simulator over it.
 */
export const faultyStore = (inner: Store["Service"], options: FaultyStoreOptions): FaultyStore => {
  const { random, rates, log } = options
  let crashed = false
  const active = () => !crashed && options.faults?.healed !== true
  const die = (where: string) => {
    crashed = true
    return Effect.die(new SimulatedCrash(where))
  }
  const dead = (where: string) => Effect.die(new SimulatedCrash(`${where} (after the crash)`))

  const statement = (name: string, run: () => unknown): Effect.Effect<unknown, unknown> =>
    Effect.withFiber((fiber) => {
      if (crashed) return dead(name)
      const tx = fiber.getRef(CurrentTx)
      if (tx?.aborted !== undefined) return Effect.fail(tx.aborted)
      if (active()) {
        if (random.chance(rates.crash ?? 0)) {
          log.record("store.crash", name)
          return die(name)
        }
        if (random.chance(rates.fail ?? 0)) {
          log.record("store.fail", name)
          const error = new StoreError({ message: `injected: ${name} failed`, retryable: false })
          if (tx !== undefined) tx.aborted = error
          return Effect.fail(error)
        }
        if (random.chance(rates.timeout ?? 0)) {
          log.record("store.timeout", name)
          const error = new StoreError({ message: `injected: ${name} timed out`, retryable: true })
          if (tx !== undefined) tx.aborted = error
          // The statement ran: its effect stays when it was autocommitted, and rolls back with its transaction.
          return Effect.flatMap(run() as Effect.Effect<unknown, unknown>, () => Effect.fail(error))
        }
      }
      return run() as Effect.Effect<unknown, unknown>
    })

  const wrapMethod =
    (name: string, method: (...args: Array<unknown>) => unknown) =>
    (...args: Array<unknown>) => {
      if (name === "outbox.appendEvents") {
        const events = args[0] as ReadonlyArray<NewOutboxRecord>
        return Effect.withFiber((fiber) => {
          const tx = fiber.getRef(CurrentTx)
          return Effect.tap(
            statement(name, () => method(...args)),
            () =>
              Effect.sync(() => {
                if (tx !== undefined) for (const e of events) tx.events.push(e.id)
              })
          )
        })
      }
      return statement(name, () => method(...args))
    }

  const wrapped: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(inner)) {
    if (key === "transaction" || key === "pipelines") continue
    if (typeof value === "function") wrapped[key] = wrapMethod(key, value as (...args: Array<unknown>) => unknown)
    else if (isRepository(value)) {
      const repository: Record<string, unknown> = {}
      for (const [method, fn] of Object.entries(value)) {
        repository[method] =
          typeof fn === "function"
            ? wrapMethod(`${key}.${method}`, fn.bind(value) as (...a: Array<unknown>) => unknown)
            : fn
      }
      wrapped[key] = repository
    } else wrapped[key] = value
  }

  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R> =>
    Effect.withFiber((fiber) => {
      // Nested: it joins the outer transaction, as the stores do.
      if (fiber.getRef(CurrentTx) !== undefined) return inner.transaction(effect)
      if (crashed) return dead("transaction")
      const tx: FaultTx = { aborted: undefined, events: [] }
      const body = Effect.flatMap(effect, (a) => {
        if (crashed) return dead("commit")
        if (tx.aborted !== undefined) return Effect.fail(tx.aborted)
        if (active() && random.chance(rates.crash ?? 0)) {
          log.record("store.crashBeforeCommit", "commit")
          return die("commit")
        }
        return Effect.succeed(a)
      }).pipe(Effect.provideService(CurrentTx, tx))
      return inner.transaction(body).pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (Exit.isFailure(exit)) for (const id of tx.events) options.rolledBackEvents?.add(id)
          })
        ),
        Effect.flatMap((a) => {
          if (!active()) return Effect.succeed(a)
          if (random.chance(rates.crashAfterCommit ?? 0)) {
            log.record("store.crashAfterCommit", "commit")
            return die("after commit")
          }
          if (random.chance(rates.commitTimeout ?? 0)) {
            log.record("store.commitTimeout", "commit")
            return Effect.fail(new StoreError({ message: "injected: commit timed out", retryable: true }))
          }
          return Effect.succeed(a)
        })
      )
    })

  return {
    store: Store.of({ ...(wrapped as unknown as Store["Service"]), transaction, pipelines: inner.pipelines }),
    crashed: () => crashed
  }
}
