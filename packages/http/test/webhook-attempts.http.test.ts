import {
  emit,
  Ids,
  makeWebhookDispatcher,
  Store,
  WebhookSigner,
  type WebhookTransport,
  WebhookTransport as WebhookTransportTag
} from "@paycore/core"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll, expect, it } from "vitest"
import { startTestServer, type TestServer } from "./harness.ts"
import { onEveryStore } from "./stores.ts"

// Issue 33: `GET /webhooks/deliveries` lists every attempt of an event, each with its time, URL, answer or error,
// even when two dispatchers delivered it (the first stalled past its lease, the second took it over) and when the
// dispatcher making an attempt was killed before the answer came; on every store.

const ENDPOINT = "https://platform.example/webhooks"
const LEASE_SECONDS = 10

/** Lets forked fibers run what the clock has made due. */
const settle = Effect.gen(function* () {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow
})

onEveryStore("Every delivery attempt listed", "webhook_attempts", (stores) => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer(stores())
    expect((await server.call("PATCH", "/config", { webhookEndpoint: ENDPOINT })).status).toBe(200)
    await server.dispatch()
  })
  afterAll(() => server.close())

  /** Two dispatchers on the server's store, on a TestClock: `first` answers when `answer` is completed. */
  const scenario = <A>(
    test: (ports: {
      readonly first: WebhookTransport["Service"]["post"]
      readonly answer: Deferred.Deferred<number>
      /** Completed when `first` has been called: the attempt is in flight. */
      readonly posted: Deferred.Deferred<void>
    }) => Effect.Effect<A, unknown, Store | Ids | WebhookSigner | WebhookTransport>
  ) =>
    Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-06-01T12:00:00Z"))
        const answer = yield* Deferred.make<number>()
        const posted = yield* Deferred.make<void>()
        const first: WebhookTransport["Service"]["post"] = () =>
          Effect.andThen(
            Deferred.succeed(posted, undefined),
            Effect.map(Deferred.await(answer), (status) => ({ status, body: "ok" }))
          )
        return yield* test({ first, answer, posted })
      }).pipe(
        Effect.provide(
          Layer.mergeAll(
            Layer.succeed(Store, server.store),
            Ids.layer,
            WebhookSigner.layerGenerated,
            server.webhooks.layer,
            TestClock.layer()
          )
        )
      )
    )

  const deliveriesOf = async (subject: string) => {
    const r = await server.call("GET", `/webhooks/deliveries?subject=${subject}&sortOrder=asc`)
    expect(r.status).toBe(200)
    return r.json.data as ReadonlyArray<{
      status: string
      attempts: ReadonlyArray<{ at: string; url: string; responseStatus?: number; error?: string }>
    }>
  }

  it("an event delivered twice (the first dispatcher stalled past its lease) lists both attempts", async () => {
    const subject = `Subject:twice-${Date.now()}`
    await scenario(({ first, answer, posted }) =>
      Effect.gen(function* () {
        const store = yield* Store
        yield* store.transaction(emit("X.DELIVERED_TWICE", subject, {}))
        // The first dispatcher's heartbeat renews nothing (a stalled instance), and its receiver answers late.
        const stalledStore = Store.of({
          ...store,
          outbox: { ...store.outbox, renewLeases: () => Effect.succeed([]) }
        })
        const stalled = yield* makeWebhookDispatcher({ leaseSeconds: LEASE_SECONDS }).pipe(
          Effect.provideService(Store, stalledStore),
          Effect.provideService(WebhookTransportTag, { post: first })
        )
        const other = yield* makeWebhookDispatcher({ leaseSeconds: LEASE_SECONDS })
        const pass = yield* Effect.forkChild(stalled.dispatchDue())
        yield* Deferred.await(posted)
        yield* TestClock.adjust(LEASE_SECONDS * 1000)
        yield* settle
        const taken = yield* other.dispatchDue()
        expect([taken.claimed, taken.delivered]).toEqual([1, 1])
        yield* TestClock.adjust(2000)
        yield* Deferred.succeed(answer, 200)
        yield* Fiber.join(pass)
      })
    )
    const [delivery, ...none] = await deliveriesOf(subject)
    expect(none).toEqual([])
    expect(delivery!.status).toBe("DELIVERED")
    expect(delivery!.attempts.map((a) => [a.at, a.url, a.responseStatus])).toEqual([
      ["2026-06-01T12:00:00.000Z", ENDPOINT, 200],
      ["2026-06-01T12:00:10.000Z", ENDPOINT, 200]
    ])
  })

  it("an attempt whose dispatcher was killed before the answer is listed, then the one that delivered", async () => {
    const subject = `Subject:killed-${Date.now()}`
    await scenario(({ first, posted }) =>
      Effect.gen(function* () {
        const store = yield* Store
        yield* store.transaction(emit("X.KILLED", subject, {}))
        const killed = yield* makeWebhookDispatcher({ leaseSeconds: LEASE_SECONDS }).pipe(
          Effect.provideService(WebhookTransportTag, { post: first })
        )
        const other = yield* makeWebhookDispatcher({ leaseSeconds: LEASE_SECONDS })
        const pass = yield* Effect.forkChild(killed.dispatchDue())
        yield* Deferred.await(posted)
        yield* Fiber.interrupt(pass)
        yield* TestClock.adjust(LEASE_SECONDS * 1000)
        const taken = yield* other.dispatchDue()
        expect([taken.claimed, taken.delivered]).toEqual([1, 1])
      })
    )
    const [delivery] = await deliveriesOf(subject)
    expect(delivery!.attempts).toEqual([
      {
        at: "2026-06-01T12:00:00.000Z",
        url: ENDPOINT,
        error: "no answer recorded: the dispatcher stopped during the attempt",
        durationMs: 0
      },
      expect.objectContaining({ at: "2026-06-01T12:00:10.000Z", url: ENDPOINT, responseStatus: 200 })
    ])
  })
})
