/**
 * The CLI's HTTP client: effect's `HttpApiClient` over `@paycore/http`'s `Api` (the definition that types the server
 * and its OpenAPI document), so requests are encoded and answers decoded by the server's own schemas.
 */
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { API_VERSION, Api } from "@paycore/http"
import { Data, Effect, Option, Redacted } from "effect"
import type { Command } from "effect/cli"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { paycore } from "./root.ts"

/** What the CLI tells the user went wrong: one message, exit code 1. */
export class CliFailure extends Data.TaggedError("CliFailure")<{ readonly message: string }> {}

/** The server answered 4xx or 5xx: its status, the spec's error body, and what the user can do about it. */
export class ApiError extends Data.TaggedError("ApiError")<{
  readonly status: number
  readonly body: unknown
  readonly hint?: string | undefined
}> {
  override get message() {
    const body = this.body as { readonly code?: unknown; readonly message?: unknown } | undefined
    const said =
      typeof body?.code === "string"
        ? `${this.status} ${body.code}: ${String(body.message ?? "")}`
        : `${this.status} ${JSON.stringify(this.body)}`
    return this.hint === undefined ? said : `${said} (${this.hint})`
  }
}

export interface Credentials {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** Where they came from, for the user told they were refused. */
  readonly from: string
}

/** `http://host:port` or `http://host:port/2025-10-13`: the versioned base URL either way. */
export const versionedBase = (api: string): string => {
  const trimmed = api.replace(/\/+$/, "")
  return trimmed.endsWith(`/${API_VERSION}`) ? trimmed : `${trimmed}/${API_VERSION}`
}

/**
 * The flags, else the environment, else the credentials `npm start` keeps in its data folder
 * (`$PAYCORE_DATA_DIR/sandbox-credentials`, default `./.paycore-data`): a local sandbox needs no setup.
 */
export const credentials = Effect.gen(function* () {
  const root = yield* paycore
  const file = join(resolve(process.env.PAYCORE_DATA_DIR ?? ".paycore-data"), "sandbox-credentials")
  if (Option.isSome(root.clientId) && Option.isSome(root.clientSecret)) {
    return {
      clientId: root.clientId.value,
      clientSecret: root.clientSecret.value,
      from: "--client-id and --client-secret, or PAYCORE_CLIENT_ID and PAYCORE_CLIENT_SECRET"
    } satisfies Credentials
  }
  // Half a pair is a mistake, not a wish for the kept credentials: say so rather than use others.
  if (Option.isSome(root.clientId) || Option.isSome(root.clientSecret)) {
    const [given, missing] = Option.isSome(root.clientId) ? ["id", "secret"] : ["secret", "id"]
    return yield* new CliFailure({
      message:
        `--client-${given} (or PAYCORE_CLIENT_${given.toUpperCase()}) was given without --client-${missing} ` +
        `(or PAYCORE_CLIENT_${missing.toUpperCase()}): give both, or neither to use the sandbox's (${file})`
    })
  }
  const kept = Option.liftThrowable(() => readFileSync(file, "utf8").trim())()
  const colon = Option.isSome(kept) ? kept.value.indexOf(":") : -1
  if (Option.isNone(kept) || colon <= 0) {
    return yield* new CliFailure({
      message:
        "No credentials: pass --client-id and --client-secret, set PAYCORE_CLIENT_ID and PAYCORE_CLIENT_SECRET, " +
        `or run from the folder whose sandbox keeps them (${file})`
    })
  }
  return {
    clientId: kept.value.slice(0, colon),
    clientSecret: Redacted.make(kept.value.slice(colon + 1)),
    from: file
  } satisfies Credentials
})

/**
 * Answers of 400 and above fail with the server's error body (the typed client would only say "undeclared status");
 * a 401 says which credentials were refused.
 */
const failOnErrorStatus = (from: string) =>
  HttpClient.transformResponse(
    Effect.flatMap((response) =>
      response.status < 400
        ? Effect.succeed(response)
        : response.text.pipe(
            Effect.map((text) => Option.getOrElse(Option.liftThrowable(JSON.parse)(text), () => text)),
            Effect.flatMap((body) =>
              Effect.fail(
                new ApiError({
                  status: response.status,
                  body,
                  hint:
                    response.status === 401
                      ? `this server does not know the credentials of ${from}: give a token of its own`
                      : undefined
                })
              )
            )
          )
    )
  )

/** An `HttpClient` that sends the token as HTTP Basic and fails with `ApiError` on an error status. */
export const authenticatedHttpClient = Effect.gen(function* () {
  const { clientId, clientSecret, from } = yield* credentials
  const http = yield* HttpClient.HttpClient
  return http.pipe(
    HttpClient.mapRequest(HttpClientRequest.basicAuth(clientId, Redacted.value(clientSecret))),
    failOnErrorStatus(from)
  )
})

/** The typed client of the whole API: an operation per endpoint, failing with `ApiError` on an error status. */
export type ApiClient = HttpApiClient.ForApi<typeof Api, ApiError>

/**
 * The typed client of the whole API, at `--api`. Its type is written out: the one tsc infers (every endpoint's
 * method) is longer than a declaration file may hold.
 */
export const apiClient: Effect.Effect<
  ApiClient,
  CliFailure,
  Command.CommandContext<"paycore"> | HttpClient.HttpClient
> = Effect.gen(function* () {
  const root = yield* paycore
  const httpClient = yield* authenticatedHttpClient
  return yield* HttpApiClient.makeWith(Api, { httpClient, baseUrl: versionedBase(root.api) })
})
