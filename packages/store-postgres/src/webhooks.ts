import type { NewOutboxRecord, Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import { rowCodecOf } from "./codec.ts"
import { makeCollection } from "./collection.ts"
import { upsertSql } from "./queries.ts"
import { arrayRows, type Executor } from "./statements.ts"

const outboxColumns =
  "id, type, subject, sequence, created_at, body, status, attempts, next_attempt_at, lease_until, round_started_at"
/** An event's columns as array parameters $1-$11 (`sequence`: the subject's sequence, or `back` below). */
const eventRows = (sequence: string) =>
  arrayRows(
    [
      ["id", "text"],
      ["type", "text"],
      ["subject", "text"],
      [sequence, "bigint"],
      ["created_at", "text"],
      ["body", "text"],
      ["status", "text"],
      ["attempts", "text"],
      ["next_attempt_at", "text"],
      ["lease_until", "text"],
      ["round_started_at", "text"]
    ],
    1
  )
const appendSql =
  `INSERT INTO outbox (${outboxColumns}) SELECT id, type, subject, sequence, created_at, body, status, ` +
  `attempts::jsonb, next_attempt_at, lease_until, round_started_at FROM ${eventRows("sequence")} AS e`
// Numbers the events after the last sequence of their subject and inserts them, in one statement: the
// subject's counter row is locked until the transaction ends, so events of one subject never interleave.
// `back` is how many later events of the same subject the batch holds.
const appendEventsSql =
  `WITH e AS ${eventRows("back")}, ` +
  `n AS (INSERT INTO outbox_subjects AS s (subject, last_sequence) SELECT subject, count(*) FROM e ` +
  `GROUP BY subject ORDER BY subject ON CONFLICT (subject) DO UPDATE SET last_sequence = s.last_sequence + ` +
  `EXCLUDED.last_sequence RETURNING subject, last_sequence) ` +
  `INSERT INTO outbox (${outboxColumns}) SELECT e.id, e.type, e.subject, n.last_sequence - e.back, e.created_at, ` +
  `e.body, e.status, e.attempts::jsonb, e.next_attempt_at, e.lease_until, e.round_started_at FROM e JOIN n USING (subject)`
// One event (a command's usual case) as plain parameters: no arrays to build and parse, the body above all.
const appendEventSql =
  `WITH n AS (INSERT INTO outbox_subjects AS s (subject, last_sequence) VALUES ($3, 1) ON CONFLICT (subject) ` +
  `DO UPDATE SET last_sequence = s.last_sequence + 1 RETURNING last_sequence) ` +
  `INSERT INTO outbox (${outboxColumns}) SELECT $1, $2, $3, n.last_sequence, $4, $5, $6, $7::jsonb, $8, $9, $10 FROM n`
// Oldest first (by id) among the rows due by now and not leased; rows another dispatcher is claiming are skipped.
const claimSql =
  `UPDATE outbox AS o SET lease_until = $3, lease_owner = $4 FROM (SELECT id FROM outbox WHERE status = 'PENDING' ` +
  `AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1) ORDER BY id LIMIT $2 ` +
  `FOR UPDATE SKIP LOCKED) AS c WHERE o.id = c.id RETURNING o.*`
// The heartbeat and the give-back touch only the rows the pass still holds: one another dispatcher claimed after
// the lease ended (or one resolved) has another owner (or none).
const renewSql =
  `UPDATE outbox SET lease_until = $3 WHERE id = ANY($2::text[]) AND lease_owner = $1 AND status = 'PENDING' ` +
  `RETURNING id`
const beginAttemptSql =
  `UPDATE outbox SET attempts = attempts || $3::jsonb WHERE id = $1 AND lease_owner = $2 AND status = 'PENDING' ` +
  `RETURNING 1 AS begun`
const releaseSql =
  `UPDATE outbox SET lease_until = NULL, lease_owner = NULL, next_attempt_at = $3 ` +
  `WHERE id = ANY($2::text[]) AND lease_owner = $1 AND status = 'PENDING'`
const nextSequenceSql =
  `INSERT INTO outbox_subjects AS s (subject, last_sequence) VALUES ($1, 1) ON CONFLICT (subject) ` +
  `DO UPDATE SET last_sequence = s.last_sequence + 1 RETURNING last_sequence`

const codec = rowCodecOf(tables.outbox)
// The outbox has no unique key but its id, which this upsert writes over: no UniqueViolation can come.
const saveOutboxSql = upsertSql(codec, ["id"])

const secretCodec = rowCodecOf(tables.webhookSecrets)
const putSecretSql = upsertSql(secretCodec, ["id"])

/** The parameters of `eventRows`: the events' columns as arrays, `sequence` the fourth. */
const eventColumns = (events: ReadonlyArray<NewOutboxRecord>, sequence: ReadonlyArray<number>) => [
  events.map((e) => e.id),
  events.map((e) => e.type),
  events.map((e) => e.subject),
  sequence,
  events.map((e) => e.createdAt),
  events.map((e) => e.body),
  events.map((e) => e.status),
  events.map((e) => JSON.stringify(e.attempts)),
  events.map((e) => e.nextAttemptAt),
  events.map((e) => e.leaseUntil ?? null),
  events.map((e) => e.roundStartedAt ?? null)
]

/** The outbox of events to deliver, and the webhook endpoint's signing secrets. */
export const webhookRepositories = (x: Executor): Pick<Repositories, "outbox" | "webhookSecrets"> => {
  const outboxRows = makeCollection(x, tables.outbox)
  const outbox: Repositories["outbox"] = {
    append: (records) => {
      if (records.length === 0) return Effect.void
      return x.run(
        appendSql,
        eventColumns(
          records,
          records.map((r) => r.sequence)
        )
      )
    },
    appendEvents: (events) => {
      if (events.length === 0) return Effect.void
      if (events.length === 1) {
        const e = events[0]!
        return x.run(appendEventSql, [
          e.id,
          e.type,
          e.subject,
          e.createdAt,
          e.body,
          e.status,
          JSON.stringify(e.attempts),
          e.nextAttemptAt,
          e.leaseUntil ?? null,
          e.roundStartedAt ?? null
        ])
      }
      const later = new Map<string, number>()
      const back = new Array<number>(events.length)
      for (let i = events.length - 1; i >= 0; i--) {
        const subject = events[i]!.subject
        const count = later.get(subject) ?? 0
        back[i] = count
        later.set(subject, count + 1)
      }
      return x.run(appendEventsSql, eventColumns(events, back))
    },
    claimDue: (now, limit, leaseUntil, owner) => {
      if (limit <= 0) return Effect.succeed([])
      return Effect.map(x.query(claimSql, [now, limit, leaseUntil, owner ?? null]), (rows) =>
        rows.map(codec.decode).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      )
    },
    renewLeases: (owner, ids, leaseUntil) => {
      if (ids.length === 0) return Effect.succeed([])
      return Effect.map(x.query(renewSql, [owner, ids, leaseUntil]), (rows) => rows.map((r) => String(r.id)))
    },
    beginAttempt: (owner, id, attempt) =>
      Effect.map(x.query(beginAttemptSql, [id, owner, JSON.stringify([attempt])]), (rows) => rows.length > 0),
    releaseLeases: (owner, ids, dueAt) => (ids.length === 0 ? Effect.void : x.run(releaseSql, [owner, ids, dueAt])),
    save: (record) => x.run(saveOutboxSql, codec.params(record)),
    get: outboxRows.get,
    getForUpdate: outboxRows.getForUpdate,
    list: outboxRows.list,
    nextSequence: (subject) => Effect.map(x.query(nextSequenceSql, [subject]), (rows) => Number(rows[0]!.last_sequence))
  }

  return {
    outbox,
    webhookSecrets: {
      list: () =>
        Effect.map(x.query(`SELECT * FROM webhook_secrets ORDER BY created_at, id`, []), (rows) =>
          rows.map(secretCodec.decode)
        ),
      put: (record) => x.run(putSecretSql, secretCodec.params(record)),
      remove: (id) => x.run(`DELETE FROM webhook_secrets WHERE id = $1`, [id])
    }
  }
}
