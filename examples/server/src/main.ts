/** `npm start`: the sandbox service until it is stopped (the environment it reads: @paycore/server's serve.ts). */
import { NodeRuntime } from "@effect/platform-node"
import { banner, serve } from "@paycore/server"
import { Effect } from "effect"

const refuse = (message: string) =>
  Effect.sync(() => {
    process.stderr.write(`${message}\n`)
    process.exitCode = 1
  })

NodeRuntime.runMain(
  Effect.scoped(
    serve().pipe(
      Effect.tap((sandbox) => Effect.sync(() => process.stdout.write(banner(sandbox)))),
      Effect.andThen(Effect.never)
    )
  ).pipe(
    // A second `npm start` on the same data folder (one line naming the first), or an instance on a PostgreSQL
    // server without the keys the others share (one line naming the variables): exit code 1, nothing written.
    Effect.catchTags({
      DataDirInUse: (error) => refuse(error.message),
      SharedKeysRefused: (error) => refuse(error.message)
    })
  )
)
