/**
 * `GET /webhooks/stream`: the outbox as Server-Sent Events, for a developer's `paycore listen`. Each event is sent
 * as `id: <webhook id>`, `event: <type>` and `data: <the body POSTed to the platform's webhook URL>`; the delivery
 * dispatcher is not involved.
 */
import type { OutboxRecord, StoreError } from "@paycore/core"
import { Duration, Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"

/** A comment line this often keeps proxies and clients from closing a quiet stream. */
const KEEP_ALIVE = Duration.seconds(15)

/**
 * How often a stream reads the store when this process answered no write: events also come from the background
 * workers and from other processes, and the store tells no one of a commit. One small read a second per stream.
 */
export const STREAM_POLL_MILLIS = 1_000

/**
 * Tells the event streams that this process answered a write, so they read the store at once instead of at their
 * next poll. Writes are counted, so one answered while a stream was reading is not missed.
 */
export interface WriteSignal {
  readonly notify: () => void
  /** A wake for one stream: completes at once when a write was answered since it last completed, else at the next. */
  readonly wake: () => Effect.Effect<void>
}

export const makeWriteSignal = (): WriteSignal => {
  let writes = 0
  const waiters = new Set<() => void>()
  return {
    notify: () => {
      writes++
      if (waiters.size === 0) return
      const woken = [...waiters]
      waiters.clear()
      for (const waiter of woken) waiter()
    },
    wake: () => {
      let seen = writes
      return Effect.suspend(() => {
        if (seen !== writes) {
          seen = writes
          return Effect.void
        }
        return Effect.callback<void>((resume) => {
          const waiter = () => {
            seen = writes
            resume(Effect.void)
          }
          waiters.add(waiter)
          return Effect.sync(() => {
            waiters.delete(waiter)
          })
        })
      })
    }
  }
}

/** One event: `data` is the exact JSON body delivered to the webhook URL (JSON text holds no raw line break). */
const eventText = (row: OutboxRecord): string => `id: ${row.id}\nevent: ${row.type}\ndata: ${row.body}\n\n`

const keepAlive = Stream.tick(KEEP_ALIVE).pipe(
  Stream.drop(1),
  Stream.map(() => ": keep-alive\n\n")
)

/**
 * The `text/event-stream` answer: the events with a keep-alive comment every 15 s, until the client goes away
 * (the listener interrupts it) or `closing` completes (the server stops: the response ends).
 */
export const eventStreamResponse = (
  events: Stream.Stream<OutboxRecord, StoreError>,
  closing: Effect.Effect<void>
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.stream(
    Stream.map(events, eventText).pipe(
      Stream.merge(keepAlive, { haltStrategy: "left" }),
      Stream.interruptWhen(closing),
      Stream.encodeText
    ),
    { contentType: "text/event-stream", headers: { "cache-control": "no-cache", "x-accel-buffering": "no" } }
  )
