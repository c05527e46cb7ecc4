import { assert } from "@effect/vitest"
import { type LedgerTransfer, Store } from "@paycore/core"
import { Effect } from "effect"
import { currencyTotals } from "../ledger-invariants.ts"
import { type It, NOW, newId, plusSeconds, unique } from "./ids.ts"
import { balance, ledgerAccount, systemLedgerAccount, transfer } from "./records.ts"

export const ledgerTests = (it: It) => {
  it.effect(
    "record POSTED moves both balances; balances come back in the order asked, zeros for unknown accounts",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const a = ledgerAccount()
        const b = ledgerAccount()
        const ref = newId("Transaction")
        const t1 = transfer(ref, 1, a, b, 1_000, "POSTED")
        const t2 = transfer(ref, 2, b, a, 300, "POSTED")
        yield* store.transaction(store.ledger.record([t1]))
        assert.deepStrictEqual(
          yield* store.ledger.balances([
            { account: a, currency: "USD" },
            { account: b, currency: "USD" }
          ]),
          [balance(a, "USD", -1_000), balance(b, "USD", 1_000)]
        )
        yield* store.transaction(store.ledger.record([t2]))
        const unknown = ledgerAccount()
        assert.deepStrictEqual(
          yield* store.ledger.balances([
            { account: b, currency: "USD" },
            { account: unknown, currency: "EUR" },
            { account: a, currency: "USD" }
          ]),
          [balance(b, "USD", 700), balance(unknown, "EUR", 0), balance(a, "USD", -700)]
        )
        assert.deepStrictEqual(yield* store.ledger.balances([]), [])
        assert.deepStrictEqual(yield* store.ledger.transfers(ref), [t1, t2])
        assert.deepStrictEqual(yield* store.ledger.transfers(newId("Transaction")), [])

        // Large amounts stay exact numbers.
        const big = 4_000_000_000_000_000
        const c = ledgerAccount()
        const ref2 = newId("Transaction")
        yield* store.transaction(
          store.ledger.record([transfer(ref2, 1, a, c, big, "POSTED"), transfer(ref2, 2, a, c, big, "POSTED")])
        )
        assert.deepStrictEqual(
          yield* store.ledger.balances([
            { account: c, currency: "USD" },
            { account: a, currency: "USD" }
          ]),
          [balance(c, "USD", 2 * big), balance(a, "USD", -700 - 2 * big)]
        )
      })
  )

  it.effect("record PENDING holds: posted stays, pending debits and credits grow (available < total)", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const deposits = systemLedgerAccount("deposits", "USD")
      const alice = ledgerAccount()
      const payouts = systemLedgerAccount("payouts", "USD")
      yield* store.transaction(
        store.ledger.record([transfer(newId("Transaction"), 1, deposits, alice, 10_000, "POSTED")])
      )
      const ref = newId("Transaction")
      const hold = transfer(ref, 1, alice, payouts, 4_000, "PENDING")
      yield* store.transaction(store.ledger.record([hold]))
      const [a, p] = yield* store.ledger.balances([
        { account: alice, currency: "USD" },
        { account: payouts, currency: "USD" }
      ])
      assert.deepStrictEqual(a, balance(alice, "USD", 10_000, 4_000, 0))
      assert.deepStrictEqual(p, balance(payouts, "USD", 0, 0, 4_000))
      assert.strictEqual(a!.posted - a!.pendingDebits, 6_000, "available: posted minus held")
      assert.strictEqual(a!.posted, 10_000, "total: posted")
      assert.deepStrictEqual(yield* store.ledger.transfers(ref), [hold])
    })
  )

  it.effect(
    "resolve POSTED moves held money, VOIDED releases it; resolving again (or a non-pending transfer) is a no-op",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const deposits = systemLedgerAccount("deposits", "USD")
        const alice = ledgerAccount()
        const payouts = systemLedgerAccount("payouts", "USD")
        const both = [
          { account: alice, currency: "USD" },
          { account: payouts, currency: "USD" }
        ]
        const fund = transfer(newId("Transaction"), 1, deposits, alice, 10_000, "POSTED")
        const ref1 = newId("Transaction")
        const ref2 = newId("Transaction")
        const h1 = transfer(ref1, 1, alice, payouts, 4_000, "PENDING")
        const h2 = transfer(ref1, 2, alice, payouts, 500, "PENDING")
        // An id that does not follow the `<reference>#<n>` convention is resolved by id all the same.
        const h3: LedgerTransfer = { ...transfer(ref2, 1, alice, payouts, 1_000, "PENDING"), id: `${ref2}:hold` }
        yield* store.transaction(store.ledger.record([fund, h1, h2, h3]))
        assert.deepStrictEqual(yield* store.ledger.balances(both), [
          balance(alice, "USD", 10_000, 5_500, 0),
          balance(payouts, "USD", 0, 0, 5_500)
        ])

        yield* store.transaction(store.ledger.resolve([h1.id], "POSTED"))
        const afterPost = [balance(alice, "USD", 6_000, 1_500, 0), balance(payouts, "USD", 4_000, 0, 1_500)]
        assert.deepStrictEqual(yield* store.ledger.balances(both), afterPost)
        assert.deepStrictEqual(yield* store.ledger.transfers(ref1), [{ ...h1, state: "POSTED" }, h2])

        // Twice, or with the other outcome: nothing moves. Unknown ids and posted transfers are ignored.
        yield* store.transaction(store.ledger.resolve([h1.id], "POSTED"))
        yield* store.transaction(store.ledger.resolve([h1.id], "VOIDED"))
        yield* store.transaction(store.ledger.resolve([fund.id, `${ref1}#99`, `unknown-${unique()}`], "VOIDED"))
        assert.deepStrictEqual(yield* store.ledger.balances(both), afterPost)
        assert.deepStrictEqual(yield* store.ledger.transfers(ref1), [{ ...h1, state: "POSTED" }, h2])
        assert.deepStrictEqual(yield* store.ledger.transfers(fund.reference), [fund])

        yield* store.transaction(store.ledger.resolve([h2.id, h3.id], "VOIDED"))
        const afterVoid = [balance(alice, "USD", 6_000, 0, 0), balance(payouts, "USD", 4_000, 0, 0)]
        assert.deepStrictEqual(yield* store.ledger.balances(both), afterVoid)
        assert.deepStrictEqual(yield* store.ledger.transfers(ref1), [
          { ...h1, state: "POSTED" },
          { ...h2, state: "VOIDED" }
        ])
        assert.deepStrictEqual(yield* store.ledger.transfers(ref2), [{ ...h3, state: "VOIDED" }])
        yield* store.transaction(store.ledger.resolve([h2.id, h3.id], "POSTED"))
        yield* store.transaction(store.ledger.resolve([], "POSTED"))
        assert.deepStrictEqual(yield* store.ledger.balances(both), afterVoid)
        assert.deepStrictEqual(yield* store.ledger.transfers(ref2), [{ ...h3, state: "VOIDED" }])
      })
  )

  it.effect("transfers(reference) returns them oldest first (recording order), across record calls", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const a = ledgerAccount()
      const b = ledgerAccount()
      const ref = newId("Transaction")
      const first = Array.from({ length: 9 }, (_, i) => transfer(ref, i + 1, a, b, 10 + i, "POSTED"))
      // `#10` and `#11` sort before `#2` as strings: the order is the recording order, not the id's.
      const second = [
        { ...transfer(ref, 10, b, a, 5, "PENDING"), createdAt: plusSeconds(NOW, 1) },
        { ...transfer(ref, 11, a, b, 7, "POSTED"), createdAt: plusSeconds(NOW, 1) }
      ]
      const unrelated = transfer(`${ref}:refund`, 1, a, b, 1, "POSTED")
      yield* store.transaction(store.ledger.record(first))
      yield* store.transaction(store.ledger.record([unrelated, ...second]))
      assert.deepStrictEqual(yield* store.ledger.transfers(ref), [...first, ...second])
      assert.deepStrictEqual(yield* store.ledger.transfers(`${ref}:refund`), [unrelated])
    })
  )

  it.effect(
    "allBalances lists every moved account; per currency posted sums to zero and pending debits equal credits",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const usdIn = systemLedgerAccount("deposits", "USD")
        const eurIn = systemLedgerAccount("deposits", "EUR")
        const fx = systemLedgerAccount("fx", "EUR")
        const alice = ledgerAccount()
        const aliceEur = ledgerAccount()
        const ref = newId("Transaction")
        yield* store.transaction(
          store.ledger.record([
            transfer(ref, 1, usdIn, alice, 5_000, "POSTED"),
            transfer(ref, 2, eurIn, aliceEur, 7_000, "POSTED", "EUR"),
            transfer(ref, 3, aliceEur, fx, 2_500, "PENDING", "EUR"),
            transfer(ref, 4, alice, usdIn, 1_000, "PENDING")
          ])
        )
        const all = yield* store.ledger.allBalances()
        const byAccount = new Map(all.map((b) => [b.account, b]))
        assert.deepStrictEqual(byAccount.get(usdIn), balance(usdIn, "USD", -5_000, 0, 1_000))
        assert.deepStrictEqual(byAccount.get(alice), balance(alice, "USD", 5_000, 1_000, 0))
        assert.deepStrictEqual(byAccount.get(eurIn), balance(eurIn, "EUR", -7_000))
        assert.deepStrictEqual(byAccount.get(aliceEur), balance(aliceEur, "EUR", 7_000, 2_500, 0))
        assert.deepStrictEqual(byAccount.get(fx), balance(fx, "EUR", 0, 0, 2_500))
        assert.strictEqual(byAccount.size, all.length, "one balance per account")
        const totals = currencyTotals(all)
        assert.includeMembers([...totals.keys()], ["USD", "EUR"])
        for (const [code, sum] of totals) {
          assert.strictEqual(sum.posted, 0, `${code}: posted sums to zero`)
          assert.strictEqual(sum.pendingDebits, sum.pendingCredits, `${code}: pending debits equal pending credits`)
        }
      })
  )

  it.effect(
    "issue 18: accountTransfers pages an account's transfers newest first, both sides, with its posted balance",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const a = ledgerAccount()
        const b = ledgerAccount()
        const system = systemLedgerAccount("deposits", "USD")
        const ref = newId("Transaction")
        const other = newId("Transaction")
        const deposit = transfer(ref, 1, system, a, 10_000, "POSTED")
        const hold = transfer(ref, 2, a, b, 3_000, "PENDING")
        const elsewhere = transfer(other, 1, system, b, 500, "POSTED")
        const spent = transfer(ref, 3, a, system, 1_000, "POSTED")
        const voided = transfer(`${ref}:refund`, 1, a, b, 2_000, "PENDING")
        yield* store.transaction(store.ledger.record([deposit, hold]))
        yield* store.transaction(store.ledger.record([elsewhere]))
        yield* store.transaction(store.ledger.record([spent, voided]))
        yield* store.transaction(store.ledger.resolve([hold.id], "POSTED"))
        yield* store.transaction(store.ledger.resolve([voided.id], "VOIDED"))

        // Newest first; the account's side of each, its current state; posted through the newest: 10,000 − 3,000 − 1,000.
        const all = yield* store.ledger.accountTransfers(a, 10)
        assert.deepStrictEqual(
          all.transfers.map((t) => t.transfer),
          [{ ...voided, state: "VOIDED" }, spent, { ...hold, state: "POSTED" }, deposit]
        )
        assert.isFalse(all.hasMore)
        assert.strictEqual(all.postedThrough, 6_000)
        const positions = all.transfers.map((t) => t.position)
        assert.deepStrictEqual(
          [...positions].sort((x, y) => y - x),
          positions
        )
        assert.strictEqual(new Set(positions).size, positions.length)

        // Paged by position: two, then the rest, each with the posted balance through its own newest.
        const first = yield* store.ledger.accountTransfers(a, 2)
        assert.deepStrictEqual(first.transfers, all.transfers.slice(0, 2))
        assert.isTrue(first.hasMore)
        assert.strictEqual(first.postedThrough, 6_000)
        const rest = yield* store.ledger.accountTransfers(a, 2, first.transfers[1]!.position)
        assert.deepStrictEqual(rest.transfers, all.transfers.slice(2))
        assert.isFalse(rest.hasMore)
        assert.strictEqual(rest.postedThrough, 7_000)
        const none = yield* store.ledger.accountTransfers(a, 2, all.transfers[3]!.position)
        assert.deepStrictEqual(none, { transfers: [], hasMore: false, postedThrough: 0 })

        // The credit side too; an account that never moved has none.
        const ofB = yield* store.ledger.accountTransfers(b, 10)
        assert.deepStrictEqual(
          ofB.transfers.map((t) => t.transfer.id),
          [voided.id, elsewhere.id, hold.id]
        )
        assert.strictEqual(ofB.postedThrough, 3_500)
        assert.deepStrictEqual(yield* store.ledger.accountTransfers(ledgerAccount(), 10), {
          transfers: [],
          hasMore: false,
          postedThrough: 0
        })
      })
  )

  it.effect("issue 18: accountTransfers sees nothing of a store transaction that rolled back", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const a = ledgerAccount()
      const ref = newId("Transaction")
      const kept = transfer(ref, 1, systemLedgerAccount("deposits", "USD"), a, 100, "POSTED")
      yield* store.transaction(store.ledger.record([kept]))
      yield* Effect.exit(
        store.transaction(
          Effect.andThen(
            store.ledger.record([transfer(ref, 2, a, ledgerAccount(), 50, "POSTED")]),
            Effect.fail("rolled back" as const)
          )
        )
      )
      const after = yield* store.ledger.accountTransfers(a, 10)
      assert.deepStrictEqual(
        after.transfers.map((t) => t.transfer),
        [kept]
      )
      assert.strictEqual(after.postedThrough, 100)
    })
  )
}
