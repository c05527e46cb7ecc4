/**
 * The dashboard's one way to the API: effect's typed client over @paycore/http's API definition (the same schemas
 * that type the server decode its answers), with the signed-in token's Basic credentials. The credentials live in
 * sessionStorage only: gone with the tab, never in a cookie.
 */
import { API_VERSION, Api, SIGNED_IN_CREDENTIALS_KEY } from "@paycore/http/api"
import { Cause, Effect, Exit, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"

export interface Credentials {
  readonly clientId: string
  readonly clientSecret: string
}

const STORAGE_KEY = SIGNED_IN_CREDENTIALS_KEY

export const savedCredentials = (): Credentials | undefined => {
  const saved = sessionStorage.getItem(STORAGE_KEY)
  return saved === null ? undefined : (JSON.parse(saved) as Credentials)
}

export const saveCredentials = (credentials: Credentials): void =>
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credentials))

export const clearCredentials = (): void => sessionStorage.removeItem(STORAGE_KEY)

/**
 * Requests carry the Authorization header themselves and no ambient credentials: a browser that sees a 401 with
 * `WWW-Authenticate: Basic` on a request that includes credentials opens its own sign-in dialog (and the call hangs).
 */
const requestInit: globalThis.RequestInit = { credentials: "omit" }

export const makeClient = (credentials: Credentials) =>
  Effect.runSync(
    HttpApiClient.make(Api, {
      baseUrl: new URL(`/${API_VERSION}`, location.origin).href,
      transformClient: (client) =>
        client.pipe(
          HttpClient.mapRequest(HttpClientRequest.basicAuth(credentials.clientId, credentials.clientSecret)),
          HttpClient.filterStatusOk
        )
    }).pipe(
      Effect.provide(FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, requestInit))))
    )
  )

export type Client = ReturnType<typeof makeClient>

/** An answer other than a success: the status and the spec's error body (`code`, `message`). */
export class ApiFailure extends Error {
  readonly status: number
  readonly code: string
  constructor(status: number, code: string, message: string) {
    super(message)
    this.status = status
    this.code = code
  }
}

const failure = (error: unknown): Effect.Effect<ApiFailure> => {
  if (HttpClientError.isHttpClientError(error) && error.response !== undefined) {
    const status = error.response.status
    return error.response.json.pipe(
      Effect.map((body: any) => new ApiFailure(status, String(body?.code ?? status), String(body?.message ?? ""))),
      Effect.orElseSucceed(() => new ApiFailure(status, String(status), "The answer had no error body"))
    )
  }
  return Effect.succeed(new ApiFailure(0, "CLIENT_ERROR", error instanceof Error ? error.message : String(error)))
}

/** Runs one call: its value, or a rejection with an `ApiFailure`. */
export const run = async <A, E>(call: Effect.Effect<A, E>): Promise<A> => {
  const exit = await Effect.runPromiseExit(call.pipe(Effect.catch((error) => Effect.flip(failure(error)))))
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}
