/**
 * The Rail conformance kit catches a broken rail: the sandbox rail wrapped so that it breaks one promise the engine
 * relies on, and the kit's checks run on it programmatically (`runRailChecks`), each answering what went wrong.
 */
import { assert, describe, it } from "@effect/vitest"
import { Rail } from "@paycore/core"
import { SandboxRail } from "@paycore/sandbox"
import { type RailSubject, runRailChecks } from "@paycore/testkit/rail-conformance"
import { Effect, Layer } from "effect"
import { sandboxRailSubject } from "./rail-subject.ts"

/** The sandbox rail with `change` applied to its service (a fresh instance per build). */
const broken = (change: (rail: Rail["Service"]) => Rail["Service"]): RailSubject => ({
  ...sandboxRailSubject,
  layer: () => Layer.effect(Rail, Effect.map(Effect.service(Rail), change)).pipe(Layer.provide(SandboxRail()))
})

/** The titles of the checks that failed. */
const failing = (subject: RailSubject) => Effect.map(runRailChecks(subject), (failed) => failed.map((f) => f.title))

const has = (titles: ReadonlyArray<string>, start: string): boolean => titles.some((t) => t.startsWith(start))

describe("the Rail conformance kit catches a planted fault", () => {
  it.effect("the sandbox rail as it is passes every check", () =>
    Effect.map(runRailChecks(sandboxRailSubject), (failed) => assert.deepStrictEqual(failed, []))
  )

  it.effect("a repeated submit that gets a new reference fails idempotent submit", () =>
    Effect.gen(function* () {
      const seen = new Map<string, number>()
      const titles = yield* failing(
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
      assert.isTrue(has(titles, "submit is idempotent by transaction id"), titles.join("\n"))
      assert.isTrue(has(titles, "a settled payout stays settled"), titles.join("\n"))
    })
  )

  it.effect("a settled payout reported pending again fails 'a settled payout stays settled'", () =>
    Effect.gen(function* () {
      const settledOnce = new Set<string>()
      const titles = yield* failing(
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
      assert.isTrue(has(titles, "a settled payout stays settled"), titles.join("\n"))
      assert.isTrue(has(titles, "reports out of order and twice"), titles.join("\n"))
    })
  )

  it.effect("an unknown reference answered as retryable fails the unknown-reference check", () =>
    Effect.gen(function* () {
      const titles = yield* failing(
        broken((rail) => ({
          ...rail,
          status: (reference) => Effect.mapError(rail.status(reference), (e) => ({ ...e, retryable: true }))
        }))
      )
      assert.deepStrictEqual(titles, [
        "status of an unknown reference is a RailError that is not retryable (the engine fails and refunds the payment)"
      ])
    })
  )

  it.effect("a failure that forgets its refund outcome fails the failure check", () =>
    Effect.gen(function* () {
      const titles = yield* failing(
        broken((rail) => ({
          ...rail,
          status: (reference) =>
            Effect.map(rail.status(reference), (status) =>
              status._tag === "Failed" ? { ...status, refundSucceeds: true } : status
            )
        }))
      )
      assert.isTrue(has(titles, "failure: each failing destination"), titles.join("\n"))
    })
  )
})
