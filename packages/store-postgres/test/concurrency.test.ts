import { assert, layer } from "@effect/vitest"
import { type LedgerTransfer, Store } from "@paycore/core"
import { Deferred, Effect } from "effect"
import { idOf, testDatabase, unique } from "./helpers.ts"
import { outboxRecord, token } from "./records.ts"

const db = testDatabase("concurrency")

const posted = (reference: string, n: number, debit: string, credit: string, amount: number): LedgerTransfer => ({
  id: `${reference}#${n}`,
  debit,
  credit,
  amount,
  currency: "USD",
  state: "POSTED",
  reference,
  createdAt: "2026-11-21T13:36:44.123Z"
})

layer(db.layer(), { timeout: "60 seconds" })("postgres store under concurrency", (it) => {
  it.effect("20 concurrent payments lock balances in order: no deadlock surfaces, the sums are exact", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const a = unique("InternalAccount:a")
      const b = unique("InternalAccount:b")
      const fund = unique("Transaction:fund")
      yield* store.ledger.record([
        posted(fund, 1, "system:deposits:USD", a, 1_000),
        posted(fund, 2, "system:deposits:USD", b, 1_000)
      ])
      const pay = (i: number) =>
        store.transaction(
          Effect.gen(function* () {
            // Half ask for the two balances in the opposite order (the store locks them in one order).
            const [from, to] = i % 2 === 0 ? [a, b] : [b, a]
            const balances = yield* store.ledger.balances([
              { account: from, currency: "USD" },
              { account: to, currency: "USD" }
            ])
            const available = balances[0]!.posted - balances[0]!.pendingDebits
            if (available < i) return yield* Effect.fail("insufficient" as const)
            // Hold the locks a moment so the transactions really overlap.
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
            yield* store.ledger.record([posted(unique("Transaction:pay"), 1, from, to, i)])
          })
        )
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i + 1),
        pay,
        { concurrency: "unbounded", discard: true }
      )
      const [ba, bb] = yield* store.ledger.balances([
        { account: a, currency: "USD" },
        { account: b, currency: "USD" }
      ])
      // Odd i move i from b to a, even i from a to b: a gets (1+3+...+19) - (2+4+...+20) = -10.
      assert.strictEqual(ba!.posted, 990)
      assert.strictEqual(bb!.posted, 1_010)
      const all = yield* store.ledger.allBalances()
      assert.strictEqual(
        all.reduce((sum, x) => sum + x.posted, 0),
        0
      )
    })
  )

  it.effect("two dispatchers claiming at once never get the same row", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const subject = unique("Transaction:claims")
      const rows = Array.from({ length: 60 }, (_, i) =>
        outboxRecord(1_000 + i, { subject, nextAttemptAt: "2026-01-01T00:00:00.000Z", leaseUntil: undefined as never })
      )
      yield* store.outbox.append(rows)
      const claimer = Effect.gen(function* () {
        const got: Array<string> = []
        for (let round = 0; round < 10; round++) {
          const claimed = yield* store.transaction(
            Effect.gen(function* () {
              const c = yield* store.outbox.claimDue("2026-06-01T00:00:00.000Z", 7, "2026-06-01T00:05:00.000Z")
              // Keep the rows locked a moment, as a dispatcher's transaction would.
              yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
              return c
            })
          )
          got.push(...claimed.map((r) => r.id))
        }
        return got
      })
      const [first, second] = yield* Effect.all([claimer, claimer], { concurrency: 2 })
      const overlap = first!.filter((id) => second!.includes(id))
      assert.deepStrictEqual(overlap, [])
      assert.strictEqual(new Set([...first!, ...second!]).size, 60)
    })
  )

  it.effect("runs the whole transaction again after a ledger id collision (a racing writer)", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const reference = unique("Transaction:race")
      const account = unique("InternalAccount:race")
      const write = store.transaction(
        Effect.gen(function* () {
          const n = (yield* store.ledger.transfers(reference)).length
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
          yield* store.ledger.record([posted(reference, n + 1, "system:deposits:USD", account, 1)])
        })
      )
      yield* Effect.all([write, write, write, write], { concurrency: "unbounded" })
      const transfers = yield* store.ledger.transfers(reference)
      assert.deepStrictEqual(
        transfers.map((t) => t.id),
        [1, 2, 3, 4].map((n) => `${reference}#${n}`)
      )
    })
  )

  it.effect.skipIf(db.kind === "pglite")("a deadlock is run again, never surfaced", () =>
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.tokens.insert(token(9_001))
      yield* store.tokens.insert(token(9_002))
      const one = idOf("Token", 9_001)
      const two = idOf("Token", 9_002)
      const firstLocked = yield* Deferred.make<void>()
      const secondLocked = yield* Deferred.make<void>()
      let attempts = 0
      // Each locks one row, waits until the other holds its row, then asks for the other's: a deadlock,
      // which PostgreSQL breaks by aborting one of them; the store runs that one again.
      const crossing = (
        mine: string,
        theirs: string,
        locked: Deferred.Deferred<void>,
        other: Deferred.Deferred<void>
      ) =>
        store.transaction(
          Effect.gen(function* () {
            attempts++
            yield* store.tokens.getForUpdate(mine)
            yield* Deferred.succeed(locked, undefined)
            yield* Deferred.await(other)
            yield* store.tokens.getForUpdate(theirs)
          })
        )
      yield* Effect.all(
        [crossing(one, two, firstLocked, secondLocked), crossing(two, one, secondLocked, firstLocked)],
        {
          concurrency: 2
        }
      )
      assert.strictEqual(attempts, 3)
    })
  )
})
