/**
 * The kit catches what the sandbox cannot show: a Quill rail that reports its timeouts as final (not retryable)
 * fails the timeout check, so the engine would have failed a payment the scheme had in fact taken.
 */
import { assert, describe, it } from "@effect/vitest"
import { Rail } from "@paycore/core"
import { failingChecks, railChecks } from "@paycore/testkit/rail-conformance"
import { Effect, Layer } from "effect"
import { QUILL_CURRENCY, QUILL_RAIL, QUILL_TIMEOUT_SECONDS, QuillRail } from "../src/rail.ts"
import { simulatedQuill } from "../src/scheme.ts"

const iban = (lastTwo: string) =>
  ({
    kind: "ACCOUNT",
    accountInfo: {
      accountType: "IBAN",
      iban: `DE893704004405320130${lastTwo}`,
      swiftCode: "COBADEFFXXX",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Emmy Noether", countryOfResidence: "DE" }
    }
  }) as const

describe("the Rail conformance kit on a broken Quill rail", () => {
  it.effect("timeouts reported as not retryable fail the timeout check, and only it", () =>
    Effect.gen(function* () {
      const scheme = simulatedQuill()
      const finalTimeouts = Layer.effect(
        Rail,
        Effect.map(Effect.service(Rail), (rail) => ({
          ...rail,
          submit: (payout) => Effect.mapError(rail.submit(payout), (e) => ({ ...e, retryable: false }))
        }))
      ).pipe(Layer.provide(QuillRail({ api: scheme })))
      const failed = yield* failingChecks(
        railChecks({
          layer: () => finalTimeouts,
          rails: [{ rail: QUILL_RAIL, currencies: [QUILL_CURRENCY] }],
          outcomes: {
            settles: iban("00"),
            fails: [],
            timesOut: { destination: iban("99"), afterSeconds: QUILL_TIMEOUT_SECONDS }
          }
        })
      )
      assert.deepStrictEqual(
        failed.map((f) => f.name),
        [
          "timeout: a rail that does not answer in time is a retryable RailError (the engine submits again), and the retry reaches the rail once"
        ]
      )
    })
  )
})
