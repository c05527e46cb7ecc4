/**
 * How a failure reaches the user (issue 32 item 4): one line on stderr saying what went wrong and what to do, exit
 * code 1, never a stack trace; `--verbose` adds the cause and its stack below the line. Parse errors (an unknown
 * event, a missing flag) are one line too, pointing at the command's `--help`.
 */
import { Cause, Effect } from "effect"
import { CliError, CliOutput } from "effect/cli"
import { HttpClientError } from "effect/http"
import { red } from "./output.ts"
import { DEFAULT_API } from "./root.ts"

/**
 * Why a connection failed: the error code (`ECONNREFUSED`, `ENOTFOUND`…) wherever it sits in the cause chain, else
 * the innermost message ("fetch failed" wraps "bad port").
 */
const connectionFailure = (error: unknown): string | undefined => {
  let innermost: string | undefined
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown }
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code
    if (typeof message === "string") innermost = message
    current = cause
  }
  return innermost
}

/** The server a request went to: its origin, or the URL as given when it is not one. */
const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/** What a request that got no usable answer means for the user. */
const explainHttp = (error: HttpClientError.HttpClientError): string => {
  const server = originOf(error.request.url)
  if (error.reason._tag === "TransportError") {
    const code = connectionFailure(error.reason.cause)
    if (code === "ECONNREFUSED") {
      return (
        `no server answers at ${server} (connection refused): start one with \`npm start\` or \`paycore serve\`, ` +
        `or point --api (PAYCORE_API) at yours`
      )
    }
    return `cannot reach ${server} (${code ?? error.reason.description ?? "transport error"}): check --api (PAYCORE_API, default ${DEFAULT_API})`
  }
  return `the server at ${server} did not answer as the paycore API does (${error.reason._tag}): check --api (PAYCORE_API)`
}

/** The one line a failure is told in. */
const explain = (error: unknown): string => {
  if (HttpClientError.isHttpClientError(error)) return explainHttp(error)
  // A decoded answer that fits no schema of the API: another server, or another version of it.
  if (error instanceof Error && error.name === "SchemaError") {
    return "the server's answer does not fit the paycore API: check --api (PAYCORE_API) and that server's version"
  }
  if (error instanceof Error) return error.message.replace(/\s*\n\s*/g, " ")
  return String(error)
}

/** `--verbose` is read from the arguments: the failure may come before they are parsed. */
const isVerbose = (args: ReadonlyArray<string>) => args.includes("--verbose")

/** Tells the failure in one line (with its cause under `--verbose`) and sets exit code 1; interruptions pass. */
export const reportFailure =
  (args: ReadonlyArray<string>) =>
  <E>(cause: Cause.Cause<E>): Effect.Effect<void> => {
    // Ctrl-C on serve or listen: an interruption, which carries no failure of E.
    if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
    return Effect.sync(() => {
      process.exitCode = 1
      const error = Cause.squash(cause)
      // Parse errors were told by `presenter`; help asked for without a command was printed.
      if (CliError.isCliError(error) && error._tag === "ShowHelp") return
      const verbose = isVerbose(args)
      const hint = verbose || !Cause.hasDies(cause) ? "" : " (--verbose shows the details)"
      process.stderr.write(`${red("error")} ${explain(error)}${hint}\n`)
      if (verbose) process.stderr.write(`${Cause.pretty(cause)}\n`)
    })
  }

/** Help as effect's CLI prints it, but an invalid invocation in one line pointing at the command's `--help`. */
export const presenter: CliOutput.Presenter = {
  present: (event) =>
    event._tag !== "InvalidInvocation"
      ? CliOutput.defaultPresenter.present(event)
      : Effect.sync(() => {
          const said = event.errors.map((error) => error.message.replace(/\s*\n\s*/g, " ").trim()).join("; ")
          process.stderr.write(`${red("error")} ${said} (see \`${event.commandPath.join(" ")} --help\`)\n`)
        })
}
