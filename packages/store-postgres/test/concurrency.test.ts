import { assert, layer } from "@effect/vitest"
import { type LedgerTransfer, Store } from "@paycore/core"
import { Deferred, Effect, Fiber } from "effect"
import pg from "pg"
import { idOf, testDatabase, unique, wallClockPause } from "./helpers.ts"
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
            yield* wallClockPause(5)
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
              yield* wallClockPause(5)
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
          yield* wallClockPause(10)
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
      // The one PostgreSQL aborted ran again (3 attempts); when the two rode one group commit, the second would wait
      // for the first inside the group while the first waits for it: the group rolled back and both ran again alone
      // (4), where, racing without waiting for each other any more, they may still cross once in PostgreSQL (5).
      // Either way neither caller saw the deadlock.
      assert.include([3, 4, 5], attempts)
    })
  )
})

// On a server (a pipelining pg pool) concurrent transactions run in groups sharing one DB transaction (group
// commit); each must still behave as if it ran alone. On PGlite they run one at a time: the same outcomes.
layer(db.layer(), { timeout: "60 seconds" })("postgres store: transactions run together", (it) => {
  it.effect("a transaction that fails after writing leaves nothing; the others of its moment commit", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const base = 900_000 + Math.floor(Math.random() * 90_000) * 10
      const ns = Array.from({ length: 30 }, (_, i) => base + i)
      const exits = yield* Effect.forEach(
        ns,
        (n) =>
          Effect.exit(
            store.transaction(
              Effect.gen(function* () {
                yield* store.tokens.insert(token(n))
                if (n % 3 === 0) return yield* Effect.fail(`refused ${n}` as const)
                return n
              })
            )
          ),
        { concurrency: "unbounded" }
      )
      for (const [i, n] of ns.entries()) {
        const exit = exits[i]!
        const stored = yield* store.tokens.get(idOf("Token", n))
        if (n % 3 === 0) {
          assert.isTrue(exit._tag === "Failure", `transaction ${n} fails with its own error`)
          assert.isUndefined(stored, `the refused transaction ${n} left its token behind`)
        } else {
          assert.deepStrictEqual(exit._tag === "Success" ? exit.value : undefined, n)
          assert.isDefined(stored, `transaction ${n} did not commit`)
        }
      }
    })
  )

  it.effect(
    "a transaction that fails after only reading fails alone; a read-modify-write under lock counts every one",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const n = 800_000 + Math.floor(Math.random() * 90_000) * 10
        const id = idOf("Token", n)
        yield* store.tokens.insert(token(n, { name: "0" }))
        // 25 increments of one row, each reading it under lock: any two sharing a DB transaction without waiting
        // for each other would lose one.
        const increment = store.transaction(
          Effect.gen(function* () {
            const row = yield* store.tokens.getForUpdate(id)
            yield* store.tokens.update({ ...row!, name: String(Number(row!.name) + 1) })
          })
        )
        const missing = store.transaction(
          Effect.flatMap(store.tokens.get(idOf("Token", n + 1)), (row) =>
            row === undefined ? Effect.fail("missing" as const) : Effect.succeed(row)
          )
        )
        const [increments, refused] = yield* Effect.all(
          [
            Effect.forEach(Array.from({ length: 25 }), () => Effect.exit(increment), { concurrency: "unbounded" }),
            Effect.exit(missing)
          ],
          { concurrency: "unbounded" }
        )
        assert.isTrue(increments.every((exit) => exit._tag === "Success"))
        assert.deepStrictEqual(refused._tag === "Failure" ? refused.cause.toString().includes("missing") : false, true)
        assert.strictEqual((yield* store.tokens.get(id))!.name, "25")
      })
  )

  it.effect(
    "statements sent alongside a lock another member of the group holds run after it: they read its writes",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const n = 600_000 + Math.floor(Math.random() * 90_000) * 10
        const lockId = idOf("Token", n)
        const otherId = idOf("Token", n + 1)
        yield* store.tokens.insert(token(n, { name: "0" }))
        yield* store.tokens.insert(token(n + 1, { name: "0" }))
        // Each locks one row and, in the same breath, reads a second row that every holder of the lock updates: a read
        // that ran before its lock was granted would see the second row behind the first.
        const step = store.transaction(
          Effect.gen(function* () {
            const [locked, other] = yield* Effect.all([store.tokens.getForUpdate(lockId), store.tokens.get(otherId)], {
              concurrency: 2
            })
            const next = String(Number(locked!.name) + 1)
            yield* store.tokens.update({ ...locked!, name: next })
            yield* store.tokens.update({ ...other!, name: next })
            return locked!.name === other!.name
          })
        )
        const consistent = yield* Effect.forEach(Array.from({ length: 25 }), () => step, { concurrency: "unbounded" })
        assert.deepStrictEqual(
          consistent.filter((same) => !same).length,
          0,
          "a read alongside the lock saw the other row stale"
        )
        assert.strictEqual((yield* store.tokens.get(lockId))!.name, "25")
        assert.strictEqual((yield* store.tokens.get(otherId))!.name, "25")
      })
  )

  it.effect(
    "holds on one account checked and written in one statement share group commits; exactly as many as the money " +
      "covers go through",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const account = unique("InternalAccount:hot")
        yield* store.ledger.record([posted(unique("Transaction:fund"), 1, "system:deposits:USD", account, 10_000)])
        const hold = (reference: string, amount: number) =>
          store.transaction(
            Effect.flatMap(
              store.ledger.recordIfAvailable(
                [{ ...posted(reference, 1, account, "system:payouts:USD", amount), state: "PENDING" }],
                [{ account, currency: "USD", amount }]
              ),
              (done) => (done.recorded ? Effect.void : Effect.fail("short" as const))
            )
          )
        // 40 at once, all covered: on a server they ride a few groups (a row locked by two members of one group used to
        // roll the group back and run each alone), each seeing the holds before it in its group.
        const covered = Array.from({ length: 40 }, () => unique("Transaction:hold"))
        yield* Effect.forEach(covered, (reference) => hold(reference, 100), { concurrency: "unbounded", discard: true })
        const [after] = yield* store.ledger.balances([{ account, currency: "USD" }])
        assert.deepStrictEqual([after!.posted, after!.pendingDebits], [10_000, 4_000])
        if (db.kind === "pg") {
          const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
          yield* Effect.promise(() => client.connect())
          const { rows } = yield* Effect.promise(() =>
            client.query(
              `SELECT count(DISTINCT xmin::text)::int AS commits FROM ${db.schema}.ledger_transfers WHERE reference = ANY($1)`,
              [covered]
            )
          )
          yield* Effect.promise(() => client.end())
          assert.isBelow(rows[0].commits, 20, "the holds of one account committed in groups")
        }
        // 6,000 left: of 40 holds of 250 at once exactly 24 go through, whatever the groups (a refusal after a write
        // rolls its group back and its members run again alone).
        const exits = yield* Effect.forEach(
          Array.from({ length: 40 }, () => unique("Transaction:hold")),
          (reference) => Effect.exit(hold(reference, 250)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(exits.filter((exit) => exit._tag === "Success").length, 24)
        const [last] = yield* store.ledger.balances([{ account, currency: "USD" }])
        assert.deepStrictEqual([last!.posted, last!.pendingDebits], [10_000, 10_000])
      })
  )

  it.effect("an interrupted transaction leaves nothing; the others of its moment commit", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const base = 700_000 + Math.floor(Math.random() * 90_000) * 10
      const started = yield* Deferred.make<void>()
      const victim = yield* Effect.forkChild(
        store.transaction(
          Effect.gen(function* () {
            yield* store.tokens.insert(token(base))
            yield* Deferred.succeed(started, undefined)
            return yield* Effect.never
          })
        )
      )
      const others = yield* Effect.forkChild(
        Effect.forEach(
          Array.from({ length: 10 }, (_, i) => base + 1 + i),
          (n) => store.transaction(store.tokens.insert(token(n))),
          { concurrency: "unbounded" }
        )
      )
      yield* Deferred.await(started)
      yield* Fiber.interrupt(victim)
      yield* Fiber.join(others)
      assert.isUndefined(yield* store.tokens.get(idOf("Token", base)))
      for (let i = 1; i <= 10; i++) assert.isDefined(yield* store.tokens.get(idOf("Token", base + i)))
    })
  )

  it.effect.skipIf(db.kind === "pglite")(
    "a statement that fails while another member's write waits unsent still ends its group (no hang)",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const n = 600_000 + Math.floor(Math.random() * 90_000) * 10
        const key = unique("overflow")
        yield* store.tokens.insert(token(n))
        yield* store.counters.add(key, 5e18)
        // Another session holds the counter's row, so A's add waits in the server while B sends its write.
        const holder = new pg.Client({ connectionString: process.env.DATABASE_URL })
        yield* Effect.promise(() => holder.connect())
        yield* Effect.promise(() => holder.query("BEGIN"))
        yield* Effect.promise(() =>
          holder.query(`SELECT 1 FROM ${db.schema}.counters WHERE key = $1 FOR UPDATE`, [key])
        )
        const release = yield* Deferred.make<void>()
        const a = store.transaction(
          Effect.gen(function* () {
            yield* store.tokens.get(idOf("Token", n))
            return yield* store.counters.add(key, 5e18) // bigint out of range once the row is free
          })
        )
        const b = store.transaction(
          Effect.gen(function* () {
            yield* store.tokens.get(idOf("Token", n))
            yield* wallClockPause(50)
            // A write nobody waits for (a quote's status): it goes out with B's next statement or the COMMIT, after A's add.
            yield* store.quotes.setStatus(idOf("Quote", n), "EXPIRED")
            yield* Deferred.await(release)
            return "b"
          })
        )
        // C opens a group and stays in it: A and B, started while it is under way, join it (one DB transaction).
        const opened = yield* Deferred.make<void>()
        const c = store.transaction(
          Effect.gen(function* () {
            yield* store.tokens.get(idOf("Token", n))
            yield* Deferred.succeed(opened, undefined)
            yield* Deferred.await(release)
          })
        )
        const first = yield* Effect.forkChild(c)
        yield* Deferred.await(opened)
        const both = yield* Effect.forkChild(Effect.all([Effect.exit(a), Effect.exit(b)], { concurrency: 2 }))
        yield* wallClockPause(200)
        yield* Effect.promise(() => holder.query("COMMIT").then(() => holder.end()))
        yield* wallClockPause(200)
        yield* Deferred.succeed(release, undefined)
        const [exitA, exitB] = yield* Fiber.join(both).pipe(Effect.timeout("20 seconds"))
        yield* Fiber.join(first)
        assert.strictEqual(exitA._tag, "Failure", "the add past bigint's range fails")
        assert.deepStrictEqual(exitB._tag === "Success" ? exitB.value : undefined, "b")
        assert.strictEqual(yield* store.counters.get(key), 5e18, "the failed add left nothing")
      })
  )
})
