/** The `paycore` command with its subcommands; `main.ts` runs it on the process's arguments. */
import { Effect } from "effect"
import { CliOutput, Command } from "effect/cli"
import { listen } from "./commands/listen.ts"
import { migrate } from "./commands/migrate.ts"
import { serve } from "./commands/serve.ts"
import { tokens } from "./commands/tokens.ts"
import { trigger } from "./commands/trigger.ts"
import { presenter, reportFailure } from "./failure.ts"
import { paycore } from "./root.ts"

export type { ApiError, CliFailure } from "./client.ts"

export const cli = paycore.pipe(Command.withSubcommands([serve, migrate, tokens, trigger, listen]))

/**
 * Runs the CLI on `args` (without node and the script): every failure is one line on stderr and exit code 1
 * (failure.ts); `--verbose` adds its cause.
 */
export const run = (args: ReadonlyArray<string>) =>
  Command.runWith(cli, { version: "0.1.0" })(args).pipe(
    Effect.provideService(CliOutput.Presenter, presenter),
    Effect.catchCause(reportFailure(args))
  )
