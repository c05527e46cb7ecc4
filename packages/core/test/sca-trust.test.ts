/**
 * Trusted beneficiaries' time rules on a TestClock (issue 14, trust slice; FEATURES AC-31 … AC-38, L-14, C-41): the
 * 300 s challenge, the 60 s between two trust codes, the 1 s after a failed proof, and `isTrustedBeneficiary` (what
 * the quote execute path reads) following trust and untrust. The HTTP surface is in
 * packages/http/test/sca-trust.http.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import type { ExternalAccount } from "../src/accounts/model.ts"
import type { CreateCustomerRequest } from "../src/customers/model.ts"
import { Customers } from "../src/customers/service.ts"
import { Store } from "../src/ports/store.ts"
import { PROOF_THROTTLE_SECONDS, SCA_CHALLENGE_SECONDS, SCA_CODE_RESEND_SECONDS } from "../src/sca/challenges.ts"
import { Sca } from "../src/sca/service.ts"
import { isTrustedBeneficiary } from "../src/sca/trust.ts"
import type { ExternalAccountId } from "../src/shared/ids.ts"
import { T0 } from "./fixtures.ts"
import { makeScaLayer, type SentCode } from "./sca-env.ts"

const european = {
  customerType: "INDIVIDUAL",
  fullName: "Lise Meitner",
  region: "DE",
  phoneNumber: "+4915112345678"
} as CreateCustomerRequest

let walletSeq = 0

/** A logged-in EEA customer and an ACTIVE USDC wallet of it, written to the store. */
const trustingCustomer = Effect.gen(function* () {
  const sca = yield* Sca
  const store = yield* Store
  const customer = yield* (yield* Customers).create(european)
  const login = yield* sca.startLogin(customer.id, { factor: "SMS_OTP" })
  yield* sca.completeLogin(customer.id, {
    factor: "SMS_OTP",
    endUserIpAddress: "203.0.113.42",
    challengeId: login.challengeId!,
    code: "123456"
  })
  const now = new Date(yield* Effect.clockWith((clock) => clock.currentTimeMillis)).toISOString()
  walletSeq += 1
  const account: ExternalAccount = {
    id: `ExternalAccount:01234567-89ab-7def-8123-${String(walletSeq).padStart(12, "0")}` as ExternalAccountId,
    customerId: customer.id,
    status: "ACTIVE",
    currency: "USDC",
    ownershipType: "THIRD_PARTY",
    defaultUmaDepositAccount: false,
    paymentRails: ["ETHEREUM"],
    accountInfo: { accountType: "ETHEREUM_WALLET", address: `0x${"ab".repeat(20)}` },
    createdAt: now,
    updatedAt: now
  }
  yield* Effect.orDie(store.externalAccounts.insert(account))
  return { customerId: customer.id, accountId: account.id as string }
})

/** The error's API code (an InvalidInput answers `INVALID_INPUT`). */
const codeOf = (error: { readonly _tag: string }) =>
  error._tag === "InvalidInput" ? "INVALID_INPUT" : "code" in error ? (error as { code: string }).code : error._tag

/** Runs a test on a fresh SCA engine (the sandbox code 123456 accepted) with the TestClock at T0. */
const onScaEngine = (
  body: (t: {
    readonly sca: Sca["Service"]
    readonly store: Store["Service"]
    /** The codes the notifier sent. */
    readonly sent: ReadonlyArray<SentCode>
  }) => Effect.Effect<void, unknown, any>
) => {
  const { sent, layer } = makeScaLayer("123456")
  return Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    yield* body({ sca: yield* Sca, store: yield* Store, sent })
  }).pipe(Effect.provide(layer)) as Effect.Effect<void, unknown>
}

describe("trusted beneficiaries on a TestClock", () => {
  it.effect(
    "AC-32, C-41: the trust challenge lives 300 s: at its last millisecond the code trusts; at 300 s it is 400 expired, counted, the challenge EXPIRED",
    () =>
      onScaEngine(({ sca, store }) =>
        Effect.gen(function* () {
          const inTime = yield* trustingCustomer
          const started = yield* sca.startBeneficiaryTrust(inTime.accountId)
          const challenge = started.scaChallenge!
          assert.strictEqual(challenge.expiresAt, new Date(T0 + SCA_CHALLENGE_SECONDS * 1000).toISOString())
          yield* TestClock.adjust(SCA_CHALLENGE_SECONDS * 1000 - 1)
          assert.deepStrictEqual(
            yield* sca.confirmBeneficiaryTrust(inTime.accountId, { challengeId: challenge.id, code: "123456" }),
            { trusted: true }
          )

          const late = yield* trustingCustomer
          const lateStart = yield* sca.startBeneficiaryTrust(late.accountId)
          yield* TestClock.adjust(SCA_CHALLENGE_SECONDS * 1000)
          const expired = yield* Effect.flip(
            sca.confirmBeneficiaryTrust(late.accountId, { challengeId: lateStart.scaChallenge!.id, code: "123456" })
          )
          assert.strictEqual(expired._tag, "InvalidInput")
          assert.deepStrictEqual(expired._tag === "InvalidInput" ? expired.errors[0]?.constraint : undefined, {
            expired: true
          })
          // The message says what to do with a trust code, not a login's.
          assert.include(expired.message, "start the trust again")
          assert.strictEqual((yield* store.scaChallenges.get(lateStart.scaChallenge!.id))?.status, "EXPIRED")
          assert.strictEqual((yield* store.scaSecurity.get(late.customerId))?.failedAttempts, 1)
          assert.isUndefined(yield* store.trustedBeneficiaries.get(late.accountId))
        })
      )
  )

  it.effect(
    "L-14: a second trust code within 60 s is 429 RATE_LIMITED; at 60 s the start supersedes the open challenge",
    () =>
      onScaEngine(({ sca, store, sent }) =>
        Effect.gen(function* () {
          const { accountId } = yield* trustingCustomer
          const first = yield* sca.startBeneficiaryTrust(accountId)
          yield* TestClock.adjust(SCA_CODE_RESEND_SECONDS * 1000 - 1000)
          const tooSoon = yield* Effect.flip(sca.startBeneficiaryTrust(accountId))
          assert.deepStrictEqual(
            [tooSoon._tag, codeOf(tooSoon), "retryAfterSeconds" in tooSoon ? tooSoon.retryAfterSeconds : 0],
            ["LimitExceeded", "RATE_LIMITED", 1]
          )
          yield* TestClock.adjust(1000)
          const second = yield* sca.startBeneficiaryTrust(accountId)
          assert.notStrictEqual(second.scaChallenge!.id, first.scaChallenge!.id)
          assert.strictEqual((yield* store.scaChallenges.get(first.scaChallenge!.id))?.status, "SUPERSEDED")
          // One SMS per issued challenge (the login's, then the two trust codes), none for the refused start.
          assert.deepStrictEqual(
            sent.map((m) => m.channel),
            ["SMS", "SMS", "SMS"]
          )
        })
      )
  )

  it.effect("L-14: a proof within 1 s of a failed one is 429 and not counted; at 1 s it is checked", () =>
    onScaEngine(({ sca, store }) =>
      Effect.gen(function* () {
        const { customerId, accountId } = yield* trustingCustomer
        const started = yield* sca.startBeneficiaryTrust(accountId)
        const proof = { challengeId: started.scaChallenge!.id }
        assert.strictEqual(
          codeOf(yield* Effect.flip(sca.confirmBeneficiaryTrust(accountId, { ...proof, code: "000000" }))),
          "INVALID_INPUT"
        )
        yield* TestClock.adjust(PROOF_THROTTLE_SECONDS * 1000 - 1)
        assert.strictEqual(
          codeOf(yield* Effect.flip(sca.confirmBeneficiaryTrust(accountId, { ...proof, code: "123456" }))),
          "RATE_LIMITED"
        )
        assert.strictEqual((yield* store.scaSecurity.get(customerId))?.failedAttempts, 1)
        yield* TestClock.adjust(1)
        assert.deepStrictEqual(yield* sca.confirmBeneficiaryTrust(accountId, { ...proof, code: "123456" }), {
          trusted: true
        })
        assert.strictEqual((yield* store.scaSecurity.get(customerId))?.failedAttempts, 0)
      })
    )
  )

  it.effect("AC-38: isTrustedBeneficiary follows trust and untrust, and answers only for the account's customer", () =>
    onScaEngine(({ sca, store }) =>
      Effect.gen(function* () {
        const { customerId, accountId } = yield* trustingCustomer
        const other = yield* trustingCustomer
        const trusted = () => isTrustedBeneficiary(store, customerId, accountId)
        assert.isFalse(yield* trusted())
        yield* sca.startBeneficiaryTrust(accountId)
        assert.isFalse(yield* trusted())
        yield* sca.confirmBeneficiaryTrust(accountId, { code: "123456" })
        assert.isTrue(yield* trusted())
        assert.isFalse(yield* isTrustedBeneficiary(store, other.customerId, accountId))
        yield* sca.startBeneficiaryUntrust(accountId)
        // An open untrust changes nothing until it is confirmed.
        assert.isTrue(yield* trusted())
        assert.deepStrictEqual(yield* sca.confirmBeneficiaryUntrust(accountId, { code: "123456" }), { trusted: false })
        assert.isFalse(yield* trusted())
      })
    )
  )
})
