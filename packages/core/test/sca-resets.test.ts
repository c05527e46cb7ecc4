/**
 * SCA factor resets on a TestClock (issue 14, reset slice; the upstream `/sca/factors/reset*` routes): the start
 * limit of 5 per customer in a rolling 24 h (429 `RATE_LIMITED` with the seconds until the oldest start leaves the
 * window), the 30-minute window of a reset, and an SMS reset sending the next login code to the new number while
 * the customer record keeps its own.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import type { CreateCustomerRequest } from "../src/customers/model.ts"
import { Customers } from "../src/customers/service.ts"
import { Store } from "../src/ports/store.ts"
import { FACTOR_RESET_SECONDS, FACTOR_RESETS_PER_DAY } from "../src/sca/resets.ts"
import { Sca } from "../src/sca/service.ts"
import { T0 } from "./fixtures.ts"
import { makeScaLayer } from "./sca-env.ts"

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

const european = {
  customerType: "INDIVIDUAL",
  fullName: "Ada Lovelace",
  region: "DE",
  phoneNumber: "+4915112345678"
} as CreateCustomerRequest

const failureOf = (e: unknown) => ({
  tag: (e as { _tag?: string })._tag,
  code: (e as { code?: string }).code,
  retryAfterSeconds: (e as { retryAfterSeconds?: number }).retryAfterSeconds,
  field: (e as { errors?: ReadonlyArray<{ field: string }> }).errors?.[0]?.field
})

describe("SCA factor resets on a TestClock", () => {
  it.effect("5 starts in a rolling 24 h; the 6th is 429 RATE_LIMITED until the oldest start is 24 h old", () => {
    const { layer } = makeScaLayer("123456")
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const sca = yield* Sca
      const customer = yield* (yield* Customers).create(european)
      const start = () => sca.startFactorReset(customer.id, { factor: "SMS_OTP" })
      assert.strictEqual(FACTOR_RESETS_PER_DAY, 5)
      for (let i = 0; i < 5; i++) {
        yield* TestClock.setTime(T0 + i * HOUR_MS)
        const started = yield* start()
        assert.strictEqual(started.expiresAt, new Date(T0 + i * HOUR_MS + FACTOR_RESET_SECONDS * 1000).toISOString())
      }
      yield* TestClock.setTime(T0 + 5 * HOUR_MS)
      assert.deepStrictEqual(failureOf(yield* Effect.flip(start())), {
        tag: "LimitExceeded",
        code: "RATE_LIMITED",
        retryAfterSeconds: 19 * 3600,
        field: undefined
      })
      // The last millisecond before the first start is 24 h old: still refused (1 s to wait).
      yield* TestClock.setTime(T0 + DAY_MS - 1)
      assert.strictEqual(failureOf(yield* Effect.flip(start())).retryAfterSeconds, 1)
      yield* TestClock.setTime(T0 + DAY_MS)
      yield* start()
      // Now the window holds the starts of T0 + 1 h … 4 h and this one: the next waits for T0 + 1 h + 24 h.
      assert.strictEqual(failureOf(yield* Effect.flip(start())).retryAfterSeconds, 3600)
      // Another customer has its own count.
      const other = yield* (yield* Customers).create({ ...european, phoneNumber: "+4915187654321" })
      yield* sca.startFactorReset(other.id, { factor: "SMS_OTP" })
    }).pipe(Effect.provide(layer))
  })

  it.effect("a reset lapses 30 min after its start, to the millisecond: EXPIRED, no verdict, no completion", () => {
    const { layer } = makeScaLayer("123456")
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const sca = yield* Sca
      const store = yield* Store
      const customer = yield* (yield* Customers).create(european)
      const late = yield* sca.startFactorReset(customer.id, { factor: "SMS_OTP" })
      const settled = yield* sca.startFactorReset(customer.id, { factor: "SMS_OTP" })
      yield* TestClock.adjust(FACTOR_RESET_SECONDS * 1000 - 1)
      assert.strictEqual((yield* sca.getFactorReset(customer.id, late.resetId)).status, "INITIATED")
      assert.strictEqual(
        (yield* sca.settleResetLiveness(settled.resetId, { result: "PASSED" })).status,
        "LIVENESS_PASSED"
      )
      yield* TestClock.adjust(1)
      assert.strictEqual((yield* sca.getFactorReset(customer.id, late.resetId)).status, "EXPIRED")
      assert.strictEqual((yield* sca.getFactorReset(customer.id, settled.resetId)).status, "EXPIRED")
      const verdict = yield* Effect.flip(sca.settleResetLiveness(late.resetId, { result: "PASSED" }))
      assert.deepStrictEqual([verdict._tag, "code" in verdict ? verdict.code : ""], ["Conflict", "CONFLICT"])
      const complete = yield* Effect.flip(
        sca.completeFactorReset(customer.id, settled.resetId, { mobile: { countryCode: "+49", number: "15199990000" } })
      )
      assert.strictEqual(failureOf(complete).field, "resetId")
      // The lapse is written by the refused completion; the number is untouched.
      assert.strictEqual((yield* store.scaFactorResets.get(settled.resetId))?.status, "EXPIRED")
      assert.deepStrictEqual(
        (yield* sca.listFactors(customer.id)).factors.map((f) => f.factor),
        ["SMS_OTP"]
      )
      assert.isUndefined(yield* store.scaFactors.findUnique("slot", `${customer.id}|SMS_OTP`))
    }).pipe(Effect.provide(layer))
  })

  it.effect("an SMS reset: the next login code goes to the new number; the customer record keeps its phone", () => {
    const { sent, layer } = makeScaLayer("123456")
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const sca = yield* Sca
      const customers = yield* Customers
      const customer = yield* customers.create(european)
      const reset = yield* sca.startFactorReset(customer.id, { factor: "SMS_OTP" })
      yield* sca.startLogin(customer.id, { factor: "SMS_OTP" })
      yield* sca.settleResetLiveness(reset.resetId, { result: "PENDING_REVIEW" })
      assert.strictEqual((yield* sca.getFactorReset(customer.id, reset.resetId)).status, "PENDING_REVIEW")
      yield* sca.settleResetLiveness(reset.resetId, { result: "PASSED" })
      yield* TestClock.adjust(60_000)
      yield* sca.completeFactorReset(customer.id, reset.resetId, {
        mobile: { countryCode: "+33", number: "612345678" }
      })
      assert.deepStrictEqual(yield* sca.getFactorReset(customer.id, reset.resetId), {
        status: "COMPLETED",
        factor: "SMS_OTP",
        expiresAt: reset.expiresAt,
        completedAt: new Date(T0 + 60_000).toISOString()
      })
      yield* sca.startLogin(customer.id, { factor: "SMS_OTP" })
      assert.deepStrictEqual(
        sent.map((m) => m.to),
        ["+4915112345678", "+33612345678"]
      )
      assert.strictEqual((yield* customers.get(customer.id)).phoneNumber, "+4915112345678")
    }).pipe(Effect.provide(layer))
  })
})
