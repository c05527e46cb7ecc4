/** `npm run migrate`: @paycore/server's `migrate`, said on the console. */
import { NodeRuntime } from "@effect/platform-node"
import { migrate, migrationSummary } from "@paycore/server"
import { Effect } from "effect"

NodeRuntime.runMain(
  Effect.scoped(
    migrate().pipe(Effect.tap((result) => Effect.sync(() => process.stdout.write(`${migrationSummary(result)}\n`))))
  )
)
