/**
 * The commands of the SCA property test (sca-property.ts) and how each call is held to the model
 * (sca-property-game.ts): what it may answer given the lock, the session, the trusted wallets and the codes sent.
 */
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { Store } from "../src/ports/store.ts"
import type { Quote } from "../src/quotes/model.ts"
import { SCA_SESSION_SECONDS } from "../src/sca/sessions.ts"
import { isoOf } from "../src/shared/time.ts"
import { SCA_CODE, setConfig } from "./fixtures.ts"
import {
  type Attempt,
  attempt,
  codeOf,
  executed,
  fund,
  type Game,
  gateOf,
  type Move,
  moved,
  openChallenge,
  pickQuote,
  problem,
  type QuoteModel,
  quoteSlot,
  RESERVATION_REFUSALS,
  scaled,
  sentBy,
  type TrustTarget,
  takeLastCode,
  trustSlot,
  type Who,
  wrongOf
} from "./sca-property-game.ts"

export type Command =
  | { readonly t: "fund"; readonly who: Who; readonly account: number; readonly amount: number }
  /** `times` proofs of one login: all wrong, or the last one right. */
  | { readonly t: "login"; readonly who: Who; readonly proof: "right" | "wrong"; readonly times: number }
  | { readonly t: "lapse" }
  | {
      readonly t: "quote"
      readonly who: Who
      /** One of the customer's internal accounts, or real-time funding (S-06). */
      readonly funding: "account" | "realtime"
      readonly source: number
      readonly destination: number
      readonly amount: number
      /** Executed at creation: `immediatelyExecute`, or the deprecated `POST /transfer-out` (Q18). */
      readonly immediate: "no" | "yes" | "transferOut"
    }
  | { readonly t: "execute"; readonly quote: number; readonly factor: "default" | "SMS_OTP" | "TOTP" }
  | { readonly t: "authorize"; readonly quote: number; readonly proof: "right" | "wrong" | "stale" | "late" }
  /** Two authorizations with the right code and a worker pass at once (S-04: one set of transfers). */
  | { readonly t: "race"; readonly quote: number }
  /** The sandbox deposit that pays a real-time-funded quote (S-06: no challenge again). */
  | { readonly t: "deposit"; readonly quote: number }
  /** A resend, `after` seconds from now (L-14: 60 s between two codes). */
  | { readonly t: "resend"; readonly quote: number; readonly after: number }
  | {
      readonly t: "trust"
      /** TOGGLE: the legal move for the model (untrust a trusted account, else trust it). */
      readonly move: Move | "TOGGLE"
      readonly target: number
      readonly confirm: "right" | "wrong" | "later"
    }
  | { readonly t: "confirm"; readonly move: Move; readonly target: number; readonly proof: "right" | "wrong" }
  | { readonly t: "time"; readonly seconds: number; readonly work: boolean }
  | { readonly t: "worker" }
  | { readonly t: "resetPassword"; readonly who: Who }
  | { readonly t: "limits"; readonly maxTransactionAmount: number; readonly maxDailyVolume: number }

const who = fc.constantFrom<Who>("eu", "eu", "us")
/** Mostly the EEA customer's first wallet, then its second, its bank account (AC-39) and the US wallet (S-01). */
const target = fc.constantFrom(0, 0, 0, 1, 1, 2, 3)

export const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("fund" as const),
      who,
      account: fc.nat(2),
      amount: fc.integer({ min: 1, max: 40_000 })
    })
  },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("login" as const),
      who,
      proof: fc.constantFrom("right" as const, "right" as const, "wrong" as const),
      times: fc.integer({ min: 1, max: 5 })
    })
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("lapse" as const) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("quote" as const),
      who,
      funding: fc.constantFrom("account" as const, "account" as const, "account" as const, "realtime" as const),
      source: fc.nat(2),
      destination: fc.constantFrom(0, 0, 1, 2, 2, 3, 4),
      amount: fc.integer({ min: 100, max: 25_000 }),
      immediate: fc.constantFrom("no" as const, "no" as const, "yes" as const, "yes" as const, "transferOut" as const)
    })
  },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("execute" as const),
      quote: fc.nat(3),
      factor: fc.constantFrom<"default" | "SMS_OTP" | "TOTP">("default", "default", "default", "SMS_OTP", "TOTP")
    })
  },
  {
    weight: 7,
    arbitrary: fc.record({
      t: fc.constant("authorize" as const),
      quote: fc.nat(3),
      proof: fc.constantFrom("right" as const, "right" as const, "wrong" as const, "stale" as const, "late" as const)
    })
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("race" as const), quote: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("deposit" as const), quote: fc.nat(2) }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant("resend" as const), quote: fc.nat(3), after: fc.constantFrom(0, 60, 60) })
  },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant("trust" as const),
      move: fc.constantFrom<Move | "TOGGLE">("TOGGLE", "TOGGLE", "TOGGLE", "TRUST", "UNTRUST"),
      target,
      confirm: fc.constantFrom<"right" | "wrong" | "later">("right", "right", "right", "wrong", "later")
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("confirm" as const),
      move: fc.constantFrom<Move>("TRUST", "UNTRUST"),
      target,
      proof: fc.constantFrom("right" as const, "wrong" as const)
    })
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("time" as const),
      seconds: fc.constantFrom(1, 30, 61, 299, 301, 900, 3_600),
      work: fc.boolean()
    })
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("worker" as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("resetPassword" as const), who }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("limits" as const),
      maxTransactionAmount: fc.integer({ min: 5_000, max: 50_000 }),
      maxDailyVolume: fc.integer({ min: 20_000, max: 200_000 })
    })
  }
)

const IP = "203.0.113.42"

/** A worker pass; a step that failed unexpectedly (logged and skipped by the worker) is a problem. */
export const work = (game: Game) =>
  Effect.flatMap(game.transactions.processDue(), (report) =>
    Effect.sync(() => {
      if (report.errors > 0) problem(game, `${report.errors} worker steps failed`)
    })
  )

/** A quote created, or created and executed (`immediatelyExecute`, `/transfer-out`), or real-time-funded (S-06). */
const createQuote = Effect.fnUntraced(function* (game: Game, c: Extract<Command, { t: "quote" }>) {
  const party = game.parties[c.who]
  const source = party.accounts[c.source % party.accounts.length]!
  const destination = party.destinations[c.destination % party.destinations.length]!
  const realtime = c.funding === "realtime"
  const immediate = realtime ? "no" : c.immediate
  const gate = yield* gateOf(game, c.who)
  const before = game.env.sent.length
  const label = realtime ? "create realtime" : immediate === "no" ? "create" : `create+execute (${immediate})`
  const created: Attempt<Quote> =
    immediate === "transferOut"
      ? yield* Effect.flatMap(
          attempt(
            label,
            game.transactions.transferOut({
              source: { accountId: source.id },
              destination: { accountId: destination.id as never },
              amount: scaled(source, c.amount)
            })
          ),
          (sent) =>
            sent.ok === undefined
              ? Effect.succeed(sent)
              : Effect.map(game.quotes.get(sent.ok.quoteId!), (ok): Attempt<Quote> => ({ ok }))
        )
      : yield* attempt(
          label,
          game.quotes.create({
            source: realtime
              ? { sourceType: "REALTIME_FUNDING", currency: "USD", customerId: party.customerId as never }
              : { sourceType: "ACCOUNT", accountId: source.id },
            destination: { destinationType: "ACCOUNT", accountId: destination.id },
            lockedCurrencySide: "SENDING",
            lockedCurrencyAmount: realtime ? c.amount : scaled(source, c.amount),
            ...(immediate === "yes" ? { immediatelyExecute: true } : {})
          })
        )
  if (created.error !== undefined) {
    if (game.env.sent.length > before) problem(game, `${label}: refused, and sent a code`)
    return
  }
  const q: QuoteModel = {
    quote: created.ok,
    who: c.who,
    steps: created.ok.sendingCurrency.code !== created.ok.receivingCurrency.code ? 2 : 1,
    internalDestination: destination.internal,
    realtime,
    trustedAtExecute: undefined,
    executed: false,
    fundingAuthorized: false,
    moved: false
  }
  game.model.quotes.push(q)
  sentBy(game, before, quoteSlot(q), c.who, gate.locked, label)
  // S-06: a real-time-funded quote is challenged at creation, before its payment instructions are shown.
  if (immediate !== "no" || realtime) yield* executed(game, q, created, gate, false, label)
  if (created.ok.status === "PENDING_AUTHORIZATION" && (created.ok.paymentInstructions ?? []).length > 0) {
    problem(game, `${label}: payment instructions shown before authorization`)
  }
})

const execute = Effect.fnUntraced(function* (game: Game, c: Extract<Command, { t: "execute" }>) {
  const q = yield* pickQuote(game, c.quote)
  if (q === undefined) return
  const gate = yield* gateOf(game, q.who)
  const before = game.env.sent.length
  const asked = c.factor === "default" ? undefined : { scaFactor: c.factor }
  const result = yield* attempt("execute", game.quotes.execute(q.quote.id, asked))
  sentBy(game, before, quoteSlot(q), q.who, gate.locked, "execute")
  // S-08: a TOTP code is not linked to the payment: refused before anything, for anyone.
  if (c.factor === "TOTP") {
    if (result.error === undefined) problem(game, "execute with scaFactor TOTP accepted")
    return
  }
  const mayGoAhead = !q.realtime && !q.executed && gate.now < Date.parse(q.quote.expiresAt)
  yield* executed(game, q, result, gate, mayGoAhead, "execute")
})

/** S-06: the deposit executes a real-time-funded quote only once its challenges passed (or none was needed). */
const deposit = Effect.fnUntraced(function* (game: Game, c: Extract<Command, { t: "deposit" }>) {
  const realtime = game.model.quotes.filter((q) => q.realtime)
  const q = realtime[realtime.length - 1 - (c.quote % Math.max(1, Math.min(realtime.length, 3)))]
  if (q === undefined) return
  const { id, sendingCurrency } = q.quote
  const result = yield* attempt(
    "deposit",
    game.transactions.sandboxSend({ quoteId: id as never, currencyCode: sendingCurrency.code })
  )
  if (result.error !== undefined) return
  const status = result.ok.status
  if (status !== "PROCESSING" && status !== "COMPLETED") return problem(game, `deposit ${id}: answered ${status}`)
  if (q.who === "eu" && !q.fundingAuthorized && q.trustedAtExecute !== true) {
    problem(game, `deposit ${id}: paid a send that was neither authorized nor trusted`)
  }
  yield* moved(game, q)
})

/** What a passed authorization answered: the next challenge (S-05), the payment moving, or (S-06) instructions. */
const authorized = Effect.fnUntraced(function* (game: Game, q: QuoteModel, quote: Quote, step: number, label: string) {
  const status = quote.status
  if (status === "PENDING_AUTHORIZATION") {
    if (step !== 1 || q.steps !== 2) problem(game, `${label}: a next challenge after step ${step} of ${q.steps}`)
    return
  }
  if (step !== q.steps) problem(game, `${label}: done at step ${step} of ${q.steps}`)
  if (q.realtime) {
    if (status !== "PENDING" || (quote.paymentInstructions ?? []).length === 0) {
      problem(game, `${label}: a real-time-funded quote authorized as ${status} without instructions`)
    }
    q.fundingAuthorized = true
    return
  }
  if (status !== "PROCESSING" && status !== "COMPLETED") return problem(game, `${label}: answered ${status}`)
  yield* moved(game, q)
})

/**
 * S-04, S-11, S-15: only the current code of the open challenge passes, with a live session and unlocked; a proof at
 * or after `expiresAt` fails the payment; the right code in time passes unless the reservation refuses it, which
 * leaves the challenge open (design Q4).
 */
const authorize = Effect.fnUntraced(function* (game: Game, c: Extract<Command, { t: "authorize" }>) {
  const { model, store } = game
  const q = yield* pickQuote(game, c.quote, true)
  if (q === undefined) return
  const slot = quoteSlot(q)
  const late = c.proof === "late" ? yield* openChallenge(game, slot) : undefined
  if (late !== undefined)
    yield* TestClock.adjust(Math.max(0, Date.parse(late.expiresAt) - (yield* Clock.currentTimeMillis)))
  const gate = yield* gateOf(game, q.who)
  const open = yield* openChallenge(game, slot)
  const before = (yield* store.transactions.get(q.quote.transactionId))!
  const current = model.codes.get(slot) ?? SCA_CODE
  const code =
    c.proof === "wrong" ? wrongOf(current) : c.proof === "stale" ? (model.stale.get(slot) ?? wrongOf(current)) : current
  const sent = game.env.sent.length
  const result = yield* attempt(`authorize ${c.proof}`, game.transactions.authorizeQuote(q.quote.id, { code }))
  sentBy(game, sent, slot, q.who, gate.locked, "authorize")
  const label = `authorize ${c.proof} ${q.quote.id}`
  if (result.ok !== undefined) {
    if (q.who === "us") problem(game, `${label}: the US customer authorized a payment`)
    if (gate.locked || !gate.live) problem(game, `${label}: a proof passed while locked or without a session`)
    if (code !== current) problem(game, `${label}: a wrong code (${c.proof}) passed`)
    if (c.proof === "late") problem(game, `${label}: a proof passed after the challenge expired`)
    return yield* authorized(game, q, result.ok, open?.step ?? 0, label)
  }
  const reached = open !== undefined && before.state === "PENDING_AUTHORIZATION" && !gate.locked && gate.live
  if (!reached) return
  if (gate.now >= Date.parse(open.expiresAt)) {
    const after = (yield* store.transactions.get(q.quote.transactionId))!
    if (after.state !== "SCA_FAILED") problem(game, `${label}: an expired challenge left the payment ${after.state}`)
    return
  }
  const throttled = open.lastFailedAt !== undefined && gate.now < Date.parse(open.lastFailedAt) + 1000
  if (code !== current || throttled) return
  if (!RESERVATION_REFUSALS.has(codeOf(result.error))) {
    problem(game, `${label}: the right code refused: ${codeOf(result.error)}`)
  }
  const still = yield* store.scaChallenges.get(open.id)
  if (still?.status !== "OPEN") problem(game, `${label}: a refused reservation left the challenge ${still?.status}`)
})

/** Two right proofs and a worker pass at once: one authorization per step, the payment moved once. */
const race = Effect.fnUntraced(function* (game: Game, c: Extract<Command, { t: "race" }>) {
  const q = yield* pickQuote(game, c.quote, true)
  if (q === undefined) return
  const gate = yield* gateOf(game, q.who)
  const slot = quoteSlot(q)
  const code = game.model.codes.get(slot) ?? SCA_CODE
  const open = yield* openChallenge(game, slot)
  const sent = game.env.sent.length
  const authorizeOnce = attempt("race authorize", game.transactions.authorizeQuote(q.quote.id, { code }))
  const [first, second] = yield* Effect.all([authorizeOnce, authorizeOnce, work(game)], { concurrency: "unbounded" })
  // Both may pass when the first passes step 1 and the second step 2 with the same (sandbox) code.
  const passed = [first, second].flatMap((r) => (r.ok === undefined ? [] : [r.ok]))
  if (passed.length > 0 && (gate.locked || !gate.live || q.who === "us")) {
    problem(game, `race ${q.quote.id}: a proof passed while locked, without a session or not subject`)
  }
  const done = passed.filter((quote) => quote.status !== "PENDING_AUTHORIZATION")
  if (done.length > 1) problem(game, `race ${q.quote.id}: authorized ${done.length} times`)
  if (game.env.sent.length > sent) takeLastCode(game, slot)
  if (done[0] !== undefined) yield* authorized(game, q, done[0], q.steps, `race ${q.quote.id}`)
  if (passed.length === 2 && open?.step !== 1) problem(game, `race ${q.quote.id}: two passes from step ${open?.step}`)
})

/** S-07: a new code for a pending SMS challenge only (its expiry kept; 60 s apart, L-14). */
const resend = Effect.fnUntraced(function* (game: Game, c: Extract<Command, { t: "resend" }>) {
  const q = yield* pickQuote(game, c.quote, true)
  if (q === undefined) return
  yield* TestClock.adjust(c.after * 1000)
  const before = (yield* game.store.transactions.get(q.quote.transactionId))!
  const sent = game.env.sent.length
  const result = yield* attempt("resend", game.transactions.resendQuoteScaCode(q.quote.id))
  // A resend does not check the lock (upstream answers no 423 there): only its own rules are held here.
  sentBy(game, sent, quoteSlot(q), q.who, false, "resend")
  if (result.error !== undefined) return
  if (q.who === "us" || before.state !== "PENDING_AUTHORIZATION") {
    problem(game, `resend ${q.quote.id}: accepted, nothing pending`)
  }
  if (game.env.sent.length !== sent + 1) problem(game, `resend ${q.quote.id}: accepted, no code sent`)
})

/**
 * AC-32, AC-34, AC-36: only the current code of the move's open challenge passes, with a live session and unlocked,
 * for a legal move of a trustable account; the right code in time then always does.
 */
const confirm = Effect.fnUntraced(function* (game: Game, move: Move, target: TrustTarget, right: boolean) {
  const { model } = game
  const slot = trustSlot(move, target.id)
  const gate = yield* gateOf(game, target.owner)
  const open = yield* openChallenge(game, slot)
  const current = model.codes.get(slot) ?? SCA_CODE
  const code = right ? current : wrongOf(current)
  const call = move === "TRUST" ? game.sca.confirmBeneficiaryTrust : game.sca.confirmBeneficiaryUntrust
  const result = yield* attempt(`${move} confirm ${right ? "right" : "wrong"}`, call(target.id, { code }))
  const label = `${move} confirm ${target.id}`
  const legal = move === "TRUST" ? !model.trusted.has(target.id) : model.trusted.has(target.id)
  if (result.ok !== undefined) {
    if (gate.locked || !gate.live) problem(game, `${label}: a proof passed while locked or without a session`)
    if (code !== current) problem(game, `${label}: a wrong code passed`)
    if (!legal || !target.trustable) problem(game, `${label}: confirmed an illegal move`)
    if (result.ok.trusted !== (move === "TRUST")) problem(game, `${label}: answered trusted ${result.ok.trusted}`)
    if (move === "TRUST") model.trusted.add(target.id)
    else model.trusted.delete(target.id)
    return
  }
  const throttled = open?.lastFailedAt !== undefined && gate.now < Date.parse(open.lastFailedAt) + 1000
  const ready = open !== undefined && gate.now < Date.parse(open.expiresAt) && !throttled
  if (ready && right && legal && !gate.locked && gate.live) {
    problem(game, `${label}: the right code refused: ${codeOf(result.error)}`)
  }
})

/** AC-31, AC-33, AC-35, AC-39: a start only for a legal move of the EEA customer's USDC wallet, then its confirm. */
const trust = Effect.fnUntraced(function* (game: Game, c: Extract<Command, { t: "trust" }>) {
  const target = game.targets[c.target % game.targets.length]!
  const trusted = game.model.trusted.has(target.id)
  const move: Move = c.move !== "TOGGLE" ? c.move : trusted ? "UNTRUST" : "TRUST"
  const gate = yield* gateOf(game, target.owner)
  const sent = game.env.sent.length
  const start = move === "TRUST" ? game.sca.startBeneficiaryTrust : game.sca.startBeneficiaryUntrust
  const started = yield* attempt(`${move} start`, start(target.id))
  sentBy(game, sent, trustSlot(move, target.id), target.owner, gate.locked, `${move} start`)
  if (started.error !== undefined) return
  const legal = move === "TRUST" ? !trusted : trusted
  if (!target.trustable || !legal) problem(game, `${move} start ${target.id}: accepted an illegal move`)
  if (gate.locked || !gate.live) problem(game, `${move} start ${target.id}: accepted while locked or without a session`)
  if (c.confirm !== "later") yield* confirm(game, move, target, c.confirm === "right")
})

/**
 * S-12, S-13, C-41: a login start (never for the US customer, never while locked), then `times` proofs: each wrong
 * one counted (locked from the fifth: every proof then 423), the right one opening a session of 180 days.
 */
const login = Effect.fnUntraced(function* (game: Game, c: Extract<Command, { t: "login" }>) {
  const { customerId } = game.parties[c.who]
  const gate = yield* gateOf(game, c.who)
  const slot = `LOGIN|${customerId}`
  const sent = game.env.sent.length
  const started = yield* attempt("login start", game.sca.startLogin(customerId, { factor: "SMS_OTP" }))
  sentBy(game, sent, slot, c.who, gate.locked, "login start")
  if (started.error !== undefined) return
  if (c.who === "us" || gate.locked) problem(game, `login start accepted for ${c.who}, locked ${gate.locked}`)
  const current = game.model.codes.get(slot) ?? SCA_CODE
  for (let i = 1; i <= c.times; i++) {
    const right = c.proof === "right" && i === c.times
    const { now, locked } = yield* gateOf(game, c.who)
    const done = yield* attempt(
      `login ${right ? "right" : "wrong"}`,
      game.sca.completeLogin(customerId, {
        factor: "SMS_OTP",
        endUserIpAddress: IP,
        challengeId: started.ok.challengeId!,
        code: (right ? current : wrongOf(current)) as never
      })
    )
    if (done.error !== undefined) {
      if (right && !locked) problem(game, `login: the right code refused: ${codeOf(done.error)}`)
      if (locked && codeOf(done.error) !== "ACCOUNT_LOCKED") problem(game, `login while locked: ${codeOf(done.error)}`)
      continue
    }
    if (!right) problem(game, "login: a wrong code passed")
    if (locked) problem(game, "login: a proof passed while locked")
    const until = now + SCA_SESSION_SECONDS * 1000
    if (done.ok.sessionExpiresAt !== isoOf(until)) problem(game, `login: session until ${done.ok.sessionExpiresAt}`)
    game.model.sessionUntil = Math.max(game.model.sessionUntil ?? 0, until)
  }
})

/** Runs one command against the game. */
export const runCommand = (game: Game, c: Command): Effect.Effect<void, unknown> => {
  switch (c.t) {
    case "fund": {
      const accounts = game.parties[c.who].accounts
      const account = accounts[c.account % accounts.length]!
      return fund(game, account, scaled(account, c.amount))
    }
    case "login":
      return login(game, c)
    case "lapse":
      // L-09: the session lapses 180 days after the login.
      return TestClock.adjust(SCA_SESSION_SECONDS * 1000)
    case "quote":
      return createQuote(game, c)
    case "execute":
      return execute(game, c)
    case "authorize":
      return authorize(game, c)
    case "race":
      return race(game, c)
    case "deposit":
      return deposit(game, c)
    case "resend":
      return resend(game, c)
    case "trust":
      return trust(game, c)
    case "confirm":
      return confirm(game, c.move, game.targets[c.target % game.targets.length]!, c.proof === "right")
    case "time":
      return Effect.andThen(TestClock.adjust(c.seconds * 1000), c.work ? work(game) : Effect.void)
    case "worker":
      return work(game)
    case "resetPassword":
      // S-10: the lock lifted and every session revoked.
      return Effect.map(
        attempt(
          "reset password",
          game.sca.recordSecurityEvent(game.parties[c.who].customerId, { eventType: "RESET_PASSWORD_COMPLETED" })
        ),
        (reset) => {
          if (reset.ok !== undefined) game.model.sessionUntil = undefined
        }
      )
    case "limits":
      return Effect.provideService(
        setConfig({
          transactionLimits: ["USD", "EUR", "USDC"].map((currency) => ({
            currency,
            maxTransactionAmount: c.maxTransactionAmount,
            maxDailyVolume: c.maxDailyVolume
          }))
        }),
        Store,
        game.store
      )
  }
}
