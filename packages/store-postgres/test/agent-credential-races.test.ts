/**
 * An agent's credentials raced on PostgreSQL (docs/design/agents.md, "Races"; the real server with DATABASE_URL, else
 * PGlite, where they serialize): a redemption locks the agent, then the code, as a new code and a delete lock the
 * agent first, so a code connects one installation once, and no deadlock or serialization error reaches a caller.
 */
import { Accounts, type AgentCreateResponse, Agents, Store } from "@paycore/core"
import { openAgentPolicy } from "@paycore/testkit"
import { Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { makeEnv, seedCustomer, startClock } from "../../core/test/fixtures.ts"
import { testDatabase } from "./helpers.ts"

const db = testDatabase("agent_credential_races")

/** A refusal's code (`EXPIRED`, `INVALID_INPUT`, `CONFLICT`…); `undefined` for a success. */
const codeOf = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = (exit.cause.reasons[0] as any)?.error
  if (error?._tag === "InvalidInput") return "INVALID_INPUT"
  return error?.code ?? String(exit.cause)
}

const runOnAgents = <A, E>(seed: number, effect: Effect.Effect<A, E, any>): Promise<A> => {
  const env = makeEnv(seed, { storeLayer: db.layer() })
  return Effect.runPromise(
    effect.pipe(
      Effect.provide(Agents.layer.pipe(Layer.provide(Accounts.layer), Layer.provideMerge(env.layer))),
      Effect.provide(TestClock.layer())
    ) as Effect.Effect<A, E>
  )
}

/** A customer and a new agent of it, with its first device code. */
const newAgent = Effect.gen(function* () {
  yield* startClock
  const customer = yield* seedCustomer()
  return yield* (yield* Agents).create({ name: "racer", customerId: customer.id, policy: openAgentPolicy() })
})

/** Runs both at once: their exits. */
const both = <A, B>(a: Effect.Effect<A, unknown>, b: Effect.Effect<B, unknown>) =>
  Effect.all([Effect.exit(a), Effect.exit(b)], { concurrency: "unbounded" })

describe(`agent credential races (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("AG-15: 20 concurrent redemptions of one code: exactly one token, which works; 19 × 400; one selector stored", async () => {
    const outcome = await runOnAgents(
      3001,
      Effect.gen(function* () {
        const agents = yield* Agents
        const { agent, deviceCode } = yield* newAgent
        const exits = yield* Effect.forEach(
          Array.from({ length: 20 }, () => agents.redeem(deviceCode.code)),
          Effect.exit,
          { concurrency: "unbounded" }
        )
        const tokens = exits.filter(Exit.isSuccess).map((e) => e.value.accessToken)
        const stored = yield* (yield* Store).agents.get(agent.id)
        const principal = tokens[0] === undefined ? undefined : yield* agents.authenticate(tokens[0])
        return {
          tokens: tokens.length,
          codes: exits.map(codeOf).filter((c) => c !== undefined),
          selector: stored?.tokenSelector === tokens[0]?.slice(4, 20),
          authenticated: principal?.agentId === agent.id
        }
      })
    )
    expect(outcome).toEqual({
      tokens: 1,
      codes: Array(19).fill("INVALID_INPUT"),
      selector: true,
      authenticated: true
    })
  }, 120_000)

  it("AG-13, AG-15: redeem racing a new code: a token then 409, or the new code then 400 EXPIRED; never both", async () => {
    const rounds = await runOnAgents(
      3002,
      Effect.gen(function* () {
        const agents = yield* Agents
        const seen: Array<string> = []
        for (let round = 0; round < 10; round++) {
          const { agent, deviceCode }: AgentCreateResponse = yield* newAgent
          const [redeemed, issued] = yield* both(agents.redeem(deviceCode.code), agents.createDeviceCode(agent.id))
          const stored = yield* (yield* Store).agents.get(agent.id)
          seen.push(
            `${codeOf(redeemed) ?? "token"}/${codeOf(issued) ?? "code"}/${stored?.tokenSelector === undefined ? "unconnected" : "connected"}`
          )
        }
        return seen
      })
    )
    for (const round of rounds) expect(["token/CONFLICT/connected", "EXPIRED/code/unconnected"]).toContain(round)
  }, 120_000)

  it("AG-11: redeem racing DELETE: whichever commits first, no token of the deleted agent authenticates", async () => {
    const rounds = await runOnAgents(
      3003,
      Effect.gen(function* () {
        const agents = yield* Agents
        const seen: Array<string> = []
        for (let round = 0; round < 10; round++) {
          const { agent, deviceCode } = yield* newAgent
          const [redeemed, deleted] = yield* both(agents.redeem(deviceCode.code), agents.delete(agent.id))
          const principal = Exit.isSuccess(redeemed)
            ? yield* agents.authenticate(redeemed.value.accessToken)
            : undefined
          seen.push(`${codeOf(redeemed) ?? "token"}/${codeOf(deleted) ?? "deleted"}/${principal?.agentId ?? "refused"}`)
        }
        return seen
      })
    )
    for (const round of rounds) expect(["token/deleted/refused", "EXPIRED/deleted/refused"]).toContain(round)
  }, 120_000)
})
