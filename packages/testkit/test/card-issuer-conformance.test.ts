/**
 * The testkit's scripted card issuer passes the CardIssuer conformance kit (every outcome scripted, a program with
 * reveal and one without); the kit catches an issuer that refuses an update sent a second time.
 */
import { assert, describe, it } from "@effect/vitest"
import { CardIssuer, type CardIssuerService } from "@paycore/core"
import { scriptedCardIssuer } from "@paycore/testkit"
import {
  type CardIssuerOutcomes,
  cardIssuerChecks,
  cardIssuerConformance,
  failingChecks
} from "@paycore/testkit/card-issuer-conformance"
import { Effect, Layer } from "effect"

const scriptedOutcomes = (issuer: ReturnType<typeof scriptedCardIssuer>): CardIssuerOutcomes => ({
  active: (request) => request,
  rejected: (request) => {
    issuer.provisionAs(request.cardId, "REJECTED")
    return request
  },
  pendingThenActive: (request) => {
    issuer.provisionAs(request.cardId, "PENDING", "ACTIVE")
    return request
  },
  pendingThenRejected: (request) => {
    issuer.provisionAs(request.cardId, "PENDING", "REJECTED")
    return request
  },
  failsThenActive: (request) => {
    issuer.provisionAs(request.cardId, { fail: { retryable: true } }, "ACTIVE")
    return request
  },
  ineligible: (accounts, cardholder) => {
    issuer.ineligible(accounts[0]!.id)
    return cardholder
  }
})

const scripted = scriptedCardIssuer()
cardIssuerConformance("scriptedCardIssuer", scripted.layer, scriptedOutcomes(scripted))

const noReveal = scriptedCardIssuer({ decisioning: "ISSUER", supportsPanReveal: false })
cardIssuerConformance("scriptedCardIssuer, issuer decisioning, no reveal", noReveal.layer, scriptedOutcomes(noReveal))

/** The planted fault: an update sent again (the worker does after a crash) is refused. */
const refusesRepeats = (inner: CardIssuerService): CardIssuerService => {
  const sent = new Set<string>()
  return {
    ...inner,
    update: (processorRef, change) =>
      Effect.suspend(() => {
        const key = `${processorRef} ${JSON.stringify(change)}`
        if (sent.has(key)) {
          return Effect.fail({ _tag: "CardIssuerError" as const, retryable: false, message: "already applied" })
        }
        sent.add(key)
        return inner.update(processorRef, change)
      })
  }
}

describe("CardIssuer conformance: a planted fault", () => {
  it.effect("an update refused when sent a second time is caught by the update check", () =>
    Effect.gen(function* () {
      const issuer = scriptedCardIssuer()
      const failed = yield* failingChecks(cardIssuerChecks(scriptedOutcomes(issuer))).pipe(
        Effect.provide(Layer.succeed(CardIssuer, refusesRepeats(issuer.service)))
      )
      assert.deepStrictEqual(
        failed.map((f) => f.name.split(":")[0]),
        ["CD-18, CD-25, CD-28"],
        JSON.stringify(failed, null, 2)
      )
      assert.match(failed[0]!.message, /the same funding accounts again/)
    })
  )
})
