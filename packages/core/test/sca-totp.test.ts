/**
 * The TOTP factor (issue 14, TOTP slice; FEATURES S-02, S-14, S-15): `otpauth` against the RFC 6238 Appendix B
 * SHA-1 vectors, and on a TestClock the window (±1 step), the replay guard (a step is good once), recovery codes and
 * the 600 s of a pending enrolment, through the `Sca` service with no sandbox code (as in production).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { TOTP as LibTotp, Secret } from "otpauth/slim"
import type { CreateCustomerRequest } from "../src/customers/model.ts"
import { Customers } from "../src/customers/service.ts"
import { Store } from "../src/ports/store.ts"
import { Sca } from "../src/sca/service.ts"
import {
  normalRecoveryCode,
  recoveryCodeOf,
  TOTP_ENROLMENT_SECONDS,
  TOTP_PERIOD_SECONDS,
  totpCodeAt,
  totpStepAt,
  totpStepOf
} from "../src/sca/totp.ts"
import { T0 } from "./fixtures.ts"
import { makeScaLayer, type SentCode } from "./sca-env.ts"

// RFC 6238 Appendix B: the SHA-1 seed is the ASCII "12345678901234567890"; time (s) → 8-digit TOTP.
const RFC_SEED = "12345678901234567890"
const RFC_SHA1_VECTORS: ReadonlyArray<readonly [seconds: number, code: string]> = [
  [59, "94287082"],
  [1_111_111_109, "07081804"],
  [1_111_111_111, "14050471"],
  [1_234_567_890, "89005924"],
  [2_000_000_000, "69279037"],
  [20_000_000_000, "65353130"]
]

describe("RFC 6238", () => {
  it("otpauth gives the Appendix B SHA-1 vectors (8 digits); the engine's 6-digit codes are their last six", () => {
    for (const [seconds, code] of RFC_SHA1_VECTORS) {
      const generated = LibTotp.generate({
        secret: Secret.fromLatin1(RFC_SEED),
        algorithm: "SHA1",
        digits: 8,
        period: 30,
        timestamp: seconds * 1000
      })
      assert.strictEqual(generated, code, `T = ${seconds}`)
      assert.strictEqual(totpCodeAt(RFC_SEED, seconds * 1000), code.slice(2), `T = ${seconds}`)
      // The step the code belongs to, found within ±1 step of a clock that drifted either way.
      const step = Math.floor(seconds / 30)
      for (const drift of [-30_000, 0, 30_000]) {
        assert.strictEqual(totpStepOf(RFC_SEED, code.slice(2), seconds * 1000 + drift), step)
      }
      assert.isUndefined(totpStepOf(RFC_SEED, code.slice(2), seconds * 1000 + 61_000))
    }
    assert.isUndefined(totpStepOf(RFC_SEED, "12345", 59_000))
  })

  it("recovery codes: XXXX-XXXX-XXXX in base32 letters; typed in any case, with or without separators", () => {
    const code = recoveryCodeOf("00".repeat(6) + "25".repeat(6))
    assert.strictEqual(code, "AAAA-AAFF-FFFF")
    assert.strictEqual(normalRecoveryCode("aaaa aaff ffff"), code)
    assert.strictEqual(normalRecoveryCode("AAAAAAFFFFFF"), code)
    assert.isUndefined(normalRecoveryCode("AAAA-AAFF-FFF1"))
    assert.isUndefined(normalRecoveryCode("123456"))
  })
})

// ---- the factor on a TestClock, without a sandbox code ----

const makeLayer = () => makeScaLayer(undefined)

const european = {
  customerType: "INDIVIDUAL",
  fullName: "Ada Lovelace",
  region: "DE",
  email: "ada@example.com",
  phoneNumber: "+4915112345678"
} as CreateCustomerRequest

const IP = "203.0.113.42"
const STEP_MS = TOTP_PERIOD_SECONDS * 1000

/** A subject customer logged in by SMS (the code the Notifier got), its TOTP enrolment started. */
const enrolling = (sent: ReadonlyArray<SentCode>) =>
  Effect.gen(function* () {
    const sca = yield* Sca
    const customer = yield* (yield* Customers).create(european)
    const started = yield* sca.startLogin(customer.id, { factor: "SMS_OTP" })
    yield* sca.completeLogin(customer.id, {
      factor: "SMS_OTP",
      endUserIpAddress: IP,
      challengeId: started.challengeId!,
      code: Redacted.value(sent.at(-1)!.code)
    })
    const enrolment = asTotp(yield* sca.startFactorEnrollment(customer.id, { type: "TOTP" }))
    return { sca, customerId: customer.id, enrolment }
  })

/** The TOTP variant of an enrolment's answer (`POST /sca/factors` and its confirm answer by `type`). */
const asTotp = <A extends { readonly type: string }>(answer: A): Extract<A, { readonly type: "TOTP" }> => {
  assert.strictEqual(answer.type, "TOTP")
  return answer as Extract<A, { readonly type: "TOTP" }>
}

const tagOf = (e: unknown) =>
  typeof e === "object" && e !== null && "errors" in e
    ? JSON.stringify((e as { errors: ReadonlyArray<{ constraint: unknown }> }).errors[0]?.constraint)
    : String((e as { code?: string }).code)

describe("the TOTP factor on a TestClock", () => {
  it.effect("S-14: the window is ±1 step; a step is good once; the confirm's step cannot log in", () => {
    const { sent, layer } = makeLayer()
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const store = yield* Store
      const { sca, customerId, enrolment } = yield* enrolling(sent)
      assert.strictEqual(enrolment.totpUri.startsWith("otpauth://totp/paycore:ada%40example.com?"), true)
      const secret = enrolment.secret
      const at = (ms: number) => totpCodeAt(secret, ms)
      const login = (code: string) => sca.completeLogin(customerId, { factor: "TOTP", endUserIpAddress: IP, code })
      const s0 = totpStepAt(T0)

      const confirmed = asTotp(yield* sca.confirmFactorEnrollment(customerId, { type: "TOTP", secret, code: at(T0) }))
      assert.strictEqual(confirmed.recoveryCodes.length, 10)
      const factor = (yield* store.scaFactors.list({ customerId, status: "ACTIVE" }, { limit: 1, sortOrder: "asc" }))
        .data[0]!
      assert.strictEqual(factor.totpLastStep, s0)
      // The confirm's code, and the step before it, are used up.
      assert.strictEqual(tagOf(yield* Effect.flip(login(at(T0)))), '{"reused":true}')
      assert.strictEqual(tagOf(yield* Effect.flip(login(at(T0 - STEP_MS)))), '{"reused":true}')

      // Two steps on: the code two steps back is outside the window (wrong, counted); one step ahead is inside.
      yield* TestClock.adjust(2 * STEP_MS)
      const now = T0 + 2 * STEP_MS
      const outside = yield* Effect.flip(login(at(T0)))
      assert.strictEqual(tagOf(outside), JSON.stringify({ valid: true, attemptsLeftBeforeLock: 3 }))
      assert.strictEqual((yield* store.scaSecurity.get(customerId))?.failedAttempts, 1)
      assert.strictEqual((yield* login(at(now + STEP_MS))).status, "SUCCESS")
      assert.strictEqual((yield* store.scaSecurity.get(customerId))?.failedAttempts, 0)
      assert.strictEqual((yield* store.scaFactors.get(factor.id))?.totpLastStep, s0 + 3)
      // The current step is now behind the last one used.
      assert.strictEqual(tagOf(yield* Effect.flip(login(at(now)))), '{"reused":true}')
      yield* TestClock.adjust(2 * STEP_MS)
      assert.strictEqual((yield* login(at(now + 2 * STEP_MS))).status, "SUCCESS")

      // A recovery code once.
      assert.strictEqual((yield* login(confirmed.recoveryCodes[0]!)).status, "SUCCESS")
      assert.strictEqual(
        tagOf(yield* Effect.flip(login(confirmed.recoveryCodes[0]!))),
        JSON.stringify({
          valid: true,
          attemptsLeftBeforeLock: 3
        })
      )
    }).pipe(Effect.provide(layer))
  })

  it.effect("S-02: a pending enrolment lasts 600 s to the millisecond; a new start replaces it", () => {
    const { sent, layer } = makeLayer()
    return Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const store = yield* Store
      const { sca, customerId, enrolment } = yield* enrolling(sent)
      yield* TestClock.adjust(TOTP_ENROLMENT_SECONDS * 1000)
      const late = yield* Effect.flip(
        sca.confirmFactorEnrollment(customerId, {
          type: "TOTP",
          secret: enrolment.secret,
          code: totpCodeAt(enrolment.secret, T0 + TOTP_ENROLMENT_SECONDS * 1000)
        })
      )
      assert.strictEqual(tagOf(late), '{"expired":true}')
      assert.strictEqual((yield* store.scaSecurity.get(customerId))?.failedAttempts, 1)

      const second = asTotp(yield* sca.startFactorEnrollment(customerId, { type: "TOTP" }))
      yield* TestClock.adjust(TOTP_ENROLMENT_SECONDS * 1000 - 1)
      const nowMs = T0 + 2 * TOTP_ENROLMENT_SECONDS * 1000 - 1
      const ok = asTotp(
        yield* sca.confirmFactorEnrollment(customerId, {
          type: "TOTP",
          secret: second.secret,
          code: totpCodeAt(second.secret, nowMs)
        })
      )
      assert.strictEqual(ok.recoveryCodes.length, 10)
      assert.deepStrictEqual(
        (yield* sca.listFactors(customerId)).factors.map((f) => f.factor),
        ["SMS_OTP", "TOTP"]
      )
    }).pipe(Effect.provide(layer))
  })
})
