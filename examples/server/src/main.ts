/**
 * `npm start`: the sandbox service until it is stopped (the environment it reads: @paycore/server's serve.ts). SIGTERM
 * or SIGINT stops it gracefully within PAYCORE_SHUTDOWN_SECONDS, exit code 0 (docs/operations.md, "Stopping").
 */
import { NodeRuntime } from "@effect/platform-node"
import { banner, exitCodeOnStop, serveUntilStopped } from "@paycore/server"
import { Effect } from "effect"

const refuse = (message: string) =>
  Effect.sync(() => {
    process.stderr.write(`${message}\n`)
    process.exitCode = 1
  })

NodeRuntime.runMain(
  serveUntilStopped({}, (sandbox) => Effect.sync(() => process.stdout.write(banner(sandbox)))).pipe(
    // A second `npm start` on the same data folder (one line naming the first), or an instance on a PostgreSQL
    // server without the keys the others share (one line naming the variables): exit code 1, nothing written.
    Effect.catchTags({
      DataDirInUse: (error) => refuse(error.message),
      SharedKeysRefused: (error) => refuse(error.message)
    })
  ),
  { teardown: exitCodeOnStop }
)
