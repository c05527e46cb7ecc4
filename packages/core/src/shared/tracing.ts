import { Clock, Effect, Tracer } from "effect"
import { type CommandEnv, EngineConfig } from "./engine-config.ts"

/** Spans of service calls carry no captured stack trace (capturing one costs more than the rest of the span). */
const SERVICE_SPAN = { captureStackTrace: false } as const

/**
 * A span named `name` (e.g. `"Quotes.create"`) around a public service call, when a tracing backend is
 * installed. With the default in-memory `Tracer.nativeTracer` nobody can observe the span, so the call runs
 * without one: a span costs more run-loop steps and time than some whole commands.
 */
export const traced = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) =>
    fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
      ? effect
      : (Effect.withSpan(effect, name, SERVICE_SPAN) as Effect.Effect<A, E, R>)
  )

/**
 * `traced`, for a command that starts from its fiber's clock and settings: `body` gets them read in
 * the same run-loop step (see `CommandEnv`).
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

/**
 * A step of a command, as a plain generator: `yield*` it inside an `Effect.gen` and it costs no
 * run-loop step of its own, only the port calls it makes (the engine's hot paths are built from these).
 */
export type Steps<A, E = never> = Generator<Effect.Effect<unknown, E>, A, any>
