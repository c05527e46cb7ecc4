/**
 * Several webhook dispatchers on one PostgreSQL store (the real server with DATABASE_URL, else PGlite): claims
 * are leased with FOR UPDATE SKIP LOCKED, so no event is delivered twice at once and each subject's events
 * still arrive in order.
 */
import { emit, Ids, makeWebhookDispatcher, Store, WebhookSigner, WebhookTransport } from "@paycore/core"
import { makeWebhookRecorder } from "@paycore/testkit"
import { Effect, Layer } from "effect"
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
})
