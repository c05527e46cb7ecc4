import { assert, describe, it } from "@effect/vitest"
import type { AccountInfo, PaymentRail, Payout, PayoutStatus } from "@paycore/core"
import { Rail } from "@paycore/core"
import {
  decodeReference,
  LONG_PAYMENT_SECONDS,
  magicOutcome,
  RETURN_DELAY_SECONDS,
  SandboxRail,
  settlementSeconds,
  TRANSFER_TIMEOUT_SECONDS
} from "@paycore/sandbox"
import { Effect } from "effect"
import { TestClock } from "effect/testing"

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const at = (ms: number) => new Date(ms).toISOString()

const beneficiary = { beneficiaryType: "INDIVIDUAL", fullName: "Test User", countryOfResidence: "US" } as const

const us = (accountNumber: string): AccountInfo => ({
  accountType: "US_ACCOUNT",
  accountNumber,
  routingNumber: "021000021",
  beneficiary
})

const toAccount = (accountInfo: AccountInfo, rail: PaymentRail = "RTP"): Payout => ({
  transactionId: "Transaction:019542f5-b3e7-1d02-0000-000000000001",
  rail,
  amount: 1000,
  currency: "USD",
  destination: { kind: "ACCOUNT", accountInfo }
})

const toUma = (umaAddress: string, rail: PaymentRail = "LIGHTNING"): Payout => ({
  transactionId: "Transaction:019542f5-b3e7-1d02-0000-000000000002",
  rail,
  amount: 1000,
  currency: "USD",
  destination: { kind: "UMA", umaAddress }
})

/** A status without the hashes a settlement may carry (rail-on-chain.test.ts checks those). */
const bare = (s: PayoutStatus): PayoutStatus => (s._tag === "Settled" ? { _tag: s._tag, settledAt: s.settledAt } : s)

/** Submits at T0, then reads the status at each offset (ms after T0). */
const run = (payout: Payout, offsets: ReadonlyArray<number>, speedUp = 1) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const rail = yield* Rail
    const submitted = yield* rail.submit(payout)
    const statuses = []
    for (const offset of offsets) {
      yield* TestClock.setTime(T0 + offset)
      statuses.push(yield* rail.status(submitted.reference))
    }
    return { submitted, statuses }
  }).pipe(Effect.provide(SandboxRail({ speedUp })))

describe("SandboxRail timing", () => {
  const classes: ReadonlyArray<readonly [PaymentRail, number]> = [
    ["RTP", 5],
    ["FEDNOW", 5],
    ["SEPA_INSTANT", 5],
    ["UPI", 5],
    ["SPEI", 5],
    ["PIX", 5],
    ["FASTER_PAYMENTS", 5],
    ["PAYNOW", 5],
    ["FAST", 5],
    ["INSTAPAY", 5],
    ["BRE_B", 5],
    ["MOBILE_MONEY", 5],
    ["UNIONPAY", 5],
    ["INTERNAL", 5],
    ["LIGHTNING", 5],
    ["SOLANA", 5],
    ["BASE", 5],
    ["POLYGON", 5],
    ["PLASMA", 5],
    ["TRON", 5],
    ["RTGS", 1800],
    ["ETHEREUM", 900],
    ["BITCOIN", 3600],
    ["SEPA", 86_400],
    ["WIRE", 86_400],
    ["NEFT", 86_400],
    ["PESONET", 86_400],
    ["CIPS", 86_400],
    ["ACH", 172_800],
    ["BANK_TRANSFER", 172_800],
    ["ACH_COLOMBIA", 172_800],
    ["SWIFT", 259_200]
  ]

  it.effect.each(classes)("%s settles after %i s", ([rail, seconds]) =>
    Effect.gen(function* () {
      assert.strictEqual(settlementSeconds(rail), seconds)
      const due = seconds * 1000
      const { submitted, statuses } = yield* run(toAccount(us("123456789"), rail), [0, due - 1, due, due + 10_000])
      assert.strictEqual(submitted.expectedSettlementAt, at(T0 + due))
      assert.deepStrictEqual(statuses.map(bare), [
        { _tag: "Pending", checkAgainAt: at(T0 + due) },
        { _tag: "Pending", checkAgainAt: at(T0 + due) },
        { _tag: "Settled", settledAt: at(T0 + due) },
        { _tag: "Settled", settledAt: at(T0 + due) }
      ])
    })
  )

  it.effect("the service reports the undivided table value whatever speedUp is", () =>
    Effect.gen(function* () {
      const rail = yield* Rail
      assert.strictEqual(rail.settlementSeconds("SWIFT"), 259_200)
      assert.strictEqual(rail.settlementSeconds("RTGS"), 1800)
    }).pipe(Effect.provide(SandboxRail({ speedUp: 3600 })))
  )

  it.effect("speedUp divides every delay", () =>
    Effect.gen(function* () {
      // SWIFT: 3 days / 3600 = 72 s
      const swift = yield* run(toAccount(us("123456789"), "SWIFT"), [71_999, 72_000], 3600)
      assert.strictEqual(swift.submitted.expectedSettlementAt, at(T0 + 72_000))
      assert.deepStrictEqual(
        swift.statuses.map((s) => s._tag),
        ["Pending", "Settled"]
      )
      // 003: 6 minutes / 60 = 6 s
      const long = yield* run(toAccount(us("100000003"), "SWIFT"), [5_999, 6_000], 60)
      assert.deepStrictEqual(
        long.statuses.map((s) => s._tag),
        ["Pending", "Settled"]
      )
      // 005: settles at 5 s / 5 = 1 s, returned 5 min / 5 = 60 s later
      const returned = yield* run(toAccount(us("100000005")), [999, 1_000, 60_999, 61_000], 5)
      assert.deepStrictEqual(
        returned.statuses.map((s) => s._tag),
        ["Pending", "Settled", "Settled", "Returned"]
      )
    })
  )

  it("rejects a non-positive speedUp", () => {
    assert.throws(() => SandboxRail({ speedUp: 0 }))
    assert.throws(() => SandboxRail({ speedUp: Number.NaN }))
  })
})

describe("SandboxRail magic suffixes", () => {
  const due = 5_000

  it.effect("002: quote execution fails, refund succeeds", () =>
    Effect.gen(function* () {
      const { statuses } = yield* run(toAccount(us("000000002")), [0, due])
      assert.deepStrictEqual(statuses, [
        { _tag: "Pending", checkAgainAt: at(T0 + due) },
        { _tag: "Failed", reason: "QUOTE_EXECUTION_FAILED", refundSucceeds: true }
      ])
    })
  )

  it.effect("003: completes after about 6 minutes instead of the rail time", () =>
    Effect.gen(function* () {
      const long = LONG_PAYMENT_SECONDS * 1000
      const { submitted, statuses } = yield* run(toAccount(us("000000003")), [due, long - 1, long])
      assert.strictEqual(submitted.expectedSettlementAt, at(T0 + long))
      assert.deepStrictEqual(statuses, [
        { _tag: "Pending", checkAgainAt: at(T0 + long) },
        { _tag: "Pending", checkAgainAt: at(T0 + long) },
        { _tag: "Settled", settledAt: at(T0 + long) }
      ])
    })
  )

  it.effect("004: counterparty delivery fails", () =>
    Effect.gen(function* () {
      const { statuses } = yield* run(toAccount(us("000000004")), [due])
      assert.deepStrictEqual(statuses, [{ _tag: "Failed", reason: "ACCOUNT_CANNOT_RECEIVE", refundSucceeds: true }])
    })
  )

  it.effect("005: settles, then is returned after a further delay", () =>
    Effect.gen(function* () {
      const back = due + RETURN_DELAY_SECONDS * 1000
      const { statuses } = yield* run(toAccount(us("000000005")), [due, back - 1, back])
      assert.deepStrictEqual(statuses, [
        { _tag: "Settled", settledAt: at(T0 + due) },
        { _tag: "Settled", settledAt: at(T0 + due) },
        { _tag: "Returned", reason: "PAYOUT_RETURNED" }
      ])
    })
  )

  it.effect("006: user cancellation maps to ACCOUNT_INVALID", () =>
    Effect.gen(function* () {
      const { statuses } = yield* run(toAccount(us("000000006")), [due])
      assert.deepStrictEqual(statuses, [{ _tag: "Failed", reason: "ACCOUNT_INVALID", refundSucceeds: true }])
    })
  )

  it.effect("007: payout and refund fail", () =>
    Effect.gen(function* () {
      const { statuses } = yield* run(toAccount(us("000000007")), [due])
      assert.deepStrictEqual(statuses, [{ _tag: "Failed", reason: "QUOTE_EXECUTION_FAILED", refundSucceeds: false }])
    })
  )

  it.effect("008: limit exceeded", () =>
    Effect.gen(function* () {
      const { statuses } = yield* run(toAccount(us("000000008")), [due])
      assert.deepStrictEqual(statuses, [{ _tag: "Failed", reason: "LIMIT_EXCEEDED", refundSucceeds: true }])
    })
  )

  it.effect("009: compliance rejected", () =>
    Effect.gen(function* () {
      const { statuses } = yield* run(toAccount(us("000000009")), [due])
      assert.deepStrictEqual(statuses, [{ _tag: "Failed", reason: "COMPLIANCE_REJECTED", refundSucceeds: true }])
    })
  )

  it.effect.each(["123456789", "000000001", "000000010", "000000000"])("%s succeeds", (accountNumber) =>
    Effect.gen(function* () {
      const { statuses } = yield* run(toAccount(us(accountNumber)), [due])
      assert.deepStrictEqual(statuses, [{ _tag: "Settled", settledAt: at(T0 + due) }])
    })
  )

  it("reads the primary identifier of every account kind", () => {
    const account = (accountInfo: AccountInfo) => magicOutcome({ kind: "ACCOUNT", accountInfo })
    assert.strictEqual(account(us("12345002")), "002")
    assert.strictEqual(account({ accountType: "CLABE", clabeNumber: "032180000118359004", beneficiary }), "004")
    assert.strictEqual(account({ accountType: "IBAN", iban: "DE89370400440532013003", beneficiary }), "003")
    assert.strictEqual(
      account({
        accountType: "PIX",
        pixKey: "testuser.002@pix.com.br",
        pixKeyType: "EMAIL",
        taxId: "12345678900",
        beneficiary
      }),
      "002"
    )
    assert.strictEqual(
      account({ accountType: "PIX", pixKey: "11987654007", pixKeyType: "PHONE", taxId: "1", beneficiary }),
      "007"
    )
    assert.strictEqual(
      account({ accountType: "ETHEREUM_WALLET", address: "0x742d35Cc6634C0532925a3b844Bc454e4438f009" }),
      "009"
    )
    assert.strictEqual(
      account({ accountType: "SOLANA_WALLET", address: "7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLxyz" }),
      "000"
    )
    assert.strictEqual(account({ accountType: "LIGHTNING", lightningAddress: "alice008@wallet.example" }), "008")
    assert.strictEqual(account({ accountType: "LIGHTNING", invoice: "lnbc10u1pxyz005" }), "005")
    // a domain's digits never count
    assert.strictEqual(account({ accountType: "LIGHTNING", lightningAddress: "alice@pay002.example" }), "000")
    // internal transfers always succeed
    assert.strictEqual(magicOutcome({ kind: "INTERNAL", accountId: "InternalAccount:x-000000000002" }), "000")
  })

  it.effect("sandbox UMA receivers pick their outcome by name", () =>
    Effect.gen(function* () {
      const success = yield* run(toUma("$success.usd@sandbox.uma.money"), [due])
      assert.deepStrictEqual(success.statuses.map(bare), [{ _tag: "Settled", settledAt: at(T0 + due) }])
      const long = LONG_PAYMENT_SECONDS * 1000
      const pending = yield* run(toUma("$pending.long.usd@sandbox.uma.money"), [due, long])
      assert.deepStrictEqual(
        pending.statuses.map((s) => s._tag),
        ["Pending", "Settled"]
      )
      const compliance = yield* run(toUma("$fail.compliance.usd@sandbox.uma.money"), [due])
      assert.deepStrictEqual(compliance.statuses, [
        { _tag: "Failed", reason: "COMPLIANCE_REJECTED", refundSucceeds: true }
      ])
      // other counterparties: last 3 digits of the user part
      const other = yield* run(toUma("$bob004@aurorapay.example"), [due])
      assert.deepStrictEqual(other.statuses, [
        { _tag: "Failed", reason: "ACCOUNT_CANNOT_RECEIVE", refundSucceeds: true }
      ])
      assert.strictEqual(magicOutcome({ kind: "UMA", umaAddress: "$Success.EUR@Sandbox.UMA.money" }), "000")
    })
  )
})

describe("SandboxRail references", () => {
  it.effect("status survives a restart: a fresh layer derives it from the reference", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const submitted = yield* Rail.use((rail) => rail.submit(toAccount(us("000000005"), "SWIFT"))).pipe(
        Effect.provide(SandboxRail({ speedUp: 3600 }))
      )
      const decoded = decodeReference(submitted.reference)
      assert.strictEqual(decoded?.rail, "SWIFT")
      assert.strictEqual(decoded?.outcome, "005")
      assert.strictEqual(decoded?.submittedAtMs, T0)

      // "restart": a new layer with an empty map (and another speedUp: the reference keeps the original)
      const statusAfterRestart = Rail.use((rail) => rail.status(submitted.reference)).pipe(
        Effect.provide(SandboxRail({ speedUp: 1 }))
      )
      yield* TestClock.setTime(T0 + 71_999)
      assert.strictEqual((yield* statusAfterRestart)._tag, "Pending")
      yield* TestClock.setTime(T0 + 72_000)
      assert.deepStrictEqual(yield* statusAfterRestart, { _tag: "Settled", settledAt: at(T0 + 72_000) })
      yield* TestClock.setTime(T0 + 72_000 + 84)
      assert.deepStrictEqual(yield* statusAfterRestart, { _tag: "Returned", reason: "PAYOUT_RETURNED" })
    })
  )

  it.effect("an unknown reference fails with a terminal RailError", () =>
    Effect.gen(function* () {
      const rail = yield* Rail
      for (const reference of ["nope", "sbx:NOT_A_RAIL:1:000:1:t", "sbx:ACH:1:001:1:t", "sbx:ACH:1:000:0:t"]) {
        const error = yield* Effect.flip(rail.status(reference))
        assert.strictEqual(error._tag, "RailError")
        assert.isFalse(error.retryable)
      }
    }).pipe(Effect.provide(SandboxRail()))
  )

  it.effect("references are distinct per transaction", () =>
    Effect.gen(function* () {
      const rail = yield* Rail
      const a = yield* rail.submit(toAccount(us("123")))
      const b = yield* rail.submit({ ...toAccount(us("123")), transactionId: "Transaction:other" })
      assert.notStrictEqual(a.reference, b.reference)
    }).pipe(Effect.provide(SandboxRail()))
  )

  it.effect(
    "WH-07: a payout is cancellable until the rail decides it (ACH: two days), then TooLate; unknown fails",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const rail = yield* Rail
        const submitted = yield* rail.submit(toAccount(us("123456789"), "ACH"))
        assert.deepStrictEqual(yield* rail.cancel!(submitted.reference), { _tag: "Cancelled" })
        yield* TestClock.adjust(settlementSeconds("ACH") * 1000 - 1)
        assert.deepStrictEqual(yield* rail.cancel!(submitted.reference), { _tag: "Cancelled" })
        yield* TestClock.adjust(1)
        assert.deepStrictEqual(yield* rail.cancel!(submitted.reference), { _tag: "TooLate" })
        const unknown = yield* Effect.flip(rail.cancel!("nope"))
        assert.isFalse(unknown.retryable)
      }).pipe(Effect.provide(SandboxRail()))
  )
})

describe("SandboxRail transfers (SB-07): the transfer table, not the payout one", () => {
  const transfer = (accountNumber: string, direction: "IN" | "OUT"): Payout => ({
    ...toAccount(us(accountNumber), "ACH"),
    transfer: direction
  })

  it.effect("002 and 003 are refused at submission (nothing to poll); a payout to the same account is submitted", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const rail = yield* Rail
      for (const [suffix, direction, reason] of [
        ["002", "IN", "ACCOUNT_CANNOT_RECEIVE"],
        ["002", "OUT", "QUOTE_EXECUTION_FAILED"],
        ["003", "IN", "ACCOUNT_INVALID"],
        ["003", "OUT", "ACCOUNT_INVALID"]
      ] as const) {
        const refused = yield* Effect.flip(rail.submit(transfer(`5550001${suffix}`, direction)))
        assert.deepStrictEqual([refused.retryable, refused.reason], [false, reason], `${suffix} ${direction}`)
      }
      const payout = yield* rail.submit(toAccount(us("5550001003"), "ACH"))
      assert.strictEqual(decodeReference(payout.reference)?.outcome, "003")
    }).pipe(Effect.provide(SandboxRail()))
  )

  it.effect("005 stays pending TRANSFER_TIMEOUT_SECONDS, then fails; 004 fails at the rail time; others settle", () =>
    Effect.gen(function* () {
      const slow = yield* run(transfer("5550001005", "IN"), [
        TRANSFER_TIMEOUT_SECONDS * 1000 - 1,
        TRANSFER_TIMEOUT_SECONDS * 1000
      ])
      assert.strictEqual(slow.statuses[0]?._tag, "Pending")
      assert.deepStrictEqual(slow.statuses[1], {
        _tag: "Failed",
        reason: "ACCOUNT_CANNOT_RECEIVE",
        refundSucceeds: true
      })
      const ach = settlementSeconds("ACH") * 1000
      const rejected = yield* run(transfer("5550001004", "OUT"), [ach])
      assert.deepStrictEqual(rejected.statuses[0], {
        _tag: "Failed",
        reason: "ACCOUNT_CANNOT_RECEIVE",
        refundSucceeds: true
      })
      for (const suffix of ["000", "006", "007", "008", "009"]) {
        const ok = yield* run(transfer(`5550001${suffix}`, "OUT"), [ach])
        assert.strictEqual(ok.statuses[0]?._tag, "Settled", suffix)
      }
    })
  )
})
