/**
 * Issuing cards in the core on a TestClock (issue 15, slice A; docs/design/cards.md section 3, "Issue" and "Update
 * and close"): the worker's provisioning pass against the testkit's scripted issuer (pending, active, rejected, issuer
 * errors with their backoff and the stall), the sealed 3-D Secure password (Q19), issuer syncs of state and binding
 * changes, the service's own close, and the live-card limit as an engine setting. The HTTP rules are in
 * packages/http/test/cards.http.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { type ScriptedCardIssuer, scriptedCardIssuer } from "@paycore/testkit"
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"
import { type CardCreateRequest, cardCounters } from "../src/cards/model.ts"
import { MAX_ISSUER_ATTEMPTS } from "../src/cards/provisioning.ts"
import { Cards, CardsWorker } from "../src/cards/service.ts"
import type { Customer } from "../src/customers/model.ts"
import type { CardProgram } from "../src/ports/card-issuer.ts"
import { Store } from "../src/ports/store.ts"
import { defaultEngineSettings, EngineConfig } from "../src/shared/engine-config.ts"
import { isoOf } from "../src/shared/time.ts"
import { eventsOf, makeEnv, seedCustomer, seedInternalAccount, startClock, T0 } from "./fixtures.ts"

/** What a test of the issuing gets: the scripted issuer (to script its answers), the services and a cardholder. */
interface IssuingTest {
  readonly issuer: ScriptedCardIssuer
  readonly cards: Cards["Service"]
  readonly store: Store["Service"]
  readonly customer: Customer
  /** The issue request of a virtual card on the cardholder's USD account. */
  readonly request: CardCreateRequest
}

/**
 * Runs a test on an engine whose card issuer is a scripted one (`program`: what its program supports), with the
 * TestClock at T0 and a cardholder (KYC APPROVED) with a USD account.
 */
const onIssuer = (body: (t: IssuingTest) => Effect.Effect<void, unknown, any>, program: Partial<CardProgram> = {}) => {
  const issuer = scriptedCardIssuer(program)
  return Effect.gen(function* () {
    yield* startClock
    const customer = yield* seedCustomer()
    const account = yield* seedInternalAccount(customer.id, "USD")
    const request: CardCreateRequest = { cardholderId: customer.id, fundingSources: [account.id], form: "VIRTUAL" }
    yield* body({ issuer, cards: yield* Cards, store: yield* Store, customer, request })
  }).pipe(Effect.provide(makeEnv(7, { cardIssuer: issuer.service }).layer)) as Effect.Effect<void, unknown>
}

const pass = Effect.flatMap(CardsWorker, (worker) => worker.processDue())
const row = (id: string) => Effect.flatMap(Store, (store) => store.cards.get(id))
const opsOf = (issuer: ScriptedCardIssuer) => issuer.calls.map((c) => c.op)

describe("issuing cards", () => {
  it.effect(
    "CD-19, CD-20: provision answers PENDING; polled after 5 s (no time given), then ACTIVE with its details",
    () =>
      onIssuer(({ issuer, cards, request }) =>
        Effect.gen(function* () {
          const card = yield* cards.create(request)
          assert.strictEqual(card.state, "PROCESSING")
          issuer.provisionAs(card.id, "PENDING", "ACTIVE")
          yield* pass
          assert.strictEqual((yield* row(card.id))?.dueAt, isoOf(T0 + 5000))
          assert.strictEqual((yield* row(card.id))?.attempts, 1)
          yield* TestClock.adjust("4 seconds")
          yield* pass
          assert.deepStrictEqual(opsOf(issuer), ["fundingEligibility", "provision"])
          yield* TestClock.adjust("1 second")
          yield* pass
          assert.deepStrictEqual(opsOf(issuer), ["fundingEligibility", "provision", "status"])
          const active = yield* cards.get(card.id)
          assert.deepInclude(active, { state: "ACTIVE", brand: "VISA", last4: "4242", expMonth: 12, expYear: 2030 })
          const stored = yield* row(card.id)
          assert.isUndefined(stored?.dueAt)
          assert.isUndefined(stored?.attempts)
          assert.deepStrictEqual(yield* eventsOf(card.id), ["card.state_change"])
        })
      )
  )

  it.effect(
    "CD-21, L-12: REJECTED closes the card ISSUER_REJECTED and frees its live slot; a non-retryable error too",
    () =>
      onIssuer(({ issuer, cards, store, request }) =>
        Effect.gen(function* () {
          const rejected = yield* cards.create(request)
          const refused = yield* cards.create(request)
          issuer.provisionAs(rejected.id, "REJECTED")
          issuer.provisionAs(refused.id, { fail: { retryable: false } })
          assert.strictEqual(yield* store.counters.get(cardCounters.live), 2)
          yield* pass
          for (const id of [rejected.id, refused.id]) {
            assert.deepInclude(yield* cards.get(id), { state: "CLOSED", stateReason: "ISSUER_REJECTED" })
            assert.deepStrictEqual(yield* eventsOf(id), ["card.state_change"])
            assert.deepStrictEqual((yield* row(id))?.bindings, [])
          }
          assert.strictEqual(yield* store.counters.get(cardCounters.live), 0)
          yield* pass
          assert.strictEqual(issuer.calls.filter((c) => c.op === "provision").length, 2)
        })
      )
  )

  it.effect(
    "retryable issuer errors back off 5 s doubling to an hour, then the card stalls (stalledAt, no dueAt) until an operator resumes it",
    () =>
      onIssuer(({ issuer, cards, store, request }) =>
        Effect.gen(function* () {
          const card = yield* cards.create(request)
          issuer.provisionAs(card.id, { fail: { retryable: true } })
          const delays: Array<number> = []
          for (let attempt = 1; attempt < MAX_ISSUER_ATTEMPTS; attempt++) {
            const before = Date.parse((yield* row(card.id))!.dueAt!)
            yield* TestClock.setTime(before)
            yield* pass
            delays.push((Date.parse((yield* row(card.id))!.dueAt!) - before) / 1000)
          }
          assert.deepStrictEqual(delays.slice(0, 5), [5, 10, 20, 40, 80])
          assert.strictEqual(Math.max(...delays), 3600)
          yield* TestClock.setTime(Date.parse((yield* row(card.id))!.dueAt!))
          yield* pass
          const stalled = yield* row(card.id)
          assert.strictEqual(stalled?.state, "PROCESSING")
          assert.strictEqual(stalled?.attempts, MAX_ISSUER_ATTEMPTS)
          assert.isDefined(stalled?.stalledAt)
          assert.isUndefined(stalled?.dueAt)
          const asked = issuer.calls.length
          yield* TestClock.adjust("2 hours")
          yield* pass
          assert.strictEqual(issuer.calls.length, asked)
          // An operator resumes it: dueAt again, attempts 0; the issuer now answers.
          issuer.provisionAs(card.id, "ACTIVE")
          const resumed = { ...stalled!, dueAt: isoOf(yield* Clock.currentTimeMillis), attempts: 0 }
          yield* Effect.orDie(store.cards.update(resumed))
          yield* pass
          assert.strictEqual((yield* cards.get(card.id)).state, "ACTIVE")
        })
      )
  )

  it.effect(
    "Q19: the 3-D Secure password is sealed in the row (never in clear), opened for provision only, and erased by its answer",
    () =>
      onIssuer(({ issuer, cards, request }) =>
        Effect.gen(function* () {
          const card = yield* cards.create({ ...request, threeDSecurePassword: "correct horse" })
          const sealed = (yield* row(card.id))?.threeDSecurePasswordSealed
          assert.match(sealed!, /^v1\./)
          assert.notInclude(sealed!, "correct horse")
          assert.notInclude(JSON.stringify(card), "correct horse")
          issuer.provisionAs(card.id, "PENDING", "ACTIVE")
          yield* pass
          const provision = issuer.calls.find((c) => c.op === "provision")
          assert.strictEqual(
            provision?.op === "provision" ? provision.request.threeDSecurePassword : "",
            "correct horse"
          )
          // A pending answer acknowledges it too: it is gone before the card is active.
          assert.isUndefined((yield* row(card.id))?.threeDSecurePasswordSealed)
          yield* TestClock.adjust("5 seconds")
          yield* pass
          const status = issuer.calls.filter((c) => c.op === "status")
          assert.strictEqual(status.length, 1)
          assert.strictEqual((yield* cards.get(card.id)).state, "ACTIVE")
        })
      )
  )

  it.effect(
    "Q19: a program without 3-D Secure passwords refuses one (400 on threeDSecurePassword), nothing stored",
    () =>
      onIssuer(
        ({ cards, customer, request }) =>
          Effect.gen(function* () {
            const error = yield* Effect.flip(cards.create({ ...request, threeDSecurePassword: "pw" }))
            assert.deepInclude(error, { _tag: "InvalidInput" })
            assert.strictEqual(error._tag === "InvalidInput" ? error.errors[0]?.field : "", "threeDSecurePassword")
            assert.strictEqual((yield* cards.list({ cardholderId: customer.id })).totalCount, 0)
          }),
        { supportsThreeDSecurePassword: false }
      )
  )

  it.effect(
    "issuer syncs: a freeze and a new binding reach the issuer by the worker; a retryable failure is sent again after 5 s with what changed meanwhile",
    () =>
      onIssuer(({ issuer, cards, customer, request }) =>
        Effect.gen(function* () {
          const second = yield* seedInternalAccount(customer.id, "USD")
          const card = yield* cards.create(request)
          yield* pass
          issuer.failNext("update", true)
          yield* cards.update(card.id, { state: "FROZEN" })
          yield* pass
          assert.deepStrictEqual((yield* row(card.id))?.issuerSync, { state: "FROZEN" })
          assert.strictEqual((yield* row(card.id))?.dueAt, isoOf(T0 + 5000))
          yield* cards.update(card.id, { fundingSources: [second.id, ...request.fundingSources] })
          // The new change is due at once, with the one not sent yet.
          yield* pass
          const updates = issuer.calls.filter((c) => c.op === "update")
          assert.deepStrictEqual(
            updates.map((c) => (c.op === "update" ? c.change : undefined)),
            [{ state: "FROZEN" }, { state: "FROZEN", fundingAccountIds: [second.id, ...request.fundingSources] }]
          )
          const synced = yield* row(card.id)
          assert.isUndefined(synced?.issuerSync)
          assert.isUndefined(synced?.dueAt)
          yield* pass
          assert.strictEqual(issuer.calls.filter((c) => c.op === "update").length, 2)
        })
      )
  )

  it.effect(
    "CD-05, L-12: Cards.closeByService: CLOSED with CLOSED_BY_SERVICE from ACTIVE or FROZEN, the slot freed; then 409",
    () =>
      onIssuer(({ cards, store, request }) =>
        Effect.gen(function* () {
          const card = yield* cards.create(request)
          yield* pass
          yield* cards.update(card.id, { state: "FROZEN" })
          const closed = yield* cards.closeByService(card.id)
          assert.deepInclude(closed, { state: "CLOSED", stateReason: "CLOSED_BY_SERVICE" })
          assert.strictEqual(yield* store.counters.get(cardCounters.live), 0)
          assert.deepStrictEqual((yield* row(card.id))?.issuerSync, { state: "CLOSED" })
          const again = yield* Effect.flip(cards.closeByService(card.id))
          assert.deepInclude(again, { _tag: "Conflict", code: "INVALID_STATE_TRANSITION" })
          const processing = yield* cards.create(request)
          assert.deepInclude(yield* Effect.flip(cards.closeByService(processing.id)), {
            code: "INVALID_STATE_TRANSITION"
          })
          assert.deepStrictEqual(yield* eventsOf(card.id), [
            "card.state_change",
            "card.state_change",
            "card.state_change"
          ])
        })
      )
  )

  it.effect(
    "CD-14, L-12: the live-card limit is the engine's liveCardLimit (null: none); CLOSED cards do not count",
    () =>
      onIssuer(({ cards, store, request }) =>
        Effect.gen(function* () {
          const limited = (limit: number | null) =>
            Effect.provideService(cards.create(request), EngineConfig, {
              ...defaultEngineSettings,
              liveCardLimit: limit
            })
          const first = yield* limited(2)
          yield* limited(2)
          assert.deepInclude(yield* Effect.flip(limited(2)), { code: "CARD_LIMIT_REACHED" })
          yield* pass
          yield* cards.update(first.id, { state: "CLOSED" })
          yield* limited(2)
          assert.deepInclude(yield* Effect.flip(limited(2)), { code: "CARD_LIMIT_REACHED" })
          yield* limited(null)
          assert.strictEqual(yield* store.counters.get(cardCounters.live), 3)
        })
      )
  )
})
