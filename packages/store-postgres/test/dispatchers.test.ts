/**
 * Several webhook dispatchers on one PostgreSQL store (the real server with DATABASE_URL, else PGlite): claims
 * are leased with FOR UPDATE SKIP LOCKED, so no event is delivered twice at once and each subject's events
 * still arrive in order.
 */
import { emit, Ids, makeWebhookDispatcher, Store, WebhookSigner, WebhookTransport } from "@paycore/core"
import { makeWebhookRecorder } from "@paycore/testkit"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { setConfig } from "../../core/test/fixtures.ts"
import { testDatabase } from "./helpers.ts"

const db = testDatabase("dispatchers")

describe(`webhook dispatchers (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("four dispatchers draining 300 events deliver each exactly once, in order per subject", async () => {
    const recorder = makeWebhookRecorder()
    // A slow receiver (2 ms a request), so the dispatchers' passes overlap.
    const slowTransport = Layer.succeed(WebhookTransport, {
      post: (url, headers, body) =>
        Effect.andThen(
          Effect.promise(() => new Promise((r) => setTimeout(r, 2))),
          recorder.transport.post(url, headers, body)
        )
    })
    const layer = Layer.mergeAll(db.layer(), Ids.layer, WebhookSigner.layerGenerated, slowTransport)

    const delivered = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* Store
        yield* setConfig({ webhookEndpoint: "https://platform.example/hooks" })
        // 30 subjects, 10 events each, every event in its own committed transaction.
        for (let n = 0; n < 10; n++) {
          for (let s = 0; s < 30; s++) {
            yield* store.transaction(emit(`TEST.STEP_${n}`, `Subject:${s}`, { step: n, subject: s }))
          }
        }
        const dispatchers = yield* Effect.all(Array.from({ length: 4 }, () => makeWebhookDispatcher({ batchSize: 20 })))
        // Every dispatcher passes until a pass finds nothing left; they run at once. A pass that found only rows
        // waiting behind another dispatcher's deliveries pauses, as `drain` does (else, on PGlite's one connection,
        // such passes starve the deliveries).
        yield* Effect.all(
          dispatchers.map((d) =>
            Effect.gen(function* () {
              for (;;) {
                const pass = yield* d.dispatchDue()
                if (pass.claimed === pass.blocked) {
                  const pending = yield* store.outbox.list({ status: "PENDING" }, { limit: 1, sortOrder: "asc" })
                  if (pending.totalCount === 0) return
                  yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5)))
                }
              }
            })
          ),
          { concurrency: "unbounded" }
        )
        return recorder.events()
      }).pipe(Effect.provide(layer))
    )

    expect(delivered).toHaveLength(300)
    expect(new Set(delivered.map((e) => e.id)).size).toBe(300)
    for (let s = 0; s < 30; s++) {
      const steps = delivered
        .filter((e) => (e.data as { subject: number }).subject === s)
        .map((e) => (e.data as { step: number }).step)
      expect(steps).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    }
  }, 120_000)

  // Issue 33: a short lease renewed while the dispatcher works, so a killed instance's events wait seconds, not minutes.
  it("a dispatcher killed mid-attempt: another delivers its events within seconds, in order per subject", async () => {
    const recorder = makeWebhookRecorder()
    const leaseSeconds = 2
    const layer = Layer.mergeAll(db.layer(), Ids.layer, WebhookSigner.layerGenerated, recorder.layer)
    const { waitedMillis, delivered, attempts } = await Effect.runPromise(
      Effect.gen(function* () {
        const store = yield* Store
        yield* setConfig({ webhookEndpoint: "https://platform.example/hooks" })
        for (let n = 0; n < 4; n++) {
          for (let s = 0; s < 5; s++) {
            yield* store.transaction(emit(`TEST.KILLED_${n}`, `Killed:${s}`, { step: n, subject: s }))
          }
        }
        // The first dispatcher's receiver never answers: each subject's first attempt is in flight when it is killed.
        let inFlight = 0
        const started = yield* Deferred.make<void>()
        const hanging = Layer.succeed(WebhookTransport, {
          post: () =>
            Effect.andThen(
              Effect.sync(() => ++inFlight === 5 && Deferred.doneUnsafe(started, Effect.void)),
              Effect.never
            )
        })
        const dying = yield* makeWebhookDispatcher({ leaseSeconds }).pipe(Effect.provide(hanging))
        const other = yield* makeWebhookDispatcher({ leaseSeconds })
        const pass = yield* Effect.forkChild(dying.dispatchDue())
        yield* Deferred.await(started)
        yield* Fiber.interrupt(pass)
        const killedAt = Date.now()
        // The other instance's loop: a pass every 100 ms until every event is delivered.
        for (;;) {
          yield* other.dispatchDue()
          const pending = yield* store.outbox.list({ status: "PENDING" }, { limit: 1, sortOrder: "asc" })
          if (pending.totalCount === 0) break
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
        }
        const waited = Date.now() - killedAt
        const rows = yield* Effect.forEach([0, 1, 2, 3, 4], (s) =>
          store.outbox.list({ subject: `Killed:${s}` }, { limit: 10, sortOrder: "asc" })
        )
        return {
          waitedMillis: waited,
          delivered: recorder.events(),
          attempts: rows.flatMap((page) =>
            page.data.map((r) => [r.status, r.attempts.map((a) => a.responseStatus ?? a.error)])
          )
        }
      }).pipe(Effect.provide(layer))
    )

    expect(delivered).toHaveLength(20)
    expect(new Set(delivered.map((e) => e.id)).size).toBe(20)
    // Each subject's first event lists the killed attempt (no answer recorded), then the one that delivered it.
    const cutShort = "no answer recorded: the dispatcher stopped during the attempt"
    expect(attempts).toEqual(Array.from({ length: 20 }, (_, i) => ["DELIVERED", i % 4 === 0 ? [cutShort, 200] : [200]]))
    for (let s = 0; s < 5; s++) {
      const steps = delivered
        .filter((e) => (e.data as { subject: number }).subject === s)
        .map((e) => (e.data as { step: number }).step)
      expect(steps).toEqual([0, 1, 2, 3])
    }
    // Taken over once the 2 s lease ended (plus a pass): seconds, where a 60 s lease kept them a minute.
    expect(waitedMillis).toBeGreaterThanOrEqual(1_000)
    expect(waitedMillis).toBeLessThan(10_000)
    console.log(`killed dispatcher's events delivered by another ${waitedMillis} ms after the kill (lease 2 s)`)
  }, 60_000)
})
