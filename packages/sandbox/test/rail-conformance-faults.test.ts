/**
 * The Rail conformance kit catches a broken rail: the sandbox rail wrapped so that it breaks one promise the engine
 * relies on, and the kit's checks run on it as plain effects (`failingChecks(railChecks(subject))`); each fault is
 * caught by exactly the checks named.
 */
import { assert, describe, it } from "@effect/vitest"
import { Rail } from "@paycore/core"
import { SandboxRail } from "@paycore/sandbox"
import { failingChecks, type RailSubject, railChecks } from "@paycore/testkit/rail-conformance"
import { Effect, Layer } from "effect"
import { sandboxRailSubject } from "./rail-subject.ts"

/** The sandbox rail with `change` applied to its service (a fresh instance per build). */
const broken = (change: (rail: Rail["Service"]) => Rail["Service"]): RailSubject => ({
  ...sandboxRailSubject,
  layer: () => Layer.effect(Rail, Effect.map(Effect.service(Rail), change)).pipe(Layer.provide(SandboxRail()))
})

/** The names of the checks that failed. */
const failing = (subject: RailSubject) =>
  Effect.map(failingChecks(railChecks(subject)), (failed) => failed.map((f) => f.name))

const IDEMPOTENT =
  "submit is idempotent by transaction id: the same payout again, at once and after SUBMIT_GRACE_SECONDS, gets the first reference and one outcome"
const STAYS_SETTLED =
  "a settled payout stays settled: asked twice, again after RETURN_WATCH_SECONDS, and after a repeated submit, it answers Settled at the same settledAt"
const FAILURE =
  "failure: each failing destination ends Failed with its reason and refundSucceeds, and stays Failed when asked again, late, or after a repeated submit"
const OUT_OF_ORDER =
  "reports out of order and twice: two sets of payouts of every outcome, one asked in order and one in reverse, each twice at every instant, answer alike"
const RESTART_REFERENCES =
  "restart: a new instance of the adapter answers each reference with the outcome the first instance gave"
const CANCEL =
  "cancel (when the adapter has it): a settled payout is TooLate and stays settled, a second cancel answers the same, an unknown reference is a RailError"

describe("the Rail conformance kit catches a planted fault", () => {
  it.effect("the sandbox rail as it is passes every check", () =>
    Effect.map(failingChecks(railChecks(sandboxRailSubject)), (failed) => assert.deepStrictEqual(failed, []))
  )

  it.effect("a repeated submit that gets a new reference fails idempotent submit", () =>
    Effect.gen(function* () {
      const seen = new Map<string, number>()
      const names = yield* failing(
        broken((rail) => ({
          ...rail,
          submit: (payout) =>
            Effect.map(rail.submit(payout), (submitted) => {
              const times = (seen.get(payout.transactionId) ?? 0) + 1
              seen.set(payout.transactionId, times)
              return times === 1 ? submitted : { ...submitted, reference: `${submitted.reference}:${times}` }
            })
        }))
      )
      // Every check that submits a payout twice: the settling one, and each failing destination.
      assert.deepStrictEqual(names, [IDEMPOTENT, STAYS_SETTLED, FAILURE])
    })
  )

  it.effect("a settled payout reported pending again fails 'a settled payout stays settled'", () =>
    Effect.gen(function* () {
      const settledOnce = new Set<string>()
      const names = yield* failing(
        broken((rail) => ({
          ...rail,
          status: (reference) =>
            Effect.map(rail.status(reference), (status) => {
              if (status._tag !== "Settled") return status
              if (!settledOnce.has(reference)) {
                settledOnce.add(reference)
                return status
              }
              return { _tag: "Pending" as const, checkAgainAt: status.settledAt }
            })
        }))
      )
      // Every check that asks a settled payout a second time.
      assert.deepStrictEqual(names, [STAYS_SETTLED, OUT_OF_ORDER, RESTART_REFERENCES, CANCEL])
    })
  )

  it.effect("an unknown reference answered as retryable fails the unknown-reference check", () =>
    Effect.gen(function* () {
      const names = yield* failing(
        broken((rail) => ({
          ...rail,
          status: (reference) => Effect.mapError(rail.status(reference), (e) => ({ ...e, retryable: true }))
        }))
      )
      assert.deepStrictEqual(names, [
        "status of an unknown reference is a RailError that is not retryable (the engine fails and refunds the payment)"
      ])
    })
  )

  it.effect("a failure that forgets its refund outcome fails the failure check", () =>
    Effect.gen(function* () {
      const names = yield* failing(
        broken((rail) => ({
          ...rail,
          status: (reference) =>
            Effect.map(rail.status(reference), (status) =>
              status._tag === "Failed" ? { ...status, refundSucceeds: true } : status
            )
        }))
      )
      assert.deepStrictEqual(names, [FAILURE])
    })
  )
})
