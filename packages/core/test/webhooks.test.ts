import { createHmac, createPublicKey, createVerify } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import {
  defaultEngineSettings,
  EngineConfig,
  type EngineSettings,
  emit,
  Ids,
  type OutboxRecord,
  type PlatformConfig,
  Store,
  verifyStandardWebhook,
  verifyWebhookSignature,
  WebhookDispatcher,
  WebhookSecrets,
  WebhookSigner
} from "@paycore/core"
import { layer as memoryStore } from "@paycore/store-memory"
import { makeWebhookRecorder, type WebhookRecorder } from "@paycore/testkit"
import { Clock, Effect, Fiber, Layer, Random } from "effect"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { Webhook } from "standardwebhooks"
import { defaultCurrencyConfig } from "../src/platform/currencies.ts"
import { backoffSeconds, nextRetryAt, webhookRetrySchedule } from "../src/webhooks/dispatch.ts"
import { SIGNATURE_HEADER, signedHeaders, webhookKeysFromHex } from "../src/webhooks/signing.ts"

const PRIVATE_KEY = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
const keys = webhookKeysFromHex(PRIVATE_KEY)
const URL = "https://platform.example/webhooks"

const nodeVerify = (pem: string, message: string, signatureBase64: string): boolean => {
  const verifier = createVerify("SHA256")
  verifier.update(message)
  verifier.end()
  return verifier.verify(pem, signatureBase64, "base64")
}

const platformConfig = (webhookEndpoint?: string): PlatformConfig => ({
  id: "PlatformConfig:019542f5-b3e7-7d02-8000-000000000001",
  umaDomain: "example.com",
  ...(webhookEndpoint === undefined ? {} : { webhookEndpoint }),
  supportedCurrencies: [defaultCurrencyConfig("USD")],
  isRegulatedFinancialInstitution: false,
  skipVerificationPaperwork: true,
  feeConfigs: [],
  transactionLimits: [],
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z"
})

const setup = (recorder: WebhookRecorder, options?: { readonly batchSize?: number }) =>
  Layer.mergeAll(WebhookDispatcher.layerWith(options ?? {}), WebhookSecrets.layer).pipe(
    Layer.provideMerge(
      Layer.mergeAll(memoryStore, Ids.layerSeeded(7), recorder.layer, WebhookSigner.layerFromHex(PRIVATE_KEY))
    )
  )

const configure = (url?: string) =>
  Effect.gen(function* () {
    const store = yield* Store
    yield* store.transaction(store.config.put(platformConfig(url)))
  })

const emitOne = (type: string, subject: string, data: unknown = {}) =>
  Effect.gen(function* () {
    const store = yield* Store
    yield* store.transaction(emit(type, subject, data))
  })

const outbox = Effect.gen(function* () {
  const store = yield* Store
  const page = yield* store.outbox.list({}, { limit: 100, sortOrder: "asc" })
  return page.data
})

const only = (rows: ReadonlyArray<OutboxRecord>): OutboxRecord => {
  assert.strictEqual(rows.length, 1)
  return rows[0]!
}

const millis = (iso: string) => Date.parse(iso)

/** Moves the TestClock to `iso` (no-op when already past it). */
const advanceTo = (iso: string) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const target = millis(iso)
    if (target > now) yield* TestClock.adjust(target - now)
  })

const withSettings = (settings: Partial<EngineSettings>) =>
  Effect.provideService(EngineConfig, { ...defaultEngineSettings, ...settings })

/** Jitter that takes nothing off: every retry comes at the schedule's nominal instant. */
const noJitter = Effect.provideService(Random.Random, {
  nextDoubleUnsafe: () => 1 - 2 ** -53,
  nextIntUnsafe: () => Number.MAX_SAFE_INTEGER
})

/**
 * Passes of the dispatcher, each when the row is due, until it is no longer PENDING: the row then, and the seconds
 * from its first attempt of each attempt made.
 */
const untilSettled = (dispatcher: WebhookDispatcher["Service"]) =>
  Effect.gen(function* () {
    let row = only(yield* outbox)
    while (row.status === "PENDING") {
      yield* advanceTo(row.nextAttemptAt)
      yield* dispatcher.dispatchDue()
      row = only(yield* outbox)
    }
    const first = millis(row.attempts[0]!.at)
    return { row, offsets: row.attempts.map((a) => (millis(a.at) - first) / 1000) }
  })

describe("webhook signing", () => {
  it("signs the raw body so node:crypto verifies it with the published PEM", () => {
    assert.match(keys.publicKeyPem, /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PUBLIC KEY-----\n$/)
    const details = createPublicKey(keys.publicKeyPem).asymmetricKeyDetails
    assert.strictEqual(details?.namedCurve, "prime256v1")

    const body = JSON.stringify({ id: "Webhook:1", type: "TEST", timestamp: "2025-01-01T00:00:00Z", data: {} })
    const signature = keys.sign(body)
    assert.isTrue(nodeVerify(keys.publicKeyPem, body, signature))
    assert.isFalse(nodeVerify(keys.publicKeyPem, body.replace("TEST", "TESX"), signature))
    assert.isTrue(verifyWebhookSignature(keys.publicKeyPem, body, signature))
    assert.isTrue(verifyWebhookSignature(keys.publicKeyPem, body, JSON.stringify({ v: "1", s: signature })))
    assert.isFalse(verifyWebhookSignature(keys.publicKeyPem, `${body} `, signature))
    assert.isFalse(verifyWebhookSignature(keys.publicKeyPem, body, "not base64!"))
    const other = webhookKeysFromHex("1".repeat(64))
    assert.isFalse(verifyWebhookSignature(other.publicKeyPem, body, signature))
  })

  // WH-04: Standard Webhooks `v1` (HMAC-SHA256 with the endpoint's whsec_ secret), checked as receivers check it.
  it("signs v1 with every active secret, verifiable by the standardwebhooks package and by hand", () => {
    const body = '{"id":"Webhook:1","type":"X","timestamp":"2025-01-01T00:00:00Z","data":{"a":1}}'
    const newer = `whsec_${Buffer.alloc(32, 7).toString("base64")}`
    const older = `whsec_${Buffer.alloc(32, 9).toString("base64")}`
    const nowSeconds = Math.floor(Date.now() / 1000)
    const headers = signedHeaders(keys, [newer, older], "Webhook:1", nowSeconds, body)
    assert.strictEqual(headers["webhook-id"], "Webhook:1")
    assert.strictEqual(headers["webhook-timestamp"], String(nowSeconds))
    const entries = headers["webhook-signature"]!.split(" ")
    assert.lengthOf(entries, 2)
    const byHand = (secret: string) =>
      createHmac("sha256", Buffer.from(secret.slice(6), "base64"))
        .update(`Webhook:1.${nowSeconds}.${body}`)
        .digest("base64")
    assert.deepStrictEqual(entries, [`v1,${byHand(newer)}`, `v1,${byHand(older)}`])
    // Each secret alone verifies (a receiver that has not switched yet, one that has), a third does not.
    const received = headers as Record<string, string>
    assert.deepStrictEqual(new Webhook(newer).verify(body, received), JSON.parse(body))
    assert.deepStrictEqual(new Webhook(older).verify(body, received), JSON.parse(body))
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(body, received))
    assert.throws(() => new Webhook(newer).verify(`${body} `, received))
    // The upstream signature rides along, over the raw body.
    assert.isTrue(nodeVerify(keys.publicKeyPem, body, headers[SIGNATURE_HEADER]!))

    const std = { id: "Webhook:1", timestamp: String(nowSeconds), signature: headers["webhook-signature"]! }
    assert.isTrue(verifyStandardWebhook(older, std, body))
    assert.isTrue(verifyStandardWebhook(newer, std, body, { nowSeconds: nowSeconds + 100 }))
    assert.isFalse(verifyStandardWebhook(newer, std, body, { nowSeconds: nowSeconds + 1000 }))
    assert.isFalse(verifyStandardWebhook(newer, { ...std, timestamp: String(nowSeconds + 1) }, body))
    assert.isFalse(verifyStandardWebhook(newer, { ...std, signature: std.signature.replaceAll("v1,", "v1a,") }, body))
    assert.isFalse(verifyStandardWebhook(newer, std, `${body}x`))
    assert.isFalse(verifyStandardWebhook("whsec_not base64!", std, body))
  })

  it("sends no webhook-signature while the endpoint has no signing secret", () => {
    const headers = signedHeaders(keys, [], "Webhook:1", 1_735_689_600, "{}")
    assert.notProperty(headers, "webhook-signature")
    assert.isTrue(nodeVerify(keys.publicKeyPem, "{}", headers[SIGNATURE_HEADER]!))
  })

  it("loads keys from hex deterministically and refuses bad keys", () => {
    assert.strictEqual(webhookKeysFromHex(PRIVATE_KEY).publicKeyPem, keys.publicKeyPem)
    assert.throws(() => webhookKeysFromHex("abc"))
    assert.throws(() => webhookKeysFromHex("0".repeat(64)))
    assert.notInclude(String(keys.privateKeyHex), PRIVATE_KEY)
  })

  it("backs off exponentially with jitter, capped", () => {
    const s = { webhookBaseBackoffSeconds: 5, webhookMaxBackoffSeconds: 60 }
    assert.deepStrictEqual(
      [1, 2, 3, 4, 5, 6].map((n) => backoffSeconds(n, s, 0.999999)).map(Math.round),
      [5, 10, 20, 40, 60, 60]
    )
    assert.strictEqual(backoffSeconds(3, s, 0), 16)
  })

  it("WH-19: whatever the jitter, retries never wait more than the cap and end exactly at the window's end", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 64 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 7200 }),
        (randoms, base, cap, window) => {
          const settings = {
            webhookBaseBackoffSeconds: base,
            webhookMaxBackoffSeconds: Math.max(base, cap),
            webhookRetryWindowSeconds: window
          }
          const start = "2025-06-01T12:00:00.000Z"
          const tries = [start]
          for (let failed = 1; failed <= 100_000; failed++) {
            const next = nextRetryAt(start, failed, tries.at(-1)!, settings, randoms[failed % randoms.length]!)
            if (next === undefined) break
            const gap = (millis(next) - millis(tries.at(-1)!)) / 1000
            if (!(gap > 0 && gap <= settings.webhookMaxBackoffSeconds)) return false
            tries.push(next)
          }
          return millis(tries.at(-1)!) - millis(start) === window * 1000
        }
      )
    )
  })
})

describe("webhook dispatcher", () => {
  it.effect("delivers a due event once, signed, and records the attempt", () => {
    const recorder = makeWebhookRecorder()
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      yield* TestClock.setTime(Date.parse("2025-06-01T12:00:00Z"))
      yield* configure(URL)
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:1", { id: "Transaction:1" })
      const summary = yield* dispatcher.dispatchDue()
      assert.strictEqual(summary.delivered, 1)

      const [request] = recorder.requests()
      assert.strictEqual(request!.url, URL)
      assert.isTrue(nodeVerify(keys.publicKeyPem, request!.body, request!.headers[SIGNATURE_HEADER]!))
      const event = JSON.parse(request!.body)
      assert.strictEqual(event.type, "OUTGOING_PAYMENT.COMPLETED")
      assert.deepStrictEqual(event.data, { id: "Transaction:1" })
      assert.strictEqual(request!.headers["webhook-id"], event.id)
      assert.strictEqual(request!.headers["webhook-timestamp"], String(Date.parse("2025-06-01T12:00:00Z") / 1000))
      assert.notProperty(request!.headers, "webhook-signature")

      const row = only(yield* outbox)
      assert.strictEqual(row.status, "DELIVERED")
      assert.deepStrictEqual(row.attempts, [
        { at: "2025-06-01T12:00:00.000Z", url: URL, responseStatus: 200, responseBody: "", durationMs: 0 }
      ])
      assert.isUndefined(row.leaseUntil)

      const again = yield* dispatcher.dispatchDue()
      assert.strictEqual(again.claimed, 0)
      assert.strictEqual(recorder.requests().length, 1)
      const listed = yield* dispatcher.list({ status: "DELIVERED" }, { limit: 10, sortOrder: "desc" })
      assert.strictEqual(listed.totalCount, 1)
    }).pipe(Effect.provide(setup(recorder)))
  })

  it.effect("retries a 500 after a backoff, then delivers", () => {
    const recorder = makeWebhookRecorder()
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      yield* configure(URL)
      recorder.enqueue(500, { error: "connection refused" }, 200)
      yield* emitOne("INCOMING_PAYMENT.COMPLETED", "Transaction:1")

      yield* dispatcher.dispatchDue()
      let row = only(yield* outbox)
      assert.strictEqual(row.status, "PENDING")
      assert.strictEqual(row.attempts[0]!.responseStatus, 500)
      const firstDelay = (millis(row.nextAttemptAt) - millis(row.attempts[0]!.at)) / 1000
      assert.isTrue(firstDelay >= 4 && firstDelay <= 5, `first delay ${firstDelay}`)

      // Not due yet: nothing is sent.
      yield* TestClock.adjust(1000)
      assert.strictEqual((yield* dispatcher.dispatchDue()).claimed, 0)
      assert.strictEqual(recorder.requests().length, 1)

      yield* advanceTo(row.nextAttemptAt)
      yield* dispatcher.dispatchDue()
      row = only(yield* outbox)
      assert.strictEqual(row.status, "PENDING")
      assert.strictEqual(row.attempts[1]!.error, "connection refused")
      const secondDelay = (millis(row.nextAttemptAt) - millis(row.attempts[1]!.at)) / 1000
      assert.isTrue(secondDelay >= 8 && secondDelay <= 10, `second delay ${secondDelay}`)

      yield* advanceTo(row.nextAttemptAt)
      yield* dispatcher.dispatchDue()
      row = only(yield* outbox)
      assert.strictEqual(row.status, "DELIVERED")
      assert.deepStrictEqual(
        row.attempts.map((a) => a.responseStatus ?? a.error),
        [500, "connection refused", 200]
      )
      assert.isTrue(millis(row.attempts[1]!.at) - millis(row.attempts[0]!.at) >= 4000)
      assert.strictEqual(recorder.requests().length, 3)
      // Every attempt carries the same event id and body.
      assert.strictEqual(new Set(recorder.requests().map((r) => r.body)).size, 1)
    }).pipe(Effect.provide(setup(recorder)))
  })

  it.effect(
    "grows the backoff exponentially up to the cap, goes DEAD at the end of the retry window, and replays",
    () => {
      const recorder = makeWebhookRecorder({ respond: () => 503 })
      return Effect.gen(function* () {
        const dispatcher = yield* WebhookDispatcher
        yield* configure(URL)
        yield* emitOne("OUTGOING_PAYMENT.FAILED", "Transaction:1")

        const delays: Array<number> = []
        for (let i = 0; i < 5; i++) {
          const before = only(yield* outbox)
          yield* advanceTo(before.nextAttemptAt)
          yield* dispatcher.dispatchDue()
          const after = only(yield* outbox)
          if (after.status === "PENDING")
            delays.push((millis(after.nextAttemptAt) - millis(after.attempts.at(-1)!.at)) / 1000)
        }
        // Jittered down by up to 20%, capped at 30 s; the last try waits for the window's end (100 s) at most.
        const caps = [5, 10, 20, 30, 30]
        assert.strictEqual(delays.length, 5)
        delays.forEach((d, i) => {
          assert.isTrue(d >= caps[i]! * 0.8 && d <= caps[i]!, `delay ${i}: ${d}`)
        })
        const { row: dead, offsets } = yield* untilSettled(dispatcher)
        assert.strictEqual(dead.status, "DEAD")
        assert.strictEqual(offsets.at(-1), 100, "the last try is at the window's end")
        assert.strictEqual(dead.roundStartedAt, dead.attempts[0]!.at)
        const tries = dead.attempts.length

        // DEAD stays dead.
        yield* TestClock.adjust(3_600_000)
        yield* dispatcher.dispatchDue()
        assert.strictEqual(recorder.requests().length, tries)

        // Replay: due now, with a fresh round of attempts (a new window from its first attempt).
        const replayed = yield* dispatcher.replay(dead.id)
        assert.strictEqual(replayed.status, "PENDING")
        assert.isUndefined(replayed.roundStartedAt)
        const conflict = yield* dispatcher.replay("Webhook:00000000-0000-7000-8000-000000000000").pipe(Effect.flip)
        assert.strictEqual(conflict._tag, "NotFound")
        recorder.setResponder(() => 500)
        yield* dispatcher.dispatchDue()
        let row = only(yield* outbox)
        assert.strictEqual(row.status, "PENDING")
        assert.strictEqual(row.attempts.length, tries + 1)
        assert.strictEqual(row.roundStartedAt, row.attempts.at(-1)!.at)
        const firstDelay = (millis(row.nextAttemptAt) - millis(row.roundStartedAt!)) / 1000
        assert.isTrue(firstDelay >= 4 && firstDelay <= 5, `the new round backs off from the start: ${firstDelay}`)
        recorder.setResponder(() => 204)
        yield* advanceTo(row.nextAttemptAt)
        yield* dispatcher.dispatchDue()
        row = only(yield* outbox)
        assert.strictEqual(row.status, "DELIVERED")
        assert.strictEqual(row.attempts.length, tries + 2)
        const notDead = yield* dispatcher.replay(row.id).pipe(Effect.flip)
        assert.strictEqual(notDead._tag, "Conflict")
      }).pipe(
        withSettings({ webhookRetryWindowSeconds: 100, webhookBaseBackoffSeconds: 5, webhookMaxBackoffSeconds: 30 }),
        Effect.provide(setup(recorder))
      )
    }
  )

  it.effect("WH-19: a receiver that always fails gets tries at the schedule's instants for 7 days, then none", () => {
    const recorder = makeWebhookRecorder({ respond: () => 500 })
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      yield* TestClock.setTime(Date.parse("2025-06-01T12:00:00Z"))
      yield* configure(URL)
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:1")
      const { row, offsets } = yield* untilSettled(dispatcher)
      const schedule = webhookRetrySchedule(defaultEngineSettings)
      assert.deepStrictEqual(offsets, [...schedule])
      // The documented numbers (docs/state-machines.md, "Webhook delivery lifecycle").
      assert.deepStrictEqual(schedule.slice(0, 12), [0, 5, 15, 35, 75, 155, 315, 635, 1275, 2555, 4355, 6155])
      assert.strictEqual(schedule.length, 345)
      assert.strictEqual(schedule.at(-1), 7 * 86_400)
      assert.strictEqual(row.status, "DEAD")
      assert.strictEqual(row.attempts.at(-1)!.at, "2025-06-08T12:00:00.000Z")
      const gaps = offsets.slice(1).map((o, i) => o - offsets[i]!)
      assert.isAtMost(Math.max(...gaps), 1800)
      // Then none: a month later nothing more was sent.
      yield* TestClock.adjust(30 * 86_400_000)
      assert.strictEqual((yield* dispatcher.dispatchDue()).claimed, 0)
      assert.strictEqual(recorder.requests().length, 345)
    }).pipe(noJitter, Effect.provide(setup(recorder)))
  })

  it.effect("WH-19: with jitter the gaps stay within 30 min and the last try is 7 days after the first", () => {
    const recorder = makeWebhookRecorder({ respond: () => 503 })
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      yield* configure(URL)
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:1")
      const { row, offsets } = yield* untilSettled(dispatcher)
      assert.strictEqual(row.status, "DEAD")
      assert.strictEqual(offsets.at(-1), 7 * 86_400)
      const gaps = offsets.slice(1).map((o, i) => o - offsets[i]!)
      assert.isAtMost(Math.max(...gaps), 1800)
      assert.isAtLeast(offsets.length, 345)
    }).pipe(Random.withSeed("WH-19"), Effect.provide(setup(recorder)))
  })

  it.effect("WH-02, WH-19: a 409 after failures stops the retries (the receiver already has the event)", () => {
    const recorder = makeWebhookRecorder()
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      yield* configure(URL)
      recorder.enqueue(500, 502, { error: "ECONNRESET" }, 409)
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:1")
      const { row } = yield* untilSettled(dispatcher)
      assert.strictEqual(row.status, "DELIVERED")
      assert.deepStrictEqual(
        row.attempts.map((a) => a.responseStatus ?? a.error),
        [500, 502, "ECONNRESET", 409]
      )
      yield* TestClock.adjust(8 * 86_400_000)
      yield* dispatcher.dispatchDue()
      assert.strictEqual(recorder.requests().length, 4)
    }).pipe(Effect.provide(setup(recorder)))
  })

  it.effect("stops retrying on 409 (duplicate) and never retries TEST events", () => {
    const recorder = makeWebhookRecorder()
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      yield* configure(URL)
      recorder.setResponder((request) => (JSON.parse(request.body).type === "TEST" ? 500 : 409))
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:1")
      yield* emitOne("TEST", "platform")
      yield* dispatcher.dispatchDue()
      yield* TestClock.adjust(86_400_000)
      yield* dispatcher.dispatchDue()
      const rows = yield* outbox
      assert.deepStrictEqual(
        rows.map((r) => [r.type, r.status, r.attempts.length]),
        [
          ["OUTGOING_PAYMENT.COMPLETED", "DELIVERED", 1],
          ["TEST", "DEAD", 1]
        ]
      )
      assert.strictEqual(rows[0]!.attempts[0]!.responseStatus, 409)
      assert.strictEqual(recorder.requests().length, 2)
    }).pipe(Effect.provide(setup(recorder)))
  })

  it.effect("waits without spending attempts while no endpoint is configured", () => {
    const recorder = makeWebhookRecorder()
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      yield* configure(undefined)
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:1")
      for (let i = 0; i < 20; i++) {
        const summary = yield* dispatcher.dispatchDue()
        assert.strictEqual(summary.delivered, 0)
        yield* TestClock.adjust(30_000)
      }
      let row = only(yield* outbox)
      assert.strictEqual(row.status, "PENDING")
      assert.strictEqual(row.attempts.length, 0)
      assert.strictEqual(recorder.requests().length, 0)

      yield* configure(URL)
      yield* advanceTo(row.nextAttemptAt)
      yield* dispatcher.dispatchDue()
      row = only(yield* outbox)
      assert.strictEqual(row.status, "DELIVERED")
      assert.strictEqual(row.attempts.length, 1)
    }).pipe(Effect.provide(setup(recorder)))
  })

  it.effect("delivers the events of one subject in sequence order", () => {
    const recorder = makeWebhookRecorder()
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      yield* configure(URL)
      // The first event of Transaction:A fails once; the ones after it must wait for it.
      let failedOnce = false
      recorder.setResponder((request) => {
        const event = JSON.parse(request.body)
        if (event.data.n === "A1" && !failedOnce) {
          failedOnce = true
          return 500
        }
        return 200
      })
      yield* emitOne("OUTGOING_PAYMENT.PENDING", "Transaction:A", { n: "A1" })
      yield* emitOne("OUTGOING_PAYMENT.PENDING", "Transaction:B", { n: "B1" })
      yield* emitOne("OUTGOING_PAYMENT.PROCESSING", "Transaction:A", { n: "A2" })
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:A", { n: "A3" })

      const first = yield* dispatcher.dispatchDue()
      assert.deepStrictEqual([first.claimed, first.delivered, first.retrying, first.blocked], [4, 1, 1, 2])
      const sent = () => recorder.events().map((e) => (e.data as { n: string }).n)
      assert.deepStrictEqual(sent().sort(), ["A1", "B1"])

      // A later event of A, emitted while A1 waits for its retry, is held back too (found through the store).
      yield* TestClock.adjust(1000)
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:A", { n: "A4" })
      const second = yield* dispatcher.dispatchDue()
      assert.deepStrictEqual([second.claimed, second.blocked], [1, 1])
      assert.strictEqual(recorder.requests().length, 2)

      const a1 = (yield* outbox).find((r) => r.sequence === 1 && r.subject === "Transaction:A")!
      yield* advanceTo(a1.nextAttemptAt)
      const third = yield* dispatcher.dispatchDue()
      assert.strictEqual(third.delivered, 4)
      assert.deepStrictEqual(
        sent().filter((n) => n.startsWith("A")),
        ["A1", "A1", "A2", "A3", "A4"]
      )
      const rows = yield* outbox
      assert.isTrue(rows.every((r) => r.status === "DELIVERED"))
    }).pipe(Effect.provide(setup(recorder)))
  })

  it.effect("a DEAD earlier event does not block later ones", () => {
    const recorder = makeWebhookRecorder({ respond: (r) => (JSON.parse(r.body).data.n === 1 ? 500 : 200) })
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      yield* configure(URL)
      yield* emitOne("X.ONE", "S", { n: 1 })
      yield* emitOne("X.TWO", "S", { n: 2 })
      for (let i = 0; i < 4; i++) {
        yield* dispatcher.dispatchDue()
        yield* TestClock.adjust(60_000)
      }
      const rows = yield* outbox
      assert.deepStrictEqual(
        rows.map((r) => r.status),
        ["DEAD", "DELIVERED"]
      )
    }).pipe(
      withSettings({ webhookRetryWindowSeconds: 5, webhookBaseBackoffSeconds: 5, webhookMaxBackoffSeconds: 30 }),
      Effect.provide(setup(recorder))
    )
  })

  it.effect("sendTest posts a signed TEST event and reports the answer", () => {
    const recorder = makeWebhookRecorder()
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      const notSet = yield* dispatcher.sendTest().pipe(Effect.flip)
      assert.strictEqual(notSet._tag, "Refused")
      assert.strictEqual((notSet as { code: string }).code, "WEBHOOK_ENDPOINT_NOT_SET")

      yield* configure(URL)
      recorder.enqueue({ status: 200, body: '{"received":true}' }, { error: "ECONNREFUSED" })
      const ok = yield* dispatcher.sendTest()
      assert.deepStrictEqual(ok, { url: URL, response_status: 200, response_body: '{"received":true}' })
      const [request] = recorder.requests()
      const event = JSON.parse(request!.body)
      assert.strictEqual(event.type, "TEST")
      assert.deepStrictEqual(event.data, {})
      assert.match(event.id, /^Webhook:/)
      assert.isTrue(verifyWebhookSignature(keys.publicKeyPem, request!.body, request!.headers[SIGNATURE_HEADER]!))

      const failed = yield* dispatcher.sendTest().pipe(Effect.flip)
      assert.strictEqual((failed as { code: string }).code, "WEBHOOK_DELIVERY_ERROR")
      // Not stored in the outbox, so never retried.
      assert.strictEqual((yield* outbox).length, 0)
    }).pipe(Effect.provide(setup(recorder)))
  })

  it.effect("run does not pass again at once over a batch held back by another dispatcher's deliveries", () => {
    const recorder = makeWebhookRecorder()
    let claims = 0
    // The memory store, counting the dispatcher's claims.
    const countingStore = Layer.effect(
      Store,
      Effect.gen(function* () {
        const store = yield* Store
        return Store.of({
          ...store,
          outbox: {
            ...store.outbox,
            claimDue: (...args: Parameters<typeof store.outbox.claimDue>) => {
              claims++
              return store.outbox.claimDue(...args)
            }
          }
        })
      })
    ).pipe(Layer.provide(memoryStore))
    const layer = WebhookDispatcher.layerWith({ batchSize: 2 }).pipe(
      Layer.provideMerge(
        Layer.mergeAll(countingStore, Ids.layerSeeded(7), recorder.layer, WebhookSigner.layerFromHex(PRIVATE_KEY))
      )
    )
    return Effect.gen(function* () {
      const store = yield* Store
      const dispatcher = yield* WebhookDispatcher
      yield* configure(URL)
      for (const n of [1, 2, 3]) yield* emitOne("X.STEP", "Subject:S", { n })
      // Another dispatcher holds the first event, delivering it: the other two wait behind it.
      const now = yield* Clock.currentTimeMillis
      const held = yield* store.transaction(
        store.outbox.claimDue(new Date(now).toISOString(), 1, new Date(now + 300_000).toISOString())
      )
      assert.strictEqual(held.length, 1)
      claims = 0
      const fiber = yield* Effect.forkChild(dispatcher.run(1000))
      yield* TestClock.adjust(10)
      for (let i = 0; i < 50; i++) yield* Effect.yieldNow
      assert.strictEqual(claims, 1, "one pass, its whole batch blocked, then the schedule's pause")
      yield* TestClock.adjust(1000)
      assert.strictEqual(claims, 2)
      assert.strictEqual(recorder.requests().length, 0)
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(layer))
  })

  // WH-04: a rotation's overlap window: both secrets sign until the old one expires, then only the new one.
  it.effect("signs with the endpoint's secrets: the first from ensure, both during a rotation's overlap", () => {
    const recorder = makeWebhookRecorder()
    const lastSignature = () => {
      const request = recorder.requests().at(-1)!
      const headers = {
        id: request.headers["webhook-id"]!,
        timestamp: request.headers["webhook-timestamp"]!,
        signature: request.headers["webhook-signature"]!
      }
      return (secret: string) => verifyStandardWebhook(secret, headers, request.body)
    }
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      const secrets = yield* WebhookSecrets
      yield* TestClock.setTime(Date.parse("2025-06-01T12:00:00Z"))
      yield* configure(URL)
      const first = (yield* secrets.ensure())!
      assert.match(first.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.match(first.id, /^WebhookSecret:/)
      assert.isUndefined(yield* secrets.ensure())

      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:1")
      yield* dispatcher.dispatchDue()
      assert.isTrue(lastSignature()(first.secret))

      const second = yield* secrets.rotate(3600)
      assert.notStrictEqual(second.secret, first.secret)
      const listed = yield* secrets.list()
      assert.deepStrictEqual(listed, [
        { id: second.id, createdAt: "2025-06-01T12:00:00.000Z" },
        { id: first.id, createdAt: "2025-06-01T12:00:00.000Z", expiresAt: "2025-06-01T13:00:00.000Z" }
      ])
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:2")
      yield* dispatcher.dispatchDue()
      assert.lengthOf(recorder.requests().at(-1)!.headers["webhook-signature"]!.split(" "), 2)
      assert.isTrue(lastSignature()(first.secret))
      assert.isTrue(lastSignature()(second.secret))

      yield* TestClock.adjust(3600 * 1000)
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:3")
      yield* dispatcher.dispatchDue()
      assert.isFalse(lastSignature()(first.secret))
      assert.isTrue(lastSignature()(second.secret))
      assert.deepStrictEqual(
        (yield* secrets.list()).map((s) => s.id),
        [second.id]
      )

      // No overlap: the old secret stops signing at once; the sandbox TEST event is signed the same way.
      const third = yield* secrets.rotate(0)
      yield* dispatcher.sendTest()
      assert.isFalse(lastSignature()(second.secret))
      assert.isTrue(lastSignature()(third.secret))
      const store = yield* Store
      assert.deepStrictEqual(
        (yield* store.webhookSecrets.list()).map((s) => s.id),
        [third.id]
      )
    }).pipe(Effect.provide(setup(recorder)))
  })

  it.effect("run dispatches on a schedule", () => {
    const recorder = makeWebhookRecorder()
    return Effect.gen(function* () {
      const dispatcher = yield* WebhookDispatcher
      yield* configure(URL)
      const fiber = yield* Effect.forkChild(dispatcher.run(1000))
      yield* TestClock.adjust(10)
      yield* emitOne("OUTGOING_PAYMENT.COMPLETED", "Transaction:1")
      assert.strictEqual(recorder.requests().length, 0)
      yield* TestClock.adjust(1000)
      assert.strictEqual(recorder.requests().length, 1)
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(setup(recorder)))
  })
})
