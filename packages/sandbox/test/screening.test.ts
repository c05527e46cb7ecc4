/**
 * The sandbox's compliance screening (Q-38; README "Magic values (payouts)"): a payout to a destination whose primary
 * identifier ends in `010` is held for compliance review, any other cleared; `layer()` provides it in place of the
 * core's default, which clears everything.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Payout, Screening } from "@paycore/core"
import { COMPLIANCE_REVIEW_SUFFIX, layer, sandboxScreening, VELOCITY_LIMIT_SUFFIX } from "@paycore/sandbox"
import { Effect } from "effect"

const beneficiary = { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" } as const

const payout = (destination: Payout["destination"]): Payout => ({
  transactionId: "Transaction:t",
  rail: "RTP",
  amount: 1_000,
  currency: "USD",
  destination
})

const usAccount = (accountNumber: string): Payout["destination"] => ({
  kind: "ACCOUNT",
  accountInfo: { accountType: "US_ACCOUNT", accountNumber, routingNumber: "021000021", beneficiary }
})

describe("SandboxScreening", () => {
  it("Q-38: holds a destination ending in 010 (account, IBAN with spaces, UMA user part); clears the rest", () => {
    assert.strictEqual(COMPLIANCE_REVIEW_SUFFIX, "010")
    const review = { _tag: "Review" }
    const clear = { _tag: "Clear" }
    assert.deepStrictEqual(sandboxScreening(payout(usAccount("555000010"))), review)
    assert.deepStrictEqual(
      sandboxScreening(
        payout({
          kind: "ACCOUNT",
          accountInfo: {
            accountType: "IBAN",
            iban: "DE89 3704 0044 0532 0130 10",
            beneficiary: { ...beneficiary, countryOfResidence: "DE" }
          }
        })
      ),
      review
    )
    assert.deepStrictEqual(sandboxScreening(payout({ kind: "UMA", umaAddress: "$ada010@kestrel.example" })), review)
    for (const cleared of ["555000011", "555000009", "555010000"]) {
      assert.deepStrictEqual(sandboxScreening(payout(usAccount(cleared))), clear, cleared)
    }
    assert.deepStrictEqual(
      sandboxScreening(payout({ kind: "UMA", umaAddress: "$success.usd@sandbox.uma.money" })),
      clear
    )
    assert.deepStrictEqual(sandboxScreening(payout({ kind: "INTERNAL", accountId: "InternalAccount:a010" })), clear)
  })

  it("C-49: refuses a destination ending in 012 (VELOCITY_LIMIT_EXCEEDED), account or UMA user part", () => {
    assert.strictEqual(VELOCITY_LIMIT_SUFFIX, "012")
    for (const destination of [
      usAccount("555000012"),
      { kind: "UMA", umaAddress: "$ada012@kestrel.example" } as const
    ]) {
      const verdict = sandboxScreening(payout(destination))
      assert.strictEqual(verdict._tag, "Refuse")
      assert.strictEqual(verdict._tag === "Refuse" ? verdict.code : "", "VELOCITY_LIMIT_EXCEEDED")
    }
  })

  it.effect("layer() provides it: Screening holds what the sandbox holds", () =>
    Effect.gen(function* () {
      const screening = yield* Screening
      assert.deepStrictEqual(yield* screening.screen(payout(usAccount("123456010"))), { _tag: "Review" })
      assert.deepStrictEqual(yield* screening.screen(payout(usAccount("123456789"))), { _tag: "Clear" })
    }).pipe(Effect.provide(layer()))
  )

  it.effect("without the sandbox, the core's default clears every payout", () =>
    Effect.gen(function* () {
      const screening = yield* Screening
      assert.deepStrictEqual(yield* screening.screen(payout(usAccount("123456010"))), { _tag: "Clear" })
    })
  )
})
