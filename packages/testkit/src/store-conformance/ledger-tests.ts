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
    "recordIfAvailable writes only when every debit is available (posted minus held), answering the balances before; " +
      "one short debit writes nothing; calls in one transaction see each other's holds",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const deposits = systemLedgerAccount("deposits", "USD")
        const payouts = systemLedgerAccount("payouts", "USD")
        const alice = ledgerAccount()
        const bob = ledgerAccount()
        const unknown = ledgerAccount()
        const accounts = [
          { account: alice, currency: "USD" },
          { account: bob, currency: "USD" }
        ]
        yield* store.transaction(
          store.ledger.record([
            transfer(newId("Transaction"), 1, deposits, alice, 10_000, "POSTED"),
            transfer(newId("Transaction"), 1, deposits, bob, 1_000, "POSTED")
          ])
        )
        const ref = newId("Transaction")
        const hold = transfer(ref, 1, alice, payouts, 6_000, "PENDING")
        const first = yield* store.transaction(
          store.ledger.recordIfAvailable([hold], [{ account: alice, currency: "USD", amount: 6_000 }])
        )
        assert.deepStrictEqual(first, { recorded: true, balances: [balance(alice, "USD", 10_000)], totals: [] })
        assert.deepStrictEqual(yield* store.ledger.transfers(ref), [hold])

        // 4,000 available: 4,001 is refused, nothing written; the balance answered is the one that refused it.
        const over = newId("Transaction")
        const refused = yield* store.transaction(
          store.ledger.recordIfAvailable(
            [transfer(over, 1, alice, payouts, 4_001, "POSTED")],
            [{ account: alice, currency: "USD", amount: 4_001 }]
          )
        )
        assert.deepStrictEqual(refused, {
          recorded: false,
          balances: [balance(alice, "USD", 10_000, 6_000)],
          totals: []
        })
        assert.deepStrictEqual(yield* store.ledger.transfers(over), [])

        // Two debits, the second short: neither account moves.
        const both = newId("Transaction")
        const split = yield* store.transaction(
          store.ledger.recordIfAvailable(
            [transfer(both, 1, alice, payouts, 100, "PENDING"), transfer(both, 2, bob, payouts, 1_001, "PENDING")],
            [
              { account: alice, currency: "USD", amount: 100 },
              { account: bob, currency: "USD", amount: 1_001 }
            ]
          )
        )
        assert.deepStrictEqual(split, {
          recorded: false,
          balances: [balance(alice, "USD", 10_000, 6_000), balance(bob, "USD", 1_000)],
          totals: []
        })
        assert.deepStrictEqual(yield* store.ledger.transfers(both), [])
        assert.deepStrictEqual(yield* store.ledger.balances(accounts), [
          balance(alice, "USD", 10_000, 6_000),
          balance(bob, "USD", 1_000)
        ])

        // An account never written has nothing available: zeros answered, refused.
        const none = yield* store.transaction(
          store.ledger.recordIfAvailable(
            [transfer(newId("Transaction"), 1, unknown, payouts, 1, "POSTED")],
            [{ account: unknown, currency: "EUR", amount: 1 }]
          )
        )
        assert.deepStrictEqual(none, { recorded: false, balances: [balance(unknown, "EUR", 0)], totals: [] })

        // In one transaction the second call sees the first's hold: 3,000 then 1,000 go, the last 1 is refused.
        const [a, b, c] = yield* store.transaction(
          Effect.forEach([3_000, 1_000, 1], (amount) =>
            store.ledger.recordIfAvailable(
              [transfer(newId("Transaction"), 1, alice, payouts, amount, "PENDING")],
              [{ account: alice, currency: "USD", amount }]
            )
          )
        )
        assert.deepStrictEqual(
          [a, b, c].map((r) => [r!.recorded, r!.balances[0]!.pendingDebits]),
          [
            [true, 6_000],
            [true, 9_000],
            [false, 10_000]
          ]
        )

        // Without debits it is `record`.
        const plain = newId("Transaction")
        const deposit = transfer(plain, 1, deposits, bob, 500, "POSTED")
        assert.deepStrictEqual(yield* store.transaction(store.ledger.recordIfAvailable([deposit], [])), {
          recorded: true,
          balances: [],
          totals: []
        })
        assert.deepStrictEqual(yield* store.ledger.balances(accounts), [
          balance(alice, "USD", 10_000, 10_000),
          balance(bob, "USD", 1_500)
        ])
      })
  )

  it.effect(
    "recordIfAvailable with counts: added only with the transfers, only while each stays within its cap (equal is " +
      "allowed), answering the totals before; a key never counted starts at 0; calls in one transaction see each " +
      "other's counts",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const deposits = systemLedgerAccount("deposits", "USD")
        const network = systemLedgerAccount("card-network", "USD")
        const alice = ledgerAccount()
        yield* store.transaction(
          store.ledger.record([transfer(newId("Transaction"), 1, deposits, alice, 1_000, "POSTED")])
        )
        const spend = `count:spend:${unique()}`
        const count = `count:count:${unique()}`
        const purchase = (amount: number, cap: number | undefined) =>
          store.ledger.recordIfAvailable(
            [transfer(newId("CardTransaction"), 1, alice, network, amount, "PENDING")],
            [{ account: alice, currency: "USD", amount }],
            [
              { key: spend, amount, cap },
              { key: count, amount: 1, cap: 3 }
            ]
          )
        const totals = Effect.all([store.counters.get(spend), store.counters.get(count)])

        const first = yield* store.transaction(purchase(300, 500))
        assert.deepStrictEqual(first, { recorded: true, balances: [balance(alice, "USD", 1_000)], totals: [0, 0] })
        assert.deepStrictEqual(yield* totals, [300, 1])

        // Over the spend cap (300 + 201 > 500) with the money there: nothing written, neither count moves.
        const over = yield* store.transaction(purchase(201, 500))
        assert.deepStrictEqual(over, {
          recorded: false,
          balances: [balance(alice, "USD", 1_000, 300)],
          totals: [300, 1]
        })
        assert.deepStrictEqual(yield* totals, [300, 1])
        assert.deepStrictEqual(yield* store.ledger.balances([{ account: alice, currency: "USD" }]), [
          balance(alice, "USD", 1_000, 300)
        ])

        // Within the caps but short of money (700 available): nothing counted either.
        const short = yield* store.transaction(purchase(701, undefined))
        assert.deepStrictEqual([short.recorded, short.totals], [false, [300, 1]])
        assert.deepStrictEqual(yield* totals, [300, 1])

        // In one transaction: 200 reaches the cap exactly (allowed), then the count's cap of 3 refuses the next.
        const [a, b] = yield* store.transaction(Effect.all([purchase(200, 500), purchase(1, undefined)]))
        assert.deepStrictEqual(
          [a, b].map((r) => [r!.recorded, r!.totals]),
          [
            [true, [300, 1]],
            [true, [500, 2]]
          ]
        )
        const third = yield* store.transaction(purchase(1, undefined))
        assert.deepStrictEqual([third.recorded, third.totals], [false, [501, 3]])
        assert.deepStrictEqual(yield* totals, [501, 3])
        assert.deepStrictEqual(yield* store.ledger.balances([{ account: alice, currency: "USD" }]), [
          balance(alice, "USD", 1_000, 501)
        ])

        // Counts without debits (nothing to hold): added while within their caps.
        const solo = `count:solo:${unique()}`
        const counted = (cap: number) => store.ledger.recordIfAvailable([], [], [{ key: solo, amount: 2, cap }])
        assert.deepStrictEqual(yield* store.transaction(counted(2)), { recorded: true, balances: [], totals: [0] })
        assert.deepStrictEqual(yield* store.transaction(counted(3)), { recorded: false, balances: [], totals: [2] })
        assert.strictEqual(yield* store.counters.get(solo), 2)
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

  it.effect(
    "resolve takes any number of transfers at once, some of them not pending, and moves each pending one once",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const deposits = systemLedgerAccount("deposits", "USD")
        const alice = ledgerAccount()
        const bob = ledgerAccount()
        const accounts = [alice, bob].map((account) => ({ account, currency: "USD" }))
        yield* store.transaction(
          store.ledger.record([transfer(newId("Transaction"), 1, deposits, alice, 10_000_000, "POSTED")])
        )
        // Holds of 2, 4, 8, ... cents (22 in all), so that any wrong selection shows in the sums; resolved in calls of
        // 1 to 7 (a store may have a statement for a few and another for more).
        let next = 1
        let posted = 0
        for (const count of [1, 2, 3, 4, 5, 7]) {
          const ref = newId("Transaction")
          const holds = Array.from({ length: count }, (_, i) =>
            transfer(ref, i + 1, alice, bob, 2 ** (next + i), "PENDING")
          )
          next += count
          yield* store.transaction(store.ledger.record(holds))
          // Every other one is posted first: resolving it again with the others moves nothing more.
          const first = holds.filter((_, i) => i % 2 === 1)
          if (first.length > 0)
            yield* store.transaction(
              store.ledger.resolve(
                first.map((h) => h.id),
                "POSTED"
              )
            )
          yield* store.transaction(
            store.ledger.resolve(
              holds.map((h) => h.id),
              "POSTED"
            )
          )
          posted += holds.reduce((sum, h) => sum + h.amount, 0)
          assert.deepStrictEqual(
            yield* store.ledger.transfers(ref),
            holds.map((h) => ({ ...h, state: "POSTED" })),
            `${count} at once`
          )
          assert.deepStrictEqual(
            yield* store.ledger.balances(accounts),
            [balance(alice, "USD", 10_000_000 - posted), balance(bob, "USD", posted)],
            `${count} at once`
          )
        }
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
