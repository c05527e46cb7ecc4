import { Clock, Duration, Effect, Stream } from "effect"
import type { Store } from "../ports/store.ts"
import type { StoreError } from "../shared/errors.ts"
import type { OutboxRecord } from "./model.ts"

/** Rows read per store call while catching up. */
const PAGE_SIZE = 100

/**
 * How long a sent row is remembered: an event committed later than a row with a higher id (ids are taken inside
 * a transaction, before its commit; PostgreSQL runs transactions side by side) is still found if its transaction
 * took less than this.
 */
const LATE_COMMIT_MILLIS = 5_000

export interface FollowOptions {
  /** Completes when events may have been committed since it last completed (this process answered a write). */
  readonly wake: Effect.Effect<void>
  /**
   * Looks again after this long without a wake: the background workers and other processes commit events too,
   * and the store tells no one of a commit.
   */
  readonly pollMillis: number
}

/**
 * The events of the outbox after `after` (a webhook id, known or not: ids are ordered by time), in id order, then
 * each one as it is committed, forever; without `after`, the events committed from now on (the newest is read
 * before the stream is handed out, so a caller told of the stream sees every later event). Each event once, even
 * when it commits after one with a higher id (see `LATE_COMMIT_MILLIS`). It reads the store when woken or every
 * `pollMillis`, never in a tight loop.
 */
export const followOutbox = Effect.fnUntraced(function* (
  store: Store["Service"],
  after: string | undefined,
  options: FollowOptions
) {
  // Rows at or below `floor` are done: sent, or before the start. Rows above it already sent, with when.
  let floor = after ?? (yield* store.outbox.list({}, { limit: 1, sortOrder: "desc" })).data[0]?.id
  const sent = new Map<string, number>()
  // Where the next read starts: the floor, or while catching up (`behind`), the end of the last page.
  let cursor = floor
  let behind = false

  /** One page of rows: the ones not sent yet. */
  const poll = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const page = yield* store.outbox.list({}, { limit: PAGE_SIZE, after: cursor, sortOrder: "asc" })
    const fresh: Array<OutboxRecord> = []
    for (const row of page.data) {
      if (sent.has(row.id)) continue
      fresh.push(row)
      sent.set(row.id, now)
    }
    // Rows sent long enough ago are forgotten: the floor moves up to the highest of them.
    for (const [id, at] of sent) if (at <= now - LATE_COMMIT_MILLIS && (floor === undefined || id > floor)) floor = id
    for (const id of sent.keys()) if (floor !== undefined && id <= floor) sent.delete(id)
    const last = page.data[page.data.length - 1]
    behind = page.hasMore && last !== undefined
    cursor = behind ? last?.id : floor
    return fresh
  })

  // Catching up reads the next page at once; else it waits for a wake or the poll interval.
  const wakeOrPoll = Effect.race(options.wake, Effect.sleep(Duration.millis(options.pollMillis)))
  const next = Effect.andThen(
    Effect.suspend(() => (behind ? Effect.void : wakeOrPoll)),
    poll
  )
  const events: Stream.Stream<OutboxRecord, StoreError> = Stream.fromIterableEffect(poll).pipe(
    Stream.concat(Stream.fromIterableEffectRepeat(next))
  )
  return events
})
