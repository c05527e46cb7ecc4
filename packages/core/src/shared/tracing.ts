/**
 * The two ways of writing a step that CONTRIBUTING.md ("One idiom per kind of step") sends here, with why.
 *
 * - `Steps`: a step inside a command (`yield*` in the caller's generator, within its store transaction) is a
 *   plain generator, as the ledger's `recordSteps` and the outbox's `emitSteps`. It costs no run-loop step of its
 *   own; written as `Effect.fnUntraced` instead, the steps of quotes/ and transactions/ took one payment lifecycle
 *   of `node bench/core.ts` from 77 to 134 run-loop steps and about a tenth of its lifecycles per CPU-second.
 * - `command`: the one exception to `Effect.fn("Context.op")` for a public operation, for the hot commands of
 *   the payment path: `Quotes.create`, `Quotes.execute` and the worker's pass `Transactions.processDue`.
 *   `Effect.fn` opens a span (and captures a stack frame) on every call even when no tracing backend is
 *   installed; on create and execute it took 24 more run-loop steps per lifecycle (77 → 101) and a fifth to a
 *   quarter of the lifecycles per CPU-second (runs alternated); around the pass, settlements per second were
 *   lower in most alternated runs. Make another operation a `command` only with a measurement that shows the same.
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
