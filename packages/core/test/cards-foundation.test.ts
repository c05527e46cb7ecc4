/**
 * The cards foundation (issue 15, S0; docs/design/cards.md, section 4): the views every read and event goes
 * through, the rules that hold in any environment (no issuer: 501; no simulator: 404), the worker's pass, and the
 * testkit's scripted issuer and seeding helpers the slices build on.
 */
import { assert, describe, it } from "@effect/vitest"
import { scriptedCardIssuer, seedCard, seedCardTransaction } from "@paycore/testkit"
import { Effect, Schema } from "effect"
import { Card, CardTransaction, cardCounters, simulationKinds } from "../src/cards/model.ts"
import { CardSimulations, Cards, CardsWorker } from "../src/cards/service.ts"
import { toCard, toCardTransaction } from "../src/cards/views.ts"
import { systemAccount } from "../src/ledger/model.ts"
import { Store } from "../src/ports/store.ts"
import { defaultEngineSettings } from "../src/shared/engine-config.ts"
import { makeEnv, seedCustomer, seedInternalAccount, startClock } from "./fixtures.ts"

const UNKNOWN_CARD = "Card:01234567-89ab-7def-8123-456789abcdef"

/** A customer with a USD account and an ACTIVE card on it, written straight to the store. */
const seededCard = Effect.gen(function* () {
  yield* startClock
  const customer = yield* seedCustomer()
  const account = yield* seedInternalAccount(customer.id, "USD")
  const card = yield* seedCard(customer.id, [account.id])
  return { customer, account, card }
})

describe("cards foundation", () => {
  it.effect("CD-03, CD-07, CD-08: toCard shows every spec field, limits as null when unset, never a URL", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { customer, account, card } = yield* seededCard
      const view = toCard(card)
      assert.isTrue(Schema.is(Card)(view))
      assert.strictEqual(view.cardholderId, customer.id)
      assert.deepStrictEqual(view.fundingSources, [account.id])
      assert.strictEqual(view.stateReason, null)
      assert.strictEqual(view.maxSpendPerTransaction, null)
      assert.strictEqual(view.maxSpendPerDay, null)
      assert.strictEqual(view.maxTransactionsPerDay, null)
      assert.deepStrictEqual(view.cardCapabilities, {
        supportsPanReveal: true,
        supportsSpendLimits: true,
        supportsTransactionCountLimit: true
      })
      assert.notInclude(JSON.stringify(view), "http")
      // The bookkeeping stays in the record.
      for (const key of ["bindings", "platformCardIdGiven", "threeDSecurePasswordSealed", "issuerSync", "dueAt"]) {
        assert.isFalse(key in view, key)
      }
      const closed = toCard({ ...card, state: "CLOSED", stateReason: "CLOSED_BY_PLATFORM", maxSpendPerDay: 300 })
      assert.strictEqual(closed.stateReason, "CLOSED_BY_PLATFORM")
      assert.strictEqual(closed.maxSpendPerDay, 300)
    }).pipe(Effect.provide(env.layer))
  })

  it.effect(
    "CD-37, CD-38, CD-39, CD-41: toCardTransaction derives the status; a stored EXCEPTION reads DECLINED",
    () => {
      const env = makeEnv()
      return Effect.gen(function* () {
        const { card, account } = yield* seededCard
        const authorized = yield* seedCardTransaction(card)
        const view = toCardTransaction(authorized)
        assert.isTrue(Schema.is(CardTransaction)(view))
        assert.strictEqual(view.type, "CARD")
        assert.strictEqual(view.status, "AUTHORIZED")
        assert.strictEqual(view.accountId, account.id)
        assert.deepStrictEqual(view.authorizedAmount.amount, 1000)
        assert.strictEqual(view.authorizedAmount.currency.code, "USD")
        assert.strictEqual(view.settledAmount?.amount, 0)
        const statusOf = (state: (typeof authorized)["state"]) => toCardTransaction({ ...authorized, state }).status
        assert.strictEqual(statusOf("EXCEPTION"), "DECLINED")
        assert.strictEqual(statusOf("PULL_FAILED"), "DECLINED")
        assert.strictEqual(statusOf("EXPIRED"), "SETTLED")
        // A full return stays SETTLED with the returned value in refundedAmount.
        const returned = toCardTransaction({
          ...authorized,
          state: "SETTLED",
          settledAmount: 1000,
          refundedAmount: 1000
        })
        assert.strictEqual(returned.status, "SETTLED")
        assert.strictEqual(returned.refundedAmount?.amount, 1000)
        // A standalone merchant refund: CREDIT, SETTLED, its value in settledAmount.
        const refund = yield* seedCardTransaction(card, {
          kind: "FINANCIAL_CREDIT",
          direction: "CREDIT",
          state: "SETTLED",
          authorizedAmount: 700
        })
        const refundView = toCardTransaction(refund)
        assert.deepStrictEqual(
          [refundView.direction, refundView.status, refundView.settledAmount?.amount],
          ["CREDIT", "SETTLED", 700]
        )
      }).pipe(Effect.provide(env.layer))
    }
  )

  it.effect("CD-42: without a card issuer every Cards operation fails 501 NOT_IMPLEMENTED", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { customer, account, card } = yield* seededCard
      const cards = yield* Cards
      const refusals = [
        yield* Effect.flip(cards.create({ cardholderId: customer.id, fundingSources: [account.id], form: "VIRTUAL" })),
        yield* Effect.flip(cards.list({})),
        yield* Effect.flip(cards.get(card.id)),
        yield* Effect.flip(cards.update(card.id, { state: "FROZEN" })),
        yield* Effect.flip(cards.reveal(card.id, "Token:x")),
        yield* Effect.flip(cards.closeByService(card.id))
      ]
      for (const e of refusals) assert.deepInclude(e, { _tag: "Refused", code: "NOT_IMPLEMENTED" })
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("CD-52: without a network simulator each of the ten simulations is 404 REFERENCE_NOT_FOUND", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { card } = yield* seededCard
      const simulations = yield* CardSimulations
      assert.strictEqual(simulationKinds.length, 10)
      for (const kind of simulationKinds) {
        const error = yield* Effect.flip(
          simulations.simulate(card.id, kind, { merchant: { descriptor: "X" } } as never)
        )
        assert.deepInclude(error, { _tag: "NotFound", code: "REFERENCE_NOT_FOUND" }, kind)
      }
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("the cards worker's pass with nothing due does nothing, issuer or not", () =>
    Effect.gen(function* () {
      for (const env of [makeEnv(), makeEnv(7, { cardIssuer: scriptedCardIssuer().service })]) {
        const report = yield* Effect.gen(function* () {
          yield* seededCard
          return yield* (yield* CardsWorker).processDue()
        }).pipe(Effect.provide(env.layer))
        assert.deepStrictEqual(report, { cards: 0, events: 0, errors: 0 })
      }
    })
  )

  it.effect("L-12: seedCard counts a live card (not a CLOSED one); seedCardTransaction writes the row only", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { customer, account, card } = yield* seededCard
      const store = yield* Store
      assert.strictEqual(yield* store.counters.get(cardCounters.live), 1)
      yield* seedCard(customer.id, [account.id], { state: "CLOSED", stateReason: "CLOSED_BY_PLATFORM" })
      assert.strictEqual(yield* store.counters.get(cardCounters.live), 1)
      assert.deepStrictEqual(yield* store.cards.get(card.id), card)
      assert.deepStrictEqual(card.fundingSources, [account.id])
      assert.strictEqual(card.bindings[0]?.accountId, account.id)
      assert.match(card.bindings[0]!.id, /^CardFundingSource:/)
      const tx = yield* seedCardTransaction(card, { state: "PARTIALLY_SETTLED", settledAmount: 400 })
      assert.deepStrictEqual(yield* store.cardTransactions.get(tx.id), tx)
      assert.deepStrictEqual(
        yield* store.cardTransactions.findUnique("issuerTransactionToken", tx.issuerTransactionToken),
        tx
      )
      assert.strictEqual(tx.platformCustomerId, customer.platformCustomerId)
      assert.strictEqual(tx.heldAmount, 0)
      // No ledger transfer and no event: the row only.
      assert.deepStrictEqual(yield* store.ledger.transfers(tx.id), [])
      assert.strictEqual((yield* store.outbox.list({ subject: tx.id }, { limit: 10, sortOrder: "asc" })).totalCount, 0)
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("the scripted issuer answers by card in order (the last repeats), refuses accounts, fails on cue", () =>
    Effect.gen(function* () {
      const issuer = scriptedCardIssuer({ supportsPanReveal: false })
      assert.strictEqual(issuer.service.program.supportsPanReveal, false)
      assert.strictEqual(issuer.service.program.decisioning, "SERVICE")
      const request = {
        cardId: UNKNOWN_CARD,
        cardholderId: "Customer:x",
        platformCardId: "card-1",
        platformCardIdGiven: false,
        form: "VIRTUAL" as const,
        currency: "USD",
        fundingAccountIds: ["InternalAccount:a"]
      }
      issuer.provisionAs(UNKNOWN_CARD, "PENDING", "ACTIVE")
      const first = yield* issuer.service.provision(request)
      assert.strictEqual(first._tag, "Pending")
      const second = yield* issuer.service.status(first.processorRef)
      assert.deepInclude(second, { _tag: "Active", last4: "4242", brand: "VISA" })
      assert.strictEqual((yield* issuer.service.status(first.processorRef))._tag, "Active")
      issuer.provisionAs(UNKNOWN_CARD, "REJECTED")
      assert.strictEqual((yield* issuer.service.provision(request))._tag, "Rejected")
      issuer.provisionAs(UNKNOWN_CARD, { fail: { retryable: true } })
      assert.deepInclude(yield* Effect.flip(issuer.service.provision(request)), { retryable: true })
      issuer.ineligible("InternalAccount:b", "suffix 002")
      const accounts = [
        { id: "InternalAccount:a", type: "INTERNAL_FIAT", currency: "USD" },
        { id: "InternalAccount:b", type: "INTERNAL_FIAT", currency: "USD" }
      ] as const
      assert.deepStrictEqual(yield* issuer.service.fundingEligibility(accounts as never, { id: "Customer:x" }), {
        _tag: "Ineligible",
        accountId: "InternalAccount:b",
        reason: "suffix 002"
      })
      // A program without reveal refuses it; one with reveal fails on cue, then answers.
      assert.deepInclude(yield* Effect.flip(issuer.service.reveal(first.processorRef)), { retryable: false })
      const revealing = scriptedCardIssuer()
      revealing.failNext("reveal", false)
      assert.deepInclude(yield* Effect.flip(revealing.service.reveal(first.processorRef)), { retryable: false })
      assert.match((yield* revealing.service.reveal(first.processorRef)).panEmbedUrl, /^https:\/\//)
      assert.deepStrictEqual(
        issuer.calls.map((c) => c.op),
        ["provision", "status", "status", "provision", "provision", "fundingEligibility", "reveal"]
      )
    })
  )

  it("the settings and the ledger role cards use", () => {
    assert.strictEqual(defaultEngineSettings.liveCardLimit, 10_000)
    assert.deepStrictEqual(defaultEngineSettings.cardCurrencies, ["USD", "USDB"])
    assert.strictEqual(systemAccount("card-network", "USD"), "system:card-network:USD")
  })
})
