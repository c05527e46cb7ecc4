/**
 * The miss budgets per caller on a TestClock (IN-11, A-08, AG-15; issue 31 item 7), for any store: caller A spends its
 * minute's budget guessing codes and is 429 until the minute ends, a good code included, while caller B reads, claims
 * and redeems; the next minute A's budget is whole again. `packages/core/test/miss-budgets.test.ts` runs them on the
 * memory store, `packages/store-postgres/test/miss-budgets.test.ts` on PGlite and PostgreSQL.
 */
import { openAgentPolicy } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { expect } from "vitest"
import { Accounts } from "../src/accounts/service.ts"
import { Agents } from "../src/agents/service.ts"
import { Invitations } from "../src/invitations/service.ts"
import { PlatformConfigService } from "../src/platform/service.ts"
import type { Ids } from "../src/ports/ids.ts"
import type { Store } from "../src/ports/store.ts"
import { makeEnv, seedCustomer, startClock } from "./fixtures.ts"

const BUDGET = 60
const UNKNOWN_INVITATION = "ffffffff"
const UNKNOWN_DEVICE_CODE = "PAYCORE-AGENT-2222-2222"

/**
 * Runs `program` with invitations and agents on `storeLayer` (the memory store when undefined), on a TestClock; ids
 * seeded by `seed`, so programs sharing one database take different seeds.
 */
export const runWithBudgets = <A, E>(
  seed: number,
  program: Effect.Effect<A, E, Invitations | Agents | Store | Ids>,
  storeLayer?: Layer.Layer<Store, unknown>
): Promise<A> => {
  const env = makeEnv(seed, storeLayer === undefined ? {} : { storeLayer })
  const services = Layer.mergeAll(
    Invitations.layer.pipe(Layer.provide(PlatformConfigService.layer)),
    Agents.layer.pipe(Layer.provide(Accounts.layer))
  ).pipe(Layer.provideMerge(env.layer))
  return Effect.runPromise(
    program.pipe(Effect.provide(services), Effect.provide(TestClock.layer())) as Effect.Effect<A, E>
  )
}

/** IN-11: invitation codes, A and B two API tokens. */
export const invitationBudgetPerCaller = Effect.gen(function* () {
  yield* startClock
  const invitations = yield* Invitations
  const customer = yield* seedCustomer()
  const first = yield* invitations.create({ inviterUma: customer.umaAddress })
  const second = yield* invitations.create({ inviterUma: customer.umaAddress })
  // 15 s into the minute: 45 s to its end.
  yield* TestClock.adjust("15 seconds")
  for (let miss = 0; miss < BUDGET; miss++) {
    expect(yield* Effect.flip(invitations.get(UNKNOWN_INVITATION, "token:A"))).toMatchObject({
      code: "INVITATION_NOT_FOUND"
    })
  }
  const over = yield* Effect.flip(invitations.claim(first.code, { inviteeUma: "$zoe@x.example" }, "token:A"))
  expect(over).toMatchObject({ _tag: "LimitExceeded", code: "RATE_LIMITED", retryAfterSeconds: 45 })
  // B's real claim goes through; its misses are its own.
  expect(yield* Effect.flip(invitations.get(UNKNOWN_INVITATION, "token:B"))).toMatchObject({
    code: "INVITATION_NOT_FOUND"
  })
  expect((yield* invitations.claim(first.code, { inviteeUma: "$zoe@x.example" }, "token:B")).status).toBe("CLAIMED")
  // So does the engine's own call (no caller): A's budget is A's only.
  expect((yield* invitations.get(second.code)).status).toBe("PENDING")
  // The next minute A reads, claims, and misses again.
  yield* TestClock.adjust("45 seconds")
  expect((yield* invitations.get(second.code, "token:A")).status).toBe("PENDING")
  expect(yield* Effect.flip(invitations.get(UNKNOWN_INVITATION, "token:A"))).toMatchObject({
    code: "INVITATION_NOT_FOUND"
  })
  expect((yield* invitations.cancel(second.code, "token:A")).status).toBe("CANCELLED")
})

/** A-08, AG-15: device codes, A and B two clients of the public redeem. */
export const redeemBudgetPerCaller = Effect.gen(function* () {
  yield* startClock
  const agents = yield* Agents
  const customer = yield* seedCustomer()
  const policy = openAgentPolicy()
  const first = yield* agents.create({ name: "first", customerId: customer.id, policy })
  const second = yield* agents.create({ name: "second", customerId: customer.id, policy })
  yield* TestClock.adjust("15 seconds")
  for (let miss = 0; miss < BUDGET; miss++) {
    expect((yield* Effect.flip(agents.redeem(UNKNOWN_DEVICE_CODE, "address:A")))._tag).toBe("NotFound")
  }
  const over = yield* Effect.flip(agents.redeem(first.deviceCode.code, "address:A"))
  expect(over).toMatchObject({ _tag: "LimitExceeded", code: "RATE_LIMITED", retryAfterSeconds: 45 })
  expect((yield* Effect.flip(agents.redeem(UNKNOWN_DEVICE_CODE, "address:B")))._tag).toBe("NotFound")
  expect((yield* agents.redeem(first.deviceCode.code, "address:B")).accessToken).toMatch(/^gat_/)
  yield* TestClock.adjust("45 seconds")
  expect((yield* agents.redeem(second.deviceCode.code, "address:A")).accessToken).toMatch(/^gat_/)
})
