import { assert, describe, it } from "@effect/vitest"
import type { CardRecord, CardTransactionRecord, NetworkScript } from "@paycore/core"
import { CardNetworkSimulator } from "@paycore/core"
import {
  authorizationKinds,
  authorizationScript,
  DELAYED_PULL_SECONDS,
  descriptorOutcome,
  followUpScript,
  type NetworkIdentifiers,
  SandboxCardNetwork,
  sandboxCardNetwork
} from "@paycore/sandbox"
import { Effect } from "effect"

const card = {
  id: "Card:019542f5-b3e7-7d02-8000-000000000010",
  cardholderId: "Customer:019542f5-b3e7-7d02-8000-000000000001",
  currency: "USD"
} as unknown as CardRecord

const parentWith = (descriptor: string) =>
  ({
    id: "CardTransaction:019542f5-b3e7-7d02-8000-000000000100",
    cardId: card.id,
    issuerTransactionToken: "itt_parent",
    merchant: { descriptor }
  }) as unknown as CardTransactionRecord

/** Numbered tokens, so a script can be compared whole. */
const counting = (): NetworkIdentifiers => {
  let t = 0
  let e = 0
  return { transactionToken: () => `itt_${++t}`, eventId: () => `evt_${++e}` }
}

const purchase = (descriptor: string, amount = 1250) => ({
  amount,
  currency: { code: "USD" },
  merchant: { descriptor, mcc: "5814", country: "US" }
})

describe("the sandbox card network's suffix tables (pure)", () => {
  it("CD-46: the merchant descriptor's last three characters decide: 002, 003 declines, 005, 006 pull results", () => {
    assert.deepStrictEqual(descriptorOutcome("AMAZON RETAIL US-002"), { _tag: "Decline", reason: "INSUFFICIENT_FUNDS" })
    assert.deepStrictEqual(descriptorOutcome("FROZEN TEST 003"), { _tag: "Decline", reason: "CARD_PAUSED" })
    assert.deepStrictEqual(descriptorOutcome("SLOW PULL 005"), {
      _tag: "PullResult",
      outcome: "CONFIRMED",
      afterSeconds: 30
    })
    assert.strictEqual(DELAYED_PULL_SECONDS, 30)
    assert.deepStrictEqual(descriptorOutcome("BROKEN PULL 006"), {
      _tag: "PullResult",
      outcome: "FAILED",
      afterSeconds: 0
    })
    for (const other of ["BLUE BOTTLE COFFEE SF", "SHOP 001", "SHOP 004", "SHOP 007", "002 AT THE START", "02", ""]) {
      assert.deepStrictEqual(descriptorOutcome(other), { _tag: "Decide" }, other)
    }
  })

  it("CD-45, CD-46: an authorization is one Authorize step under a fresh token, in the body's amount and currency", () => {
    const script = authorizationScript("AUTHORIZATION", card, purchase("BLUE BOTTLE COFFEE SF"), counting())
    assert.deepStrictEqual(script, {
      issuerTransactionToken: "itt_1",
      events: [
        {
          _tag: "Authorize",
          request: {
            cardId: card.id,
            issuerTransactionToken: "itt_1",
            kind: "AUTHORIZATION",
            amount: 1250,
            currency: "USD",
            merchant: { descriptor: "BLUE BOTTLE COFFEE SF", mcc: "5814", country: "US" }
          }
        }
      ]
    } satisfies NetworkScript)
  })

  it("CD-46: 002 and 003 are declines the network already made (forcedDecline), with no event after", () => {
    const insufficient = authorizationScript("AUTHORIZATION", card, purchase("AMAZON RETAIL US-002"), counting())
    assert.strictEqual(insufficient.events.length, 1)
    const [step] = insufficient.events
    assert.strictEqual(step?._tag === "Authorize" && step.request.forcedDecline, "INSUFFICIENT_FUNDS")
    const paused = authorizationScript("FINANCIAL_AUTHORIZATION", card, purchase("SHOP-003"), counting())
    const [pausedStep] = paused.events
    assert.strictEqual(pausedStep?._tag === "Authorize" && pausedStep.request.forcedDecline, "CARD_PAUSED")
  })

  it("CD-46: 005 awaits the pull and confirms it 30 s later; 006 reports it FAILED at once (same token)", () => {
    const delayed = authorizationScript("AUTHORIZATION", card, purchase("SLOW PULL 005"), counting())
    assert.deepStrictEqual(
      delayed.events.map((s) =>
        s._tag === "Authorize" ? [s._tag, s.request.awaitPullResult] : [s._tag, s.afterSeconds]
      ),
      [
        ["Authorize", true],
        ["Deliver", 30]
      ]
    )
    assert.deepStrictEqual(delayed.events[1], {
      _tag: "Deliver",
      afterSeconds: 30,
      event: {
        _tag: "PullResult",
        issuerEventId: "evt_1",
        cardId: card.id,
        issuerTransactionToken: "itt_1",
        outcome: "CONFIRMED"
      }
    })
    const failed = authorizationScript("AUTHORIZATION", card, purchase("BROKEN PULL 006"), counting())
    const last = failed.events[1]
    assert.strictEqual(last?._tag, "Deliver")
    assert.deepStrictEqual(
      last?._tag === "Deliver" ? [last.afterSeconds, last.event._tag === "PullResult" && last.event.outcome] : [],
      [0, "FAILED"]
    )
  })

  it("CD-47: the five authorization-family routes take the same table; only debits pull (005/006 touch no credit)", () => {
    assert.deepStrictEqual(
      Object.fromEntries(Object.entries(authorizationKinds).map(([route, { kind }]) => [route, kind])),
      {
        AUTHORIZATION: "AUTHORIZATION",
        FINANCIAL_AUTHORIZATION: "FINANCIAL",
        CREDIT_AUTHORIZATION: "CREDIT",
        FINANCIAL_CREDIT_AUTHORIZATION: "FINANCIAL_CREDIT",
        CREDIT_AUTHORIZATION_ADVICE: "CREDIT_ADVICE",
        BALANCE_INQUIRY: "BALANCE_INQUIRY"
      }
    )
    for (const route of [
      "CREDIT_AUTHORIZATION",
      "FINANCIAL_CREDIT_AUTHORIZATION",
      "CREDIT_AUTHORIZATION_ADVICE"
    ] as const) {
      assert.strictEqual(authorizationScript(route, card, purchase("X 006"), counting()).events.length, 1, route)
      const [declined] = authorizationScript(route, card, purchase("X 002"), counting()).events
      assert.strictEqual(declined?._tag === "Authorize" && declined.request.forcedDecline, "INSUFFICIENT_FUNDS", route)
    }
    assert.strictEqual(
      authorizationScript("FINANCIAL_AUTHORIZATION", card, purchase("X 005"), counting()).events.length,
      2
    )
  })

  it("CD-47: a balance inquiry is a zero-amount authorization in the card's currency", () => {
    const [step] = authorizationScript(
      "BALANCE_INQUIRY",
      card,
      { merchant: { descriptor: "SHELL OIL 12345678" } },
      counting()
    ).events
    assert.deepStrictEqual(
      step?._tag === "Authorize" && [step.request.kind, step.request.amount, step.request.currency],
      ["BALANCE_INQUIRY", 0, "USD"]
    )
  })

  it("CD-48 … CD-51: a follow-up is one event about the parent, now, under the parent's token", () => {
    const parent = parentWith("BLUE BOTTLE COFFEE SF")
    const one = (script: NetworkScript) => {
      assert.strictEqual(script.issuerTransactionToken, "itt_parent")
      assert.strictEqual(script.events.length, 1)
      const [step] = script.events
      assert.strictEqual(step?._tag === "Deliver" && step.afterSeconds, 0)
      return step?._tag === "Deliver" ? step.event : undefined
    }
    const base = { issuerEventId: "evt_1", cardId: card.id, issuerTransactionToken: "itt_parent" }
    const body = { cardTransactionId: parent.id, amount: 1500 }
    assert.deepStrictEqual(one(followUpScript("CLEARING", card, parent, body, counting())), {
      ...base,
      _tag: "Clearing",
      amount: 1500
    })
    assert.deepStrictEqual(one(followUpScript("CLEARING", card, parent, { ...body, amount: 0 }, counting())), {
      ...base,
      _tag: "Clearing",
      amount: 0
    })
    assert.deepStrictEqual(one(followUpScript("RETURN", card, parent, body, counting())), {
      ...base,
      _tag: "Return",
      amount: 1500
    })
    assert.deepStrictEqual(one(followUpScript("AUTHORIZATION_ADVICE", card, parent, body, counting())), {
      ...base,
      _tag: "Advice",
      amount: 1500
    })
    assert.deepStrictEqual(
      one(followUpScript("RETURN_REVERSAL", card, parent, { cardTransactionId: parent.id }, counting())),
      { ...base, _tag: "ReturnReversal" }
    )
  })

  it("CD-48: a clearing's post-hoc pull is refused when the parent's descriptor ends 002 (design Q15)", () => {
    const parent = parentWith("AMAZON RETAIL US-002")
    const body = { cardTransactionId: parent.id, amount: 5000 }
    const [step] = followUpScript("CLEARING", card, parent, body, counting()).events
    assert.strictEqual(step?._tag === "Deliver" && step.event._tag === "Clearing" && step.event.pullRefused, true)
  })

  it.effect("CD-45: the port's tokens are fresh on every simulation; the layer installs the simulator", () =>
    Effect.gen(function* () {
      const network = sandboxCardNetwork()
      const a = yield* network.script("AUTHORIZATION", card, undefined, purchase("SHOP"))
      const b = yield* network.script("AUTHORIZATION", card, undefined, purchase("SHOP"))
      assert.notStrictEqual(a.issuerTransactionToken, b.issuerTransactionToken)
      assert.match(a.issuerTransactionToken, /^itt_[0-9a-f-]{36}$/)
      const installed = yield* CardNetworkSimulator
      assert.isDefined(installed)
    }).pipe(Effect.provide(SandboxCardNetwork))
  )
})
