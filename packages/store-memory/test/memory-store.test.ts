import { assert, describe, it } from "@effect/vitest"
import { type OutboxRecord, Store, type TokenRecord } from "@paycore/core"
import { layer } from "@paycore/store-memory"
import { Deferred, Effect, Fiber } from "effect"

const token = (n: number): TokenRecord => ({
  id: `Token:00000000-0000-7000-8000-${String(n).padStart(12, "0")}` as TokenRecord["id"],
  name: `t${n}`,
  permissions: ["VIEW"],
  environment: "SANDBOX",
  clientId: `client-${n}`,
  secretHash: "h",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z"
})

describe("memory store", () => {
  it.effect("rolls back every write of a failed transaction", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const result = yield* store
        .transaction(
          Effect.gen(function* () {
            yield* store.tokens.insert(token(1))
            yield* store.counters.add("k", 5)
            return yield* Effect.fail("boom" as const)
          })
        )
        .pipe(Effect.flip)
      assert.strictEqual(result, "boom")
      assert.isUndefined(yield* store.tokens.get(token(1).id))
      assert.isUndefined(yield* store.tokens.findUnique("clientId", "client-1"))
      assert.strictEqual(yield* store.counters.get("k"), 0)
    }).pipe(Effect.provide(layer))
  )

  it.effect("refuses a second row with the same unique key", () =>
    Effect.gen(function* () {
      const store = yield* Store
      yield* store.tokens.insert(token(1))
      const err = yield* store.tokens.insert({ ...token(2), clientId: "client-1" }).pipe(Effect.flip)
      assert.deepStrictEqual(err, { _tag: "UniqueViolation", index: "clientId" })
    }).pipe(Effect.provide(layer))
  )

  it.effect("pages newest first without skipping or repeating rows added meanwhile", () =>
    Effect.gen(function* () {
      const store = yield* Store
      for (let i = 1; i <= 5; i++) yield* store.tokens.insert(token(i))
      const first = yield* store.tokens.list({ includeDeleted: true }, { limit: 2, sortOrder: "asc" })
      assert.deepStrictEqual(
        first.data.map((t) => t.name),
        ["t1", "t2"]
      )
      assert.isTrue(first.hasMore)
      yield* store.tokens.insert(token(6))
      const second = yield* store.tokens.list(
        { includeDeleted: true },
        { limit: 10, sortOrder: "asc", after: first.data[1]!.id }
      )
      assert.deepStrictEqual(
        second.data.map((t) => t.name),
        ["t3", "t4", "t5", "t6"]
      )
      assert.strictEqual(second.totalCount, 6)
    }).pipe(Effect.provide(layer))
  )

  it.effect("leaves deleted tokens out of lists unless includeDeleted, and pages them in the store", () =>
    Effect.gen(function* () {
      const store = yield* Store
      for (let i = 1; i <= 5; i++) yield* store.tokens.insert(token(i))
      yield* store.tokens.update({ ...token(2), deletedAt: "2026-01-02T00:00:00.000Z" })
      yield* store.tokens.update({ ...token(4), deletedAt: "2026-01-02T00:00:00.000Z" })
      const live = yield* store.tokens.list({ includeDeleted: false }, { limit: 2, sortOrder: "asc" })
      assert.deepStrictEqual(
        live.data.map((t) => t.name),
        ["t1", "t3"]
      )
      assert.strictEqual(live.totalCount, 3)
      assert.isTrue(live.hasMore)
      const rest = yield* store.tokens.list(
        { includeDeleted: false },
        { limit: 2, sortOrder: "asc", after: live.data[1]!.id }
      )
      assert.deepStrictEqual(
        rest.data.map((t) => t.name),
        ["t5"]
      )
      assert.isFalse(rest.hasMore)
      const all = yield* store.tokens.list({ includeDeleted: true }, { limit: 10, sortOrder: "desc" })
      assert.deepStrictEqual(
        all.data.map((t) => t.name),
        ["t5", "t4", "t3", "t2", "t1"]
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("claims due outbox rows from an index, not by scanning every row", () =>
    Effect.gen(function* () {
      const store = yield* Store
      let statusReads = 0
      /** A row whose `status` counts its reads: a scan of the outbox reads every row's status. */
      const row = (n: number, status: OutboxRecord["status"], nextAttemptAt: string): OutboxRecord => {
        const base = {
          id: `Webhook:00000000-0000-7000-8000-${String(n).padStart(12, "0")}` as OutboxRecord["id"],
          type: "T",
          subject: `s${n}`,
          sequence: 1,
          createdAt: "2026-01-01T00:00:00.000Z",
          body: "{}",
          attempts: [],
          nextAttemptAt
        }
        return Object.defineProperty(base, "status", {
          enumerable: true,
          get: () => {
            statusReads++
            return status
          }
        }) as unknown as OutboxRecord
      }
      const delivered = Array.from({ length: 2_000 }, (_, i) => row(i + 1, "DELIVERED", "2026-01-01T00:00:00.000Z"))
      yield* store.transaction(store.outbox.append(delivered))
      yield* store.transaction(
        store.outbox.append([
          row(3_001, "PENDING", "2026-01-01T00:00:10.000Z"),
          row(3_002, "PENDING", "2026-01-01T00:00:05.000Z"),
          row(3_003, "PENDING", "2026-01-01T01:00:00.000Z")
        ])
      )
      statusReads = 0
      const now = "2026-01-01T00:01:00.000Z"
      const lease = "2026-01-01T00:06:00.000Z"
      const claimed = yield* store.transaction(store.outbox.claimDue(now, 50, lease))
      assert.deepStrictEqual(
        claimed.map((r) => r.subject),
        ["s3001", "s3002"]
      )
      assert.isTrue(claimed.every((r) => r.leaseUntil === lease))
      assert.isBelow(statusReads, 100, `claimDue read ${statusReads} statuses`)
      // Leased: not claimed again until the lease ends; then claimed again (crash recovery).
      assert.deepStrictEqual(yield* store.transaction(store.outbox.claimDue(now, 50, lease)), [])
      const later = "2026-01-01T00:06:00.001Z"
      const again = yield* store.transaction(store.outbox.claimDue(later, 1, "2026-01-01T00:11:00.000Z"))
      assert.deepStrictEqual(
        again.map((r) => r.subject),
        ["s3001"]
      )
      // Delivered rows leave the index; a failed claim rolls back.
      yield* store.transaction(store.outbox.save({ ...again[0]!, status: "DELIVERED", leaseUntil: undefined }))
      const failed = yield* store
        .transaction(
          Effect.flatMap(store.outbox.claimDue(later, 50, "2026-01-01T00:11:00.000Z"), () =>
            Effect.fail("boom" as const)
          )
        )
        .pipe(Effect.flip)
      assert.strictEqual(failed, "boom")
      const last = yield* store.transaction(
        store.outbox.claimDue("2026-01-01T02:00:00.000Z", 50, "2026-01-01T02:05:00.000Z")
      )
      assert.deepStrictEqual(
        last.map((r) => r.subject),
        ["s3002", "s3003"]
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect("serializes transactions: one that suspends holds the lock, the next waits, each commits whole", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const inside = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const order: Array<string> = []
      const first = yield* Effect.forkChild(
        store.transaction(
          Effect.gen(function* () {
            yield* store.counters.add("k", 1)
            order.push("first in")
            yield* Deferred.succeed(inside, undefined)
            yield* Deferred.await(release)
            yield* store.counters.add("k", 1)
            order.push("first out")
          })
        )
      )
      yield* Deferred.await(inside)
      const second = yield* Effect.forkChild(
        store.transaction(
          Effect.gen(function* () {
            order.push(`second sees ${yield* store.counters.get("k")}`)
            yield* store.counters.add("k", 10)
          })
        )
      )
      yield* Effect.yieldNow
      assert.deepStrictEqual(order, ["first in"])
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      assert.deepStrictEqual(order, ["first in", "first out", "second sees 2"])
      assert.strictEqual(yield* store.counters.get("k"), 12)
    }).pipe(Effect.provide(layer))
  )

  it.effect("an interrupted transaction rolls back and releases the lock; an interrupted waiter leaves the queue", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const inside = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(
        store.transaction(
          Effect.gen(function* () {
            yield* store.tokens.insert(token(1))
            yield* Deferred.succeed(inside, undefined)
            return yield* Effect.never
          })
        )
      )
      yield* Deferred.await(inside)
      const waiter = yield* Effect.forkChild(store.transaction(store.tokens.insert(token(2))))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(waiter)
      yield* Fiber.interrupt(holder)
      assert.isUndefined(yield* store.tokens.get(token(1).id), "holder rolled back")
      assert.isUndefined(yield* store.tokens.get(token(2).id), "waiter never ran")
      // The lock is free again: a later transaction commits.
      yield* store.transaction(store.tokens.insert(token(3)))
      assert.isDefined(yield* store.tokens.get(token(3).id))
    }).pipe(Effect.provide(layer))
  )

  it.effect("nested transactions join the outer one, also from a fiber forked inside it", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const result = yield* store
        .transaction(
          Effect.gen(function* () {
            yield* store.transaction(store.counters.add("k", 1))
            const child = yield* Effect.forkChild(store.transaction(store.counters.add("k", 2)))
            yield* Fiber.join(child)
            assert.strictEqual(yield* store.counters.get("k"), 3)
            return yield* Effect.fail("boom" as const)
          })
        )
        .pipe(Effect.flip)
      assert.strictEqual(result, "boom")
      assert.strictEqual(yield* store.counters.get("k"), 0)
      // Outside a transaction again: the marker did not leak into this fiber.
      yield* store.transaction(store.counters.add("k", 5))
      assert.strictEqual(yield* store.counters.get("k"), 5)
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "ledger: resolving is idempotent per transfer; a second transfer with an id is a defect, not a double move",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const transfer = (id: string, reference: string) => ({
          id,
          debit: "system:deposits:USD",
          credit: "InternalAccount:a",
          amount: 100,
          currency: "USD",
          state: "PENDING" as const,
          reference,
          createdAt: "2026-01-01T00:00:00.000Z"
        })
        yield* store.transaction(store.ledger.record([transfer("tx#1", "tx"), transfer("odd-id", "tx")]))
        yield* store.transaction(store.ledger.resolve(["tx#1", "odd-id"], "POSTED"))
        yield* store.transaction(store.ledger.resolve(["tx#1", "odd-id"], "POSTED"))
        yield* store.transaction(store.ledger.resolve(["tx#1"], "VOIDED"))
        const [account] = yield* store.ledger.balances([{ account: "InternalAccount:a", currency: "USD" }])
        assert.deepStrictEqual([account?.posted, account?.pendingCredits], [200, 0])
        assert.deepStrictEqual(
          (yield* store.ledger.transfers("tx")).map((t) => [t.id, t.state]),
          [
            ["tx#1", "POSTED"],
            ["odd-id", "POSTED"]
          ]
        )
        for (const id of ["tx#1", "odd-id"]) {
          const exit = yield* Effect.exit(store.transaction(store.ledger.record([transfer(id, "tx")])))
          assert.isTrue(exit._tag === "Failure")
        }
        const [after] = yield* store.ledger.balances([{ account: "InternalAccount:a", currency: "USD" }])
        assert.strictEqual(after?.posted, 200)
        assert.strictEqual((yield* store.ledger.transfers("tx")).length, 2)
      }).pipe(Effect.provide(layer))
  )

  it.effect("appendEvents numbers events per subject after the last sequence; a rollback takes the numbers back", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const event = (n: number, subject: string) => ({
        id: `Webhook:00000000-0000-7000-8000-${String(n).padStart(12, "0")}` as OutboxRecord["id"],
        type: "T",
        subject,
        createdAt: "2026-01-01T00:00:00.000Z",
        body: "{}",
        status: "PENDING" as const,
        attempts: [],
        nextAttemptAt: "2026-01-01T00:00:00.000Z"
      })
      yield* store.transaction(store.outbox.appendEvents([event(1, "a"), event(2, "b"), event(3, "a")]))
      const failed = yield* store
        .transaction(Effect.andThen(store.outbox.appendEvents([event(4, "a")]), Effect.fail("boom" as const)))
        .pipe(Effect.flip)
      assert.strictEqual(failed, "boom")
      assert.isUndefined(yield* store.outbox.get(event(4, "a").id))
      yield* store.transaction(store.outbox.appendEvents([event(5, "a")]))
      assert.strictEqual(yield* store.outbox.nextSequence("b"), 2)
      const rows = (yield* store.outbox.list({}, { limit: 10, sortOrder: "asc" })).data
      assert.deepStrictEqual(
        rows.map((r) => [r.subject, r.sequence]),
        [
          ["a", 1],
          ["b", 1],
          ["a", 2],
          ["a", 3]
        ]
      )
    }).pipe(Effect.provide(layer))
  )
})
