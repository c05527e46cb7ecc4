/**
 * The public redeem's miss budget on a TestClock (docs/design/agents.md section 2 "Numbers", Q13; AG-15, A-08): past
 * `agentRedeemMissesPerMinute` unknown codes in a UTC minute every redeem is 429 `RATE_LIMITED` with `Retry-After` to
 * the next minute, a good code included; the next minute redeems again. (The HTTP tests run on the real clock.)
 */
import { describe, expect, it } from "@effect/vitest"
import { openAgentPolicy } from "@paycore/testkit"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Accounts } from "../src/accounts/service.ts"
import { Agents } from "../src/agents/service.ts"
import { makeEnv, seedCustomer, startClock, T0 } from "./fixtures.ts"

const UNKNOWN_CODE = "PAYCORE-AGENT-2222-2222"

describe("the redeem miss budget", () => {
  it.effect("A-08: the 61st miss of a minute is 429 with Retry-After; the next minute a good code redeems", () =>
    Effect.gen(function* () {
      yield* startClock
      const agents = yield* Agents
      const customer = yield* seedCustomer()
      const { deviceCode } = yield* agents.create({ name: "a", customerId: customer.id, policy: openAgentPolicy() })
      // T0 is 12:00:00.000: 15 s into the minute leaves 45 s to its end.
      yield* TestClock.adjust("15 seconds")
      for (let miss = 0; miss < 60; miss++) {
        expect((yield* Effect.flip(agents.redeem(UNKNOWN_CODE)))._tag).toBe("NotFound")
      }
      const over = yield* Effect.flip(agents.redeem(UNKNOWN_CODE))
      expect(over).toMatchObject({ _tag: "LimitExceeded", code: "RATE_LIMITED", retryAfterSeconds: 45 })
      expect(yield* Effect.flip(agents.redeem(deviceCode.code))).toMatchObject({ code: "RATE_LIMITED" })
      yield* TestClock.adjust("45 seconds")
      const redeemed = yield* agents.redeem(deviceCode.code)
      expect(redeemed.accessToken).toMatch(/^gat_[0-9a-f]{64}$/)
      expect(T0 % 60_000).toBe(0)
    }).pipe(Effect.provide(Agents.layer.pipe(Layer.provide(Accounts.layer), Layer.provideMerge(makeEnv(11).layer))))
  )
})
