/**
 * What the agents' property test and the PostgreSQL races run on (docs/design/agents.md, "Property test", "Races"):
 * the engine with the agents' services over a test env, a seeded agent's principal, and the model — the policy's
 * rules written again here in plain arithmetic, apart from `policy.ts`, so the test checks one against the other.
 */
import { seedAgent } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { Accounts } from "../src/accounts/service.ts"
import type { AgentPolicy, AgentPrincipal, AgentRecord } from "../src/agents/model.ts"
import { AgentActions } from "../src/agents/service.ts"
import { Store } from "../src/ports/store.ts"
import { Quotes } from "../src/quotes/service.ts"
import type { AgentId } from "../src/shared/ids.ts"
import { makeEnv, payeeQuote, type TestEnv } from "./fixtures.ts"

// ---- the engine ----

/** `makeEnv`'s engine with `AgentActions` (and `Accounts`, which the agents' layer reads) over the same ports. */
export const agentEnvLayer = (env: TestEnv) =>
  AgentActions.layer.pipe(Layer.provide(Accounts.layer), Layer.provideMerge(env.layer))

/** `makeEnv` with the agents' services. */
export const makeAgentEnv = (seed: number, options: Parameters<typeof makeEnv>[1] = {}) => {
  const env = makeEnv(seed, options)
  return { ...env, layer: agentEnvLayer(env) }
}

/** The principal a Bearer token of this agent establishes (as `Agents.authenticate` reads it). */
export const principalOf = (agent: AgentRecord): AgentPrincipal => ({
  kind: "AGENT",
  agentId: agent.id,
  customerId: agent.customerId,
  platformCustomerId: agent.platformCustomerId,
  permissions: agent.policy.permissions,
  isPaused: agent.isPaused
})

/** A connected agent of `customerId` with `policy`. */
export const agentOf = (customerId: string, policy: AgentPolicy) =>
  Effect.map(seedAgent({ customerId, policy }), (seeded) => seeded.record)

/** A quote of `amount` from `account` to `payee` made for `agentId` (what `POST /agents/me/quotes` stores). */
export const agentQuoteOf = (agentId: AgentId, account: string, payee: string, amount: number) =>
  Effect.gen(function* () {
    return yield* (yield* Quotes).create(payeeQuote(account, payee, amount), { agentId })
  })

/** The agent's row as stored now, with `change` written under its lock (a PATCH's pause, a narrowed policy). */
export const changeAgent = (agentId: string, change: Partial<AgentRecord>) =>
  Effect.gen(function* () {
    const store = yield* Store
    return yield* store.transaction(
      Effect.gen(function* () {
        const agent = yield* store.agents.getForUpdate(agentId)
        if (agent === undefined) return yield* Effect.die(new Error(`no agent ${agentId}`))
        const next = { ...agent, ...change }
        yield* store.agents.update(next)
        return next
      })
    )
  })
