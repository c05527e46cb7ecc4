/**
 * Payments racing each other on PostgreSQL (the real server with DATABASE_URL, else PGlite, where they
 * serialize): row locks in a fixed order must make every race end in exactly one outcome, with exact balances
 * and no deadlock or serialization error reaching the caller.
 */
import { Idempotency, Quotes, Store, Transactions } from "@paycore/core"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { afterExecuteSteps, executeLockedSteps, lockQuoteSteps } from "../../core/src/transactions/execute.ts"
import { currentClock } from "../../core/src/transactions/moves.ts"
import { scaPaymentPorts } from "../../core/src/transactions/ports.ts"
import {
  balance,
  eventOrderProblem,
  eventsOf,
  ledgerViolations,
  payeeQuote,
  seedPayer,
  setConfig
} from "../../core/test/fixtures.ts"
import { runOnEngine, testDatabase } from "./helpers.ts"

const db = testDatabase("races")

const codeOf = (exit: Exit.Exit<unknown, unknown>): string | undefined =>
  Exit.isFailure(exit) ? (exit.cause.reasons[0] as any)?.error?.code : undefined

describe(`payment races (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("200 concurrent executes on an account funded for 50: exactly 50 succeed, the rest INSUFFICIENT_FUNDS", async () => {
    const outcome = await runOnEngine(
      db,
      1001,
      Effect.gen(function* () {
        const quotes = yield* Quotes
        const { account, usdPayee } = yield* seedPayer(0)
        const created = []
        for (let i = 0; i < 200; i++) created.push(yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000)))
        const each = created[0]!.totalSendingAmount
        expect(created.every((q) => q.totalSendingAmount === each)).toBe(true)
        yield* (yield* Transactions).fundSandbox(account.id, 50 * each)

        const exits = yield* Effect.forEach(created, (q) => Effect.exit(quotes.execute(q.id)), {
          concurrency: "unbounded"
        })
        return {
          each,
          codes: exits.map(codeOf),
          succeeded: exits.filter(Exit.isSuccess).length,
          balance: yield* balance(account.id, "USD"),
          violations: yield* ledgerViolations
        }
      })
    )
    expect(outcome.succeeded).toBe(50)
    expect(outcome.codes.filter((c) => c !== undefined)).toEqual(Array(150).fill("INSUFFICIENT_FUNDS"))
    expect(outcome.balance).toMatchObject({ posted: 50 * outcome.each, pendingDebits: 50 * outcome.each, available: 0 })
    expect(outcome.violations).toEqual([])
  }, 120_000)

  it("20 concurrent executes with one Idempotency-Key: one execution, every caller gets its answer", async () => {
    const outcome = await runOnEngine(
      db,
      1002,
      Effect.gen(function* () {
        const quotes = yield* Quotes
        const { account, usdPayee } = yield* seedPayer(100_000)
        const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 2_500))
        const path = `/quotes/${quote.id}/execute`
        const once = Idempotency.run(
          "platform",
          "one-key",
          Idempotency.fingerprint("POST", path, ""),
          quotes.execute(quote.id),
          (q) => ({ status: 200, body: q })
        )
        const answers = yield* Effect.forEach(
          Array.from({ length: 20 }, () => once),
          (call) => call,
          {
            concurrency: "unbounded"
          }
        )
        return {
          answers,
          quote,
          balance: yield* balance(account.id, "USD"),
          events: yield* eventsOf(quote.transactionId),
          violations: yield* ledgerViolations
        }
      })
    )
    expect(outcome.answers.filter((a) => !a.replayed)).toHaveLength(1)
    const bodies = new Set(outcome.answers.map((a) => JSON.stringify(a.body)))
    expect(bodies.size).toBe(1)
    expect(outcome.answers.every((a) => a.status === 200)).toBe(true)
    // Held once: 100,000 funded, one payment's total reserved.
    expect(outcome.balance.available).toBe(100_000 - outcome.quote.totalSendingAmount)
    expect(outcome.events.filter((e) => e === "OUTGOING_PAYMENT.PROCESSING").length).toBeLessThanOrEqual(1)
    expect(outcome.violations).toEqual([])
  }, 120_000)

  it("20 concurrent quote creations with one Idempotency-Key create one quote", async () => {
    const outcome = await runOnEngine(
      db,
      1003,
      Effect.gen(function* () {
        const quotes = yield* Quotes
        const store = yield* Store
        const { account, usdPayee } = yield* seedPayer(100_000)
        const request = payeeQuote(account.id, usdPayee.id, 700)
        const once = Idempotency.run(
          "platform",
          "create-once",
          Idempotency.fingerprint("POST", "/quotes", JSON.stringify(request)),
          quotes.create(request),
          (q) => ({ status: 201, body: q })
        )
        const answers = yield* Effect.forEach(
          Array.from({ length: 20 }, () => once),
          (call) => call,
          {
            concurrency: "unbounded"
          }
        )
        const listed = yield* store.transactions.list(
          { accountIdentifier: account.id, type: "OUTGOING" },
          { limit: 100, sortOrder: "asc" }
        )
        return { answers, transactions: listed.totalCount }
      })
    )
    expect(outcome.answers.filter((a) => !a.replayed)).toHaveLength(1)
    expect(new Set(outcome.answers.map((a) => (a.body as { id: string }).id)).size).toBe(1)
    expect(outcome.transactions).toBe(1)
  }, 120_000)

  it("executes racing the expiry worker at the expiry instant: each quote expires exactly once, nothing held", async () => {
    const outcome = await runOnEngine(
      db,
      1004,
      Effect.gen(function* () {
        const quotes = yield* Quotes
        const transactions = yield* Transactions
        const { account, usdPayee } = yield* seedPayer(1_000_000)
        const created = []
        for (let i = 0; i < 30; i++) created.push(yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000)))
        yield* TestClock.setTime(Date.parse(created[0]!.expiresAt))
        const [executeExits, workerExits] = yield* Effect.all(
          [
            Effect.all(
              created.map((q) => Effect.exit(quotes.execute(q.id))),
              { concurrency: "unbounded" }
            ),
            Effect.all([Effect.exit(transactions.processDue()), Effect.exit(transactions.processDue())], {
              concurrency: "unbounded"
            })
          ],
          { concurrency: "unbounded" }
        )
        const store = yield* Store
        const states = []
        const problems = []
        for (const q of created) {
          const record = (yield* store.transactions.get(q.transactionId))!
          states.push(`${(yield* store.quotes.get(q.id))!.quote.status}/${record.state}`)
          const events = yield* eventsOf(q.transactionId)
          if (new Set(events).size !== events.length) problems.push(`${q.id}: ${events.join(",")}`)
          const order = yield* eventOrderProblem(record)
          if (order !== undefined) problems.push(`${q.id}: ${order}`)
        }
        return {
          executeCodes: executeExits.map(codeOf),
          workers: workerExits.map(Exit.isSuccess),
          states,
          problems,
          balance: yield* balance(account.id, "USD"),
          violations: yield* ledgerViolations
        }
      })
    )
    expect(outcome.executeCodes).toEqual(Array(30).fill("QUOTE_EXPIRED"))
    expect(outcome.workers).toEqual([true, true])
    expect(new Set(outcome.states)).toEqual(new Set(["EXPIRED/EXPIRED"]))
    expect(outcome.problems).toEqual([])
    expect(outcome.balance).toMatchObject({ posted: 1_000_000, pendingDebits: 0 })
    expect(outcome.violations).toEqual([])
  }, 120_000)

  it("40 concurrent executes of one customer under a daily volume limit for 10: exactly 10 pass it", async () => {
    const outcome = await runOnEngine(
      db,
      1006,
      Effect.gen(function* () {
        const quotes = yield* Quotes
        const { account, usdPayee } = yield* seedPayer(10_000_000)
        const created = []
        for (let i = 0; i < 40; i++) created.push(yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000)))
        const each = created[0]!.totalSendingAmount
        yield* setConfig({ transactionLimits: [{ currency: "USD", maxDailyVolume: 10 * each }] })
        const exits = yield* Effect.forEach(created, (q) => Effect.exit(quotes.execute(q.id)), {
          concurrency: "unbounded"
        })
        // The limit is platform-wide: the other tests of this file run without one.
        yield* setConfig({ transactionLimits: [] })
        return {
          each,
          codes: exits.map(codeOf),
          balance: yield* balance(account.id, "USD"),
          violations: yield* ledgerViolations
        }
      })
    )
    expect(outcome.codes.filter((c) => c === undefined)).toHaveLength(10)
    expect(outcome.codes.filter((c) => c !== undefined)).toEqual(Array(30).fill("DAILY_VOLUME_LIMIT_EXCEEDED"))
    expect(outcome.balance).toMatchObject({ pendingDebits: 10 * outcome.each })
    expect(outcome.violations).toEqual([])
  }, 120_000)

  it("20 concurrent outer transactions that count, then execute one quote: one execute, one count kept", async () => {
    // The agents' shape (docs/design/agents.md, "Submit an execute"): the caller counts in its own store
    // transaction, then runs the execute steps in it; a refused execute rolls the caller's count back too.
    const outcome = await runOnEngine(
      db,
      1007,
      Effect.gen(function* () {
        const quotes = yield* Quotes
        const { account, usdPayee } = yield* seedPayer(100_000)
        const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 2_500))
        const ports = yield* scaPaymentPorts
        const clock = yield* currentClock
        const counter = `outer-count:${quote.id}`
        const outer = Effect.gen(function* () {
          const outcome = yield* ports.store.transaction(
            Effect.gen(function* () {
              yield* ports.store.counters.add(counter, 1)
              return yield* executeLockedSteps(ports, yield* lockQuoteSteps(ports.store, quote.id), {}, clock)
            })
          )
          return yield* afterExecuteSteps(ports, outcome, clock)
        })
        const exits = yield* Effect.forEach(
          Array.from({ length: 20 }, () => outer),
          (call) => Effect.exit(call),
          { concurrency: "unbounded" }
        )
        return {
          each: quote.totalSendingAmount,
          codes: exits.map(codeOf),
          count: yield* ports.store.counters.get(counter),
          balance: yield* balance(account.id, "USD"),
          violations: yield* ledgerViolations
        }
      })
    )
    expect(outcome.codes.filter((c) => c === undefined)).toHaveLength(1)
    expect(outcome.codes.filter((c) => c !== undefined)).toEqual(Array(19).fill("QUOTE_ALREADY_EXECUTED"))
    expect(outcome.count).toBe(1)
    expect(outcome.balance).toMatchObject({ pendingDebits: outcome.each })
    expect(outcome.violations).toEqual([])
  }, 120_000)
})
