/** `npm start`: the sandbox service until it is stopped (the environment it reads: @paycore/server's serve.ts). */
import { NodeRuntime } from "@effect/platform-node"
import { banner, serve } from "@paycore/server"
import { Effect } from "effect"

NodeRuntime.runMain(
  Effect.scoped(
    serve().pipe(
      Effect.tap((sandbox) => Effect.sync(() => process.stdout.write(banner(sandbox)))),
      Effect.andThen(Effect.never)
    )
  ).pipe(
    // A second `npm start` on the same data folder: one line naming the first, exit code 1, nothing written.
    Effect.catchTag("DataDirInUse", (error) =>
      Effect.sync(() => {
        process.stderr.write(`${error.message}\n`)
        process.exitCode = 1
      })
    )
  )
)
