/**
 * The SCA context's rules on a TestClock (issue 14, first slice): who is subject (S-01), the lock ladder (C-41,
 * S-10), and the login's time rules: the 300 s code, the 60 s re-issue limit (L-14) and the 180-day session that
 * `requireScaSession` reads (S-09, S-13, L-09).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import type { CreateCustomerRequest } from "../src/customers/model.ts"
import { Customers } from "../src/customers/service.ts"
import { Store } from "../src/ports/store.ts"
import { SCA_CHALLENGE_SECONDS, SCA_CODE_RESEND_SECONDS } from "../src/sca/challenges.ts"
import type { ScaSecurityRecord } from "../src/sca/model.ts"
import { isScaSubject } from "../src/sca/regions.ts"
import {
  afterFailure,
  afterPasswordReset,
  afterSuccess,
  attemptsLeftBeforeLock,
  lockAt,
  openSecurity
} from "../src/sca/security.ts"
import { Sca } from "../src/sca/service.ts"
import { requireScaSession, SCA_SESSION_SECONDS } from "../src/sca/sessions.ts"
import { defaultEngineSettings, EngineConfig } from "../src/shared/engine-config.ts"
import { EEA_REGIONS } from "../src/shared/regions.ts"
import { T0 } from "./fixtures.ts"
import { makeScaLayer } from "./sca-env.ts"

const MINUTE_MS = 60_000

describe("S-01: who is subject to SCA", () => {
  const settings = defaultEngineSettings
  it("the 30 EEA states by default (EU-27, IS, LI, NO); not the US, GB or a customer without a region", () => {
    assert.strictEqual(EEA_REGIONS.length, 30)
    for (const region of ["DE", "FR", "IS", "LI", "NO"]) assert.isTrue(isScaSubject({ region }, settings))
    for (const region of ["US", "GB", "CH"]) assert.isFalse(isScaSubject({ region }, settings))
    assert.isFalse(isScaSubject({}, settings))
  })

  it("scaRegions overrides the list; [] switches SCA off", () => {
    assert.isFalse(isScaSubject({ region: "DE" }, { scaRegions: [] }))
    assert.isTrue(isScaSubject({ region: "GB" }, { scaRegions: ["GB"] }))
  })
})

describe("C-41, S-10: the lock ladder", () => {
  const fail = (times: number, nowMs = T0): ScaSecurityRecord => {
    let row = openSecurity("Customer:x", new Date(nowMs).toISOString())
    for (let i = 0; i < times; i++) row = afterFailure(row, nowMs)
    return row
  }

  it("4 failures lock nothing; the 5th locks 15 min, the 6th 30 min, the 7th 1 h, the 8th 24 h, the 9th suspends", () => {
    assert.isUndefined(lockAt(fail(4), T0))
    const expected: ReadonlyArray<readonly [number, number]> = [
      [5, 15],
      [6, 30],
      [7, 60],
      [8, 24 * 60]
    ]
    for (const [failures, minutes] of expected) {
      assert.deepStrictEqual(lockAt(fail(failures), T0), {
        suspended: false,
        lockedUntil: new Date(T0 + minutes * MINUTE_MS).toISOString(),
        failedAttempts: failures
      })
    }
    assert.deepStrictEqual(lockAt(fail(9), T0), { suspended: true, failedAttempts: 9 })
    assert.deepStrictEqual(lockAt(fail(12), T0 + 365 * 24 * 60 * MINUTE_MS), { suspended: true, failedAttempts: 12 })
  })

  it("a lapsed lock accepts proofs and keeps the count: the next failure climbs the ladder", () => {
    const locked = fail(5)
    assert.isUndefined(lockAt(locked, T0 + 15 * MINUTE_MS))
    assert.isDefined(lockAt(locked, T0 + 15 * MINUTE_MS - 1))
    const sixth = afterFailure(locked, T0 + 15 * MINUTE_MS)
    assert.strictEqual(sixth.lockedUntil, new Date(T0 + 45 * MINUTE_MS).toISOString())
  })

  it("a success sets the count back to 0 and lifts the lock; attemptsLeftBeforeLock counts down to the next rung", () => {
    const ok = afterSuccess(fail(6), T0)
    assert.deepStrictEqual([ok.failedAttempts, ok.lockedUntil, ok.suspended], [0, undefined, false])
    assert.deepStrictEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => attemptsLeftBeforeLock(fail(n))),
      [4, 3, 2, 1, 0, 0, 0, 0, 0]
    )
  })

  it("a password reset is the way out of a suspension: count 0, no lock, not suspended", () => {
    for (const failures of [3, 5, 9, 12]) {
      const reset = afterPasswordReset(fail(failures), T0 + 1)
      assert.deepStrictEqual(
        [reset.failedAttempts, reset.lockedUntil, reset.suspended, reset.updatedAt],
        [0, undefined, false, new Date(T0 + 1).toISOString()]
      )
      assert.isUndefined(lockAt(reset, T0 + 1))
    }
  })
})

// ---- the login on a TestClock ----

const makeLayer = () => makeScaLayer("123456")

const european = {
  customerType: "INDIVIDUAL",
  fullName: "Marie Curie",
  region: "DE",
  phoneNumber: "+4915112345678"
} as CreateCustomerRequest

const IP = "203.0.113.42"

describe("the SCA login on a TestClock", () => {
  it.effect("S-13, L-09, S-09: the session lives 180 days to the millisecond, then SCA_SESSION_REQUIRED", () => {
    const { sent, layer } = makeLayer()
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const sca = yield* Sca
      const customer = yield* (yield* Customers).create(european)
      // No session yet.
      const before = yield* Effect.flip(requireScaSession(customer.id))
      assert.strictEqual(before._tag === "Refused" ? before.code : before._tag, "SCA_SESSION_REQUIRED")

      const started = yield* sca.startLogin(customer.id, { factor: "SMS_OTP" })
      assert.strictEqual(started.expiresAt, new Date(T0 + SCA_CHALLENGE_SECONDS * 1000).toISOString())
      assert.deepStrictEqual(
        sent.map((m) => [m.channel, m.to]),
        [["SMS", "+4915112345678"]]
      )
      yield* TestClock.adjust(10_000)
      const done = yield* sca.completeLogin(customer.id, {
        factor: "SMS_OTP",
        endUserIpAddress: IP,
        challengeId: started.challengeId!,
        code: "123456"
      })
      const loginMs = T0 + 10_000
      assert.deepStrictEqual(done, {
        status: "SUCCESS",
        sessionExpiresAt: new Date(loginMs + SCA_SESSION_SECONDS * 1000).toISOString()
      })
      assert.strictEqual(SCA_SESSION_SECONDS, 180 * 86_400)
      assert.strictEqual((yield* sca.requireSession(customer.id)).challengeId, started.challengeId)

      yield* TestClock.setTime(loginMs + SCA_SESSION_SECONDS * 1000 - 1)
      assert.strictEqual((yield* requireScaSession(customer.id)).customerId, customer.id)
      yield* TestClock.adjust(1)
      const lapsed = yield* Effect.flip(sca.requireSession(customer.id))
      assert.deepStrictEqual([lapsed._tag, "code" in lapsed ? lapsed.code : ""], ["Refused", "SCA_SESSION_REQUIRED"])
    }).pipe(Effect.provide(layer))
  })

  it.effect("S-12, L-14: the code lives 300 s; a new one is refused for 60 s, then supersedes the old", () => {
    const { layer } = makeLayer()
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const sca = yield* Sca
      const store = yield* Store
      const customer = yield* (yield* Customers).create(european)
      const first = yield* sca.startLogin(customer.id, { factor: "SMS_OTP" })
      yield* TestClock.adjust(SCA_CODE_RESEND_SECONDS * 1000 - 1)
      const tooSoon = yield* Effect.flip(sca.startLogin(customer.id, { factor: "SMS_OTP" }))
      assert.deepStrictEqual(
        [
          tooSoon._tag,
          "code" in tooSoon ? tooSoon.code : "",
          "retryAfterSeconds" in tooSoon ? tooSoon.retryAfterSeconds : 0
        ],
        ["LimitExceeded", "RATE_LIMITED", 1]
      )
      yield* TestClock.adjust(1)
      const second = yield* sca.startLogin(customer.id, { factor: "SMS_OTP" })
      assert.strictEqual((yield* store.scaChallenges.get(first.challengeId!))?.status, "SUPERSEDED")

      // The second code, at its last millisecond and one after.
      const proof = {
        factor: "SMS_OTP" as const,
        endUserIpAddress: IP,
        challengeId: second.challengeId!,
        code: "123456"
      }
      yield* TestClock.adjust(SCA_CHALLENGE_SECONDS * 1000)
      const late = yield* Effect.flip(sca.completeLogin(customer.id, proof))
      assert.strictEqual(late._tag, "InvalidInput")
      assert.strictEqual((yield* store.scaChallenges.get(second.challengeId!))?.status, "EXPIRED")
      assert.strictEqual((yield* store.scaSecurity.get(customer.id))?.failedAttempts, 1)

      const third = yield* sca.startLogin(customer.id, { factor: "SMS_OTP" })
      yield* TestClock.adjust(SCA_CHALLENGE_SECONDS * 1000 - 1)
      const ok = yield* sca.completeLogin(customer.id, { ...proof, challengeId: third.challengeId! })
      assert.strictEqual(ok.status, "SUCCESS")
      assert.strictEqual((yield* store.scaSecurity.get(customer.id))?.failedAttempts, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect(
    "S-10, C-41, S-09: record-event on a TestClock: failures climb the ladder (423 while locked, counted), the suspension has no end, a password reset lifts it and revokes the session",
    () => {
      const { layer } = makeLayer()
      return Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const sca = yield* Sca
        const customer = yield* (yield* Customers).create(european)
        const started = yield* sca.startLogin(customer.id, { factor: "SMS_OTP" })
        yield* sca.completeLogin(customer.id, {
          factor: "SMS_OTP",
          endUserIpAddress: IP,
          challengeId: started.challengeId!,
          code: "123456"
        })
        const failed = () => sca.recordSecurityEvent(customer.id, { eventType: "FAILED_LOGIN_ATTEMPT" })
        for (let i = 1; i <= 4; i++) yield* failed()
        const fifth = yield* failed()
        const at = (ms: number) => new Date(ms).toISOString()
        assert.deepStrictEqual(fifth, {
          eventType: "FAILED_LOGIN_ATTEMPT",
          suspended: false,
          lockedUntil: at(T0 + 15 * MINUTE_MS),
          failedAttempts: 5
        })
        // The last millisecond of the lock: counted (the 6th rung, 30 min from now) and refused.
        yield* TestClock.setTime(T0 + 15 * MINUTE_MS - 1)
        const sixth = yield* Effect.flip(failed())
        assert.deepStrictEqual(
          [sixth._tag, "details" in sixth ? sixth.details : undefined],
          ["Refused", { suspended: false, lockedUntil: at(T0 + 45 * MINUTE_MS - 1), failedAttempts: 6 }]
        )
        // At lockedUntil the lock has passed: 200, the 7th rung.
        yield* TestClock.setTime(T0 + 45 * MINUTE_MS - 1)
        assert.strictEqual((yield* failed()).lockedUntil, at(T0 + 105 * MINUTE_MS - 1))
        yield* TestClock.setTime(T0 + 105 * MINUTE_MS - 1)
        assert.strictEqual((yield* failed()).lockedUntil, at(T0 + (105 + 24 * 60) * MINUTE_MS - 1))
        yield* TestClock.setTime(T0 + (105 + 24 * 60) * MINUTE_MS - 1)
        assert.deepStrictEqual(yield* failed(), {
          eventType: "FAILED_LOGIN_ATTEMPT",
          suspended: true,
          lockedUntil: null,
          failedAttempts: 9
        })
        // Thirty days on: still suspended (no automatic end), and the session is untouched by the lock.
        yield* TestClock.adjust(30 * 24 * 60 * MINUTE_MS)
        const still = yield* Effect.flip(sca.startLogin(customer.id, { factor: "SMS_OTP" }))
        assert.strictEqual("code" in still ? still.code : still._tag, "ACCOUNT_LOCKED")
        assert.strictEqual((yield* requireScaSession(customer.id)).customerId, customer.id)

        const reset = yield* sca.recordSecurityEvent(customer.id, { eventType: "RESET_PASSWORD_COMPLETED" })
        assert.deepStrictEqual(reset, {
          eventType: "RESET_PASSWORD_COMPLETED",
          suspended: false,
          lockedUntil: null,
          failedAttempts: 0
        })
        const revoked = yield* Effect.flip(requireScaSession(customer.id))
        assert.strictEqual("code" in revoked ? revoked.code : revoked._tag, "SCA_SESSION_REQUIRED")
        const again = yield* sca.startLogin(customer.id, { factor: "SMS_OTP" })
        assert.strictEqual(again.factor, "SMS_OTP")
      }).pipe(Effect.provide(layer))
    }
  )

  it.effect("S-01: with scaRegions [] a European customer is not subject (409 CONFLICT)", () => {
    const { layer } = makeLayer()
    return Effect.gen(function* () {
      const customer = yield* (yield* Customers).create(european)
      const refused = yield* Effect.flip(
        (yield* Sca)
          .startLogin(customer.id, { factor: "SMS_OTP" })
          .pipe(Effect.provideService(EngineConfig, { ...defaultEngineSettings, scaRegions: [] }))
      )
      assert.deepStrictEqual([refused._tag, "code" in refused ? refused.code : ""], ["Conflict", "CONFLICT"])
    }).pipe(Effect.provide(layer))
  })
})
