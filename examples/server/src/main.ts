/**
 * `npm start`: the sandbox service until it is stopped (the environment it reads: @paycore/server's serve.ts). SIGTERM
 * or SIGINT stops it gracefully within PAYCORE_SHUTDOWN_SECONDS, exit code 0 (docs/operations.md, "Stopping").
 */
import { NodeRuntime } from "@effect/platform-node"
import { banner, exitCodeOnStop, serveUntilStopped } from "@paycore/server"
import { Effect } from "effect"

NodeRuntime.runMain(
  serveUntilStopped({}, (sandbox) => Effect.sync(() => process.stdout.write(banner(sandbox)))).pipe(
    // A second `npm start` on the same data folder: one line naming the first, exit code 1, nothing written.
    Effect.catchTag("DataDirInUse", (error) =>
      Effect.sync(() => {
        process.stderr.write(`${error.message}\n`)
        process.exitCode = 1
      })
    )
  ),
  { teardown: exitCodeOnStop }
)
