/** What several groups' handlers share: the typing of a group's handlers, the HTTP layer's observations, a signed retry. */
import type { IncomingHttpHeaders } from "node:http"
import type { Principal, SignedRetryInput } from "@paycore/core"
import type { Effect } from "effect"
import type { HttpApi } from "effect/http-api"
import type { Api } from "../api.ts"
import type { Handlers } from "../listener-types.ts"
import type { RequestLog } from "../request-log.ts"
import type { WriteSignal } from "../webhook-stream.ts"

type ApiGroups = typeof Api extends HttpApi.HttpApi<infer _Id, infer Groups> ? Groups : never

/** Every endpoint of `Api` bound to the core. */
export type ApiHandlers = Handlers<ApiGroups, Principal, never>

/** The handlers of one group of `Api` (`GroupHandlers<"platform">`). */
export type GroupHandlers<Group extends keyof ApiHandlers> = ApiHandlers[Group]

/** What the HTTP layer itself knows that some handlers answer: its request log, and when it answered a write. */
export interface HttpObservations {
  readonly requestLog: RequestLog
  readonly writes: WriteSignal
  /** Whose miss budget a request of an invitation code or a device code spends (`AppOptions.missBudgetKey`). */
  readonly missBudgetKey: MissBudgetKey
  /** Completes when the app stops (its `drain`, or its scope closing): the event streams end then. */
  readonly closing: Effect.Effect<void>
}

/** What a miss budget's key function is given of a request. */
export interface MissBudgetRequest {
  /** The authenticated caller; `undefined` on the public redeem when no credential was sent. */
  readonly principal: Principal | undefined
  /** The peer's address: behind a proxy, the proxy's (then key on a header the proxy sets). */
  readonly remoteAddress: string | undefined
  /** The request's headers as received (e.g. the client address a proxy forwards). */
  readonly headers: IncomingHttpHeaders
}

/**
 * The caller a request's code misses are counted for (IN-11, A-08; issue 31 item 7): one caller that spends its
 * budget guessing codes is refused, other callers are not.
 */
export type MissBudgetKey = (request: MissBudgetRequest) => string

/**
 * The default: the API token (or the agent) that sent the request, else the peer's address. A host behind a proxy
 * passes its own `missBudgetKey` (the client address its proxy forwards), or every anonymous redeem shares one budget.
 */
export const defaultMissBudgetKey: MissBudgetKey = ({ principal, remoteAddress }) =>
  principal?.kind === "PLATFORM"
    ? `token:${principal.tokenId}`
    : principal?.kind === "AGENT"
      ? `agent:${principal.agentId}`
      : `address:${remoteAddress ?? "unknown"}`

/** The miss-budget caller of a handler's request. */
export const missBudgetCaller = (
  key: MissBudgetKey,
  request: {
    readonly principal: Principal | undefined
    readonly remoteAddress: string | undefined
    readonly headers: unknown
  }
): string =>
  key({
    principal: request.principal,
    remoteAddress: request.remoteAddress,
    headers: request.headers as IncomingHttpHeaders
  })

/**
 * The environment of the caller: its token's (Q9: a stablecoin link's; outside the sandbox the wallet's bundles are
 * signed). An agent acts in the sandbox.
 */
export const environmentOf = (principal: Principal) =>
  principal.kind === "PLATFORM" ? principal.environment : "SANDBOX"

/** A signed retry's exact body and its two headers (W-37), for the core's one mechanism. */
export const signedRetryInput = (
  headers: { readonly "service-wallet-signature"?: string; readonly "request-id"?: string },
  rawBody: string
): SignedRetryInput => ({
  rawBody,
  signature: headers["service-wallet-signature"],
  requestId: headers["request-id"]
})
