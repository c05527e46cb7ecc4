import type { NewOutboxRecord, OutboxRecord, Repositories, WebhookSecretRecord } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import { ChunkedMap } from "./chunked-map.ts"
import type { Collections } from "./collection.ts"
import type { UndoJournal } from "./transaction.ts"

/**
 * A numbered new event as the memory store keeps it: its body is the event's own, serialized when first read
 * (see `newEvent` in the core). Reads hand out plain records (`plainEvent`), which callers may spread.
 */
class StoredEvent implements OutboxRecord {
  readonly id: OutboxRecord["id"]
  readonly type: string
  readonly subject: string
  readonly sequence: number
  readonly createdAt: string
  readonly status: OutboxRecord["status"]
  readonly attempts: OutboxRecord["attempts"]
  readonly nextAttemptAt: string
  readonly leaseUntil: string | undefined
  readonly #event: NewOutboxRecord

  constructor(event: NewOutboxRecord, sequence: number) {
    this.id = event.id
    this.type = event.type
    this.subject = event.subject
    this.sequence = sequence
    this.createdAt = event.createdAt
    this.status = event.status
    this.attempts = event.attempts
    this.nextAttemptAt = event.nextAttemptAt
    this.leaseUntil = event.leaseUntil
    this.#event = event
  }

  get body(): string {
    return this.#event.body
  }
}

/** A stored outbox row as a plain record (a `StoredEvent`'s body read now). */
const plainEvent = (row: OutboxRecord): OutboxRecord => {
  if (!(row instanceof StoredEvent)) return row
  const { leaseUntil, ...rest } = { ...row, body: row.body }
  return leaseUntil === undefined ? rest : { ...rest, leaseUntil }
}

/** The outbox of events to deliver, and the webhook endpoint's signing secrets. */
export const webhookRepositories = (
  collection: Collections,
  journal: UndoJournal
): Pick<Repositories, "outbox" | "webhookSecrets"> => {
  const outboxRows = collection({
    table: tables.outbox,
    // The dispatcher claims PENDING rows due by now and not leased: a row is claimable from the later of
    // `nextAttemptAt` and `leaseUntil`. Delivered and dead rows are not in the index. Lists do not use it.
    due: {
      key: (r) =>
        r.status !== "PENDING"
          ? undefined
          : r.leaseUntil !== undefined && r.leaseUntil > r.nextAttemptAt
            ? r.leaseUntil
            : r.nextAttemptAt,
      bound: () => undefined
    }
  })
  const sequences = new ChunkedMap<number>()
  const nextSequence = (subject: string): number => {
    const before = sequences.get(subject)
    const next = (before ?? 0) + 1
    sequences.set(subject, next)
    journal.remember(() => (before === undefined ? sequences.delete(subject) : sequences.set(subject, before)))
    return next
  }
  const outbox: Repositories["outbox"] = {
    append: (records) => Effect.forEach(records, (r) => Effect.orDie(outboxRows.insert(r)), { discard: true }),
    appendEvents: (events) =>
      Effect.sync(() => {
        for (const event of events) {
          const row = new StoredEvent(event, nextSequence(event.subject))
          if (outboxRows.insertNow(row) !== undefined) throw new Error(`memory store: outbox row ${row.id} exists`)
        }
      }),
    claimDue: (now, limit, leaseUntil, owner) =>
      Effect.gen(function* () {
        const due: Array<OutboxRecord> = []
        // The due index instead of every row ever written: only PENDING rows whose time has come, oldest first.
        for (const r of outboxRows.dueBy(now)) {
          if (due.length >= limit) break
          if (r.status !== "PENDING" || r.nextAttemptAt > now) continue
          if (r.leaseUntil !== undefined && r.leaseUntil > now) continue
          const { leaseOwner: _previous, ...row } = plainEvent(r)
          const leased = owner === undefined ? { ...row, leaseUntil } : { ...row, leaseUntil, leaseOwner: owner }
          yield* Effect.orDie(outboxRows.update(leased))
          due.push(leased)
        }
        return due
      }),
    renewLeases: (owner, ids, leaseUntil) =>
      Effect.gen(function* () {
        const kept: Array<string> = []
        for (const id of ids) {
          const row = yield* outboxRows.get(id)
          if (row === undefined || row.status !== "PENDING" || row.leaseOwner !== owner) continue
          yield* Effect.orDie(outboxRows.update({ ...plainEvent(row), leaseUntil }))
          kept.push(id)
        }
        return kept
      }),
    beginAttempt: (owner, id, attempt) =>
      Effect.flatMap(outboxRows.get(id), (row) => {
        if (row === undefined || row.status !== "PENDING" || row.leaseOwner !== owner) return Effect.succeed(false)
        const plain = plainEvent(row)
        return Effect.as(Effect.orDie(outboxRows.update({ ...plain, attempts: [...plain.attempts, attempt] })), true)
      }),
    releaseLeases: (owner, ids, dueAt) =>
      Effect.forEach(
        ids,
        (id) =>
          Effect.flatMap(outboxRows.get(id), (row) => {
            if (row === undefined || row.status !== "PENDING" || row.leaseOwner !== owner) return Effect.void
            const { leaseUntil: _until, leaseOwner: _owner, ...rest } = plainEvent(row)
            return Effect.orDie(outboxRows.update({ ...rest, nextAttemptAt: dueAt }))
          }),
        { discard: true }
      ),
    save: (record) => Effect.orDie(outboxRows.update(record)),
    get: (id) => Effect.map(outboxRows.get(id), (row) => (row === undefined ? undefined : plainEvent(row))),
    getForUpdate: (id) => Effect.map(outboxRows.get(id), (row) => (row === undefined ? undefined : plainEvent(row))),
    list: (filter, page) => Effect.map(outboxRows.list(filter, page), (p) => ({ ...p, data: p.data.map(plainEvent) })),
    nextSequence: (subject) => Effect.sync(() => nextSequence(subject))
  }

  const secrets = new Map<string, WebhookSecretRecord>()
  return {
    outbox,
    webhookSecrets: {
      list: () =>
        Effect.sync(() =>
          [...secrets.values()].sort((a, b) =>
            a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1
          )
        ),
      put: (record) => Effect.sync(() => journal.write(secrets, record.id, record)),
      remove: (id) => Effect.sync(() => journal.write(secrets, id, undefined))
    }
  }
}
