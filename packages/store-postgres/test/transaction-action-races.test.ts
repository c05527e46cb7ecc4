/**
 * Actions on transactions raced on PostgreSQL (docs/design/invitations-stablecoins.md, "Races"; the real server with
 * DATABASE_URL, else PGlite, where they serialize): approve, reject, the approval deadline, cancel and the settlement
 * poll each lock the transaction's row and re-check its state, so exactly one move wins, an incoming payment is
 * credited at most once, a cancelled payout holds nothing and the ledger stays balanced. No deadlock or
 * serialization error reaches a caller.
 */
import {
  defaultEngineSettings,
  EngineConfig,
  Quotes,
  type Rail,
  Store,
  type Transaction,
  Transactions
} from "@paycore/core"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import {
  balance,
  eventOrderProblem,
  eventsOf,
  ledgerViolations,
  makeEnv,
  payeeQuote,
  seedCustomer,
  seedInternalAccount,
  seedPayer,
  startClock
} from "../../core/test/fixtures.ts"
import { testDatabase } from "./helpers.ts"

const db = testDatabase("transaction_action_races")

const APPROVAL = { replySeconds: 5, decisionSeconds: 60 }

const codeOf = (exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = (exit.cause.reasons[0] as any)?.error
  return error?.code ?? String(exit.cause)
}

/** A rail that cancels whatever it is asked to (the race is then decided by the row lock alone). */
const cancellingRail = (rail: Rail["Service"]): Rail["Service"] => ({
  ...rail,
  cancel: () => Effect.succeed({ _tag: "Cancelled" as const })
})

const run = <A, E>(seed: number, effect: Effect.Effect<A, E, any>): Promise<A> =>
  Effect.runPromise(
    effect.pipe(
      Effect.provide(makeEnv(seed, { storeLayer: db.layer(), rail: cancellingRail }).layer),
      Effect.provideService(EngineConfig, { ...defaultEngineSettings, incomingApproval: APPROVAL }),
      Effect.provide(TestClock.layer())
    ) as Effect.Effect<A, E>
  )

/** An UMA payment of `amount` awaiting approval, into a fresh customer's USD account. */
const awaitingApproval = (amount: number) =>
  Effect.gen(function* () {
    yield* startClock
    const customer = yield* seedCustomer()
    const account = yield* seedInternalAccount(customer.id, "USD")
    const received = yield* (yield* Transactions).sandboxUmaReceive({
      senderUmaAddress: "$alice@sandbox.uma.money",
      customerId: customer.id as never,
      receivingCurrencyCode: "USD",
      receivingCurrencyAmount: amount
    })
    expect(received.status).toBe("PENDING")
    return { account, id: received.id }
  })

/** An executed ACH payout of `amount`, submitted to the rail (PROCESSING with a rail reference). */
const processingPayout = (amount: number) =>
  Effect.gen(function* () {
    const { account, usdPayee } = yield* seedPayer(100_000)
    const quotes = yield* Quotes
    const quote = yield* quotes.create(payeeQuote(account.id, usdPayee.id, amount))
    yield* quotes.execute(quote.id)
    const record = (yield* (yield* Store).transactions.get(quote.transactionId))!
    expect(record.state).toBe("PROCESSING")
    expect(record.transaction.paymentRail).toBe("ACH")
    expect(record.railReference).toBeDefined()
    return { account, id: record.id }
  })

/** The outcome every race is judged on: state, the account's balance, the events' order, the ledger. */
const settledView = (id: string, account: string) =>
  Effect.gen(function* () {
    const record = (yield* (yield* Store).transactions.get(id))!
    return {
      state: record.state,
      balance: yield* balance(account, "USD"),
      events: yield* eventsOf(id),
      order: yield* eventOrderProblem(record),
      violations: yield* ledgerViolations,
      held: (yield* (yield* Store).ledger.transfers(id)).filter((t) => t.state === "PENDING").length
    }
  })

describe(`transaction action races (${db.kind === "pg" ? "PostgreSQL server" : "PGlite"})`, () => {
  it("WH-21: 20 concurrent approves of one incoming payment: one COMPLETED, 19 × 409; credited once", async () => {
    const outcome = await run(
      5001,
      Effect.gen(function* () {
        const transactions = yield* Transactions
        const { account, id } = yield* awaitingApproval(2_000)
        const exits = yield* Effect.forEach(
          Array.from({ length: 20 }, () => transactions.approve(id)),
          Effect.exit,
          { concurrency: "unbounded" }
        )
        return {
          winners: exits.filter(Exit.isSuccess).map((e) => (e.value as Transaction).status),
          codes: exits.map(codeOf).filter((c) => c !== undefined),
          ...(yield* settledView(id, account.id))
        }
      })
    )
    expect(outcome).toMatchObject({
      winners: ["COMPLETED"],
      codes: Array(19).fill("TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL"),
      state: "COMPLETED",
      balance: { posted: 2_000, available: 2_000 },
      events: ["INCOMING_PAYMENT.PENDING", "INCOMING_PAYMENT.COMPLETED"],
      order: undefined,
      violations: []
    })
  }, 120_000)

  it("WH-21: approve racing reject, and approve racing the deadline: exactly one move; credited iff it was approved", async () => {
    const outcome = await run(
      5002,
      Effect.gen(function* () {
        const transactions = yield* Transactions
        const results = []
        for (let round = 0; round < 4; round++) {
          const { account, id } = yield* awaitingApproval(1_000)
          const racer: Effect.Effect<unknown, unknown> =
            round % 2 === 0
              ? transactions.reject(id, { reason: "RACE" })
              : Effect.andThen(TestClock.adjust("61 seconds"), transactions.processDue())
          const [approved, other] = yield* Effect.all([Effect.exit(transactions.approve(id)), Effect.exit(racer)], {
            concurrency: "unbounded"
          })
          const view = yield* settledView(id, account.id)
          results.push({ approved: Exit.isSuccess(approved), otherWon: round % 2 === 0 && Exit.isSuccess(other), view })
        }
        return results
      })
    )
    for (const { approved, otherWon, view } of outcome) {
      expect(view.violations).toEqual([])
      expect(view.order).toBeUndefined()
      if (approved) {
        expect(otherWon).toBe(false)
        expect(view.state).toBe("COMPLETED")
        expect(view.balance.posted).toBe(1_000)
      } else {
        expect(view.state).toBe("FAILED")
        expect(view.balance.posted).toBe(0)
      }
      expect(view.events.length).toBe(2)
    }
  }, 120_000)

  it("WH-07: 10 concurrent cancels of one payout: one FAILED with its refund, 9 × 409; the holds voided once", async () => {
    const outcome = await run(
      5003,
      Effect.gen(function* () {
        const transactions = yield* Transactions
        const { account, id } = yield* processingPayout(3_000)
        const exits = yield* Effect.forEach(
          Array.from({ length: 10 }, () => transactions.cancel(id)),
          Effect.exit,
          { concurrency: "unbounded" }
        )
        return {
          winners: exits.filter(Exit.isSuccess).map((e) => (e.value as Transaction).refund),
          codes: exits.map(codeOf).filter((c) => c !== undefined),
          ...(yield* settledView(id, account.id))
        }
      })
    )
    expect(outcome).toMatchObject({
      winners: [{ status: "COMPLETED", reason: "USER_CANCELLATION" }],
      codes: Array(9).fill("TRANSACTION_NOT_CANCELLABLE"),
      state: "REFUND_COMPLETED",
      balance: { posted: 100_000, pendingDebits: 0, available: 100_000 },
      order: undefined,
      violations: [],
      held: 0
    })
    expect(outcome.events.slice(-3)).toEqual([
      "OUTGOING_PAYMENT.FAILED",
      "OUTGOING_PAYMENT.REFUND_PENDING",
      "OUTGOING_PAYMENT.REFUND_COMPLETED"
    ])
  }, 120_000)

  it("WH-07: cancel racing the settlement poll (the rail says both): settled and 409, or cancelled and refunded; never both", async () => {
    const outcome = await run(
      5004,
      Effect.gen(function* () {
        const transactions = yield* Transactions
        const results = []
        for (let round = 0; round < 4; round++) {
          const { account, id } = yield* processingPayout(2_000)
          const before = (yield* balance(account.id, "USD")).posted
          // Past the test rail's settlement: the poll hears Settled while the cancel hears Cancelled.
          yield* TestClock.adjust("61 seconds")
          const [cancelled] = yield* Effect.all([Effect.exit(transactions.cancel(id)), transactions.processDue()], {
            concurrency: "unbounded"
          })
          results.push({
            cancelled: Exit.isSuccess(cancelled),
            code: codeOf(cancelled),
            before,
            view: yield* settledView(id, account.id)
          })
        }
        return results
      })
    )
    for (const { cancelled, code, before, view } of outcome) {
      expect(view.violations).toEqual([])
      expect(view.order).toBeUndefined()
      expect(view.held).toBe(0)
      if (cancelled) {
        expect(view.state).toBe("REFUND_COMPLETED")
        expect(view.balance.posted).toBe(before)
      } else {
        expect(code).toBe("TRANSACTION_NOT_CANCELLABLE")
        expect(view.state).toBe("COMPLETED")
        expect(view.balance.posted).toBe(before - 2_000)
      }
    }
  }, 120_000)
})
