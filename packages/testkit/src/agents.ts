import {
  ACCESS_TOKEN_RANDOM_BYTES,
  type AgentPolicy,
  type AgentRecord,
  type CustomerId,
  Ids,
  isoOf,
  newAccessToken,
  Store
} from "@paycore/core"
import { Clock, Effect } from "effect"

/** A policy that lets an agent do everything within generous limits, in `AUTO` (tests narrow it). */
export const openAgentPolicy = (currency = "USD"): AgentPolicy => ({
  permissions: ["VIEW_TRANSACTIONS", "CREATE_TRANSFERS", "CREATE_QUOTES", "EXECUTE_QUOTES", "MANAGE_EXTERNAL_ACCOUNTS"],
  defaultExecutionMode: "AUTO",
  spendingLimits: {
    currency: currency as AgentPolicy["spendingLimits"]["currency"],
    perTransactionLimit: 1_000_000_000
  }
})

export interface SeededAgent {
  readonly agentId: AgentRecord["id"]
  /** The agent's Bearer token (`Authorization: Bearer <accessToken>`), as a redemption would have answered it. */
  readonly accessToken: string
  readonly record: AgentRecord
}

/**
 * A connected agent written straight to the store, with a token the test knows (no device code, no redemption), so
 * tests of what an agent does need not go through the credential flow. `customerId` must be a customer of the store;
 * only `Store` and `Ids` are needed.
 */
export const seedAgent = Effect.fnUntraced(function* (options: {
  readonly customerId: string
  readonly policy?: AgentPolicy | undefined
  readonly isPaused?: boolean | undefined
  readonly name?: string | undefined
}) {
  const store = yield* Store
  const ids = yield* Ids
  // Read from the store, so a test needs only the Store and Ids it runs on (an HTTP test's `server.store`).
  const customer = yield* store.customers.get(options.customerId)
  if (customer === undefined)
    return yield* Effect.die(new Error(`no customer ${options.customerId} to seed an agent for`))
  const id = yield* ids.make("Agent")
  const now = isoOf(yield* Clock.currentTimeMillis)
  const { token, selector, verifierSha256 } = newAccessToken(yield* ids.randomHex(ACCESS_TOKEN_RANDOM_BYTES))
  const record: AgentRecord = {
    id,
    name: options.name ?? `agent-${id.slice(-6)}`,
    customerId: customer.id as CustomerId,
    platformCustomerId: customer.platformCustomerId,
    policy: options.policy ?? openAgentPolicy(),
    isPaused: options.isPaused ?? false,
    tokenSelector: selector,
    tokenVerifierSha256: verifierSha256,
    connectedAt: now,
    createdAt: now,
    updatedAt: now
  }
  yield* store.agents.insert(record)
  return { agentId: id, accessToken: token, record } satisfies SeededAgent
})
