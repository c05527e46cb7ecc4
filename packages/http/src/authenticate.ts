/**
 * The app's `authenticate` (app.ts): who sent a request, from its `Authorization` header, with the rate limits of
 * rate-limits.ts around it (C-43).
 */
import type { IncomingMessage } from "node:http"
import type { Agents, Principal, Tokens } from "@paycore/core"
import { Effect } from "effect"
import { AuthenticationRefused, parseBasicAuth, parseBearerAuth } from "./credentials.ts"
import type { EndpointInfo } from "./listener-types.ts"
import type { RequestLimits } from "./rate-limits.ts"

const unauthorized = new Error("Missing or invalid credentials: use HTTP Basic with the token's client id and secret")

const bearerRefused = new AuthenticationRefused(
  "Missing or invalid credentials: /agents/me takes the agent's Bearer access token (gat_…)",
  'Bearer realm="paycore"'
)

type Authenticated = Principal | Error | Promise<Principal | Error>

export interface AuthenticationOptions {
  readonly tokens: Tokens["Service"]
  readonly agents: Agents["Service"]
  /** How long a verified credential is trusted before the store is asked again. */
  readonly ttlMillis: number
  readonly limits: RequestLimits
}

/**
 * Auth is a plain function over a cache of verified `Authorization` headers: a hit costs one Map lookup; a miss asks
 * the Tokens service. `evict` forgets a deleted token's headers at once. `/agents/me/*` takes only an agent's Bearer
 * token and every other route only Basic (A-07); an agent's token is read from the store on every request, never
 * cached, so a deleted agent is refused by its very next call in every process (AG-11).
 *
 * C-43: a caller whose credentials failed too often (its address, or the client id it names) is answered 429 before
 * its credential is checked, and an authenticated request spends a token of its credential's bucket.
 */
export const makeAuthentication = ({ tokens, agents, ttlMillis, limits }: AuthenticationOptions) => {
  const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
  const verified = new Map<string, { readonly principal: Principal; readonly until: number }>()

  const checkCredential = (
    authorization: string | undefined,
    endpoint: EndpointInfo,
    request: IncomingMessage
  ): Authenticated => {
    if (endpoint.group === "agentMe") {
      const token = parseBearerAuth(authorization)
      if (token === undefined) return bearerRefused
      return run(agents.authenticate(token)).then((agent) => {
        if (agent === undefined) limits.failed(request, undefined)
        return agent ?? bearerRefused
      })
    }
    if (authorization === undefined) return unauthorized
    const hit = verified.get(authorization)
    if (hit !== undefined && hit.until > Date.now()) return hit.principal
    const basic = parseBasicAuth(authorization)
    if (basic === undefined) return unauthorized
    // A client id others failed for too often is not checked for a while; a credential this instance verified (the
    // cache above) is not held back, so its client keeps working while someone guesses its secret.
    const throttled = limits.throttled(request, basic.username)
    if (throttled !== undefined) return throttled
    return run(tokens.authenticate(basic.username, basic.password)).then((principal) => {
      if (principal === undefined) {
        verified.delete(authorization)
        limits.failed(request, basic.username)
        return unauthorized
      }
      if (verified.size > 10_000) verified.clear()
      verified.set(authorization, { principal, until: Date.now() + ttlMillis })
      return principal
    })
  }

  const admitted = (result: Principal | Error, request: IncomingMessage): Principal | Error =>
    result instanceof Error ? result : (limits.spend(result, request) ?? result)

  const authenticate = (
    authorization: string | undefined,
    endpoint: EndpointInfo,
    request: IncomingMessage
  ): Authenticated => {
    const throttled = limits.throttled(request, undefined)
    if (throttled !== undefined) return throttled
    const result = checkCredential(authorization, endpoint, request)
    return result instanceof Promise ? result.then((r) => admitted(r, request)) : admitted(result, request)
  }

  const evict = (tokenId: string) => {
    for (const [header, entry] of verified)
      if (entry.principal.kind === "PLATFORM" && entry.principal.tokenId === tokenId) verified.delete(header)
  }

  return { authenticate, evict }
}
