/**
 * `npm start` and `paycore serve`: the sandbox service until the process is told to stop. The runtime
 * (`NodeRuntime.runMain`) interrupts the main fiber on SIGTERM or SIGINT; the service's scope then closes gracefully
 * (lifecycle.ts: the requests in flight answered, the worker's pass and the webhook attempts in flight finished, the
 * store closed), within `PAYCORE_SHUTDOWN_SECONDS` of the signal.
 */
import { Effect, type Exit, Fiber, Option, Runtime, Scope } from "effect"
import { shutdownSecondsConfig } from "./lifecycle.ts"
import { type RunningSandbox, type ServeOptions, serve } from "./serve.ts"

/** Closes `scope`, giving up after `seconds`: a stop that overran ends as a defect (exit code 1), saying so. */
const closeWithin = (scope: Scope.Closeable, exit: Exit.Exit<unknown, unknown>, seconds: number) =>
  Effect.gen(function* () {
    const closing = yield* Effect.forkDetach(Scope.close(scope, exit))
    const closed = yield* Fiber.await(closing).pipe(Effect.timeoutOption(seconds * 1000))
    if (Option.isSome(closed)) return
    return yield* Effect.die(
      new Error(`The stop took longer than PAYCORE_SHUTDOWN_SECONDS (${seconds} s): exiting with work unfinished`)
    )
  })

/**
 * Starts the sandbox service (`serve`), tells `onStarted` (the banner), and runs until interrupted; the stop is
 * graceful and bounded by `PAYCORE_SHUTDOWN_SECONDS` (or `options.shutdownSeconds`). Run it with `runMain` and
 * `exitCodeOnStop` as the teardown: a graceful stop exits 0.
 */
export const serveUntilStopped = <E, R>(
  options: ServeOptions,
  onStarted: (sandbox: RunningSandbox) => Effect.Effect<void, E, R>
) =>
  Effect.gen(function* () {
    const shutdownSeconds = options.shutdownSeconds ?? (yield* shutdownSecondsConfig)
    return yield* Effect.acquireUseRelease(
      Scope.make(),
      (scope) =>
        serve({ ...options, shutdownSeconds }).pipe(
          Scope.provide(scope),
          Effect.flatMap(onStarted),
          Effect.andThen(Effect.never)
        ),
      (scope, exit) => closeWithin(scope, exit, shutdownSeconds)
    )
  })

/**
 * `runMain`'s teardown for a server: a stop asked by a signal (the main fiber interrupted, and nothing else failed) is
 * a success, exit code 0; a stop that overran its deadline, or a failure, keeps its code (1).
 */
export const exitCodeOnStop: Runtime.Teardown = (exit, onExit) =>
  Runtime.defaultTeardown(exit, (code) => onExit(code === 130 ? 0 : code))
