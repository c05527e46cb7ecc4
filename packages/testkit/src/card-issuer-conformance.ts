/**
 * A conformance kit for `CardIssuer` adapters (`ports/card-issuer.ts`): what the cards context relies on when it
 * issues, polls, changes and reveals cards (`cards/issue.ts`, `provisioning.ts`, `update.ts`, `reveal.ts`,
 * `funding-sources.ts`). The adapter's layer is built once; every check uses fresh card ids and sets the `TestClock`.
 */
import {
  CardBrand,
  CardIssuer,
  type CardIssuerError,
  type CardIssuerService,
  type CardProvisioning,
  type CardProvisionRequest,
  type CardTargetState,
  type FundingCardholder,
  type InternalAccountRecord
} from "@paycore/core"
import { Clock, Duration, Effect, Exit, type Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import {
  type ConformanceCheck,
  ConformanceFailure,
  expectThat,
  type RegisterOptions,
  registerChecks,
  show
} from "./port-checks.ts"

export * from "./conformance-checks.ts"
export type { RegisterOptions } from "./port-checks.ts"

/** Turns the kit's request into one the issuer answers as the check needs (a suffix, a scripted answer...). */
export type SteerProvision = (request: CardProvisionRequest) => CardProvisionRequest

/**
 * How to make the issuer answer each outcome. `active` is required (it may return the request unchanged); a check
 * whose outcome the adapter cannot be driven to is left out (say why in your test file).
 */
export interface CardIssuerOutcomes {
  /** `provision` answers `Active` at once. */
  readonly active: SteerProvision
  /** `provision` answers `Rejected`. */
  readonly rejected?: SteerProvision | undefined
  /** `provision` answers `Pending`; `status`, asked again as the worker does, later answers `Active`. */
  readonly pendingThenActive?: SteerProvision | undefined
  /** `provision` answers `Pending`; `status` later answers `Rejected`. */
  readonly pendingThenRejected?: SteerProvision | undefined
  /** `provision` fails with a retryable `CardIssuerError`; a retry answers the card. */
  readonly failsThenActive?: SteerProvision | undefined
  /**
   * Makes `fundingEligibility` refuse these accounts (CD-44): answers the cardholder to ask about (a suffix the sandbox
   * reads), or marks an account refused (a scripted issuer) and answers the cardholder as given.
   */
  readonly ineligible?:
    | ((accounts: ReadonlyArray<FundingAccount>, cardholder: FundingCardholder) => FundingCardholder)
    | undefined
}

export interface CardIssuerKitOptions extends RegisterOptions {
  /** The longest a reveal URL may stay valid (default 3600 s; CD-33 says minutes). */
  readonly maxRevealSeconds?: number | undefined
  /** The wait between two `status` calls of a pending card that gave no `checkAgainAt` (default 1 minute). */
  readonly pollEvery?: Duration.Input | undefined
  /** How many `status` calls a pending card may take to be decided (default 30). */
  readonly maxPolls?: number | undefined
  /** When the checks start, on the `TestClock` (default 2026-03-02T12:00:00Z). */
  readonly startAt?: number | undefined
}

/** An account as `fundingEligibility` is asked about it. */
export type FundingAccount = Pick<InternalAccountRecord, "id" | "type" | "currency">

type Answer<A> = { readonly ok: A } | { readonly error: CardIssuerError }

const DEFAULT_START = Date.parse("2026-03-02T12:00:00.000Z")

const isIssuerError = (e: unknown): e is CardIssuerError =>
  typeof e === "object" &&
  e !== null &&
  (e as { _tag?: unknown })._tag === "CardIssuerError" &&
  typeof (e as { retryable?: unknown }).retryable === "boolean" &&
  typeof (e as { message?: unknown }).message === "string"

/** Runs one port call: its answer or its `CardIssuerError`; anything else (a defect, another error) fails the check. */
const attempt = <A>(op: string, effect: Effect.Effect<A, CardIssuerError>) =>
  Effect.flatMap(Effect.exit(effect), (exit): Effect.Effect<Answer<A>, ConformanceFailure> => {
    if (Exit.isSuccess(exit)) return Effect.succeed({ ok: exit.value })
    const reasons = exit.cause.reasons
    const failure = reasons.find((r) => r._tag === "Fail")
    if (failure?._tag === "Fail" && isIssuerError(failure.error)) return Effect.succeed({ error: failure.error })
    return Effect.fail(
      new ConformanceFailure({
        message: `${op} must answer or fail with a CardIssuerError {retryable, message}; it ended with ${show(
          reasons.map((r) => (r._tag === "Fail" ? r.error : r._tag === "Die" ? String(r.defect) : r._tag))
        )}`
      })
    )
  })

/** A port call that must succeed. */
const succeed = <A>(op: string, effect: Effect.Effect<A, CardIssuerError>) =>
  Effect.flatMap(attempt(op, effect), (answer) =>
    "ok" in answer
      ? Effect.succeed(answer.ok)
      : Effect.fail(new ConformanceFailure({ message: `${op} failed: ${show(answer.error)}` }))
  )

const issuerOf = Effect.gen(function* () {
  const issuer = yield* CardIssuer
  if (issuer === undefined) return yield* new ConformanceFailure({ message: "the layer provides no CardIssuer" })
  return issuer
})

const nowMs = Clock.currentTimeMillis

/**
 * A fresh request of the kit's own: a card of a fresh id in the program's first currency, one funding account, a
 * `platformCardId` the platform did not give (as the engine makes up).
 */
const freshRequest = (issuer: CardIssuerService): CardProvisionRequest => {
  const uuid = crypto.randomUUID()
  return {
    cardId: `Card:${uuid}`,
    cardholderId: `Customer:${crypto.randomUUID()}`,
    platformCardId: `card-${uuid.replace(/-/g, "").slice(-12)}`,
    platformCardIdGiven: false,
    form: "VIRTUAL",
    currency: issuer.program.currencies[0] ?? "USD",
    fundingAccountIds: [`InternalAccount:${crypto.randomUUID()}`]
  }
}

const fundingAccounts = (issuer: CardIssuerService) => {
  const currency = issuer.program.currencies[0] ?? "USD"
  return [0, 1].map(
    (): FundingAccount => ({
      id: `InternalAccount:${crypto.randomUUID()}` as InternalAccountRecord["id"],
      type: "INTERNAL_FIAT",
      currency
    })
  )
}

const isIso = (value: unknown): value is string =>
  typeof value === "string" && !Number.isNaN(Date.parse(value)) && new Date(Date.parse(value)).toISOString() === value

/** The answer's shape: a tag, a processor reference, and for `Active` the card's details. */
const wellFormed = (op: string, issuer: CardIssuerService, answer: CardProvisioning) =>
  Effect.gen(function* () {
    yield* expectThat(
      ["Active", "Pending", "Rejected"].includes(answer._tag),
      `${op}: _tag must be Active, Pending or Rejected: ${show(answer)}`
    )
    yield* expectThat(
      typeof answer.processorRef === "string" && answer.processorRef.length > 0,
      `${op}: a processorRef is required, whatever the answer: ${show(answer)}`
    )
    if (answer._tag === "Pending" && answer.checkAgainAt !== undefined) {
      yield* expectThat(isIso(answer.checkAgainAt), `${op}: checkAgainAt must be an ISO instant: ${show(answer)}`)
    }
    if (answer._tag !== "Active") return
    const year = new Date(yield* nowMs).getUTCFullYear()
    yield* expectThat(/^\d{4}$/.test(answer.last4), `${op}: last4 must be four digits: ${show(answer)}`)
    yield* expectThat(
      Number.isInteger(answer.expMonth) && answer.expMonth >= 1 && answer.expMonth <= 12,
      `${op}: expMonth must be 1..12: ${show(answer)}`
    )
    yield* expectThat(
      Number.isInteger(answer.expYear) && answer.expYear >= year,
      `${op}: expYear must be this year or later: ${show(answer)}`
    )
    yield* expectThat(
      typeof answer.issuerRef === "string" && answer.issuerRef.length > 0,
      `${op}: issuerRef is required: ${show(answer)}`
    )
    yield* expectThat(
      Schema.is(CardBrand)(answer.brand) && answer.brand === issuer.program.brand,
      `${op}: brand must be the program's (${issuer.program.brand}): ${show(answer)}`
    )
  })

const provisionChecked = (issuer: CardIssuerService, request: CardProvisionRequest) =>
  Effect.tap(succeed("provision", issuer.provision(request)), (answer) => wellFormed("provision", issuer, answer))

const statusChecked = (issuer: CardIssuerService, processorRef: string) =>
  Effect.tap(succeed("status", issuer.status(processorRef)), (answer) => wellFormed("status", issuer, answer))

/** The details of an Active card that must not change between two answers about it. */
const cardDetails = (answer: CardProvisioning) =>
  answer._tag === "Active"
    ? {
        processorRef: answer.processorRef,
        issuerRef: answer.issuerRef,
        last4: answer.last4,
        expMonth: answer.expMonth,
        expYear: answer.expYear
      }
    : { processorRef: answer.processorRef }

/**
 * Asks `status` about a pending card as the worker does (at `checkAgainAt`, else after `pollEvery`) until it is no
 * longer pending; answers the last answer.
 */
const pollUntilDecided = (issuer: CardIssuerService, first: CardProvisioning, settings: Settings) =>
  Effect.gen(function* () {
    let answer = first
    for (let polls = 0; polls < settings.maxPolls; polls++) {
      if (answer._tag !== "Pending") break
      const now = yield* nowMs
      const due = answer.checkAgainAt === undefined ? undefined : Date.parse(answer.checkAgainAt)
      if (due !== undefined) {
        yield* expectThat(due >= now, `Pending: checkAgainAt ${answer.checkAgainAt} is in the past`)
      }
      const wait = due === undefined || due <= now ? Duration.toMillis(settings.pollEvery) : due - now
      yield* TestClock.adjust(Duration.millis(wait))
      const ref: string = answer.processorRef
      answer = yield* statusChecked(issuer, ref)
      yield* expectThat(
        answer.processorRef === ref,
        `status(${ref}) answered about another reference: ${answer.processorRef}`
      )
    }
    return answer
  })

interface Settings {
  readonly outcomes: CardIssuerOutcomes
  readonly maxRevealSeconds: number
  readonly pollEvery: Duration.Duration
  readonly maxPolls: number
  readonly startAt: number
}

type Check = ConformanceCheck<never>

/** A check: the issuer from the layer, the clock at the start time, then `body`. */
const check = (
  settings: Settings,
  name: string,
  body: (issuer: CardIssuerService) => Effect.Effect<void, unknown>
): Check => ({
  name,
  run: Effect.gen(function* () {
    yield* TestClock.setTime(settings.startAt)
    yield* body(yield* issuerOf)
  })
})

const programChecks = (s: Settings): ReadonlyArray<Check> => [
  check(s, "the program: decisioning SERVICE or ISSUER, its capabilities, its card currencies, a brand", (issuer) =>
    Effect.gen(function* () {
      const p = issuer.program
      yield* expectThat(
        p.decisioning === "SERVICE" || p.decisioning === "ISSUER",
        `decisioning is ${show(p.decisioning)}`
      )
      yield* expectThat(typeof p.supportsPanReveal === "boolean", "supportsPanReveal must be a boolean")
      yield* expectThat(
        typeof p.supportsThreeDSecurePassword === "boolean",
        "supportsThreeDSecurePassword must be a boolean"
      )
      yield* expectThat(Schema.is(CardBrand)(p.brand), `brand ${show(p.brand)} is none of VISA, MASTERCARD`)
      yield* expectThat(
        p.currencies.length > 0 && new Set(p.currencies).size === p.currencies.length,
        `currencies must be a non-empty list without repeats: ${show(p.currencies)}`
      )
      yield* expectThat(
        p.currencies.every((c) => /^[A-Z0-9]{3,5}$/.test(c)),
        `currencies must be currency codes: ${show(p.currencies)}`
      )
    })
  ),
  check(
    s,
    "CD-15, CD-44: fundingEligibility takes the accounts of a plain cardholder, the same when asked twice",
    (issuer) =>
      Effect.gen(function* () {
        const accounts = fundingAccounts(issuer)
        const holder: FundingCardholder = { id: `Customer:${crypto.randomUUID()}` }
        const first = yield* succeed("fundingEligibility", issuer.fundingEligibility(accounts, holder))
        yield* expectThat(first._tag === "Eligible", `fundingEligibility: ${show(first)}`)
        const again = yield* succeed("fundingEligibility", issuer.fundingEligibility(accounts, holder))
        yield* expectThat(show(again) === show(first), `asked twice: ${show(first)}, then ${show(again)}`)
      })
  )
]

const ineligibleCheck = (
  s: Settings,
  steer: (accounts: ReadonlyArray<FundingAccount>, cardholder: FundingCardholder) => FundingCardholder
): Check =>
  check(
    s,
    "CD-44: a cardholder the issuer refuses: Ineligible names one of the asked accounts with a reason, the same twice",
    (issuer) =>
      Effect.gen(function* () {
        const accounts = fundingAccounts(issuer)
        const holder = steer(accounts, { id: `Customer:${crypto.randomUUID()}` })
        const first = yield* succeed("fundingEligibility", issuer.fundingEligibility(accounts, holder))
        yield* expectThat(first._tag === "Ineligible", `fundingEligibility: ${show(first)}`)
        if (first._tag === "Ineligible") {
          yield* expectThat(
            accounts.some((a) => a.id === first.accountId),
            `Ineligible must name an asked account: ${show(first)}`
          )
          yield* expectThat(first.reason.length > 0, "Ineligible must say why")
        }
        const again = yield* succeed("fundingEligibility", issuer.fundingEligibility(accounts, holder))
        yield* expectThat(show(again) === show(first), `asked twice: ${show(first)}, then ${show(again)}`)
      })
  )

const provisionChecks = (s: Settings): ReadonlyArray<Check> => [
  check(
    s,
    "CD-19, CD-20: provision answers an Active card (last4, expiry, both references, the program's brand); status answers the same card",
    (issuer) =>
      Effect.gen(function* () {
        const answer = yield* provisionChecked(issuer, s.outcomes.active(freshRequest(issuer)))
        yield* expectThat(answer._tag === "Active", `provision: ${show(answer)}`)
        const status = yield* statusChecked(issuer, answer.processorRef)
        yield* expectThat(
          show(cardDetails(status)) === show(cardDetails(answer)) && status._tag === "Active",
          `status answered another card: ${show(status)} for ${show(answer)}`
        )
      })
  ),
  check(
    s,
    "CD-19: provision is idempotent by card id: asked again (a retry, minutes later) it answers the same processor reference and card",
    (issuer) =>
      Effect.gen(function* () {
        const request = s.outcomes.active(freshRequest(issuer))
        const first = yield* provisionChecked(issuer, request)
        const again = yield* provisionChecked(issuer, request)
        yield* expectThat(show(cardDetails(again)) === show(cardDetails(first)), `${show(first)}, then ${show(again)}`)
        yield* TestClock.adjust("10 minutes")
        const later = yield* provisionChecked(issuer, request)
        yield* expectThat(
          show(cardDetails(later)) === show(cardDetails(first)),
          `10 minutes later: ${show(first)}, then ${show(later)} (a second card)`
        )
      })
  )
]

const optionalProvisionChecks = (s: Settings): ReadonlyArray<Check> => {
  const { rejected, pendingThenActive, pendingThenRejected, failsThenActive } = s.outcomes
  const checks: Array<Check> = []
  if (rejected !== undefined) {
    checks.push(
      check(
        s,
        "CD-21: a card the issuer refuses: Rejected with its reference; status and a retry say Rejected too",
        (issuer) =>
          Effect.gen(function* () {
            const request = rejected(freshRequest(issuer))
            const answer = yield* provisionChecked(issuer, request)
            yield* expectThat(answer._tag === "Rejected", `provision: ${show(answer)}`)
            const status = yield* statusChecked(issuer, answer.processorRef)
            yield* expectThat(status._tag === "Rejected", `status of a rejected card: ${show(status)}`)
            const again = yield* provisionChecked(issuer, request)
            yield* expectThat(
              again._tag === "Rejected" && again.processorRef === answer.processorRef,
              `a retry of a rejected card: ${show(again)}`
            )
          })
      )
    )
  }
  for (const [steer, outcome] of [
    [pendingThenActive, "Active"],
    [pendingThenRejected, "Rejected"]
  ] as const) {
    if (steer === undefined) continue
    checks.push(
      check(
        s,
        `CD-20, CD-21: a pending card: status, asked again at checkAgainAt (a time to come), moves it to ${outcome}; a retried provision keeps its reference`,
        (issuer) =>
          Effect.gen(function* () {
            const request = steer(freshRequest(issuer))
            const first = yield* provisionChecked(issuer, request)
            yield* expectThat(first._tag === "Pending", `provision: ${show(first)}`)
            const decided = yield* pollUntilDecided(issuer, first, s)
            yield* expectThat(decided._tag === outcome, `after ${s.maxPolls} status calls: ${show(decided)}`)
            const again = yield* provisionChecked(issuer, request)
            yield* expectThat(
              again.processorRef === first.processorRef,
              `provision again: ${again.processorRef}, first ${first.processorRef}`
            )
          })
      )
    )
  }
  if (failsThenActive !== undefined) {
    checks.push(
      check(s, "CD-19: a retryable CardIssuerError on provision; the retry answers the card", (issuer) =>
        Effect.gen(function* () {
          const request = failsThenActive(freshRequest(issuer))
          const first = yield* attempt("provision", issuer.provision(request))
          yield* expectThat("error" in first && first.error.retryable, `provision: ${show(first)}`)
          yield* TestClock.adjust("5 seconds")
          const retry = yield* provisionChecked(issuer, request)
          yield* expectThat(retry._tag === "Active", `the retry: ${show(retry)}`)
        })
      )
    )
  }
  return checks
}

const STATES: ReadonlyArray<CardTargetState> = ["FROZEN", "ACTIVE", "CLOSED"]

const changeChecks = (s: Settings): ReadonlyArray<Check> => [
  check(
    s,
    "CD-18, CD-25, CD-28: update takes each state move and a new list of funding accounts, and the same change sent again",
    (issuer) =>
      Effect.gen(function* () {
        const card = yield* provisionChecked(issuer, s.outcomes.active(freshRequest(issuer)))
        const ref = card.processorRef
        const accounts = [`InternalAccount:${crypto.randomUUID()}`, `InternalAccount:${crypto.randomUUID()}`]
        yield* succeed("update (funding accounts)", issuer.update(ref, { fundingAccountIds: accounts }))
        yield* succeed("update (the same funding accounts again)", issuer.update(ref, { fundingAccountIds: accounts }))
        for (const state of STATES) {
          yield* succeed(`update (state ${state})`, issuer.update(ref, { state }))
        }
        yield* succeed("update (CLOSED again)", issuer.update(ref, { state: "CLOSED" }))
      })
  ),
  check(
    s,
    "CD-32, CD-33: reveal follows the program: a URL valid for minutes where it reveals, a CardIssuerError where it does not",
    (issuer) =>
      Effect.gen(function* () {
        const card = yield* provisionChecked(issuer, s.outcomes.active(freshRequest(issuer)))
        const answer = yield* attempt("reveal", issuer.reveal(card.processorRef))
        if (!issuer.program.supportsPanReveal) {
          return yield* expectThat(
            "error" in answer,
            `the program says no reveal (supportsPanReveal false), but reveal answered ${show(answer)}`
          )
        }
        if ("error" in answer) return yield* expectThat(false, `reveal failed: ${show(answer.error)}`)
        const reveal = answer.ok
        let url: URL | undefined
        try {
          url = new URL(reveal.panEmbedUrl)
        } catch {
          url = undefined
        }
        yield* expectThat(url?.protocol === "https:", `panEmbedUrl must be an https URL: ${show(reveal.panEmbedUrl)}`)
        yield* expectThat(isIso(reveal.expiresAt), `expiresAt must be an ISO instant: ${show(reveal.expiresAt)}`)
        const now = yield* nowMs
        const left = Date.parse(reveal.expiresAt) - now
        yield* expectThat(
          left > 0 && left <= s.maxRevealSeconds * 1000,
          `expiresAt ${reveal.expiresAt} must be within ${s.maxRevealSeconds} s after now (${new Date(now).toISOString()})`
        )
      })
  ),
  check(
    s,
    "CardIssuerError: a processor reference the issuer never gave: status fails with a CardIssuerError; update and reveal answer or fail typed",
    (issuer) =>
      Effect.gen(function* () {
        const unknown = `never-issued-${crypto.randomUUID()}`
        const status = yield* attempt("status", issuer.status(unknown))
        yield* expectThat("error" in status, `status of an unknown card answered ${show(status)}`)
        yield* attempt("update", issuer.update(unknown, { state: "FROZEN" }))
        yield* attempt("reveal", issuer.reveal(unknown))
      })
  )
]

/**
 * The checks of the kit, to register (`cardIssuerConformance`) or to run (`failingChecks`, with the adapter's layer
 * and a `TestClock` provided): one per promise of the port; the optional outcomes add theirs.
 */
export const cardIssuerChecks = (
  outcomes: CardIssuerOutcomes,
  options: CardIssuerKitOptions = {}
): ReadonlyArray<ConformanceCheck<never>> => {
  const settings: Settings = {
    outcomes,
    maxRevealSeconds: options.maxRevealSeconds ?? 3600,
    pollEvery: Duration.fromInputUnsafe(options.pollEvery ?? "1 minute"),
    maxPolls: options.maxPolls ?? 30,
    startAt: options.startAt ?? DEFAULT_START
  }
  return [
    ...programChecks(settings),
    ...(outcomes.ineligible === undefined ? [] : [ineligibleCheck(settings, outcomes.ineligible)]),
    ...provisionChecks(settings),
    ...optionalProvisionChecks(settings),
    ...changeChecks(settings)
  ]
}

/**
 * Registers the card issuer conformance kit, `describe("CardIssuer conformance: <name>")`, at the top level of a
 * vitest file:
 *
 * ```ts
 * cardIssuerConformance("my issuer", myIssuerLayer, {
 *   active: (request) => request,
 *   rejected: (request) => ({ ...request, platformCardId: "emp-002", platformCardIdGiven: true })
 * })
 * ```
 *
 * `subject` provides the `CardIssuer` reference (`Layer.succeed(CardIssuer, service)`); it is built once.
 */
export const cardIssuerConformance = <E>(
  name: string,
  subject: Layer.Layer<never, E>,
  outcomes: CardIssuerOutcomes,
  options: CardIssuerKitOptions = {}
): void => registerChecks(`CardIssuer conformance: ${name}`, subject, cardIssuerChecks(outcomes, options), options)
