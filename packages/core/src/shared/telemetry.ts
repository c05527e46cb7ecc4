/**
 * The engine's telemetry as effect values, no I/O (docs/operations.md, "Telemetry"): the span of a store transaction,
 * metric updates that count only what committed, and the worker pass timer. A host installs a tracer and a metrics
 * reader (`@paycore/server`'s `telemetryLayer`); without one, spans are skipped and metrics stay in effect's registry.
 */
import { Context, Effect, Exit, type Fiber, Metric, Tracer } from "effect"
import type { StoreError } from "./errors.ts"

/** A metric update waiting for its transaction's commit. */
export interface PendingUpdate {
  readonly metric: Metric.Metric<any, unknown>
  readonly input: unknown
}

/**
 * The metric updates of the store transaction a fiber runs in, applied once it commits (`undefined`: outside one).
 * A transaction that rolls back, or runs again after a conflict, counts only its committed run.
 */
export const CommittedUpdates = Context.Reference<Array<PendingUpdate> | undefined>("@paycore/core/CommittedUpdates", {
  defaultValue: () => undefined
})

/**
 * Updates `metric` with `input` once the caller's store transaction commits; at once outside a transaction. One
 * run-loop step: the update itself is a plain call (`Metric.updateUnsafe`).
 */
export const updateOnCommit = <In>(metric: Metric.Metric<In, unknown>, input: In): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const pending = fiber.getRef(CommittedUpdates)
    if (pending === undefined) metric.updateUnsafe(input, fiber.context)
    else pending.push({ metric, input })
    return Effect.void
  })

/** The store's `transaction`, as a port has it. */
export type TransactionRunner = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>

/** What a store says of a transaction it ran, read once it ended (`Store.transaction`'s span attributes). */
export interface TransactionObserver {
  /** `paycore.store` on every span: `memory`, `postgres`. */
  readonly store: string
  /** The store may run a transaction's effect more than once (after a conflict): each run counts only itself. */
  readonly reruns: boolean
  /**
   * Called at the start of each attempt, in the attempt's context (a store reads its transaction there); returns
   * the attributes the span gets when the transaction has ended (e.g. the size of the group it committed in).
   */
  readonly attempt?: ((context: Context.Context<never>) => () => Record<string, unknown>) | undefined
}

/**
 * Wraps a store's transaction runner (both stores use it, at one point): an outermost transaction gets a span
 * `Store.transaction` (only when a tracer is installed: the hot path stays without one) with `paycore.store`,
 * `paycore.store.attempts` (runs of the effect: 1, or more after conflicts), `paycore.store.committed` and what the
 * store adds, and the updates of `updateOnCommit` inside it are applied once it committed. A nested call joins the
 * outer transaction. Untraced it costs two run-loop steps per transaction, three where the store reruns effects.
 */
export const observeTransactions =
  (run: TransactionRunner, observer: TransactionObserver): TransactionRunner =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R> =>
    Effect.withFiber((fiber) => {
      if (fiber.getRef(CommittedUpdates) !== undefined) return run(effect)
      const pending: Array<PendingUpdate> = []
      const traced = fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer
      let attempts = 0
      let described: (() => Record<string, unknown>) | undefined
      // Each run of the effect (again after a conflict, or alone after its group rolled back) counts only itself.
      const attempt = traced
        ? Effect.withFiber((inner) => {
            attempts++
            pending.length = 0
            if (observer.attempt !== undefined) described = observer.attempt(inner.context)
            return effect
          })
        : observer.reruns
          ? Effect.suspend(() => {
              pending.length = 0
              return effect
            })
          : effect
      // The fiber is marked (and the fibers it forks) as the memory store marks it, without `provideService`'s steps.
      const marked = (target: Fiber.Fiber<unknown, unknown>) => {
        const before = target.context
        target.setContext(Context.add(before, CommittedUpdates, pending))
        return Effect.onExitPrimitive(run(attempt), (exit) => {
          target.setContext(before)
          if (Exit.isSuccess(exit)) for (const { metric, input } of pending) metric.updateUnsafe(input, before)
          return undefined
        })
      }
      if (!traced) return marked(fiber)
      return Effect.withSpan(
        Effect.onExit(Effect.withFiber(marked), (exit) =>
          Effect.annotateCurrentSpan({
            "paycore.store.attempts": attempts,
            "paycore.store.committed": Exit.isSuccess(exit),
            ...described?.()
          })
        ),
        "Store.transaction",
        { attributes: { "paycore.store": observer.store }, captureStackTrace: false }
      )
    })

const SECONDS_BOUNDARIES = Metric.exponentialBoundaries({ start: 0.001, factor: 2, count: 16 })

/** Seconds of one pass of a background worker, by `worker` (`payments`, `cards`, `invitations`, …, `webhooks`). */
export const workerPassSeconds = Metric.histogram("paycore_worker_pass_seconds", {
  description: "Duration of one pass of a background worker, in seconds, by worker",
  boundaries: SECONDS_BOUNDARIES
})

/** Bucket boundaries (seconds) of the engine's duration histograms: 1 ms doubling to about 33 s. */
export const secondsBoundaries: ReadonlyArray<number> = SECONDS_BOUNDARIES

/** Runs `effect` as one pass of the background worker `worker`, its duration (effect's `Clock`) in `workerPassSeconds`. */
export const timedPass = <A, E, R>(worker: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const metric = Metric.withAttributes(workerPassSeconds, { worker })
  return Effect.flatMap(
    Effect.clockWith((clock) => Effect.succeed(clock.currentTimeMillisUnsafe())),
    (startedMs) =>
      Effect.onExit(effect, () =>
        Effect.clockWith((clock) => Metric.update(metric, (clock.currentTimeMillisUnsafe() - startedMs) / 1000))
      )
  )
}
