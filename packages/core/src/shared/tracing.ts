/**
 * How a service step is written: one idiom per kind of step.
 *
 * - A public operation of a service (`Quotes.get`, `Transactions.list`, ...): `Effect.fn("Context.op")`, which
 *   names its span.
 * - An internal helper that is an Effect of its own (a store transaction's body, anything run or combined as an
 *   Effect): `Effect.fnUntraced`.
 * - A step inside a command (`yield*` in the caller's generator, within its store transaction): a plain
 *   generator typed `Steps` (as the ledger's `recordSteps` and the outbox's `emitSteps`). It costs no run-loop
 *   step of its own; written as `Effect.fnUntraced`, the steps of one payment lifecycle in bench/core.ts went
 *   from 77 to 134 run-loop steps and lost about a tenth of the throughput per CPU-second.
 *
 * The one exception: `command` below, for the two hot commands of the payment path, `Quotes.create` and
 * `Quotes.execute`. `Effect.fn` opens a span (and captures a stack frame) on every call even when no tracing
 * backend is installed; on those two it took 24 more run-loop steps per lifecycle (77 → 101) and a fifth to a
 * quarter of the lifecycles per CPU-second (`node bench/core.ts`, runs alternated). Make another operation a
 * `command` only with a measurement that shows the same.
 */
import { Clock, Effect, Tracer } from "effect"
import { type CommandEnv, EngineConfig } from "./engine-config.ts"

/** Spans of service calls carry no captured stack trace (capturing one costs more than the rest of the span). */
const SERVICE_SPAN = { captureStackTrace: false } as const

/**
 * A hot command named `name` (e.g. `"Quotes.create"`): `body` gets its fiber's clock and settings read in one
 * run-loop step (see `CommandEnv`), and it runs in a span of that name only when a tracing backend is installed.
 * With the default in-memory `Tracer.nativeTracer` nobody can observe the span, so the call runs without one.
 */
export const command = <A, E, R>(
  name: string,
  body: (env: CommandEnv) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => {
    const clock = fiber.getRef(Clock.Clock)
    const effect = body({ clock, nowMs: clock.currentTimeMillisUnsafe(), settings: fiber.getRef(EngineConfig) })
    return fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
      ? effect
      : (Effect.withSpan(effect, name, SERVICE_SPAN) as Effect.Effect<A, E, R>)
  })

/** A step of a command, as a plain generator (see above): `yield*` it inside a generator. */
export type Steps<A, E = never> = Generator<Effect.Effect<unknown, E>, A, any>
