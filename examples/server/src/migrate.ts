/** `npm run migrate`: @paycore/server's `migrate`, said on the console. */
import { NodeRuntime } from "@effect/platform-node"
import { migrate, migrationSummary } from "@paycore/server"
import { Effect } from "effect"

NodeRuntime.runMain(
  Effect.scoped(
    migrate().pipe(Effect.tap((result) => Effect.sync(() => process.stdout.write(`${migrationSummary(result)}\n`))))
  ).pipe(
    // The folder is a running server's: one line naming it, exit code 1.
    Effect.catchTag("DataDirInUse", (error) =>
      Effect.sync(() => {
        process.stderr.write(`${error.message}\n`)
        process.exitCode = 1
      })
    )
  )
)
