/**
 * The `paycore` command and the flags every subcommand shares (accepted before or after the subcommand's name).
 */
import { Config } from "effect"
import { Command, Flag } from "effect/cli"

/** `npm start`'s address: the sandbox listens on 127.0.0.1:8080 unless told otherwise. */
export const DEFAULT_API = "http://localhost:8080"

export const paycore = Command.make("paycore").pipe(
  Command.withSharedFlags({
    api: Flag.String("api").pipe(
      Flag.withDescription(`The server's address, with or without the /2025-10-13 prefix (default ${DEFAULT_API})`),
      Flag.withFallbackConfig(Config.String("PAYCORE_API")),
      Flag.withDefault(DEFAULT_API)
    ),
    clientId: Flag.String("client-id").pipe(
      Flag.withDescription("A platform token's client id (else PAYCORE_CLIENT_ID, else the sandbox's data folder)"),
      Flag.withFallbackConfig(Config.String("PAYCORE_CLIENT_ID")),
      Flag.optional
    ),
    clientSecret: Flag.Redacted("client-secret").pipe(
      Flag.withDescription("The token's client secret (else PAYCORE_CLIENT_SECRET, else the sandbox's data folder)"),
      Flag.withFallbackConfig(Config.Redacted("PAYCORE_CLIENT_SECRET")),
      Flag.optional
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("One JSON document per result, no colour"),
      Flag.withDefault(false)
    ),
    verbose: Flag.Boolean("verbose").pipe(
      Flag.withDescription("On a failure, print its cause and stack below the one-line error"),
      Flag.withDefault(false)
    )
  }),
  Command.withDescription("The paycore developer CLI: run the sandbox, make tokens, trigger and forward webhooks")
)
