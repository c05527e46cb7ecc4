import { Cause, Clock, Deferred, Duration, Effect, Fiber, Metric, Random } from "effect"
import type { OutboxFilter } from "../ports/store.ts"
import type { TransportResponse } from "../ports/webhook-transport.ts"
import { EngineConfig, type EngineSettings } from "../shared/engine-config.ts"
import type { StoreError } from "../shared/errors.ts"
import type { PageRequest } from "../shared/paging.ts"
import { timedPass } from "../shared/telemetry.ts"
import { addSeconds, nowIso } from "../shared/time.ts"
import { webhookDeliveryError, webhookEndpointNotSet, webhookNotDead, webhookNotFound } from "./errors.ts"
import { outboxLagSeconds, webhookAttemptSeconds, webhookAttempts } from "./metrics.ts"
import type { DeliveryAttempt, OutboxRecord, WebhookReply } from "./model.ts"
import type { DispatcherPorts } from "./ports.ts"
import { activeSecrets } from "./secrets.ts"
import { signedHeaders } from "./signing.ts"

// Delivering the outbox (`WebhookDispatcher`): passes that claim due rows and deliver them, signed, a subject's rows
// in sequence order, each attempt recorded; replays, an operator's reads and a test delivery.

/** The settings the retry schedule reads (`EngineConfig`). */
export type RetrySettings = Pick<
  EngineSettings,
  "webhookBaseBackoffSeconds" | "webhookMaxBackoffSeconds" | "webhookRetryWindowSeconds"
>

/**
 * Seconds to wait after `failedAttempts` failures of a round (1-based): the base doubles each time, capped at
 * `webhookMaxBackoffSeconds`, then jittered down by up to 20% (`random01` in [0, 1)), so it never exceeds the cap.
 */
export const backoffSeconds = (
  failedAttempts: number,
  settings: Pick<EngineSettings, "webhookBaseBackoffSeconds" | "webhookMaxBackoffSeconds">,
  random01: number
): number => {
  // 2^52 is past any cap: no Infinity after a week of attempts.
  const exponent = Math.min(52, Math.max(0, failedAttempts - 1))
  const raw = Math.min(settings.webhookMaxBackoffSeconds, settings.webhookBaseBackoffSeconds * 2 ** exponent)
  return raw * (0.8 + 0.2 * random01)
}

/**
 * WH-19, the delivery retry rule: after the `failedAttempts`-th failed attempt of a round (the round's first attempt
 * at `roundStartedAt`, this one ended at `endedAt`), the next try, or `undefined` to give up (DEAD). The next try
 * comes `backoffSeconds` later, but never after the round's deadline, `webhookRetryWindowSeconds` from its first
 * attempt: one last try is made at the deadline, and an attempt made at or after it is the last.
 */
export const nextRetryAt = (
  roundStartedAt: string,
  failedAttempts: number,
  endedAt: string,
  settings: RetrySettings,
  random01: number
): string | undefined => {
  const deadline = addSeconds(roundStartedAt, settings.webhookRetryWindowSeconds)
  if (endedAt >= deadline) return undefined
  const next = addSeconds(endedAt, backoffSeconds(failedAttempts, settings, random01))
  return next < deadline ? next : deadline
}

/**
 * The retry schedule without jitter, as seconds from the round's first attempt: when each try is due when every try
 * fails at once (`random01` near 1). With the defaults: 0, 5, 15, 35, 75, 155, 315, 635, 1275, 2555, then every
 * 1800 s until the last try at 604800 (7 days): 345 tries. docs/state-machines.md shows it.
 */
export const webhookRetrySchedule = (settings: RetrySettings): ReadonlyArray<number> => {
  const base = Date.parse("2000-01-01T00:00:00.000Z")
  const start = new Date(base).toISOString()
  const offsets = [0]
  let at: string | undefined = start
  for (let failed = 1; ; failed++) {
    at = nextRetryAt(start, failed, at, settings, 1)
    if (at === undefined) return offsets
    offsets.push((Date.parse(at) - base) / 1000)
  }
}

/** `TEST` events (and, as upstream, PENDING incoming payments awaiting approval) get one attempt only. */
export const isRetried = (type: string): boolean => type !== "TEST" && type !== "INCOMING_PAYMENT.PENDING"

/** 2xx is delivered; 409 means the receiver already has it (a duplicate): stop retrying too. */
export const isDelivered = (status: number): boolean => (status >= 200 && status < 300) || status === 409

/** How long a dispatcher's claim holds a row without a renewal (`DispatcherOptions.leaseSeconds`). */
export const DEFAULT_LEASE_SECONDS = 10

export interface DispatcherOptions {
  /** Rows claimed per pass (default 50). */
  readonly batchSize?: number
  /**
   * How long a claimed row is held before another dispatcher may take it (default 10 s): the pass renews the lease
   * of the rows it holds every third of it (`heartbeatMillis`), so a live attempt, however slow, keeps its rows,
   * and the rows of a dispatcher that stopped are taken over within one lease.
   */
  readonly leaseSeconds?: number
  /** Subjects delivered in parallel in one pass; one subject is always sequential (default 8). */
  readonly concurrency?: number
  /**
   * @deprecated Unused: with no `webhookEndpoint` configured a pass claims nothing, and the rows wait, due, for the
   * first pass after one is set.
   */
  readonly noEndpointDelaySeconds?: number
}

export interface DispatchSummary {
  readonly claimed: number
  readonly delivered: number
  /** Failed attempts that will be retried. */
  readonly retrying: number
  readonly dead: number
  /** Left for later: no endpoint configured (no attempt spent). 0 now: with no endpoint a pass claims nothing. */
  readonly deferred: number
  /** Left for later: an earlier event of the same subject is still pending. */
  readonly blocked: number
}

/** What `POST /sandbox/webhooks/test` answers (upstream field names). */
export interface TestDelivery {
  readonly url: string
  readonly response_status: number
  readonly response_body: string
}

interface Tally {
  claimed: number
  delivered: number
  retrying: number
  dead: number
  deferred: number
  blocked: number
}

const maxIso = (a: string, b: string): string => (a > b ? a : b)

/**
 * What an attempt says until its answer is recorded: it stays so when the dispatcher stopped (killed, or taken
 * over) while the request was out, whether or not the receiver got it.
 */
export const ATTEMPT_CUT_SHORT = "no answer recorded: the dispatcher stopped during the attempt"

/** How much of a receiver's answer an attempt keeps: enough to read an error, never a whole page on every row. */
export const RESPONSE_BODY_MAX_BYTES = 2048

/** The longest start of `text` whose UTF-8 takes at most `maxBytes` bytes, never splitting a character. */
export const utf8Prefix = (text: string, maxBytes: number): string => {
  // Every UTF-16 unit takes at least one UTF-8 byte and at most three: the usual short answer is kept as is.
  if (text.length * 3 <= maxBytes) return text
  let bytes = 0
  let end = 0
  for (const char of text) {
    const code = char.codePointAt(0)!
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
    if (bytes > maxBytes) break
    end += char.length
  }
  return text.slice(0, end)
}

/** Text every store can keep: a NUL or an unpaired surrogate (PostgreSQL's jsonb refuses both) becomes U+FFFD. */
const keptText = (text: string): string => text.toWellFormed().replaceAll("\u0000", "\ufffd")

// ---- delivering claimed rows: one signed attempt, a subject's rows in sequence order, a row given back ----

/** Hands the reply to an attempt to the handlers that claim the event's type (see `WebhookReplies`). */
const handReply = (ports: DispatcherPorts, row: OutboxRecord, reply: WebhookReply): Effect.Effect<void> =>
  Effect.forEach(
    ports.replies.filter((handler) => handler.types.includes(row.type)),
    (handler) =>
      handler
        .onReply({ id: row.id, type: row.type, subject: row.subject }, reply)
        .pipe(Effect.catchCause((cause) => Effect.logWarning(`webhook reply handler failed for ${row.id}`, cause))),
    { discard: true }
  )

/**
 * The rows a pass holds: leased to `owner` (a token of the pass), renewed by its heartbeat until each is given back
 * or its attempt recorded.
 */
interface Lease {
  readonly owner: string
  readonly held: Set<string>
}

/** The heartbeat's period: a third of the lease, so two renewals may fail before the lease ends. */
export const heartbeatMillis = (leaseSeconds: number): number => Math.max(1, Math.floor((leaseSeconds * 1000) / 3))

/** Renews the lease of every row the pass holds, every third of the lease, until interrupted (the pass ended). */
const heartbeat = (ports: DispatcherPorts, lease: Lease): Effect.Effect<never> =>
  Effect.gen(function* () {
    if (lease.held.size === 0) return
    const until = addSeconds(yield* nowIso, ports.leaseSeconds)
    const kept = new Set(
      yield* ports.store.transaction(ports.store.outbox.renewLeases(lease.owner, [...lease.held], until))
    )
    // A row not renewed was taken over (this pass stalled past its lease) or resolved: hands off it.
    for (const id of lease.held) if (!kept.has(id)) lease.held.delete(id)
  }).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logWarning("webhook lease renewal failed", cause)
    ),
    Effect.delay(Duration.millis(heartbeatMillis(ports.leaseSeconds))),
    Effect.forever
  )

/** Gives claimed rows back without an attempt, due again at `dueAt` (those the pass still holds). */
const release = (ports: DispatcherPorts, lease: Lease, rows: ReadonlyArray<OutboxRecord>, dueAt: string) => {
  for (const row of rows) lease.held.delete(row.id)
  return ports.store.transaction(
    ports.store.outbox.releaseLeases(
      lease.owner,
      rows.map((row) => row.id),
      dueAt
    )
  )
}

/** One attempt: sign, POST, record it and decide the row's next state. Returns the saved row. */
const attempt = Effect.fnUntraced(function* (
  ports: DispatcherPorts,
  lease: Lease,
  row: OutboxRecord,
  url: string,
  settings: EngineSettings,
  secrets: ReadonlyArray<string>
) {
  const { store, transport, signer } = ports
  const startedMs = yield* Clock.currentTimeMillis
  const at = new Date(startedMs).toISOString()
  // Listed before the request leaves, so an attempt whose dispatcher is killed before the answer is still listed;
  // and not sent at all when the row was taken over meanwhile.
  const begun: DeliveryAttempt = { at, url, error: ATTEMPT_CUT_SHORT, durationMs: 0 }
  if (!(yield* store.transaction(store.outbox.beginAttempt(lease.owner, row.id, begun)))) {
    lease.held.delete(row.id)
    return undefined
  }
  const headers = signedHeaders(signer, secrets, row.id, Math.floor(startedMs / 1000), row.body)
  const result = yield* Effect.result(transport.post(url, headers, row.body))
  const endedMs = yield* Clock.currentTimeMillis
  const durationMs = Math.max(0, Math.round(endedMs - startedMs))
  const outcome = result._tag === "Failure" ? "failed" : isDelivered(result.success.status) ? "delivered" : "rejected"
  yield* Metric.update(Metric.withAttributes(webhookAttempts, { outcome }), 1)
  yield* Metric.update(
    Metric.withAttributes(webhookAttemptSeconds, { outcome }),
    Math.max(0, endedMs - startedMs) / 1000
  )
  const record: DeliveryAttempt =
    result._tag === "Success"
      ? {
          at,
          url,
          responseStatus: result.success.status,
          responseBody: utf8Prefix(keptText(result.success.body), RESPONSE_BODY_MAX_BYTES),
          durationMs
        }
      : { at, url, error: result.failure.message, durationMs }
  const random = yield* Random.next
  const endedAt = new Date(endedMs).toISOString()
  return yield* store
    .transaction(
      Effect.gen(function* () {
        // Re-read, locked: after a lease expiry another dispatcher may be recording attempts too, and each is kept.
        const current = (yield* store.outbox.getForUpdate(row.id)) ?? row
        const attempts = [...current.attempts]
        const listed = attempts.findIndex(
          (a) => a.at === at && a.url === url && a.error === ATTEMPT_CUT_SHORT && a.durationMs === 0
        )
        if (listed < 0) attempts.push(record)
        else attempts[listed] = record
        const base = { ...current, attempts, leaseUntil: undefined, leaseOwner: undefined }
        let next: OutboxRecord
        if (current.status === "DELIVERED" || (result._tag === "Success" && isDelivered(result.success.status))) {
          next = { ...base, status: "DELIVERED" }
        } else if (current.status === "PENDING" && current.leaseOwner !== lease.owner) {
          // Taken over while this attempt ran: the attempt is kept, the holder decides what comes next.
          next = { ...current, attempts }
        } else if (!isRetried(current.type)) {
          next = { ...base, status: "DEAD" }
        } else {
          // The round began at its first attempt: the first one ever, or the first after a replay.
          const roundStartedAt = current.roundStartedAt ?? at
          let inRound = 0
          for (const a of attempts) if (a.at >= roundStartedAt) inRound++
          const retryAt = nextRetryAt(roundStartedAt, inRound, endedAt, settings, random)
          next =
            retryAt === undefined
              ? { ...base, status: "DEAD", roundStartedAt }
              : { ...base, status: "PENDING", nextAttemptAt: retryAt, roundStartedAt }
        }
        yield* store.outbox.save(next)
        return next
      })
    )
    .pipe(
      Effect.tap(() => Effect.sync(() => lease.held.delete(row.id))),
      Effect.tap(() =>
        handReply(
          ports,
          row,
          result._tag === "Success"
            ? { _tag: "Response", status: result.success.status, body: result.success.body }
            : { _tag: "TransportError", message: result.failure.message }
        )
      )
    )
})

/** Rows of one subject, in sequence order: stop at the first that stays pending. */
const deliverSubject = Effect.fnUntraced(function* (
  ports: DispatcherPorts,
  lease: Lease,
  rows: ReadonlyArray<OutboxRecord>,
  url: string,
  settings: EngineSettings,
  now: string,
  tally: Tally,
  secrets: ReadonlyArray<string>,
  stop: Deferred.Deferred<void> | undefined
) {
  let blockedUntil: string | undefined
  let resolvedSequence: number | undefined
  for (const row of rows) {
    if (blockedUntil === undefined && row.sequence > 1 && resolvedSequence !== row.sequence - 1) {
      const earlier = yield* ports.store.outbox.list(
        { subject: row.subject, status: "PENDING", sequenceBelow: row.sequence },
        { limit: 1, sortOrder: "asc" }
      )
      const blocker = earlier.data[0]
      if (blocker !== undefined) blockedUntil = maxIso(now, blocker.nextAttemptAt)
    }
    if (blockedUntil !== undefined) {
      yield* release(ports, lease, [row], maxIso(blockedUntil, row.nextAttemptAt))
      tally.blocked++
      continue
    }
    // Asked to stop (a server shutting down): the attempts under way finish and are recorded, none starts, and the
    // rows not tried are given back as they were, due for the next dispatcher. An interruption is a crash instead:
    // the attempt is cut, and the lease gives its rows to another dispatcher.
    if (stop !== undefined && (yield* Deferred.isDone(stop))) {
      yield* release(ports, lease, [row], now)
      tally.blocked++
      continue
    }
    const saved = yield* attempt(ports, lease, row, url, settings, secrets)
    if (saved === undefined) {
      // Taken over before its attempt (this pass stalled past its lease): the rest of the subject waits behind it.
      blockedUntil = now
      tally.blocked++
      continue
    }
    if (saved.status === "DELIVERED") tally.delivered++
    else if (saved.status === "DEAD") tally.dead++
    else tally.retrying++
    if (saved.status === "PENDING") blockedUntil = saved.nextAttemptAt
    else resolvedSequence = row.sequence
  }
})

// ---- the dispatcher's operations ----

/** Seconds since the earliest of `rows` became due (0 for none). */
const oldestDueSeconds = (rows: ReadonlyArray<OutboxRecord>, now: string): number => {
  let oldest = now
  for (const row of rows) if (row.nextAttemptAt < oldest) oldest = row.nextAttemptAt
  return Math.max(0, (Date.parse(now) - Date.parse(oldest)) / 1000)
}

const NOTHING_CLAIMED: DispatchSummary = { claimed: 0, delivered: 0, retrying: 0, dead: 0, deferred: 0, blocked: 0 }

/** One pass: claim due rows, deliver them (per subject in sequence order), record every attempt. */
export const dispatchDueEvents = Effect.fnUntraced(function* (
  ports: DispatcherPorts,
  stop?: Deferred.Deferred<void> | undefined
) {
  const { store, ids, batchSize, leaseSeconds, concurrency } = ports
  const settings = yield* EngineConfig
  const now = yield* nowIso
  // With no endpoint the rows stay as they are, due: claiming and giving back each event (twice a write) cost the
  // sandbox about what creating it did, and again for every stored event every 30 seconds. They go
  // out at the first pass after an endpoint is set.
  const url = (yield* store.config.get())?.webhookEndpoint
  if (url === undefined || url === "") return NOTHING_CLAIMED
  // A fresh id names this pass's leases: what it renews and gives back, and how it knows it was taken over.
  const owner = yield* ids.make("Webhook")
  const claimed = yield* store.transaction(store.outbox.claimDue(now, batchSize, addSeconds(now, leaseSeconds), owner))
  yield* Metric.update(outboxLagSeconds, oldestDueSeconds(claimed, now))
  const tally: Tally = { claimed: claimed.length, delivered: 0, retrying: 0, dead: 0, deferred: 0, blocked: 0 }
  if (claimed.length === 0) return tally as DispatchSummary
  const lease: Lease = { owner, held: new Set(claimed.map((row) => row.id)) }
  const bySubject = new Map<string, Array<OutboxRecord>>()
  for (const row of claimed) {
    const rows = bySubject.get(row.subject)
    if (rows === undefined) bySubject.set(row.subject, [row])
    else rows.push(row)
  }
  for (const rows of bySubject.values()) rows.sort((a, b) => a.sequence - b.sequence)
  // Read once a pass: a rotation shows in the next pass, and a retiring secret signs until it expires.
  const secrets = activeSecrets(yield* store.webhookSecrets.list(), now)
  const beating = yield* Effect.forkChild(heartbeat(ports, lease))
  yield* Effect.forEach(
    bySubject.values(),
    (rows) => deliverSubject(ports, lease, rows, url, settings, now, tally, secrets, stop),
    { concurrency, discard: true }
  ).pipe(Effect.ensuring(Fiber.interrupt(beating)))
  return tally as DispatchSummary
})

/** An outbox row: 404 for an unknown id. */
export const getEvent = Effect.fnUntraced(function* (ports: DispatcherPorts, eventId: string) {
  const row = yield* ports.store.outbox.get(eventId)
  if (row === undefined) return yield* webhookNotFound(eventId)
  return row
})

/** DEAD → PENDING, due now (a PENDING row is returned unchanged; a DELIVERED one is a 409). */
export const replayEvent = Effect.fnUntraced(function* (ports: DispatcherPorts, eventId: string) {
  const { store } = ports
  return yield* store.transaction(
    Effect.gen(function* () {
      const row = yield* getEvent(ports, eventId)
      if (row.status === "PENDING") return row
      if (row.status !== "DEAD") return yield* webhookNotDead(eventId, row.status)
      // A new round: its first attempt starts the retry window again.
      const next: OutboxRecord = {
        ...row,
        status: "PENDING",
        nextAttemptAt: yield* nowIso,
        leaseUntil: undefined,
        leaseOwner: undefined,
        roundStartedAt: undefined
      }
      yield* store.outbox.save(next)
      return next
    })
  )
})

/** Deliveries for an operator view: filter by status / subject / type, paged by id. */
export const listEvents = Effect.fnUntraced(function* (
  ports: DispatcherPorts,
  filter: OutboxFilter,
  page: PageRequest
) {
  return yield* ports.store.outbox.list(filter, page)
})

/** Sends a `TEST` event now to the configured URL (not stored, not retried) and reports the answer. */
export const sendTestEvent = Effect.fnUntraced(function* (ports: DispatcherPorts) {
  const { store, ids, transport, signer } = ports
  const url = (yield* store.config.get())?.webhookEndpoint
  if (url === undefined || url === "") return yield* webhookEndpointNotSet()
  const id = yield* ids.make("Webhook")
  const nowMs = yield* Clock.currentTimeMillis
  const timestamp = new Date(nowMs).toISOString()
  const body = JSON.stringify({ id, type: "TEST", timestamp, data: {} })
  const secrets = activeSecrets(yield* store.webhookSecrets.list(), timestamp)
  const response: TransportResponse = yield* transport
    .post(url, signedHeaders(signer, secrets, id, Math.floor(nowMs / 1000), body), body)
    .pipe(Effect.mapError((e) => webhookDeliveryError(url, e.message)))
  return { url, response_status: response.status, response_body: response.body } satisfies TestDelivery
})

/**
 * `dispatchDue` (the service's, each pass in its span) every `intervalMillis` forever, draining full batches at
 * once; errors are logged.
 */
export const runDispatcher = (
  ports: DispatcherPorts,
  dispatchDue: (stop: Deferred.Deferred<void> | undefined) => Effect.Effect<DispatchSummary, StoreError>,
  intervalMillis: number,
  stop: Deferred.Deferred<void> | undefined
): Effect.Effect<void> => {
  const drain: Effect.Effect<void> = Effect.gen(function* () {
    while (true) {
      const summary = yield* timedPass("webhooks", dispatchDue(stop))
      // A batch whose rows all wait behind earlier events of their subjects (another dispatcher is delivering
      // them) is given back as due at once: passing again at once would only claim it again, spinning.
      if (summary.claimed < ports.batchSize || summary.blocked === summary.claimed) return
      // Requests waiting on the event loop go first: on an in-process store a batch runs without waiting on I/O,
      // and batches back to back held the loop for as long as the backlog lasted.
      yield* Effect.yieldNow
    }
  }).pipe(Effect.catchCause((cause) => Effect.logWarning("webhook dispatch pass failed", cause)))
  const pause = Effect.sleep(Duration.millis(intervalMillis))
  return Effect.gen(function* () {
    while (stop === undefined || !(yield* Deferred.isDone(stop))) {
      yield* drain
      yield* stop === undefined ? pause : Effect.raceFirst(pause, Deferred.await(stop))
    }
  })
}
