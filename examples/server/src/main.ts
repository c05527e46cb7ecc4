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
  )
)
