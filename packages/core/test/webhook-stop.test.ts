/**
 * Issue 33 item 6: a dispatcher stopped in the middle of a pass (a server shutting down completes its `stop`) finishes
 * the webhook attempt under way and records it, starts no other, and ends: the rows it claimed and did not try stay
 * PENDING, with no attempt spent, given back due at once (not held until their lease ends).
 */
import { assert, describe, it } from "@effect/vitest"
import {
  defaultEngineSettings,
  EngineConfig,
  emit,
  Ids,
  type PlatformConfig,
  Store,
  WebhookDispatcher,
  WebhookSigner,
  WebhookTransport
} from "@paycore/core"
import { layer as memoryStore } from "@paycore/store-memory"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { defaultCurrencyConfig } from "../src/platform/currencies.ts"

const URL = "https://platform.example/webhooks"

const platformConfig: PlatformConfig = {
  id: "PlatformConfig:019542f5-b3e7-7d02-8000-000000000001",
  umaDomain: "example.com",
  webhookEndpoint: URL,
  supportedCurrencies: [defaultCurrencyConfig("USD")],
  isRegulatedFinancialInstitution: false,
  skipVerificationPaperwork: true,
  feeConfigs: [],
  transactionLimits: [],
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z"
}

describe("stopping the webhook dispatcher", () => {
  it.effect(
    "issue 33 item 6: the attempt in flight finishes and is recorded DELIVERED; the claimed rows not tried stay PENDING, untried",
    () =>
      Effect.gen(function* () {
        const posted: Array<string> = []
        const inFlight = yield* Deferred.make<void>()
        const answer = yield* Deferred.make<void>()
        // A receiver that answers only when the test says so.
        const transport = WebhookTransport.of({
          post: (_url, _headers, body) =>
            Effect.gen(function* () {
              posted.push((JSON.parse(body) as { id: string }).id)
              yield* Deferred.succeed(inFlight, undefined)
              yield* Deferred.await(answer)
              return { status: 200, body: "" }
            })
        })
        const layer = WebhookDispatcher.layerWith({ concurrency: 1 }).pipe(
          Layer.provideMerge(
            Layer.mergeAll(
              memoryStore,
              Ids.layerSeeded(7),
              Layer.succeed(WebhookTransport, transport),
              WebhookSigner.layerGenerated
            )
          )
        )
        yield* Effect.gen(function* () {
          const store = yield* Store
          const dispatcher = yield* WebhookDispatcher
          yield* TestClock.setTime(Date.parse("2025-06-01T12:00:00Z"))
          yield* store.transaction(store.config.put(platformConfig))
          for (const subject of ["Transaction:1", "Transaction:2", "Transaction:3"]) {
            yield* store.transaction(emit("OUTGOING_PAYMENT.COMPLETED", subject, { id: subject }))
          }
          const stop = yield* Deferred.make<void>()
          const running = yield* Effect.forkChild(dispatcher.run(1000, stop))
          yield* Deferred.await(inFlight)
          // Stopped while the receiver holds the attempt: the stop takes effect once the attempt is answered.
          yield* Deferred.succeed(stop, undefined)
          yield* Deferred.succeed(answer, undefined)
          yield* Fiber.join(running)

          const rows = (yield* store.outbox.list({}, { limit: 10, sortOrder: "asc" })).data
          assert.strictEqual(posted.length, 1)
          const tried = rows.find((row) => row.id === posted[0])!
          assert.strictEqual(tried.status, "DELIVERED")
          assert.strictEqual(tried.attempts.length, 1)
          assert.strictEqual(tried.attempts[0]!.responseStatus, 200)
          const untried = rows.filter((row) => row.id !== posted[0])
          assert.strictEqual(untried.length, 2)
          for (const row of untried) {
            assert.strictEqual(row.status, "PENDING")
            assert.deepStrictEqual(row.attempts, [])
            // Given back, due at once: the next dispatcher (another instance) need not wait out this one's lease.
            assert.strictEqual(row.leaseOwner, undefined)
            assert.isTrue(row.nextAttemptAt <= "2025-06-01T12:00:00.000Z")
          }
        }).pipe(Effect.provide(layer), Effect.provideService(EngineConfig, defaultEngineSettings))
      })
  )
})
