// The `Authorization` header's two schemes (Basic for the platform's tokens, Bearer for agents) and the 401 that
// names its challenge: what `authenticate` in app.ts reads and returns, apart from the listener itself.
import type { ErrorResponse } from "./listener-types.ts"

/** Decodes a `Basic` authorization header; `undefined` when it is absent or malformed. */
export const parseBasicAuth = (
  authorization: string | undefined
): { readonly username: string; readonly password: string } | undefined => {
  if (authorization === undefined || !/^basic /i.test(authorization)) return undefined
  const decoded = Buffer.from(authorization.slice(6).trim(), "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** The token of a `Bearer` authorization header (RFC 6750 §2.1); `undefined` when it is absent or another scheme. */
export const parseBearerAuth = (authorization: string | undefined): string | undefined => {
  if (authorization === undefined || !/^bearer /i.test(authorization)) return undefined
  const token = authorization.slice(7).trim()
  return token === "" ? undefined : token
}

/**
 * A 401 that names its own `WWW-Authenticate` challenge (RFC 9110 §11.6.1), e.g. `Bearer realm="paycore"` on routes
 * that take a Bearer token; any other `Error` from `authenticate` challenges for Basic.
 */
export class AuthenticationRefused extends Error {
  readonly challenge: string
  constructor(message: string, challenge: string) {
    super(message)
    this.challenge = challenge
  }
}

/**
 * A request refused before its credential is checked, answered with `response` as it is: 429 `RATE_LIMITED` with
 * `Retry-After` from the rate limits (C-43). Returned by `authenticate`, on public endpoints too.
 */
export class RequestRefused extends Error {
  /** The answer sent: its status, the error body and its headers (`retry-after`). */
  readonly response: ErrorResponse
  constructor(response: ErrorResponse) {
    super(response.message)
    this.response = response
  }
}
