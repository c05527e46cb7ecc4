/**
 * A conformance kit for `Rail` adapters: what the engine relies on when it submits a payout and polls for its
 * outcome (packages/core/src/transactions/submission.ts and settlement.ts). Made like the other port kits
 * (`port-checks.ts`): a list of checks failing with a `ConformanceFailure`, registered as vitest cases with
 * `railConformance`, or run with `failingChecks` against a deliberately broken adapter. Each check builds its own
 * instances of the adapter (a second one for the restart checks) and runs on a `TestClock` of its own.
 *
 * The port has no deposit method: deposits reach the engine through `Transactions` (a bank's notification calls
 * the service), never through the rail, so there is nothing of the rail to check for them.
 */
import {
  type CancelOutcome,
  type FailureReason,
  type PaymentRail,
  type Payout,
  type PayoutStatus,
  Rail,
  type RailError,
  RETURN_WATCH_SECONDS,
  SUBMIT_GRACE_SECONDS,
  type Submitted
} from "@paycore/core"
import { Clock, Context, Effect, Exit, Layer, Result, type Scope } from "effect"
import { TestClock } from "effect/testing"
import {
  type ConformanceCheck,
  ConformanceFailure,
  endsWithin,
  expectThat,
  registerChecks,
  show
} from "./port-checks.ts"

export * from "./conformance-checks.ts"

/** Where a payout goes: the kit builds payouts to these. */
export type RailDestination = Payout["destination"]

/** A destination the rail fails (after accepting it), with the outcome it reports. */
export interface FailingDestination {
  /** Where the failing payout goes. */
  readonly destination: RailDestination
  /** The `reason` of the `Failed` status the rail reports. */
  readonly reason: FailureReason
  /** Its `refundSucceeds`: false when the money cannot come back by itself. */
  readonly refundSucceeds: boolean
}

/** A destination (or an amount) the rail refuses at submission: a `RailError` that is not retryable. */
export interface RefusedPayout {
  /** Where the refused payout goes. */
  readonly destination: RailDestination
  /** The amount that makes it refused (a per-payment limit); default the kit's amount. */
  readonly amount?: number | undefined
  /** The `reason` of the `RailError`. */
  readonly reason: FailureReason
}

/** The destinations that drive the adapter to each outcome (as the sandbox rail's suffix table does). */
export interface RailOutcomes {
  /** Settles and is never returned. */
  readonly settles: RailDestination
  /** Fails after submission. */
  readonly fails: ReadonlyArray<FailingDestination>
  /** Settles, then is returned by the receiving side. */
  readonly returns?: { readonly destination: RailDestination; readonly reason: FailureReason } | undefined
  /** Refused at submission. */
  readonly refused?: ReadonlyArray<RefusedPayout> | undefined
  /**
   * The rail's first answer to a payout to it does not come in time: the adapter must give up with a retryable
   * `RailError` within `afterSeconds` of the TestClock; the next submit of the same payout reaches the rail.
   */
  readonly timesOut?: { readonly destination: RailDestination; readonly afterSeconds: number } | undefined
}

/**
 * What an adapter declares and how the kit drives it. A check whose outcome the subject gives nothing for (no
 * `returns`, no `refused`, no `timesOut`, no restart claim) is left out (say why in your test file).
 */
export interface RailSubject {
  /** The adapter. The kit builds a fresh instance for every check (and a second one for the restart checks). */
  readonly layer: Layer.Layer<Rail, unknown> | (() => Layer.Layer<Rail, unknown>)
  /** Every rail the adapter serves, with its currencies: each pair must settle a payout. */
  readonly rails: ReadonlyArray<{ readonly rail: PaymentRail; readonly currencies: ReadonlyArray<string> }>
  /** How to drive it to each outcome. */
  readonly outcomes: RailOutcomes
  /**
   * What a new instance of the adapter (a restart of the process) still knows: the outcome of a reference
   * (`references`), a submission made by the instance before it (`submissions`: a repeated submit gets the first
   * reference). The engine resubmits after a crash between the submission and the record of its reference.
   */
  readonly survivesRestart?: { readonly references: boolean; readonly submissions: boolean } | undefined
  /** The amount of the kit's payouts, in the currency's minor units (default 1000). */
  readonly amount?: number | undefined
  /** Give up waiting for an outcome after this many seconds from the submission (default 7 days, 200 polls). */
  readonly horizonSeconds?: number | undefined
}

// ---------------------------------------------------------------------------------------------
// Driving a rail on the TestClock
// ---------------------------------------------------------------------------------------------

/** Monday 2026-01-05 09:00 UTC: a business day, in working hours almost everywhere. */
const T0 = Date.parse("2026-01-05T09:00:00.000Z")

const layerOf = (subject: RailSubject): Layer.Layer<Rail, unknown> =>
  Layer.fresh(typeof subject.layer === "function" ? subject.layer() : subject.layer)

/** Builds a fresh instance of the adapter (in the check's scope). */
const instance = (subject: RailSubject) =>
  Effect.map(Layer.build(layerOf(subject)), (context) => Context.get(context, Rail))

let counter = 0
/** A fresh transaction id, as the engine makes them. */
const transactionId = (): string => {
  counter++
  const random = Math.floor(Math.random() * 0xffffffff)
    .toString(16)
    .padStart(8, "0")
  return `Transaction:019b8a00-0000-7000-8000-${random}${String(counter % 10000).padStart(4, "0")}`
}

const payoutOf = (
  subject: RailSubject,
  destination: RailDestination,
  overrides: { readonly rail?: PaymentRail; readonly currency?: string; readonly amount?: number | undefined } = {}
): Payout => {
  const first = subject.rails[0]
  return {
    transactionId: transactionId(),
    rail: overrides.rail ?? first?.rail ?? "ACH",
    amount: overrides.amount ?? subject.amount ?? 1000,
    currency: overrides.currency ?? first?.currencies[0] ?? "USD",
    destination
  }
}

const now = Clock.currentTimeMillis
const iso = (ms: number): string => new Date(ms).toISOString()
const isIso = (s: unknown): s is string => typeof s === "string" && !Number.isNaN(Date.parse(s))

const describeError = (e: RailError): string =>
  `RailError{retryable: ${e.retryable}, reason: ${e.reason}, message: ${show(e.message)}}`

const failure = (message: string) => new ConformanceFailure({ message })

/** The shape of a RailError: what the engine reads of it. */
const railErrorShaped = (what: string, e: RailError) =>
  expectThat(
    e?._tag === "RailError" && typeof e.retryable === "boolean" && typeof e.reason === "string",
    `${what}: failed with ${show(e)}, not a RailError {_tag, retryable, reason, message}`
  )

/** Submits: a failure, or an answer without a reference or an expectedSettlementAt, fails the check. */
const submitOk = Effect.fnUntraced(function* (rail: Rail["Service"], payout: Payout) {
  const submitted = yield* Effect.mapError(rail.submit(payout), (e) =>
    failure(`submit to ${show(payout.destination)} on ${payout.rail}: ${describeError(e)}`)
  )
  yield* expectThat(
    typeof submitted.reference === "string" && submitted.reference !== "",
    `submit: reference ${show(submitted.reference)}`
  )
  yield* expectThat(
    isIso(submitted.expectedSettlementAt),
    `submit: expectedSettlementAt ${show(submitted.expectedSettlementAt)}`
  )
  return submitted
})

/** Asks the status: a failure fails the check. */
const statusOk = (rail: Rail["Service"], reference: string) =>
  Effect.mapError(rail.status(reference), (e) => failure(`status(${reference}): ${describeError(e)}`))

const wellFormed = (status: PayoutStatus, atMs: number) => {
  switch (status._tag) {
    case "Pending":
      return expectThat(isIso(status.checkAgainAt), `Pending without a valid checkAgainAt: ${show(status)}`)
    case "Settled":
      return isIso(status.settledAt)
        ? expectThat(Date.parse(status.settledAt) <= atMs, `Settled at ${status.settledAt}, after now (${iso(atMs)})`)
        : expectThat(false, `Settled without a valid settledAt: ${show(status)}`)
    case "Failed":
      return expectThat(typeof status.refundSucceeds === "boolean", `Failed without refundSucceeds: ${show(status)}`)
    case "Returned":
      return Effect.void
    default:
      return expectThat(false, `not a PayoutStatus: ${show(status)}`)
  }
}

/** Asks the status at `atMs` (the TestClock's time): it must be a well-formed one. */
const wellFormedStatus = (rail: Rail["Service"], reference: string, atMs: number) =>
  Effect.tap(statusOk(rail, reference), (status) => wellFormed(status, atMs))

/** What a poll trail ended with: the first answer that is not Pending, and when it was asked. */
interface Outcome {
  readonly status: PayoutStatus
  readonly atMs: number
}

/**
 * Polls as the settlement worker does: first at `expectedSettlementAt`, then at each `checkAgainAt` (at least a
 * second later), until an answer that is not Pending; still Pending at the horizon fails the check.
 */
const pollUntilDecided = Effect.fnUntraced(function* (
  subject: RailSubject,
  rail: Rail["Service"],
  submitted: Submitted
) {
  const start = yield* now
  const horizon = start + (subject.horizonSeconds ?? 7 * 86_400) * 1000
  let next = Math.max(Date.parse(submitted.expectedSettlementAt), start)
  for (let poll = 0; poll < 200 && next <= horizon; poll++) {
    yield* TestClock.setTime(next)
    const status = yield* wellFormedStatus(rail, submitted.reference, next)
    if (status._tag !== "Pending") return { status, atMs: next } satisfies Outcome
    next = Math.max(Date.parse(status.checkAgainAt), next + 1000)
  }
  return yield* failure(
    `${submitted.reference}: still Pending ${Math.round((next - start) / 1000)} s after its submission`
  )
})

/**
 * After a settlement, polls as the return watch does (growing intervals, for RETURN_WATCH_SECONDS): the first
 * answer that is neither Settled nor Pending, or `undefined` when the watch ends without one.
 */
const watchForReturn = Effect.fnUntraced(function* (rail: Rail["Service"], reference: string, settledAtMs: number) {
  let at = yield* now
  for (;;) {
    const elapsed = Math.max(0, (at - settledAtMs) / 1000)
    if (elapsed >= RETURN_WATCH_SECONDS) return undefined
    at += 1000 * Math.min(Math.max(60, elapsed), RETURN_WATCH_SECONDS - elapsed)
    yield* TestClock.setTime(at)
    const status = yield* wellFormedStatus(rail, reference, at)
    if (status._tag !== "Settled" && status._tag !== "Pending") return { status, atMs: at } satisfies Outcome
  }
})

/** A check of the kit: on a TestClock of its own at T0, in a scope for the adapter instances it builds. */
const check = (name: string, body: Effect.Effect<void, unknown, Scope.Scope>): ConformanceCheck<never> => ({
  name,
  run: Effect.andThen(TestClock.setTime(T0), body).pipe(Effect.scoped, Effect.provide(TestClock.layer()))
})

/** JSON with the keys of every object sorted: two statuses compare equal whatever order their fields were set in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )

const sameStatus = (a: PayoutStatus, b: PayoutStatus): boolean => canonical(a) === canonical(b)

/** The same reference for a repeated submit. */
const sameReference = (when: string, first: Submitted, again: Submitted) =>
  expectThat(
    again.reference === first.reference,
    `${when} got a second reference: ${first.reference}, then ${again.reference}`
  )

// ---------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------

const idempotentSubmit = (subject: RailSubject) =>
  check(
    `submit is idempotent by transaction id: the same payout again, at once and after SUBMIT_GRACE_SECONDS, gets the first reference and one outcome`,
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      const payout = payoutOf(subject, subject.outcomes.settles)
      const first = yield* submitOk(rail, payout)
      const again = yield* submitOk(rail, payout)
      yield* TestClock.adjust(`${SUBMIT_GRACE_SECONDS + 1} seconds`)
      const later = yield* submitOk(rail, payout)
      yield* sameReference("a repeated submit", first, again)
      yield* sameReference(`a submit ${SUBMIT_GRACE_SECONDS + 1} s later`, first, later)
      const outcome = yield* pollUntilDecided(subject, rail, first)
      yield* expectThat(
        outcome.status._tag === "Settled",
        `the payout to the settling destination ended ${show(outcome.status)}`
      )
      const second = yield* submitOk(rail, payoutOf(subject, subject.outcomes.settles))
      yield* expectThat(second.reference !== first.reference, `two transactions got one reference: ${first.reference}`)
    })
  )

const unknownReference = (subject: RailSubject) =>
  check(
    "status of an unknown reference is a RailError that is not retryable (the engine fails and refunds the payment)",
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      const reference = `paycore-rail-kit-unknown-${transactionId()}`
      const r = yield* Effect.result(rail.status(reference))
      if (Result.isSuccess(r)) return yield* failure(`status(${reference}) answered ${show(r.success)}`)
      yield* railErrorShaped(`status(${reference})`, r.failure)
      yield* expectThat(
        r.failure.retryable !== true,
        `status(${reference}) is retryable: the engine would ask again for hours, then stall`
      )
    })
  )

const everyRailSettles = (subject: RailSubject) =>
  check(
    "every declared rail and currency: settlementSeconds is a finite number >= 0, submit answers a reference and an expectedSettlementAt, and the payout settles",
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      yield* expectThat(subject.rails.length > 0, "the subject declares no rail")
      for (const { rail: paymentRail, currencies } of subject.rails) {
        const seconds = rail.settlementSeconds(paymentRail)
        yield* expectThat(
          typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0,
          `settlementSeconds(${paymentRail}) = ${show(seconds)}`
        )
        for (const currency of currencies) {
          yield* TestClock.setTime(T0)
          const submitted = yield* submitOk(
            rail,
            payoutOf(subject, subject.outcomes.settles, { rail: paymentRail, currency })
          )
          yield* expectThat(
            Date.parse(submitted.expectedSettlementAt) >= T0,
            `${paymentRail} ${currency}: expectedSettlementAt ${submitted.expectedSettlementAt} is before the submission`
          )
          const outcome = yield* pollUntilDecided(subject, rail, submitted)
          yield* expectThat(
            outcome.status._tag === "Settled",
            `${paymentRail} ${currency}: the settling destination ended ${show(outcome.status)}`
          )
        }
      }
    })
  )

const settledStaysSettled = (subject: RailSubject) =>
  check(
    "a settled payout stays settled: asked twice, again after RETURN_WATCH_SECONDS, and after a repeated submit, it answers Settled at the same settledAt",
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      const payout = payoutOf(subject, subject.outcomes.settles)
      const submitted = yield* submitOk(rail, payout)
      const outcome = yield* pollUntilDecided(subject, rail, submitted)
      yield* expectThat(outcome.status._tag === "Settled", `the settling destination ended ${show(outcome.status)}`)
      const asked = (when: string) =>
        Effect.flatMap(statusOk(rail, submitted.reference), (status) =>
          expectThat(sameStatus(status, outcome.status), `${when}: ${show(status)}, after ${show(outcome.status)}`)
        )
      yield* asked("asked again at once")
      const resubmitted = yield* submitOk(rail, payout)
      yield* sameReference("a submit after the settlement", submitted, resubmitted)
      yield* asked("asked after a repeated submit")
      yield* TestClock.adjust(`${RETURN_WATCH_SECONDS + 3600} seconds`)
      yield* asked("asked late (after the return watch)")
    })
  )

const failures = (subject: RailSubject) =>
  check(
    "failure: each failing destination ends Failed with its reason and refundSucceeds, and stays Failed when asked again, late, or after a repeated submit",
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      for (const failing of subject.outcomes.fails) {
        yield* TestClock.setTime(T0)
        const payout = payoutOf(subject, failing.destination)
        const submitted = yield* submitOk(rail, payout)
        const outcome = yield* pollUntilDecided(subject, rail, submitted)
        const expected: PayoutStatus = {
          _tag: "Failed",
          reason: failing.reason,
          refundSucceeds: failing.refundSucceeds
        }
        yield* expectThat(
          sameStatus(outcome.status, expected),
          `${show(failing.destination)}: ${show(outcome.status)}, expected ${show(expected)}`
        )
        const asked = (when: string) =>
          Effect.flatMap(statusOk(rail, submitted.reference), (status) =>
            expectThat(
              sameStatus(status, expected),
              `${show(failing.destination)} ${when}: ${show(status)} after ${show(expected)}`
            )
          )
        yield* asked("asked again")
        const resubmitted = yield* submitOk(rail, payout)
        yield* TestClock.adjust(`${RETURN_WATCH_SECONDS} seconds`)
        yield* asked("asked late")
        yield* sameReference("a submit after the failure", submitted, resubmitted)
      }
    })
  )

const returns = (
  subject: RailSubject,
  returning: { readonly destination: RailDestination; readonly reason: FailureReason }
) =>
  check(
    "return: a returning payout settles, is Returned within RETURN_WATCH_SECONDS of its settlement and stays Returned; asked first only after the return (a late report), it answers Returned",
    Effect.gen(function* () {
      const expected: PayoutStatus = { _tag: "Returned", reason: returning.reason }
      const rail = yield* instance(subject)
      const submitted = yield* submitOk(rail, payoutOf(subject, returning.destination))
      const outcome = yield* pollUntilDecided(subject, rail, submitted)
      const returned =
        outcome.status._tag === "Settled"
          ? yield* watchForReturn(rail, submitted.reference, Date.parse(outcome.status.settledAt))
          : outcome
      if (returned === undefined)
        return yield* failure(
          `not Returned within RETURN_WATCH_SECONDS of its settlement: the engine stops watching then`
        )
      yield* expectThat(
        sameStatus(returned.status, expected),
        `ended ${show(returned.status)}, expected ${show(expected)}`
      )
      yield* TestClock.adjust("1 hour")
      const again = yield* statusOk(rail, submitted.reference)
      yield* expectThat(sameStatus(again, expected), `asked again: ${show(again)}`)
      // A second payout, asked first only once the first one's return was known.
      yield* TestClock.setTime(T0)
      const late = yield* submitOk(rail, payoutOf(subject, returning.destination))
      yield* TestClock.setTime(returned.atMs + 3600_000)
      const first = yield* statusOk(rail, late.reference)
      yield* expectThat(
        sameStatus(first, expected),
        `asked first after the return: ${show(first)}, expected ${show(expected)}`
      )
    })
  )

/** Every outcome the subject can drive, as payouts to submit. */
const outcomePayouts = (subject: RailSubject): ReadonlyArray<Payout> => [
  payoutOf(subject, subject.outcomes.settles),
  ...subject.outcomes.fails.map((f) => payoutOf(subject, f.destination)),
  ...(subject.outcomes.returns === undefined ? [] : [payoutOf(subject, subject.outcomes.returns.destination)])
]

/** What of a status the order of the questions must not change (hashes may depend on the transaction id). */
const outcomeOf = (status: PayoutStatus): string => {
  switch (status._tag) {
    case "Pending":
      return "Pending"
    case "Settled":
      return `Settled at ${status.settledAt}`
    case "Failed":
      return `Failed ${status.reason} refundSucceeds=${status.refundSucceeds}`
    case "Returned":
      return `Returned ${status.reason}`
  }
}

const outOfOrder = (subject: RailSubject) =>
  check(
    "reports out of order and twice: two sets of payouts of every outcome, one asked in order and one in reverse, each twice at every instant, answer alike",
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      const submitAll = Effect.forEach(outcomePayouts(subject), (payout) => submitOk(rail, payout))
      const a = yield* submitAll
      const b = yield* submitAll
      const last = Math.max(...a.map((s) => Date.parse(s.expectedSettlementAt)))
      const instants = [T0 + 1000, last, last + 3_600_000, last + (RETURN_WATCH_SECONDS - 60) * 1000]
      for (const atMs of instants) {
        yield* TestClock.setTime(atMs)
        const askTwice = Effect.fnUntraced(function* (s: Submitted) {
          const first = outcomeOf(yield* statusOk(rail, s.reference))
          const second = outcomeOf(yield* statusOk(rail, s.reference))
          yield* expectThat(first === second, `${s.reference} at ${iso(atMs)}: ${first}, then ${second}`)
          return first
        })
        const answersA = yield* Effect.forEach(a, askTwice)
        const answersB = [...(yield* Effect.forEach([...b].reverse(), askTwice))].reverse()
        for (const [i, answer] of answersA.entries())
          yield* expectThat(
            answersB[i] === answer,
            `payout ${i} at ${iso(atMs)}: ${answer} asked in order, ${answersB[i]} asked in reverse`
          )
      }
    })
  )

const restartReferences = (subject: RailSubject) =>
  check(
    "restart: a new instance of the adapter answers each reference with the outcome the first instance gave",
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      const pairs: Array<readonly [Submitted, Outcome]> = []
      for (const payout of outcomePayouts(subject)) {
        yield* TestClock.setTime(T0)
        const s = yield* submitOk(rail, payout)
        pairs.push([s, yield* pollUntilDecided(subject, rail, s)])
      }
      const restarted = yield* instance(subject)
      for (const [s, outcome] of pairs) {
        yield* TestClock.setTime(outcome.atMs)
        const status = yield* statusOk(restarted, s.reference)
        yield* expectThat(
          sameStatus(status, outcome.status),
          `${s.reference}: ${show(status)} from the new instance, ${show(outcome.status)} before`
        )
      }
    })
  )

const restartSubmissions = (subject: RailSubject) =>
  check(
    "restart: a payout submitted again to a new instance of the adapter (a crash before its reference was recorded) gets the first reference",
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      const payout = payoutOf(subject, subject.outcomes.settles)
      const first = yield* submitOk(rail, payout)
      yield* TestClock.adjust(`${SUBMIT_GRACE_SECONDS + 1} seconds`)
      const restarted = yield* instance(subject)
      const again = yield* submitOk(restarted, payout)
      yield* expectThat(
        again.reference === first.reference,
        `the new instance made a second payout: ${first.reference}, then ${again.reference}`
      )
    })
  )

const refusals = (subject: RailSubject, refused: ReadonlyArray<RefusedPayout>) =>
  check(
    "refused at submission: a RailError that is not retryable, with its reason, and refused again when submitted again",
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      for (const r of refused) {
        const payout = payoutOf(subject, r.destination, { amount: r.amount })
        for (const attempt of ["first", "repeated"]) {
          const result = yield* Effect.result(rail.submit(payout))
          if (Result.isSuccess(result))
            return yield* failure(`${attempt} submit of ${show(r)} was accepted: ${show(result.success)}`)
          const e = result.failure
          yield* railErrorShaped(`${attempt} submit of ${show(r)}`, e)
          yield* expectThat(
            e.retryable === false && e.reason === r.reason,
            `${attempt} submit of ${show(r)}: ${describeError(e)}, expected not retryable, ${r.reason}`
          )
        }
      }
    })
  )

const timeouts = (
  subject: RailSubject,
  timesOut: { readonly destination: RailDestination; readonly afterSeconds: number }
) =>
  check(
    "timeout: a rail that does not answer in time is a retryable RailError (the engine submits again), and the retry reaches the rail once",
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      const payout = payoutOf(subject, timesOut.destination)
      const first = yield* endsWithin("submit", rail.submit(payout), timesOut.afterSeconds)
      if (Exit.isSuccess(first))
        return yield* failure(`the first submit answered ${show(first.value)}, expected a retryable RailError`)
      const error = yield* Effect.failCause(first.cause).pipe(Effect.flip)
      yield* railErrorShaped("the timed-out submit", error)
      yield* expectThat(
        error.retryable === true,
        `the timed-out submit: ${describeError(error)}, not retryable: the engine would fail the payment`
      )
      const retried = yield* submitOk(rail, payout)
      const again = yield* submitOk(rail, payout)
      yield* expectThat(
        again.reference === retried.reference,
        `after the timeout, two submits got two references: ${retried.reference}, ${again.reference}`
      )
      // The retried payout reaches an outcome (else pollUntilDecided says it stayed Pending).
      yield* pollUntilDecided(subject, rail, retried)
    })
  )

const cancellation = (subject: RailSubject) =>
  check(
    "cancel (when the adapter has it): a settled payout is TooLate and stays settled, a second cancel answers the same, an unknown reference is a RailError",
    Effect.gen(function* () {
      const rail = yield* instance(subject)
      const cancel = rail.cancel
      if (cancel === undefined) return
      const submitted = yield* submitOk(rail, payoutOf(subject, subject.outcomes.settles))
      const outcome = yield* pollUntilDecided(subject, rail, submitted)
      const answers: Array<CancelOutcome> = []
      for (let i = 0; i < 2; i++)
        answers.push(
          yield* Effect.mapError(cancel(submitted.reference), (e) =>
            failure(`cancel of a settled payout: ${describeError(e)}`)
          )
        )
      yield* expectThat(
        answers.every((a) => a._tag === "TooLate"),
        `cancel of a settled payout: ${show(answers)}`
      )
      const after = yield* statusOk(rail, submitted.reference)
      yield* expectThat(sameStatus(after, outcome.status), `after a cancel, a settled payout answers ${show(after)}`)
      const unknown = yield* Effect.result(cancel(`paycore-rail-kit-unknown-${transactionId()}`))
      if (Result.isSuccess(unknown))
        return yield* failure(`cancel of an unknown reference answered ${show(unknown.success)}`)
    })
  )

// ---------------------------------------------------------------------------------------------
// The kit
// ---------------------------------------------------------------------------------------------

/**
 * The checks of the kit for `subject`, in order, to register (`railConformance`) or to run (`failingChecks`: they
 * need nothing provided, each builds its own instances of the adapter and runs on its own TestClock). A check the
 * subject gives nothing for (no `returns`, `refused` or `timesOut`, no restart claim) is left out.
 */
export const railChecks = (subject: RailSubject): ReadonlyArray<ConformanceCheck<never>> => {
  const { returns: returning, refused = [], timesOut } = subject.outcomes
  const claims = subject.survivesRestart
  return [
    idempotentSubmit(subject),
    unknownReference(subject),
    everyRailSettles(subject),
    settledStaysSettled(subject),
    failures(subject),
    ...(returning === undefined ? [] : [returns(subject, returning)]),
    outOfOrder(subject),
    ...(refused.length === 0 ? [] : [refusals(subject, refused)]),
    ...(timesOut === undefined ? [] : [timeouts(subject, timesOut)]),
    ...(claims?.references === true ? [restartReferences(subject)] : []),
    ...(claims?.submissions === true ? [restartSubmissions(subject)] : []),
    cancellation(subject)
  ]
}

/**
 * Registers the Rail conformance kit, `describe("Rail conformance: <name>")`, at the top level of a vitest file:
 *
 * ```ts
 * railConformance("my rail", { layer: () => MyRail(), rails: [...], outcomes: { settles, fails, returns } })
 * ```
 *
 * One test per check; a check the subject gives nothing for is left out.
 */
export const railConformance = (name: string, subject: RailSubject): void =>
  registerChecks(`Rail conformance: ${name}`, Layer.empty, railChecks(subject))
