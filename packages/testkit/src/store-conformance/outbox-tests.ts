import { assert } from "@effect/vitest"
import {
  type NewOutboxRecord,
  type OutboxFilter,
  type OutboxRecord,
  Store,
  type WebhookSecretRecord
} from "@paycore/core"
import { Effect } from "effect"
import { assertUniqueViolation, expectFiltered, expectList } from "./assertions.ts"
import { configFull, configMinimal } from "./config-records.ts"
import { DAY, type It, type ListFn, makeScope, NOW, newId, plusSeconds, unique } from "./ids.ts"
import { deliveryAttempts, type EventOptions, idempotencyRecord, newEvent, numbered, outboxRow } from "./records.ts"

export const outboxTests = (it: It) => {
  it.effect("appendEvents numbers events per subject in order, across calls; nextSequence continues", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const s1 = newId("Transaction")
      const s2 = newId("Transaction")
      const a = newEvent(s1, "OUTGOING_PAYMENT.PENDING")
      const b = newEvent(s2, "INCOMING_PAYMENT.PENDING")
      const c = newEvent(s1, "OUTGOING_PAYMENT.PROCESSING")
      const d = newEvent(s1, "OUTGOING_PAYMENT.COMPLETED")
      const e = newEvent(s2, "INCOMING_PAYMENT.COMPLETED")
      yield* store.transaction(store.outbox.appendEvents([a, b, c]))
      yield* store.transaction(store.outbox.appendEvents([d, e]))
      yield* store.transaction(store.outbox.appendEvents([]))
      // One event at a time (a command's usual case), on a subject with events and on a new one.
      const f = newEvent(s1, "OUTGOING_PAYMENT.FAILED")
      const s3 = newId("Transaction")
      const g = { ...newEvent(s3, "OUTGOING_PAYMENT.PENDING"), leaseUntil: "2026-01-01T00:00:00.000Z" }
      yield* store.transaction(store.outbox.appendEvents([f]))
      yield* store.outbox.appendEvents([g])
      const list: ListFn<OutboxRecord, OutboxFilter> = store.outbox.list
      yield* expectList(list, { subject: s1 }, [numbered(a, 1), numbered(c, 2), numbered(d, 3), numbered(f, 4)])
      yield* expectList(list, { subject: s2 }, [numbered(b, 1), numbered(e, 2)])
      yield* expectList(list, { subject: s3 }, [numbered(g, 1)])
      assert.deepStrictEqual(yield* store.outbox.get(c.id), numbered(c, 2))
      assert.isUndefined(yield* store.outbox.get(newId("Webhook")))
      assert.strictEqual(yield* store.outbox.nextSequence(s1), 5)
      assert.strictEqual(yield* store.outbox.nextSequence(newId("Transaction")), 1)
    })
  )

  it.effect(
    "append keeps the given rows; save replaces a row (attempts, status, lease and retry round added and removed)",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const subject = newId("Transaction")
        const full: OutboxRecord = {
          ...outboxRow(subject, "OUTGOING_PAYMENT.PENDING", 1, { leaseUntil: plusSeconds(NOW, 30) }),
          attempts: deliveryAttempts
        }
        const minimal = outboxRow(subject, "OUTGOING_PAYMENT.COMPLETED", 2)
        yield* store.transaction(store.outbox.append([full, minimal]))
        assert.deepStrictEqual(yield* store.outbox.get(full.id), full)
        assert.deepStrictEqual(yield* store.outbox.get(minimal.id), minimal)

        const { leaseUntil: _lease, ...released } = {
          ...full,
          status: "DELIVERED" as const,
          attempts: [
            ...deliveryAttempts,
            { at: NOW, url: "https://platform.example.com/hooks", responseStatus: 200, durationMs: 40 }
          ]
        }
        yield* store.transaction(store.outbox.save(released))
        assert.deepStrictEqual(yield* store.outbox.get(full.id), released, "lease removed, attempt added")

        const leased: OutboxRecord = {
          ...minimal,
          leaseUntil: plusSeconds(NOW, 60),
          nextAttemptAt: plusSeconds(NOW, 5)
        }
        yield* store.transaction(store.outbox.save(leased))
        assert.deepStrictEqual(yield* store.outbox.get(minimal.id), leased, "lease added")
        // The dispatcher clears a lease by saving `leaseUntil: undefined`.
        yield* store.transaction(store.outbox.save({ ...leased, leaseUntil: undefined, status: "DEAD" }))
        const dead = yield* store.outbox.get(minimal.id)
        assert.isDefined(dead)
        assert.isUndefined(dead!.leaseUntil)
        const { leaseUntil: _cleared, ...rest } = dead!
        assert.deepStrictEqual(rest, { ...minimal, nextAttemptAt: plusSeconds(NOW, 5), status: "DEAD" })

        // A retry round's start (WH-19) is kept while the row is retried, and cleared by a replay.
        const retrying: OutboxRecord = { ...rest, status: "PENDING", roundStartedAt: plusSeconds(NOW, -90) }
        yield* store.transaction(store.outbox.save(retrying))
        assert.deepStrictEqual(yield* store.outbox.get(minimal.id), retrying, "round start added")
        yield* store.transaction(store.outbox.save({ ...retrying, roundStartedAt: undefined }))
        const replayed = yield* store.outbox.get(minimal.id)
        assert.isUndefined(replayed!.roundStartedAt)
        const { roundStartedAt: _round, ...again } = replayed!
        assert.deepStrictEqual(again, { ...rest, status: "PENDING" }, "round start removed")
      })
  )

  it.effect("list filters: subject, status, type, sequenceBelow (exclusive)", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<OutboxRecord, OutboxFilter> = store.outbox.list
      const subject = newId("Transaction")
      const otherSubject = newId("Transaction")
      const typeA = `CONFORMANCE.${unique()}.A`
      const typeB = `CONFORMANCE.${unique()}.B`
      const o1 = outboxRow(subject, typeA, 1)
      const o2 = outboxRow(subject, typeB, 2, { status: "DELIVERED" })
      const o3 = outboxRow(subject, typeA, 3)
      const o4 = outboxRow(subject, typeA, 4, { status: "DEAD" })
      const p1 = outboxRow(otherSubject, typeA, 1)
      yield* store.transaction(store.outbox.append([o1, o2, o3, o4, p1]))

      yield* expectList(list, { subject }, [o1, o2, o3, o4])
      yield* expectList(list, { subject, status: "PENDING" }, [o1, o3])
      yield* expectList(list, { subject, type: typeA }, [o1, o3, o4])
      yield* expectList(list, { subject, sequenceBelow: 3 }, [o1, o2])
      yield* expectList(list, { subject, sequenceBelow: 1 }, [])
      // The dispatcher's ordering check: earlier pending events of the subject.
      yield* expectList(list, { subject, status: "PENDING", sequenceBelow: 3 }, [o1])
      yield* expectList(list, { subject: otherSubject }, [p1])

      yield* expectList(list, { type: typeA }, [o1, o3, o4, p1])
      yield* expectList(list, { type: typeB }, [o2])
      yield* expectFiltered(list, { status: "DEAD" }, (r) => r.status === "DEAD", {
        included: [o4],
        excluded: [o1, o2, o3, p1]
      })
      yield* expectFiltered(list, { sequenceBelow: 2 }, (r) => r.sequence < 2, {
        included: [o1, p1],
        excluded: [o2, o3, o4]
      })
    })
  )

  it.effect("claimDue returns due, pending, unleased rows oldest first up to the limit, and leases them", () =>
    Effect.gen(function* () {
      const store = yield* Store
      // Instants far in the past, so no other test's row is due. Rows a crashed earlier run may have left
      // there are leased away first.
      const s = makeScope(1000, 1900)
      const far = "9999-12-31T23:59:59.999Z"
      for (let round = 0; ; round++) {
        assert.isBelow(round, 100, "claimDue leases what it returns")
        const drained = yield* store.transaction(store.outbox.claimDue(s.at(DAY), 1_000, far))
        if (drained.length === 0) break
      }
      const subject = newId("Transaction")
      const type = `CONFORMANCE.${unique()}`
      const ev = (o: EventOptions) => newEvent(subject, type, { createdAt: s.next(), ...o })
      // Oldest (by creation) first, whatever the order of their due instants.
      const e1 = ev({ nextAttemptAt: s.at(300) })
      const e2 = ev({ nextAttemptAt: s.at(100) })
      const e3 = ev({ nextAttemptAt: s.at(200) })
      const e4 = ev({ nextAttemptAt: s.at(1_000) })
      const delivered = ev({ nextAttemptAt: s.at(50), status: "DELIVERED" })
      const dead = ev({ nextAttemptAt: s.at(50), status: "DEAD" })
      const leased = ev({ nextAttemptAt: s.at(10), leaseUntil: s.at(2_000) })
      yield* store.transaction(store.outbox.appendEvents([e1, e2, e3, e4, delivered, dead, leased]))
      const claim = (now: number, limit: number, lease: number) =>
        store.transaction(store.outbox.claimDue(s.at(now), limit, s.at(lease)))
      const as = (e: NewOutboxRecord, sequence: number, lease: number): OutboxRecord => ({
        ...e,
        sequence,
        leaseUntil: s.at(lease)
      })

      assert.deepStrictEqual(yield* claim(99, 10, 5_000), [], "nothing is due yet")
      assert.deepStrictEqual(
        yield* claim(500, 2, 600),
        [as(e1, 1, 600), as(e2, 2, 600)],
        "oldest first, up to the limit"
      )
      assert.deepStrictEqual(yield* store.outbox.get(e1.id), as(e1, 1, 600), "the lease is stored")
      assert.deepStrictEqual(yield* claim(500, 10, 600), [as(e3, 3, 600)], "leased rows are not claimed again")
      assert.deepStrictEqual(yield* claim(599, 10, 700), [], "not before the lease ends")

      // A claim in a transaction that fails leases nothing.
      const failed = yield* store
        .transaction(
          Effect.gen(function* () {
            const got = yield* store.outbox.claimDue(s.at(601), 10, s.at(5_000))
            assert.strictEqual(got.length, 3)
            return yield* Effect.fail("abort" as const)
          })
        )
        .pipe(Effect.flip)
      assert.strictEqual(failed, "abort")
      assert.deepStrictEqual(yield* store.outbox.get(e2.id), as(e2, 2, 600))

      // Once the lease has passed the rows are claimable again (a crashed dispatcher); e4 is due at its instant.
      assert.deepStrictEqual(
        yield* claim(1_000, 10, 1_500),
        [as(e1, 1, 1_500), as(e2, 2, 1_500), as(e3, 3, 1_500), as(e4, 4, 1_500)],
        "expired leases and rows due exactly now"
      )
      assert.deepStrictEqual(yield* claim(2_001, 10, 2_500), [
        as(e1, 1, 2_500),
        as(e2, 2, 2_500),
        as(e3, 3, 2_500),
        as(e4, 4, 2_500),
        as(leased, 7, 2_500)
      ])

      // Delivered rows are never claimed again.
      const deliver = (e: NewOutboxRecord, sequence: number) =>
        store.transaction(
          store.outbox.save({ ...numbered(e, sequence), status: "DELIVERED", attempts: deliveryAttempts })
        )
      yield* deliver(e2, 2)
      yield* deliver(e3, 3)
      yield* deliver(e4, 4)
      yield* deliver(leased, 7)
      // A row saved with a later attempt (and its lease cleared) is due then, not before.
      yield* store.transaction(
        store.outbox.save({
          ...as(e1, 1, 2_500),
          leaseUntil: undefined,
          nextAttemptAt: s.at(3_000),
          attempts: deliveryAttempts
        })
      )
      assert.deepStrictEqual(yield* claim(2_999, 10, 3_500), [])
      const [again, ...none] = yield* claim(3_000, 10, 3_500)
      assert.deepStrictEqual(again, { ...as(e1, 1, 3_500), nextAttemptAt: s.at(3_000), attempts: deliveryAttempts })
      assert.deepStrictEqual(none, [])
      yield* deliver(e1, 1)
      assert.deepStrictEqual(yield* claim(DAY, 10, DAY + 1), [])
    })
  )
  it.effect("renewLeases and releaseLeases touch only PENDING rows leased to the owner; getForUpdate reads", () =>
    Effect.gen(function* () {
      const store = yield* Store
      // Due far in the future: no other test's claim takes them.
      const s = makeScope()
      const subject = newId("Transaction")
      const type = `CONFORMANCE.${unique()}`
      const row = (sequence: number, owner: string, status: OutboxRecord["status"] = "PENDING"): OutboxRecord => ({
        ...numbered(newEvent(subject, type, { createdAt: s.next(), nextAttemptAt: s.at(10), status }), sequence),
        leaseUntil: s.at(20),
        leaseOwner: owner
      })
      const mine = row(1, "pass-a")
      const theirs = row(2, "pass-b")
      const resolved = row(3, "pass-a", "DELIVERED")
      for (const r of [mine, theirs, resolved]) yield* store.transaction(store.outbox.save(r))
      const ids = [mine.id, theirs.id, resolved.id]

      assert.deepStrictEqual(yield* store.transaction(store.outbox.renewLeases("pass-a", ids, s.at(30))), [mine.id])
      assert.deepStrictEqual(yield* store.outbox.get(mine.id), { ...mine, leaseUntil: s.at(30) })
      assert.deepStrictEqual(yield* store.outbox.get(theirs.id), theirs)
      assert.deepStrictEqual(yield* store.outbox.get(resolved.id), resolved)
      assert.deepStrictEqual(yield* store.transaction(store.outbox.renewLeases("pass-a", [], s.at(40))), [])

      // An attempt is listed before it is made, on a row the owner still holds only.
      const begun = { at: s.at(35), url: "https://platform.example.com/hooks", error: "in flight", durationMs: 0 }
      assert.isTrue(yield* store.transaction(store.outbox.beginAttempt("pass-a", mine.id, begun)))
      assert.isFalse(yield* store.transaction(store.outbox.beginAttempt("pass-a", theirs.id, begun)))
      assert.isFalse(yield* store.transaction(store.outbox.beginAttempt("pass-a", resolved.id, begun)))
      assert.deepStrictEqual((yield* store.outbox.get(mine.id))!.attempts, [begun])
      assert.deepStrictEqual((yield* store.outbox.get(theirs.id))!.attempts, [])

      yield* store.transaction(store.outbox.releaseLeases("pass-a", ids, s.at(50)))
      const { leaseUntil: _until, leaseOwner: _owner, ...released } = mine
      assert.deepStrictEqual(yield* store.outbox.get(mine.id), {
        ...released,
        attempts: [begun],
        nextAttemptAt: s.at(50)
      })
      assert.deepStrictEqual(yield* store.outbox.get(theirs.id), theirs)
      assert.deepStrictEqual(yield* store.outbox.get(resolved.id), resolved)
      // Given back: no longer the owner's to renew.
      assert.deepStrictEqual(yield* store.transaction(store.outbox.renewLeases("pass-a", ids, s.at(60))), [])
      assert.deepStrictEqual(yield* store.transaction(store.outbox.getForUpdate(theirs.id)), theirs)
      assert.isUndefined(yield* store.transaction(store.outbox.getForUpdate(newId("Webhook"))))
    })
  )
}

export const keyValueTests = (it: It) => {
  it.effect("idempotency: get of an unknown key is undefined; put then get; a second put of one key is refused", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const key = `POST /quotes:${unique()}`
      assert.isUndefined(yield* store.idempotency.get(key))
      const record = idempotencyRecord(key)
      yield* store.transaction(store.idempotency.put(record))
      assert.deepStrictEqual(yield* store.idempotency.get(key), record)
      const second = { ...idempotencyRecord(key), fingerprint: "other", status: 200, body: "{}" }
      assertUniqueViolation(yield* store.transaction(store.idempotency.put(second)).pipe(Effect.flip))
      assert.deepStrictEqual(yield* store.idempotency.get(key), record, "the first record stays")
      // An empty body (a 204) is kept as the empty string.
      const empty = idempotencyRecord(`DELETE /x:${unique()}`, "")
      yield* store.idempotency.put({ ...empty, status: 204 })
      assert.deepStrictEqual(yield* store.idempotency.get(empty.key), { ...empty, status: 204 })
    })
  )

  it.effect("counters: get of an unknown key is 0; add returns the running total", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const key = `volume:${newId("Customer")}:USD:2026-03-02`
      const otherKey = `volume:${newId("Customer")}:USD:2026-03-02`
      assert.strictEqual(yield* store.counters.get(key), 0)
      assert.strictEqual(yield* store.transaction(store.counters.add(key, 5)), 5)
      assert.strictEqual(yield* store.transaction(store.counters.add(key, 7)), 12)
      assert.strictEqual(yield* store.transaction(store.counters.add(key, -2)), 10)
      assert.strictEqual(yield* store.counters.add(otherKey, 4_000_000_000_000_000), 4_000_000_000_000_000)
      assert.strictEqual(yield* store.counters.add(otherKey, 1), 4_000_000_000_000_001)
      assert.strictEqual(yield* store.counters.get(key), 10)
      assert.strictEqual(yield* store.counters.get(otherKey), 4_000_000_000_000_001)
    })
  )

  it.effect("config: undefined in a fresh store; put then get; put replaces it; a failed put changes nothing", () =>
    Effect.gen(function* () {
      const store = yield* Store
      assert.isUndefined(yield* store.config.get(), "a fresh store has no platform config")
      const full = configFull()
      yield* store.transaction(store.config.put(full))
      assert.deepStrictEqual(yield* store.config.get(), full)
      const minimal = configMinimal()
      yield* store.transaction(store.config.put(minimal))
      assert.deepStrictEqual(yield* store.config.get(), minimal, "optional fields removed")
      const failed = yield* store
        .transaction(Effect.andThen(store.config.put(full), Effect.fail("abort" as const)))
        .pipe(Effect.flip)
      assert.strictEqual(failed, "abort")
      assert.deepStrictEqual(yield* store.config.get(), minimal)
      yield* store.config.put(full)
      assert.deepStrictEqual(yield* store.config.get(), full)
    })
  )

  it.effect(
    "webhookSecrets: put inserts or replaces by id, list is oldest first, remove deletes; a rollback undoes",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const ours = (rows: ReadonlyArray<WebhookSecretRecord>) => rows.filter((r) => mine.has(r.id))
        const older: WebhookSecretRecord = {
          id: newId("WebhookSecret"),
          secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          createdAt: "2026-03-01T10:00:00.000Z"
        }
        const newer: WebhookSecretRecord = {
          id: newId("WebhookSecret"),
          secret: "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
          createdAt: "2026-03-01T11:00:00.000Z"
        }
        const mine = new Set([older.id, newer.id])
        yield* store.transaction(Effect.andThen(store.webhookSecrets.put(newer), store.webhookSecrets.put(older)))
        assert.deepStrictEqual(ours(yield* store.webhookSecrets.list()), [older, newer])
        const retiring = { ...older, expiresAt: "2026-03-02T10:00:00.000Z" }
        yield* store.transaction(store.webhookSecrets.put(retiring))
        assert.deepStrictEqual(ours(yield* store.webhookSecrets.list()), [retiring, newer], "expiresAt added")
        const failed = yield* store
          .transaction(
            Effect.andThen(
              Effect.andThen(store.webhookSecrets.remove(newer.id), store.webhookSecrets.put(older)),
              Effect.fail("abort" as const)
            )
          )
          .pipe(Effect.flip)
        assert.strictEqual(failed, "abort")
        assert.deepStrictEqual(ours(yield* store.webhookSecrets.list()), [retiring, newer], "the rollback undid both")
        yield* store.transaction(store.webhookSecrets.remove(retiring.id))
        assert.deepStrictEqual(ours(yield* store.webhookSecrets.list()), [newer])
        yield* store.webhookSecrets.remove(newer.id)
        assert.deepStrictEqual(ours(yield* store.webhookSecrets.list()), [])
      })
  )
}
