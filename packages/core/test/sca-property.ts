/**
 * Random command sequences over payments under Strong Customer Authentication (issue 14; docs/design/sca.md, section
 * 4), on the memory store and a TestClock: an EEA customer (subject) and a US customer fund, log in, let the session
 * lapse, quote (same or cross currency; to a USDC wallet, a bank account or the other customer's account; from an
 * account or real-time-funded), execute, authorize (right, wrong, stale, late, two at once), resend, trust and untrust
 * a wallet, reset the password, move the clock and run the worker (the commands: sca-property-commands.ts).
 *
 * Each call is held to a model of what the calls answered (sca-property-game.ts): money moves only for an authorized
 * send, a trusted destination or a customer outside the SCA regions; no proof passes while locked or without a
 * session. After every step the store is checked against the model here: the ledger balances and each account holds
 * what the model says; a payment with transfers passed every challenge of its plan, or had none (not subject, or
 * trusted at execute); one waiting for authorization or failed by it holds and counts nothing; events walk the
 * machine; the US customer is never challenged.
 */
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import type { ScaChallengeRecord } from "../src/sca/model.ts"
import { isoOf, utcDay } from "../src/shared/time.ts"
import { refundReference } from "../src/transactions/legs.ts"
import { dailyVolumeKey } from "../src/transactions/limits.ts"
import type { TransactionRecord } from "../src/transactions/model.ts"
import {
  allTransactions,
  balance,
  eventOrderProblem,
  eventsOf,
  ledgerViolations,
  makeEnv,
  startClock
} from "./fixtures.ts"
import { type Command, command, runCommand, work } from "./sca-property-commands.ts"
import { count, fund, type Game, type QuoteModel, scaled, setUpGame, stats } from "./sca-property-game.ts"

const CURRENCIES = ["USD", "EUR", "USDC"]

/** No money created or lost: every internal account holds what the calls moved; the day's volume counts only them. */
const moneyProblems = Effect.fnUntraced(function* (game: Game) {
  const { model, store } = game
  const found: Array<string> = [...(yield* ledgerViolations)]
  model.days.add(utcDay(isoOf(yield* Clock.currentTimeMillis)))
  for (const party of Object.values(game.parties)) {
    for (const account of party.accounts) {
      const actual = (yield* balance(account.id, account.currency)).available
      const expected = model.expected.get(account.id) ?? 0
      if (actual !== expected) found.push(`${account.id}: available ${actual}, expected ${expected}`)
    }
    // A payment waiting for authorization, or failed by it, counts nothing into the day's volume.
    for (const currency of CURRENCIES) {
      for (const day of model.days) {
        const key = dailyVolumeKey(party.customerId, currency, `${day}T00:00:00.000Z`)
        const counted = yield* store.counters.get(key)
        const sent = model.volume.get(key) ?? 0
        if (counted !== sent) found.push(`${key}: counted ${counted}, sent ${sent}`)
      }
    }
  }
  return found
})

/** The challenges of each quote (by quote id); a challenge of the US customer is a problem (S-01). */
const quoteChallenges = Effect.fnUntraced(function* (game: Game, found: Array<string>) {
  const challenges = new Map<string, Array<ScaChallengeRecord>>()
  for (const [who, party] of Object.entries(game.parties)) {
    const page = yield* game.store.scaChallenges.list(
      { customerId: party.customerId },
      { limit: 10_000, sortOrder: "asc" }
    )
    if (who === "us" && page.data.length > 0) found.push(`the US customer has ${page.data.length} challenges`)
    for (const challenge of page.data) {
      if (challenge.kind !== "QUOTE" || challenge.subjectId === undefined) continue
      challenges.set(challenge.subjectId, [...(challenges.get(challenge.subjectId) ?? []), challenge])
    }
  }
  return challenges
})

/** One outgoing payment against its quote's model and challenges. */
const paymentProblems = Effect.fnUntraced(function* (
  game: Game,
  record: TransactionRecord,
  q: QuoteModel,
  own: ReadonlyArray<ScaChallengeRecord>
) {
  const { store } = game
  const found: Array<string> = []
  const transfers = yield* store.ledger.transfers(record.id)
  const refunds = yield* store.ledger.transfers(refundReference(record.id))
  const at = `${record.id} (${q.who}, ${record.state})`
  if (transfers.length > 0) {
    // S-03, AC-38: money moved only after every challenge of the plan passed, or without any challenge.
    if (!q.moved) found.push(`${at}: holds money no call moved`)
    if (own.length === 0 && q.who === "eu" && q.trustedAtExecute !== true) {
      found.push(`${at}: money moved without a challenge to an untrusted destination`)
    }
    const steps = own.map((challenge) => `${challenge.step}:${challenge.status}`).sort()
    const plan = q.steps === 2 ? "1:PASSED,2:PASSED" : "1:PASSED"
    if (own.length > 0 && steps.join() !== plan) found.push(`${at}: money moved with challenges ${steps.join()}`)
  } else if (q.moved) {
    found.push(`${at}: a send that moved money has no transfers`)
  }
  const open = own.filter((challenge) => challenge.status === "OPEN")
  if (open.length > 0 && record.state !== "PENDING_AUTHORIZATION") found.push(`${at}: an open challenge left behind`)
  if (record.state === "PENDING_AUTHORIZATION" || record.state === "SCA_FAILED") {
    // S-03, S-11: nothing held before the last challenge passes, so nothing to refund after it expires.
    if (transfers.length + refunds.length > 0) found.push(`${at}: holds or refunds money`)
    const stored = (yield* store.quotes.get(q.quote.id))?.quote
    if (record.state === "PENDING_AUTHORIZATION") {
      if (open.length !== 1) found.push(`${at}: ${open.length} open challenges`)
      else if (stored?.scaChallenge?.id !== open[0]!.id || record.dueAt !== open[0]!.expiresAt) {
        found.push(`${at}: quote or due date not on the open challenge`)
      }
    } else {
      const { status, failureReason } = record.transaction
      if (status !== "FAILED" || failureReason !== "SCA_NOT_COMPLETED") found.push(`${at}: ${status} ${failureReason}`)
      if (stored?.status !== "FAILED") found.push(`${at}: its quote is ${stored?.status}`)
    }
  }
  // S-01: a customer outside the SCA regions never waits for authorization.
  if (q.who === "us") {
    const events = yield* eventsOf(record.id)
    if (own.length > 0 || events.includes("OUTGOING_PAYMENT.PENDING_AUTHORIZATION")) {
      found.push(`${at}: the US customer's payment was challenged`)
    }
  }
  return found
})

/** The store against the model, after every step. */
const storeProblems = Effect.fnUntraced(function* (game: Game) {
  const found = yield* moneyProblems(game)
  const challenges = yield* quoteChallenges(game, found)
  const byTransaction = new Map(game.model.quotes.map((q) => [q.quote.transactionId as string, q]))
  for (const record of yield* allTransactions) {
    const order = yield* eventOrderProblem(record)
    if (order !== undefined) found.push(`${record.id}: ${order}`)
    if (record.transaction.type !== "OUTGOING") continue
    const q = byTransaction.get(record.id)
    if (q === undefined) found.push(`${record.id}: a payment no call created`)
    else found.push(...(yield* paymentProblems(game, record, q, challenges.get(q.quote.id) ?? [])))
  }
  return found
})

const scenario = (commands: ReadonlyArray<Command>, randomCodes: boolean) => {
  const env = makeEnv(commands.length + 1, { scaCodes: randomCodes ? "random" : "sandbox" })
  return Effect.gen(function* () {
    yield* startClock
    const game = yield* setUpGame(env)
    // Every account funded, and the EEA customer logged in: most sends can go ahead; the rest is random.
    for (const party of Object.values(game.parties)) {
      for (const account of party.accounts) yield* fund(game, account, scaled(account, 50_000))
    }
    yield* runCommand(game, { t: "login", who: "eu", proof: "right", times: 1 })
    if (game.model.sessionUntil === undefined) game.problems.push("the first login failed")

    for (const [step, c] of commands.entries()) {
      yield* runCommand(game, c)
      game.problems.push(...(yield* storeProblems(game)))
      if (game.problems.length > 0) return { step, command: c, problems: game.problems }
    }
    // Drain: every challenge expires and the worker fails its payment; every payout settles.
    yield* TestClock.adjust(301_000)
    yield* work(game)
    for (let i = 0; i < 3; i++) {
      yield* TestClock.adjust(4 * 3600 * 1000)
      yield* work(game)
    }
    game.problems.push(...(yield* storeProblems(game)))
    for (const record of yield* allTransactions) {
      count(`${record.transaction.type} ${record.state}`)
      if (record.state === "PENDING_AUTHORIZATION" || record.state === "PROCESSING") {
        game.problems.push(`${record.id} still ${record.state} after draining`)
      }
    }
    return game.problems.length > 0 ? { step: "drain", problems: game.problems } : undefined
  }).pipe(Effect.provide(env.layer), Effect.provide(TestClock.layer()))
}

export interface ScaPropertyOptions {
  readonly numRuns: number
  readonly seed: number
}

/**
 * Runs the property over `numRuns` random command sequences (about half with the sandbox's fixed code, half with
 * drawn codes, where a resent code kills the one before); throws fast-check's report of the first failing step,
 * shrunk.
 */
export const checkScaProperty = async (options: ScaPropertyOptions): Promise<void> => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(command, { minLength: 1, maxLength: 50, size: "max" }),
      fc.boolean(),
      async (commands, randomCodes) => {
        const failure = await Effect.runPromise(scenario(commands, randomCodes))
        if (failure !== undefined) throw new Error(JSON.stringify(failure, null, 2))
      }
    ),
    { numRuns: options.numRuns, seed: options.seed }
  )
  if (process.env.PAYCORE_STATS) {
    console.log(
      [...stats.entries()]
        .sort()
        .map(([key, n]) => `${n}\t${key}`)
        .join("\n")
    )
  }
}
