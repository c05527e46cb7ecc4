/** The `paycore` command with its subcommands; `main.ts` runs it on the process's arguments. */
import { Effect } from "effect"
import { Command } from "effect/cli"
import type { ApiError, CliFailure } from "./client.ts"
import { listen } from "./commands/listen.ts"
import { migrate } from "./commands/migrate.ts"
import { serve } from "./commands/serve.ts"
import { tokens } from "./commands/tokens.ts"
import { trigger } from "./commands/trigger.ts"
import { red } from "./output.ts"
import { paycore } from "./root.ts"

export type { ApiError, CliFailure } from "./client.ts"

export const cli = paycore.pipe(Command.withSubcommands([serve, migrate, tokens, trigger, listen]))

/** A failure the user caused or the server answered: one line on stderr, exit code 1. */
const sayAndExit = (error: ApiError | CliFailure) =>
  Effect.sync(() => {
    process.stderr.write(`${red("error")} ${error.message}\n`)
    process.exitCode = 1
  })

/** Runs the CLI on `args` (without node and the script). */
export const run = (args: ReadonlyArray<string>) =>
  Command.runWith(cli, { version: "0.1.0" })(args).pipe(
    Effect.catchTags({ ApiError: sayAndExit, CliFailure: sayAndExit })
  )
