/** `npm start`: the sandbox service until it is stopped (the environment it reads: serve.ts). */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { banner, serve } from "./serve.ts"

NodeRuntime.runMain(
  Effect.scoped(
    serve().pipe(
      Effect.tap((sandbox) => Effect.sync(() => process.stdout.write(banner(sandbox)))),
      Effect.andThen(Effect.never)
    )
  )
)
