import { assert, describe, it } from "@effect/vitest"
import { layer as memoryStore } from "@paycore/store-memory"
import { Effect, Exit, Layer } from "effect"
import { systemAccount } from "../src/ledger/model.ts"
import { Ledger } from "../src/ledger/service.ts"
import { Ids } from "../src/ports/ids.ts"
import { Store } from "../src/ports/store.ts"
import { balance, ledgerViolations, startClock } from "./fixtures.ts"

const env = Layer.mergeAll(memoryStore, Ids.layerSeeded(1))
const alice = "InternalAccount:00000000-0000-7000-8000-00000000000a"
const bob = "InternalAccount:00000000-0000-7000-8000-00000000000b"
const deposits = systemAccount("deposits", "USD")
const payouts = systemAccount("payouts", "USD")

const fund = (account: string, amount: number) =>
  Ledger.record(`fund-${account}-${amount}`, [{ debit: deposits, credit: account, amount, currency: "USD" }], "POSTED")

describe("ledger", () => {
  it.effect("a posted transfer moves money and keeps every currency summing to zero", () =>
    Effect.gen(function* () {
      yield* startClock
      yield* fund(alice, 10_000)
      const a = yield* balance(alice, "USD")
      assert.deepStrictEqual(a, { posted: 10_000, pendingDebits: 0, pendingCredits: 0, available: 10_000 })
      assert.strictEqual((yield* balance(deposits, "USD")).posted, -10_000)
      assert.deepStrictEqual(yield* ledgerViolations, [])
    }).pipe(Effect.provide(env))
  )

  it.effect("a hold reserves money: available drops, posted stays; posting moves it; voiding releases it", () =>
    Effect.gen(function* () {
      yield* startClock
      yield* fund(alice, 10_000)
      const transfers = yield* Ledger.record(
        "tx1",
        [{ debit: alice, credit: payouts, amount: 4_000, currency: "USD" }],
        "PENDING"
      )
      assert.strictEqual(transfers.length, 1)
      assert.strictEqual(transfers[0]!.id, "tx1#1")
      assert.deepStrictEqual(yield* balance(alice, "USD"), {
        posted: 10_000,
        pendingDebits: 4_000,
        pendingCredits: 0,
        available: 6_000
      })
      assert.strictEqual((yield* balance(payouts, "USD")).pendingCredits, 4_000)
      assert.deepStrictEqual(yield* ledgerViolations, [])

      assert.strictEqual(yield* Ledger.resolve("tx1", "POSTED"), 1)
      assert.strictEqual(yield* Ledger.resolve("tx1", "POSTED"), 0, "resolving twice does nothing")
      assert.deepStrictEqual(yield* balance(alice, "USD"), {
        posted: 6_000,
        pendingDebits: 0,
        pendingCredits: 0,
        available: 6_000
      })
      assert.strictEqual((yield* balance(payouts, "USD")).posted, 4_000)

      yield* Ledger.record("tx2", [{ debit: alice, credit: payouts, amount: 1_000, currency: "USD" }], "PENDING")
      assert.strictEqual(yield* Ledger.resolve("tx2", "VOIDED"), 1)
      assert.deepStrictEqual(yield* balance(alice, "USD"), {
        posted: 6_000,
        pendingDebits: 0,
        pendingCredits: 0,
        available: 6_000
      })
      const t2 = yield* Ledger.transfersOf("tx2")
      assert.deepStrictEqual(
        t2.map((t) => t.state),
        ["VOIDED"]
      )
      assert.deepStrictEqual(yield* ledgerViolations, [])
    }).pipe(Effect.provide(env))
  )

  it.effect("refuses a debit beyond the available balance (holds count) and records nothing", () =>
    Effect.gen(function* () {
      yield* startClock
      yield* fund(alice, 5_000)
      yield* Ledger.record("hold", [{ debit: alice, credit: payouts, amount: 3_000, currency: "USD" }], "PENDING")
      const exit = yield* Effect.exit(
        Ledger.record(
          "too-much",
          [
            { debit: alice, credit: payouts, amount: 1_500, currency: "USD" },
            { debit: alice, credit: systemAccount("fees", "USD"), amount: 600, currency: "USD" }
          ],
          "POSTED"
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      const error = yield* Effect.flip(
        Ledger.record("too-much", [{ debit: alice, credit: bob, amount: 2_001, currency: "USD" }], "POSTED")
      )
      assert.strictEqual(error._tag, "Refused")
      if (error._tag === "Refused") {
        assert.strictEqual(error.code, "INSUFFICIENT_FUNDS")
        assert.deepStrictEqual(error.details, { accountId: alice, currency: "USD", available: 2_000, requested: 2_001 })
      }
      assert.deepStrictEqual(yield* Ledger.transfersOf("too-much"), [])
      assert.deepStrictEqual(yield* balance(alice, "USD"), {
        posted: 5_000,
        pendingDebits: 3_000,
        pendingCredits: 0,
        available: 2_000
      })
      // Exactly the available amount is fine.
      yield* Ledger.record("exact", [{ debit: alice, credit: bob, amount: 2_000, currency: "USD" }], "POSTED")
      assert.strictEqual((yield* balance(alice, "USD")).available, 0)
      assert.deepStrictEqual(yield* ledgerViolations, [])
    }).pipe(Effect.provide(env))
  )

  it.effect("system accounts may go negative (deposits, fx liquidity)", () =>
    Effect.gen(function* () {
      yield* startClock
      yield* Ledger.record(
        "fx",
        [{ debit: systemAccount("fx", "EUR"), credit: bob, amount: 920, currency: "EUR" }],
        "POSTED"
      )
      assert.strictEqual((yield* balance(systemAccount("fx", "EUR"), "EUR")).posted, -920)
      assert.deepStrictEqual(yield* ledgerViolations, [])
    }).pipe(Effect.provide(env))
  )

  it.effect("transfer ids are numbered per reference; zero legs are skipped; malformed legs are defects", () =>
    Effect.gen(function* () {
      yield* startClock
      yield* fund(alice, 100)
      yield* Ledger.record("r", [{ debit: alice, credit: bob, amount: 10, currency: "USD" }], "POSTED")
      const second = yield* Ledger.record(
        "r",
        [
          { debit: alice, credit: bob, amount: 0, currency: "USD" },
          { debit: alice, credit: bob, amount: 5, currency: "USD" }
        ],
        "POSTED"
      )
      assert.deepStrictEqual(
        second.map((t) => t.id),
        ["r#2"]
      )
      const defect = yield* Effect.exit(
        Ledger.record("bad", [{ debit: alice, credit: alice, amount: 1, currency: "USD" }], "POSTED")
      )
      assert.isTrue(Exit.isFailure(defect))
      const fractional = yield* Effect.exit(
        Ledger.record("bad", [{ debit: alice, credit: bob, amount: 1.5, currency: "USD" }], "POSTED")
      )
      assert.isTrue(Exit.isFailure(fractional))
      assert.deepStrictEqual(yield* ledgerViolations, [])
    }).pipe(Effect.provide(env))
  )

  it.effect("inside a failed store transaction nothing is kept", () =>
    Effect.gen(function* () {
      yield* startClock
      const store = yield* Store
      yield* fund(alice, 1_000)
      yield* store
        .transaction(
          Effect.gen(function* () {
            yield* Ledger.record("t", [{ debit: alice, credit: payouts, amount: 400, currency: "USD" }], "PENDING")
            return yield* Ledger.record(
              "t2",
              [{ debit: alice, credit: payouts, amount: 700, currency: "USD" }],
              "PENDING"
            )
          })
        )
        .pipe(Effect.flip)
      assert.deepStrictEqual(yield* balance(alice, "USD"), {
        posted: 1_000,
        pendingDebits: 0,
        pendingCredits: 0,
        available: 1_000
      })
      assert.deepStrictEqual(yield* Ledger.transfersOf("t"), [])
    }).pipe(Effect.provide(env))
  )
})
