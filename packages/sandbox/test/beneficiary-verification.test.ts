/**
 * The sandbox's beneficiary name check (SB-08, AC-12; README "Beneficiary verification (SB-08)"): the outcome by the
 * last 3 digits of the account's primary identifier, wallets `UNSUPPORTED`; `layer()` provides it in place of the
 * core's default, which answers `UNSUPPORTED` for every account.
 */
import { assert, describe, it } from "@effect/vitest"
import { type AccountInfo, type BeneficiaryCheck, BeneficiaryVerification } from "@paycore/core"
import { layer, partialMatchName, sandboxBeneficiaryVerification } from "@paycore/sandbox"
import { Effect } from "effect"
import fc from "fast-check"

const beneficiary = { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" } as const

const usCheck = (accountNumber: string): BeneficiaryCheck => ({
  currency: "USD",
  accountInfo: { accountType: "US_ACCOUNT", accountNumber, routingNumber: "021000021", beneficiary },
  paymentRails: ["ACH", "WIRE"],
  beneficiaryName: "Grace Hopper"
})

describe("SandboxBeneficiaryVerification", () => {
  it("SB-08: 102 … 107 by the account number's last 3 digits; other suffixes MATCHED with the name", () => {
    const statusOf = (n: string) => {
      const verdict = sandboxBeneficiaryVerification(usCheck(n))
      return verdict._tag === "Checked" ? verdict.status : verdict._tag
    }
    assert.deepStrictEqual(
      ["555000102", "555000103", "555000104", "555000105", "555000106", "555000107", "555000101", "555000108"].map(
        statusOf
      ),
      [
        "NOT_MATCHED",
        "PARTIAL_MATCH",
        "PENDING",
        "InvalidAccount",
        "UNSUPPORTED",
        "CHECKED_BY_RECEIVING_FI",
        "MATCHED",
        "MATCHED"
      ]
    )
    assert.deepStrictEqual(sandboxBeneficiaryVerification(usCheck("555000000")), {
      _tag: "Checked",
      status: "MATCHED",
      verifiedData: { fullName: "Grace Hopper" }
    })
    assert.deepStrictEqual(sandboxBeneficiaryVerification(usCheck("555000103")), {
      _tag: "Checked",
      status: "PARTIAL_MATCH",
      verifiedData: { fullName: "G. Hopper" }
    })
  })

  it("SB-08: the IBAN (spaces ignored) is the identifier of a EUR account; a wallet is UNSUPPORTED", () => {
    const iban: AccountInfo = {
      accountType: "IBAN",
      iban: "DE89 3704 0044 0532 0131 02",
      beneficiary: { ...beneficiary, countryOfResidence: "DE" }
    }
    const ibanVerdict = sandboxBeneficiaryVerification({
      currency: "EUR",
      accountInfo: iban,
      paymentRails: ["SEPA"],
      beneficiaryName: "Grace Hopper"
    })
    assert.deepStrictEqual(ibanVerdict, { _tag: "Checked", status: "NOT_MATCHED" })
    const wallet: AccountInfo = {
      accountType: "SOLANA_WALLET",
      address: "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB105",
      beneficiary
    }
    const walletVerdict = sandboxBeneficiaryVerification({
      currency: "USDC",
      accountInfo: wallet,
      paymentRails: ["SOLANA"],
      beneficiaryName: "Grace Hopper"
    })
    assert.deepStrictEqual(walletVerdict, { _tag: "Checked", status: "UNSUPPORTED" })
  })

  it("SB-08: a partial match's name differs from the given one, a match's is the given one (property)", () => {
    const name = fc.stringMatching(/^[A-Za-z]{1,12}( [A-Za-z]{1,12}){0,3}$/)
    fc.assert(
      fc.property(name, fc.integer({ min: 0, max: 999_999 }), (fullName, n) => {
        const number = `555${String(n).padStart(6, "0")}`
        const verdict = sandboxBeneficiaryVerification({ ...usCheck(number), beneficiaryName: fullName })
        const last3 = number.slice(-3)
        if (verdict._tag === "InvalidAccount") return last3 === "105"
        if (verdict.status === "MATCHED") return verdict.verifiedData?.fullName === fullName
        if (verdict.status === "PARTIAL_MATCH") {
          return last3 === "103" && verdict.verifiedData?.fullName === partialMatchName(fullName)
        }
        return ["102", "104", "106", "107"].includes(last3) && verdict.verifiedData === undefined
      })
    )
    for (const n of ["Grace Hopper", "Acme", "Ada King Lovelace"]) assert.notStrictEqual(partialMatchName(n), n)
  })

  it.effect("layer() provides it: BeneficiaryVerification answers what the sandbox answers", () =>
    Effect.gen(function* () {
      const verification = yield* BeneficiaryVerification
      assert.strictEqual((yield* verification.verify(usCheck("123456105")))._tag, "InvalidAccount")
    }).pipe(Effect.provide(layer()))
  )

  it.effect("without the sandbox, the core's default answers UNSUPPORTED", () =>
    Effect.gen(function* () {
      const verification = yield* BeneficiaryVerification
      assert.deepStrictEqual(yield* verification.verify(usCheck("123456105")), {
        _tag: "Checked",
        status: "UNSUPPORTED"
      })
    })
  )
})
