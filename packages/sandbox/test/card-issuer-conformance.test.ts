/**
 * The sandbox card issuer passes the CardIssuer conformance kit, with its default program and with one where the
 * issuer decides and nothing is revealed; the kit catches the sandbox issuer as it was before it (a retried
 * `provision` minted a new processor reference once the clock had moved).
 */
import { assert, describe, it } from "@effect/vitest"
import { CardIssuer, type CardIssuerService } from "@paycore/core"
import { SandboxCardIssuer, type SandboxCardIssuerOptions, sandboxCardIssuer } from "@paycore/sandbox"
import {
  type CardIssuerOutcomes,
  cardIssuerChecks,
  cardIssuerConformance,
  failingChecks
} from "@paycore/testkit/card-issuer-conformance"
import { Effect, Layer } from "effect"

/** The sandbox's suffix table (packages/sandbox/README.md, "Magic values (cards)"). */
const outcomes: CardIssuerOutcomes = {
  active: (request) => request,
  rejected: (request) => ({ ...request, platformCardId: "emp-002", platformCardIdGiven: true }),
  // 005: ACTIVE 30 s after the first provision. The sandbox has no card that is pending and then refused, and never
  // fails a provision (pendingThenRejected, failsThenActive: not checked here; the scripted issuer is).
  pendingThenActive: (request) => ({ ...request, platformCardId: "emp-005", platformCardIdGiven: true }),
  ineligible: (_accounts, cardholder) => ({ ...cardholder, platformCustomerId: "emp-002" })
}

cardIssuerConformance("sandbox", SandboxCardIssuer(), outcomes)

cardIssuerConformance(
  "sandbox, issuer decisioning, no reveal",
  SandboxCardIssuer({ decisioning: "ISSUER", supportsPanReveal: false, supportsThreeDSecurePassword: true }),
  outcomes
)

/** The planted fault: every `provision` forgets the earlier ones (a new issuance at the current clock). */
const forgetful = (options: SandboxCardIssuerOptions = {}): CardIssuerService => ({
  ...sandboxCardIssuer(options),
  provision: (request) => sandboxCardIssuer(options).provision(request)
})

describe("CardIssuer conformance: a planted fault", () => {
  it.effect("a provision retried later answering a new processor reference is caught by the idempotency checks", () =>
    Effect.gen(function* () {
      const failed = yield* failingChecks(cardIssuerChecks(outcomes)).pipe(
        Effect.provide(Layer.succeed(CardIssuer, forgetful()))
      )
      assert.deepStrictEqual(
        failed.map((f) => f.name.split(":")[0]),
        ["CD-19", "CD-20, CD-21"],
        JSON.stringify(failed, null, 2)
      )
      assert.match(failed[0]!.message, /10 minutes later/)
      assert.match(failed[1]!.message, /provision again/)
    })
  )
})
