/**
 * The ways of writing a step that CONTRIBUTING.md ("One idiom per kind of step") sends here, with why.
 *
 * - `Steps`: a step inside a command (`yield*` in the caller's generator, within its store transaction) is a
 *   plain generator, as the ledger's `recordSteps` and the outbox's `emitSteps`. It costs no run-loop step of its
 *   own; written as `Effect.fnUntraced` instead, the steps of quotes/ and transactions/ took one payment lifecycle
 *   of `node bench/core.ts` from 77 to 134 run-loop steps and about a tenth of its lifecycles per CPU-second.
 * - `operation`: a public operation of a context's service (`service.ts`). `Effect.fn("Context.op")` would capture
 *   the caller's stack frame and open a span on every call even when no tracing backend is installed (nobody can
 *   observe the span then): on `GET /customers/{id}` that was a fifth of the request's CPU (37,974 → 49,130 and
 *   37,641 → 48,097 requests per CPU-second in alternated runs of `npm run bench -- --only http`, 2026-11-29).
 * - `command`: an `operation` whose body also gets the fiber's clock and settings in one run-loop step, for the hot
 *   commands of the payment path: `Quotes.create`, `Quotes.execute` and the worker's pass
 *   `Transactions.processDue` (their own steps, measured: 77 → 101 run-loop steps per lifecycle with `Effect.fn`).
 */
import { Clock, Effect, type Fiber, Tracer } from "effect"
import { type CommandEnv, EngineConfig } from "./engine-config.ts"

/** Spans of service calls carry no captured stack trace (capturing one costs more than the rest of the span). */
const SERVICE_SPAN = { captureStackTrace: false } as const

/** `effect` in a span named `name` when the fiber has a tracing backend; with `Tracer.nativeTracer`, as it is. */
const inSpan = <A, E, R>(fiber: Fiber.Fiber<unknown, unknown>, name: string, effect: Effect.Effect<A, E, R>) =>
  fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
    ? effect
    : (Effect.withSpan(effect, name, SERVICE_SPAN) as Effect.Effect<A, E, R>)

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
    return inSpan(
      fiber,
      name,
      body({ clock, nowMs: clock.currentTimeMillisUnsafe(), settings: fiber.getRef(EngineConfig) })
    )
  })

/** A step of a command, as a plain generator (see above): `yield*` it inside a generator. */
export type Steps<A, E = never> = Generator<Effect.Effect<unknown, E>, A, any>

/**
 * `Effect.fnUntraced`, run in a span named `name` when a tracing backend is installed: a public operation of a
 * context's service (`service.ts`). `Effect.fn(name)` captures the caller's stack frame and opens a span on every
 * call even when nobody can observe it (the default `Tracer.nativeTracer`).
 */
export const operation = (name: string): typeof Effect.fnUntraced =>
  ((body: unknown, ...pipeables: Array<unknown>) => {
    const run = (Effect.fnUntraced as (...a: Array<unknown>) => (...args: Array<unknown>) => Effect.Effect<unknown>)(
      body,
      ...pipeables
    )
    return function (this: unknown, ...args: Array<unknown>) {
      const effect = run.apply(this, args)
      return Effect.withFiber((fiber) => inSpan(fiber, name, effect))
    }
  }) as typeof Effect.fnUntraced
