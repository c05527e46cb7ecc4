/** `npm run migrate`: migrations.ts, said on the console. */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { migrate, migrationSummary } from "./migrations.ts"

NodeRuntime.runMain(
  Effect.scoped(
    migrate().pipe(Effect.tap((result) => Effect.sync(() => process.stdout.write(`${migrationSummary(result)}\n`))))
  )
)
