/**
 * What the port kits (rail, KYC provider, card issuer) are made of: a list of named checks, each an effect that fails
 * with a `ConformanceFailure` saying which promise of the port the adapter broke. A kit registers them as vitest tests
 * (`registerChecks`), and `failingChecks` runs them as plain effects, so a test can plant a fault in an adapter and
 * expect exactly the checks that must catch it.
 */
import { describe, layer } from "@effect/vitest"
import { Cause, type Duration, Effect, Exit, Fiber, type Layer, Schema } from "effect"
import { TestClock } from "effect/testing"

/** A promise of the port the adapter did not keep. */
export class ConformanceFailure extends Schema.TaggedError<ConformanceFailure>()("ConformanceFailure", {
  message: Schema.String
}) {}

/** One check of a kit: its title (the FEATURES rows and the behaviour) and the effect that proves it. */
export interface ConformanceCheck<R> {
  readonly name: string
  readonly run: Effect.Effect<void, unknown, R>
}

/** A check that failed, with why. */
export interface FailedCheck {
  readonly name: string
  readonly message: string
}

/** Fails the check with `message` unless `condition` holds. */
export const expectThat = (condition: boolean, message: string): Effect.Effect<void, ConformanceFailure> =>
  condition ? Effect.void : Effect.fail(new ConformanceFailure({ message }))

/**
 * Runs `call` on the `TestClock` and answers how it ended; fails the check when it is still waiting `seconds` after
 * it started. The clock is moved by `seconds` meanwhile, so an adapter's own timeout (on effect's Clock) has fired.
 */
export const endsWithin = Effect.fnUntraced(function* <A, E, R>(
  what: string,
  call: Effect.Effect<A, E, R>,
  seconds: number
) {
  const fiber = yield* Effect.forkChild(Effect.exit(call))
  for (let i = 0; i < 10; i++) yield* Effect.yieldNow // the call reaches its timer before the clock moves
  yield* TestClock.adjust(`${seconds} seconds`)
  for (let i = 0; i < 10 && fiber.pollUnsafe() === undefined; i++) yield* Effect.yieldNow
  if (fiber.pollUnsafe() === undefined) {
    yield* Fiber.interrupt(fiber)
    return yield* new ConformanceFailure({
      message: `${what} still waiting ${seconds} s after it started: it must give up with a retryable error`
    })
  }
  return yield* Fiber.join(fiber)
})

/** A value as a test failure shows it. */
export const show = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

const why = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.findErrorOption(cause)
  if (error._tag === "Some") {
    const e = error.value
    return e instanceof ConformanceFailure ? e.message : `failed with ${show(e)}`
  }
  return Cause.pretty(cause)
}

/**
 * Runs every check, one after another, and answers those that failed (an empty array: the adapter passed). Run it
 * where the checks' requirements (the port) and a `TestClock` are provided, e.g. in an `it.effect`.
 */
export const failingChecks = <R>(
  checks: ReadonlyArray<ConformanceCheck<R>>
): Effect.Effect<ReadonlyArray<FailedCheck>, never, R> =>
  Effect.map(
    Effect.forEach(checks, (check) =>
      Effect.map(Effect.exit(check.run), (exit) =>
        Exit.isSuccess(exit) ? undefined : { name: check.name, message: why(exit.cause) }
      )
    ),
    (results) => results.filter((r): r is FailedCheck => r !== undefined)
  )

export interface RegisterOptions {
  /** How long building (and closing) the adapter's layer may take. */
  readonly timeout?: Duration.Input
}

/**
 * Registers `checks` as one vitest test each, under `describe(title)`, with the layer built once for all of them
 * (`Layer.empty` for checks that build their own instances of the adapter, as the rail kit's do). Each test runs
 * with effect's `TestClock` (the checks set and move it).
 */
export const registerChecks = <R, E>(
  title: string,
  subject: Layer.Layer<R, E>,
  checks: ReadonlyArray<ConformanceCheck<R>>,
  options: RegisterOptions = {}
): void => {
  layer(subject, options.timeout === undefined ? {} : { timeout: options.timeout })(title, (it) => {
    describe("checks", () => {
      for (const check of checks) {
        it.effect(check.name, () =>
          Effect.catchCause(check.run, (cause) => Effect.die(new Error(`${check.name}: ${why(cause)}`)))
        )
      }
    })
  })
}
