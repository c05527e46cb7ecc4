/**
 * A conformance kit for `Rail` adapters: what the engine relies on when it submits a payout and polls for its
 * outcome (packages/core/src/transactions/submission.ts and settlement.ts). Each check is an Effect that answers
 * the list of what went wrong (empty when the adapter passes), so a test can run them one by one, or register
 * them all as vitest cases with `railConformance`.
 *
 * The port has no deposit method: deposits reach the engine through `Transactions` (a bank's notification calls
 * the service), never through the rail, so there is nothing of the rail to check for them.
 */
import { describe, it } from "@effect/vitest"
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
import { Clock, Context, Effect, Fiber, Layer, Result, type Scope } from "effect"
import { TestClock } from "effect/testing"

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

/** What an adapter declares and how the kit drives it. */
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

/** One check of the kit: its title (the behaviour), and an Effect answering what went wrong. */
export interface RailCheck {
  /** The behaviour checked (the vitest case's title). */
  readonly title: string
  /** Why the check does not apply to this subject (it then passes without running). */
  readonly skip?: string | undefined
  /** Runs the check on its own TestClock: what went wrong, empty when the adapter passes. */
  readonly run: Effect.Effect<ReadonlyArray<string>>
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

const show = (value: unknown): string => JSON.stringify(value)
const describeError = (e: RailError): string =>
  `RailError{retryable: ${e.retryable}, reason: ${e.reason}, message: ${show(e.message)}}`

/** The shape of a RailError: what the engine reads of it. */
const railErrorProblems = (what: string, e: RailError): ReadonlyArray<string> =>
  e?._tag === "RailError" && typeof e.retryable === "boolean" && typeof e.reason === "string"
    ? []
    : [`${what}: failed with ${show(e)}, not a RailError {_tag, retryable, reason, message}`]

/** Submits; a failure is a problem. */
const submitOk = (rail: Rail["Service"], payout: Payout, problems: Array<string>) =>
  Effect.map(Effect.result(rail.submit(payout)), (r) => {
    if (Result.isFailure(r)) {
      problems.push(`submit to ${show(payout.destination)} on ${payout.rail}: ${describeError(r.failure)}`)
      return undefined
    }
    const s = r.success
    if (typeof s.reference !== "string" || s.reference === "") problems.push(`submit: reference ${show(s.reference)}`)
    if (!isIso(s.expectedSettlementAt)) problems.push(`submit: expectedSettlementAt ${show(s.expectedSettlementAt)}`)
    return s
  })

/** Asks the status; a failure is a problem. */
const statusOk = (rail: Rail["Service"], reference: string, problems: Array<string>) =>
  Effect.map(Effect.result(rail.status(reference)), (r) => {
    if (Result.isFailure(r)) {
      problems.push(`status(${reference}): ${describeError(r.failure)}`)
      return undefined
    }
    return r.success
  })

const statusProblems = (status: PayoutStatus, atMs: number): ReadonlyArray<string> => {
  switch (status._tag) {
    case "Pending":
      return isIso(status.checkAgainAt) ? [] : [`Pending without a valid checkAgainAt: ${show(status)}`]
    case "Settled":
      if (!isIso(status.settledAt)) return [`Settled without a valid settledAt: ${show(status)}`]
      return Date.parse(status.settledAt) > atMs ? [`Settled at ${status.settledAt}, after now (${iso(atMs)})`] : []
    case "Failed":
      return typeof status.refundSucceeds === "boolean" ? [] : [`Failed without refundSucceeds: ${show(status)}`]
    case "Returned":
      return []
    default:
      return [`not a PayoutStatus: ${show(status)}`]
  }
}

/** What a poll trail ended with: the first answer that is not Pending, and when it was asked. */
interface Outcome {
  readonly status: PayoutStatus
  readonly atMs: number
}

/**
 * Polls as the settlement worker does: first at `expectedSettlementAt`, then at each `checkAgainAt` (at least a
 * second later), until an answer that is not Pending, or the horizon.
 */
const pollUntilDecided = Effect.fnUntraced(function* (
  subject: RailSubject,
  rail: Rail["Service"],
  submitted: Submitted,
  problems: Array<string>
) {
  const start = yield* now
  const horizon = start + (subject.horizonSeconds ?? 7 * 86_400) * 1000
  let next = Math.max(Date.parse(submitted.expectedSettlementAt), start)
  for (let poll = 0; poll < 200 && next <= horizon; poll++) {
    yield* TestClock.setTime(next)
    const status = yield* statusOk(rail, submitted.reference, problems)
    if (status === undefined) return undefined
    problems.push(...statusProblems(status, next))
    if (status._tag !== "Pending") return { status, atMs: next } satisfies Outcome
    next = Math.max(Date.parse(status.checkAgainAt), next + 1000)
  }
  problems.push(`${submitted.reference}: still Pending ${Math.round((next - start) / 1000)} s after its submission`)
  return undefined
})

/** After a settlement, polls as the return watch does (growing intervals, for RETURN_WATCH_SECONDS). */
const watchForReturn = Effect.fnUntraced(function* (
  rail: Rail["Service"],
  reference: string,
  settledAtMs: number,
  problems: Array<string>
) {
  let at = yield* now
  for (;;) {
    const elapsed = Math.max(0, (at - settledAtMs) / 1000)
    if (elapsed >= RETURN_WATCH_SECONDS) return undefined
    at += 1000 * Math.min(Math.max(60, elapsed), RETURN_WATCH_SECONDS - elapsed)
    yield* TestClock.setTime(at)
    const status = yield* statusOk(rail, reference, problems)
    if (status === undefined) return undefined
    problems.push(...statusProblems(status, at))
    if (status._tag !== "Settled" && status._tag !== "Pending") return { status, atMs: at } satisfies Outcome
  }
})

/** Runs a check body on its own TestClock at T0, in a scope for the adapter instances it builds. */
const check = (
  title: string,
  body: (problems: Array<string>) => Effect.Effect<unknown, unknown, Scope.Scope>,
  skip?: string
): RailCheck => ({
  title,
  skip,
  run: Effect.gen(function* () {
    const problems: Array<string> = []
    yield* TestClock.setTime(T0)
    const exit = yield* Effect.exit(body(problems))
    if (exit._tag === "Failure") problems.push(`the check could not run: ${String(exit.cause)}`)
    return problems
  }).pipe(Effect.scoped, Effect.provide(TestClock.layer()))
})

/** JSON with the keys of every object sorted: two statuses compare equal whatever order their fields were set in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )

const sameStatus = (a: PayoutStatus, b: PayoutStatus): boolean => canonical(a) === canonical(b)

// ---------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------

const idempotentSubmit = (subject: RailSubject): RailCheck =>
  check(
    `submit is idempotent by transaction id: the same payout again, at once and after SUBMIT_GRACE_SECONDS, gets the first reference and one outcome`,
    (problems) =>
      Effect.gen(function* () {
        const rail = yield* instance(subject)
        const payout = payoutOf(subject, subject.outcomes.settles)
        const first = yield* submitOk(rail, payout, problems)
        const again = yield* submitOk(rail, payout, problems)
        yield* TestClock.adjust(`${SUBMIT_GRACE_SECONDS + 1} seconds`)
        const later = yield* submitOk(rail, payout, problems)
        if (first === undefined || again === undefined || later === undefined) return
        if (again.reference !== first.reference)
          problems.push(`a repeated submit got a second reference: ${first.reference}, then ${again.reference}`)
        if (later.reference !== first.reference)
          problems.push(
            `a submit ${SUBMIT_GRACE_SECONDS + 1} s later got a second reference: ${first.reference}, then ${later.reference}`
          )
        const outcome = yield* pollUntilDecided(subject, rail, first, problems)
        if (outcome !== undefined && outcome.status._tag !== "Settled")
          problems.push(`the payout to the settling destination ended ${show(outcome.status)}`)
        const other = payoutOf(subject, subject.outcomes.settles)
        const second = yield* submitOk(rail, other, problems)
        if (second !== undefined && second.reference === first.reference)
          problems.push(`two transactions got one reference: ${first.reference}`)
      })
  )

const unknownReference = (subject: RailSubject): RailCheck =>
  check(
    "status of an unknown reference is a RailError that is not retryable (the engine fails and refunds the payment)",
    (problems) =>
      Effect.gen(function* () {
        const rail = yield* instance(subject)
        const reference = `paycore-rail-kit-unknown-${transactionId()}`
        const r = yield* Effect.result(rail.status(reference))
        if (Result.isSuccess(r)) {
          problems.push(`status(${reference}) answered ${show(r.success)}`)
          return
        }
        problems.push(...railErrorProblems(`status(${reference})`, r.failure))
        if (r.failure.retryable === true)
          problems.push(`status(${reference}) is retryable: the engine would ask again for hours, then stall`)
      })
  )

const everyRailSettles = (subject: RailSubject): RailCheck =>
  check(
    "every declared rail and currency: settlementSeconds is a finite number >= 0, submit answers a reference and an expectedSettlementAt, and the payout settles",
    (problems) =>
      Effect.gen(function* () {
        const rail = yield* instance(subject)
        if (subject.rails.length === 0) problems.push("the subject declares no rail")
        for (const { rail: paymentRail, currencies } of subject.rails) {
          const seconds = rail.settlementSeconds(paymentRail)
          if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0)
            problems.push(`settlementSeconds(${paymentRail}) = ${show(seconds)}`)
          for (const currency of currencies) {
            yield* TestClock.setTime(T0)
            const payout = payoutOf(subject, subject.outcomes.settles, { rail: paymentRail, currency })
            const submitted = yield* submitOk(rail, payout, problems)
            if (submitted === undefined) continue
            if (Date.parse(submitted.expectedSettlementAt) < T0)
              problems.push(
                `${paymentRail} ${currency}: expectedSettlementAt ${submitted.expectedSettlementAt} is before the submission`
              )
            const outcome = yield* pollUntilDecided(subject, rail, submitted, problems)
            if (outcome !== undefined && outcome.status._tag !== "Settled")
              problems.push(`${paymentRail} ${currency}: the settling destination ended ${show(outcome.status)}`)
          }
        }
      })
  )

const settledStaysSettled = (subject: RailSubject): RailCheck =>
  check(
    "a settled payout stays settled: asked twice, again after RETURN_WATCH_SECONDS, and after a repeated submit, it answers Settled at the same settledAt",
    (problems) =>
      Effect.gen(function* () {
        const rail = yield* instance(subject)
        const payout = payoutOf(subject, subject.outcomes.settles)
        const submitted = yield* submitOk(rail, payout, problems)
        if (submitted === undefined) return
        const outcome = yield* pollUntilDecided(subject, rail, submitted, problems)
        if (outcome === undefined) return
        if (outcome.status._tag !== "Settled") {
          problems.push(`the settling destination ended ${show(outcome.status)}`)
          return
        }
        const expect = (when: string, status: PayoutStatus | undefined) => {
          if (status !== undefined && !sameStatus(status, outcome.status))
            problems.push(`${when}: ${show(status)}, after ${show(outcome.status)}`)
        }
        expect("asked again at once", yield* statusOk(rail, submitted.reference, problems))
        const resubmitted = yield* submitOk(rail, payout, problems)
        if (resubmitted !== undefined && resubmitted.reference !== submitted.reference)
          problems.push(`a submit after the settlement got a second reference: ${resubmitted.reference}`)
        expect("asked after a repeated submit", yield* statusOk(rail, submitted.reference, problems))
        yield* TestClock.adjust(`${RETURN_WATCH_SECONDS + 3600} seconds`)
        expect("asked late (after the return watch)", yield* statusOk(rail, submitted.reference, problems))
      })
  )

const failures = (subject: RailSubject): RailCheck =>
  check(
    "failure: each failing destination ends Failed with its reason and refundSucceeds, and stays Failed when asked again, late, or after a repeated submit",
    (problems) =>
      Effect.gen(function* () {
        const rail = yield* instance(subject)
        for (const failing of subject.outcomes.fails) {
          yield* TestClock.setTime(T0)
          const payout = payoutOf(subject, failing.destination)
          const submitted = yield* submitOk(rail, payout, problems)
          if (submitted === undefined) continue
          const outcome = yield* pollUntilDecided(subject, rail, submitted, problems)
          if (outcome === undefined) continue
          const expected: PayoutStatus = {
            _tag: "Failed",
            reason: failing.reason,
            refundSucceeds: failing.refundSucceeds
          }
          if (!sameStatus(outcome.status, expected)) {
            problems.push(`${show(failing.destination)}: ${show(outcome.status)}, expected ${show(expected)}`)
            continue
          }
          const again = yield* statusOk(rail, submitted.reference, problems)
          const resubmitted = yield* submitOk(rail, payout, problems)
          yield* TestClock.adjust(`${RETURN_WATCH_SECONDS} seconds`)
          const late = yield* statusOk(rail, submitted.reference, problems)
          for (const [when, status] of [
            ["asked again", again],
            ["asked late", late]
          ] as const) {
            if (status !== undefined && !sameStatus(status, expected))
              problems.push(`${show(failing.destination)} ${when}: ${show(status)} after ${show(expected)}`)
          }
          if (resubmitted !== undefined && resubmitted.reference !== submitted.reference)
            problems.push(`a submit after the failure got a second reference: ${resubmitted.reference}`)
        }
      })
  )

const returns = (subject: RailSubject): RailCheck => {
  const returning = subject.outcomes.returns
  return check(
    "return: a returning payout settles, is Returned within RETURN_WATCH_SECONDS of its settlement and stays Returned; asked first only after the return (a late report), it answers Returned",
    (problems) =>
      Effect.gen(function* () {
        if (returning === undefined) return
        const expected: PayoutStatus = { _tag: "Returned", reason: returning.reason }
        const rail = yield* instance(subject)
        const payout = payoutOf(subject, returning.destination)
        const submitted = yield* submitOk(rail, payout, problems)
        if (submitted === undefined) return
        const outcome = yield* pollUntilDecided(subject, rail, submitted, problems)
        if (outcome === undefined) return
        let returned: Outcome | undefined = outcome
        if (outcome.status._tag === "Settled") {
          returned = yield* watchForReturn(rail, submitted.reference, Date.parse(outcome.status.settledAt), problems)
          if (returned === undefined) {
            problems.push(`not Returned within RETURN_WATCH_SECONDS of its settlement: the engine stops watching then`)
            return
          }
        }
        if (!sameStatus(returned.status, expected)) {
          problems.push(`ended ${show(returned.status)}, expected ${show(expected)}`)
          return
        }
        const returnedAtMs = returned.atMs
        yield* TestClock.adjust("1 hour")
        const again = yield* statusOk(rail, submitted.reference, problems)
        if (again !== undefined && !sameStatus(again, expected)) problems.push(`asked again: ${show(again)}`)
        // A second payout, asked first only once the first one's return was known.
        yield* TestClock.setTime(T0)
        const late = yield* submitOk(rail, payoutOf(subject, returning.destination), problems)
        if (late === undefined) return
        yield* TestClock.setTime(returnedAtMs + 3600_000)
        const first = yield* statusOk(rail, late.reference, problems)
        if (first !== undefined && !sameStatus(first, expected))
          problems.push(`asked first after the return: ${show(first)}, expected ${show(expected)}`)
      }),
    returning === undefined ? "the subject declares no returning destination" : undefined
  )
}

/** Every outcome the subject can drive, as payouts to submit. */
const outcomePayouts = (subject: RailSubject): ReadonlyArray<Payout> => [
  payoutOf(subject, subject.outcomes.settles),
  ...subject.outcomes.fails.map((f) => payoutOf(subject, f.destination)),
  ...(subject.outcomes.returns === undefined ? [] : [payoutOf(subject, subject.outcomes.returns.destination)])
]

/** What of a status the order of the questions must not change (hashes may depend on the transaction id). */
const outcomeOf = (status: PayoutStatus | undefined): string => {
  if (status === undefined) return "no answer"
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

const outOfOrder = (subject: RailSubject): RailCheck =>
  check(
    "reports out of order and twice: two sets of payouts of every outcome, one asked in order and one in reverse, each twice at every instant, answer alike",
    (problems) =>
      Effect.gen(function* () {
        const rail = yield* instance(subject)
        const submitAll = Effect.forEach(outcomePayouts(subject), (payout) => submitOk(rail, payout, problems))
        const inOrder = yield* submitAll
        const reversed = yield* submitAll
        if (inOrder.some((s) => s === undefined) || reversed.some((s) => s === undefined)) return
        const a = inOrder as ReadonlyArray<Submitted>
        const b = reversed as ReadonlyArray<Submitted>
        const last = Math.max(...a.map((s) => Date.parse(s.expectedSettlementAt)))
        const instants = [T0 + 1000, last, last + 3_600_000, last + (RETURN_WATCH_SECONDS - 60) * 1000]
        for (const atMs of instants) {
          yield* TestClock.setTime(atMs)
          const askTwice = (s: Submitted) =>
            Effect.gen(function* () {
              const first = outcomeOf(yield* statusOk(rail, s.reference, problems))
              const second = outcomeOf(yield* statusOk(rail, s.reference, problems))
              if (first !== second) problems.push(`${s.reference} at ${iso(atMs)}: ${first}, then ${second}`)
              return first
            })
          const answersA = yield* Effect.forEach(a, askTwice)
          const answersB = [...(yield* Effect.forEach([...b].reverse(), askTwice))].reverse()
          answersA.forEach((answer, i) => {
            if (answersB[i] !== answer)
              problems.push(`payout ${i} at ${iso(atMs)}: ${answer} asked in order, ${answersB[i]} asked in reverse`)
          })
        }
      })
  )

const restartReferences = (subject: RailSubject): RailCheck =>
  check(
    "restart: a new instance of the adapter answers each reference with the outcome the first instance gave",
    (problems) =>
      Effect.gen(function* () {
        const rail = yield* instance(subject)
        const pairs: Array<readonly [Submitted, Outcome]> = []
        for (const payout of outcomePayouts(subject)) {
          yield* TestClock.setTime(T0)
          const s = yield* submitOk(rail, payout, problems)
          if (s === undefined) continue
          const outcome = yield* pollUntilDecided(subject, rail, s, problems)
          if (outcome !== undefined) pairs.push([s, outcome])
        }
        const restarted = yield* instance(subject)
        for (const [s, outcome] of pairs) {
          yield* TestClock.setTime(outcome.atMs)
          const status = yield* statusOk(restarted, s.reference, problems)
          if (status !== undefined && !sameStatus(status, outcome.status))
            problems.push(`${s.reference}: ${show(status)} from the new instance, ${show(outcome.status)} before`)
        }
      }),
    subject.survivesRestart?.references === true
      ? undefined
      : "the adapter does not claim its references survive a restart"
  )

const restartSubmissions = (subject: RailSubject): RailCheck =>
  check(
    "restart: a payout submitted again to a new instance of the adapter (a crash before its reference was recorded) gets the first reference",
    (problems) =>
      Effect.gen(function* () {
        const rail = yield* instance(subject)
        const payout = payoutOf(subject, subject.outcomes.settles)
        const first = yield* submitOk(rail, payout, problems)
        yield* TestClock.adjust(`${SUBMIT_GRACE_SECONDS + 1} seconds`)
        const restarted = yield* instance(subject)
        const again = yield* submitOk(restarted, payout, problems)
        if (first !== undefined && again !== undefined && again.reference !== first.reference)
          problems.push(`the new instance made a second payout: ${first.reference}, then ${again.reference}`)
      }),
    subject.survivesRestart?.submissions === true
      ? undefined
      : "the adapter does not claim its submissions survive a restart"
  )

const refusals = (subject: RailSubject): RailCheck => {
  const refused = subject.outcomes.refused ?? []
  return check(
    "refused at submission: a RailError that is not retryable, with its reason, and refused again when submitted again",
    (problems) =>
      Effect.gen(function* () {
        const rail = yield* instance(subject)
        for (const r of refused) {
          const payout = payoutOf(subject, r.destination, { amount: r.amount })
          for (const attempt of ["first", "repeated"]) {
            const result = yield* Effect.result(rail.submit(payout))
            if (Result.isSuccess(result)) {
              problems.push(`${attempt} submit of ${show(r)} was accepted: ${show(result.success)}`)
              continue
            }
            const e = result.failure
            problems.push(...railErrorProblems(`${attempt} submit of ${show(r)}`, e))
            if (e.retryable !== false || e.reason !== r.reason)
              problems.push(`${attempt} submit of ${show(r)}: ${describeError(e)}, expected not retryable, ${r.reason}`)
          }
        }
      }),
    refused.length === 0 ? "the subject declares no payout refused at submission" : undefined
  )
}

const timeouts = (subject: RailSubject): RailCheck => {
  const timesOut = subject.outcomes.timesOut
  return check(
    "timeout: a rail that does not answer in time is a retryable RailError (the engine submits again), and the retry reaches the rail once",
    (problems) =>
      Effect.gen(function* () {
        if (timesOut === undefined) return
        const rail = yield* instance(subject)
        const payout = payoutOf(subject, timesOut.destination)
        const fiber = yield* Effect.forkChild(Effect.result(rail.submit(payout)))
        for (let i = 0; i < 10; i++) yield* Effect.yieldNow // the call reaches its timer before the clock moves
        yield* TestClock.adjust(`${timesOut.afterSeconds} seconds`)
        for (let i = 0; i < 10 && fiber.pollUnsafe() === undefined; i++) yield* Effect.yieldNow
        if (fiber.pollUnsafe() === undefined) {
          yield* Fiber.interrupt(fiber)
          problems.push(`submit still waiting ${timesOut.afterSeconds} s after it started: it must time out`)
          return
        }
        const first = yield* Fiber.join(fiber)
        if (Result.isSuccess(first)) {
          problems.push(`the first submit answered ${show(first.success)}, expected a retryable RailError`)
          return
        }
        problems.push(...railErrorProblems("the timed-out submit", first.failure))
        if (first.failure.retryable !== true)
          problems.push(
            `the timed-out submit: ${describeError(first.failure)}, not retryable: the engine would fail the payment`
          )
        const retried = yield* submitOk(rail, payout, problems)
        if (retried === undefined) return
        const again = yield* submitOk(rail, payout, problems)
        if (again !== undefined && again.reference !== retried.reference)
          problems.push(`after the timeout, two submits got two references: ${retried.reference}, ${again.reference}`)
        // The retried payout reaches an outcome (else pollUntilDecided says it stayed Pending).
        yield* pollUntilDecided(subject, rail, retried, problems)
      }),
    timesOut === undefined ? "the subject declares no way to make the rail time out" : undefined
  )
}

const cancellation = (subject: RailSubject): RailCheck =>
  check(
    "cancel (when the adapter has it): a settled payout is TooLate and stays settled, a second cancel answers the same, an unknown reference is a RailError",
    (problems) =>
      Effect.gen(function* () {
        const rail = yield* instance(subject)
        const cancel = rail.cancel
        if (cancel === undefined) return
        const submitted = yield* submitOk(rail, payoutOf(subject, subject.outcomes.settles), problems)
        if (submitted === undefined) return
        const outcome = yield* pollUntilDecided(subject, rail, submitted, problems)
        if (outcome === undefined) return
        const answers: Array<CancelOutcome> = []
        for (let i = 0; i < 2; i++) {
          const r = yield* Effect.result(cancel(submitted.reference))
          if (Result.isFailure(r)) problems.push(`cancel of a settled payout: ${describeError(r.failure)}`)
          else answers.push(r.success)
        }
        if (answers.some((a) => a._tag !== "TooLate")) problems.push(`cancel of a settled payout: ${show(answers)}`)
        const after = yield* statusOk(rail, submitted.reference, problems)
        if (after !== undefined && !sameStatus(after, outcome.status))
          problems.push(`after a cancel, a settled payout answers ${show(after)}`)
        const unknown = yield* Effect.result(cancel(`paycore-rail-kit-unknown-${transactionId()}`))
        if (Result.isSuccess(unknown)) problems.push(`cancel of an unknown reference answered ${show(unknown.success)}`)
      })
  )

// ---------------------------------------------------------------------------------------------
// The kit
// ---------------------------------------------------------------------------------------------

/**
 * Every check of the kit for `subject`, in order. Each one builds its own instances of the adapter and runs on
 * its own TestClock; `run` answers what went wrong (empty: passed). A skipped check (`skip` set) answers nothing.
 */
export const railChecks = (subject: RailSubject): ReadonlyArray<RailCheck> =>
  [
    idempotentSubmit(subject),
    unknownReference(subject),
    everyRailSettles(subject),
    settledStaysSettled(subject),
    failures(subject),
    returns(subject),
    outOfOrder(subject),
    refusals(subject),
    timeouts(subject),
    restartReferences(subject),
    restartSubmissions(subject),
    cancellation(subject)
  ].map((c) => (c.skip === undefined ? c : { ...c, run: Effect.succeed([]) }))

/** Runs every check; answers the failing ones with what went wrong (empty: the adapter passes). */
export const runRailChecks = (
  subject: RailSubject
): Effect.Effect<ReadonlyArray<{ readonly title: string; readonly problems: ReadonlyArray<string> }>> =>
  Effect.map(
    Effect.forEach(railChecks(subject), (c) => Effect.map(c.run, (problems) => ({ title: c.title, problems }))),
    (results) => results.filter((r) => r.problems.length > 0)
  )

/**
 * Registers the Rail conformance kit, `describe("Rail conformance: <name>")`, at the top level of a vitest file:
 *
 * ```ts
 * railConformance("my rail", { layer: MyRail(), rails: [...], outcomes: { settles, fails, returns } })
 * ```
 *
 * One test per check; a check the subject does not apply to (no returning destination, no restart claim, no way
 * to time out) is registered as skipped, with why.
 */
export const railConformance = (name: string, subject: RailSubject): void => {
  describe(`Rail conformance: ${name}`, () => {
    for (const c of railChecks(subject)) {
      if (c.skip !== undefined) {
        it.skip(`${c.title} (skipped: ${c.skip})`, () => {})
        continue
      }
      it.effect(c.title, () =>
        Effect.map(c.run, (problems) => {
          if (problems.length > 0) throw new Error(`${c.title}:\n- ${problems.join("\n- ")}`)
        })
      )
    }
  })
}
