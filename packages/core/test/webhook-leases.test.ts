/**
 * Issue 33: the dispatcher's lease is short and renewed while it works (a heartbeat every third of it), so the
 * events of a dispatcher that stopped are delivered by another within one lease, and a live attempt on a slow
 * receiver (the transport waits up to 30 s) keeps its events: nothing is delivered twice. On the TestClock.
 */
import { assert, describe, it } from "@effect/vitest"
import { emit, Ids, makeWebhookDispatcher, Store, WebhookSigner, WebhookTransport } from "@paycore/core"
import { layer as memoryStore } from "@paycore/store-memory"
import { makeWebhookRecorder } from "@paycore/testkit"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { ATTEMPT_CUT_SHORT, heartbeatMillis } from "../src/webhooks/dispatch.ts"
import { setConfig } from "./fixtures.ts"

const URL = "https://platform.example/webhooks"
const LEASE_SECONDS = 10

/** The memory store and the rest of a dispatcher's ports, with `post` as the receiver. */
const ports = (post: WebhookTransport["Service"]["post"]) =>
  Layer.mergeAll(
    memoryStore,
    Ids.layerSeeded(33),
    WebhookSigner.layerGenerated,
    Layer.succeed(WebhookTransport, { post })
  )

/** Lets forked fibers run what the clock has made due. */
const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

const emitSteps = (subject: string, steps: number) =>
  Effect.gen(function* () {
    const store = yield* Store
    for (let n = 0; n < steps; n++) yield* store.transaction(emit("X.STEP", subject, { n }))
  })

describe("webhook leases (issue 33)", () => {
  it("the heartbeat renews a third of the lease", () => {
    assert.strictEqual(heartbeatMillis(10), 3333)
    assert.strictEqual(heartbeatMillis(3), 1000)
  })

  it.effect("a dispatcher that dies mid-attempt: another delivers its events, in order, once the lease ends", () => {
    const recorder = makeWebhookRecorder()
    let posts = 0
    // The first POST never answers (the instance is killed while it waits); the others reach the receiver.
    const post: WebhookTransport["Service"]["post"] = (url, headers, body) =>
      posts++ === 0 ? Effect.never : recorder.transport.post(url, headers, body)
    return Effect.gen(function* () {
      yield* setConfig({ webhookEndpoint: URL })
      yield* emitSteps("Transaction:1", 3)
      const dying = yield* makeWebhookDispatcher({ leaseSeconds: LEASE_SECONDS })
      const other = yield* makeWebhookDispatcher({ leaseSeconds: LEASE_SECONDS })
      const pass = yield* Effect.forkChild(dying.dispatchDue())
      yield* settle
      assert.strictEqual(posts, 1, "the first event's attempt is in flight")
      // Killed: its pass (and its heartbeat) stop, its claim stays in the store.
      yield* Fiber.interrupt(pass)

      yield* TestClock.adjust(LEASE_SECONDS * 1000 - 1)
      const early = yield* other.dispatchDue()
      assert.strictEqual(early.claimed, 0, "held until the lease ends")
      yield* TestClock.adjust(1)
      const taken = yield* other.dispatchDue()
      assert.deepStrictEqual([taken.claimed, taken.delivered], [3, 3])
      assert.deepStrictEqual(
        recorder.events().map((e) => (e.data as { n: number }).n),
        [0, 1, 2]
      )
      // The killed attempt is listed (the receiver may have had it), then the one that delivered.
      const store = yield* Store
      const rows = (yield* store.outbox.list({}, { limit: 10, sortOrder: "asc" })).data
      assert.deepStrictEqual(
        rows.map((r) => r.attempts.map((a) => a.responseStatus ?? a.error)),
        [[ATTEMPT_CUT_SHORT, 200], [200], [200]]
      )
    }).pipe(Effect.provide(ports(post)))
  })

  it.effect("a live attempt on a slow receiver keeps its lease past it, and is not delivered twice", () => {
    const recorder = makeWebhookRecorder()
    // The receiver answers after 25 s (within the transport's 30 s), two and a half leases.
    const post: WebhookTransport["Service"]["post"] = (url, headers, body) =>
      Effect.andThen(Effect.sleep("25 seconds"), recorder.transport.post(url, headers, body))
    return Effect.gen(function* () {
      const store = yield* Store
      yield* setConfig({ webhookEndpoint: URL })
      yield* emitSteps("Transaction:2", 2)
      const slow = yield* makeWebhookDispatcher({ leaseSeconds: LEASE_SECONDS })
      const other = yield* makeWebhookDispatcher({ leaseSeconds: LEASE_SECONDS })
      const pass = yield* Effect.forkChild(slow.dispatchDue())
      yield* settle
      // Every second for the two attempts (50 s): the other dispatcher finds nothing to claim.
      for (let second = 1; second <= 50; second++) {
        yield* TestClock.adjust(1000)
        yield* settle
        const tried = yield* other.dispatchDue()
        assert.strictEqual(tried.claimed, 0, `claimed at ${second} s`)
      }
      const summary = yield* Fiber.join(pass)
      assert.deepStrictEqual([summary.claimed, summary.delivered], [2, 2])
      assert.strictEqual(recorder.requests().length, 2)
      const rows = (yield* store.outbox.list({}, { limit: 10, sortOrder: "asc" })).data
      assert.deepStrictEqual(
        rows.map((r) => [r.status, r.attempts.length, r.leaseUntil, r.leaseOwner]),
        [
          ["DELIVERED", 1, undefined, undefined],
          ["DELIVERED", 1, undefined, undefined]
        ]
      )
    }).pipe(Effect.provide(ports(post)))
  })

  it.effect("a pass that stalled past its lease keeps its attempt but lets the new holder decide", () => {
    const recorder = makeWebhookRecorder({ respond: (_request, index) => (index === 1 ? 500 : 200) })
    let release: (() => void) | undefined
    // The first POST waits until the test lets it answer (a stalled instance: no heartbeat reaches the store).
    const post: WebhookTransport["Service"]["post"] = (url, headers, body) =>
      release === undefined
        ? Effect.andThen(
            Effect.callback<void>((resume) => {
              release = () => resume(Effect.void)
            }),
            recorder.transport.post(url, headers, body)
          )
        : recorder.transport.post(url, headers, body)
    return Effect.gen(function* () {
      const store = yield* Store
      yield* setConfig({ webhookEndpoint: URL })
      yield* emitSteps("Transaction:3", 1)
      // The stalled dispatcher's heartbeat renews nothing (its renewals never reach the store in time).
      const failing = Store.of({
        ...store,
        outbox: { ...store.outbox, renewLeases: () => Effect.succeed([]) }
      })
      const stalled = yield* makeWebhookDispatcher({ leaseSeconds: LEASE_SECONDS }).pipe(
        Effect.provideService(Store, failing)
      )
      const other = yield* makeWebhookDispatcher({ leaseSeconds: LEASE_SECONDS })
      const pass = yield* Effect.forkChild(stalled.dispatchDue())
      yield* settle
      yield* TestClock.adjust(LEASE_SECONDS * 1000)
      yield* settle
      // Taken over and delivered by the other dispatcher.
      const taken = yield* other.dispatchDue()
      assert.deepStrictEqual([taken.claimed, taken.delivered], [1, 1])
      // The stalled attempt ends (a 500): recorded beside the other's, the row stays DELIVERED.
      release!()
      yield* Fiber.join(pass)
      const [row] = (yield* store.outbox.list({}, { limit: 10, sortOrder: "asc" })).data
      assert.strictEqual(row!.status, "DELIVERED")
      assert.deepStrictEqual(row!.attempts.map((a) => a.responseStatus).sort(), [200, 500])
    }).pipe(Effect.provide(ports(post)))
  })
})
