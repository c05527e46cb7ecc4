/** What several groups' handlers share: the typing of a group's handlers, the HTTP layer's observations, a signed retry. */
import type { Principal, SignedRetryInput } from "@paycore/core"
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
}

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
