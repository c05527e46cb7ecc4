/**
 * The miss budgets' counters as the HTTP binding keys them (IN-11, A-08; issue 31 item 7): per caller, the caller
 * named by the app's `missBudgetKey` (default: the token, else the peer's address) and stored as `callerKey`.
 */
import { agentCounters, invitationCounters, utcMinute } from "@paycore/core"
import { Effect } from "effect"
import { callerKey } from "../../core/src/shared/miss-budget.ts"
import { defaultMissBudgetKey } from "../src/index.ts"
import type { Credentials, TestServer } from "./harness.ts"

/** The minute (`YYYY-MM-DDTHH:MM`, UTC) a budget counts in now, or `offsetMinutes` from now. */
export const minuteOf = (offsetMinutes = 0): string =>
  utcMinute(new Date(Date.now() + offsetMinutes * 60_000).toISOString())

/** The invitation-miss counter of the token `credentials` in `minute`. */
export const invitationMissKey = async (server: TestServer, credentials: Credentials, minute: string) => {
  const token = await Effect.runPromise(server.store.tokens.findUnique("clientId", credentials.clientId))
  if (token === undefined) throw new Error("no such token")
  const caller = defaultMissBudgetKey({
    principal: { kind: "PLATFORM", tokenId: token.id, permissions: token.permissions, environment: token.environment },
    remoteAddress: undefined,
    headers: {}
  })
  return invitationCounters.misses(callerKey(caller), minute)
}

/** The redeem-miss counter of a caller the app's key function named `caller`, in `minute`. */
export const redeemMissKey = (caller: string, minute: string) => agentCounters.redeemMisses(callerKey(caller), minute)

/** An anonymous redeem's caller under the default key: this test's peer address. */
export const LOOPBACK_CALLER = defaultMissBudgetKey({ principal: undefined, remoteAddress: "127.0.0.1", headers: {} })

export const counterOf = (server: TestServer, key: string) => Effect.runPromise(server.store.counters.get(key))
export const addTo = (server: TestServer, key: string, amount: number) =>
  Effect.runPromise(server.store.counters.add(key, amount))

/**
 * Runs `attempt` for the minute it starts in, again (up to 3 times) when the minute ended before it was done: the
 * server runs on the real clock, and a budget is per UTC minute.
 */
export const inOneMinute = async (attempt: (minute: string) => Promise<void>) => {
  for (let tries = 0; tries < 3; tries++) {
    const minute = minuteOf()
    let failure: unknown
    try {
      await attempt(minute)
    } catch (error) {
      failure = error
    }
    if (minuteOf() !== minute) continue
    if (failure !== undefined) throw failure
    return
  }
  throw new Error("three minutes ended during the test")
}
