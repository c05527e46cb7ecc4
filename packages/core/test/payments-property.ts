/**
 * Random command sequences over the payment engine (memory store, scripted rail, TestClock):
 * fund, quote (with the rail's outcome for that payout), execute, pay by deposit, transfer-in,
 * time passing and worker passes. After every step the ledger balances per currency, no
 * internal account is overdrawn, every transaction's events are a walk of its machine, and
 * every payment's money moved exactly as its state says (a failed payout refunded exactly once).
 *
 * Issue 17 slice D adds the actions on transactions: cancel a random payout (WH-07; the rail cancels what it has not
 * settled), return a random deposit (WH-08), an UMA payment received under incoming approvals (WH-21) with a random
 * webhook reply, and the API's approve / reject. Their invariants: a cancelled payment holds nothing and its refund
 * ended; an approved incoming payment is credited exactly once, a declined one never; a returned deposit is held,
 * then posted once.
 */

import { Effect, type Layer } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { systemAccount } from "../src/ledger/model.ts"
import { Ids } from "../src/ports/ids.ts"
import { Rail } from "../src/ports/rail.ts"
import { Screening } from "../src/ports/screening.ts"
import { Store } from "../src/ports/store.ts"
import type { CreateQuoteRequest } from "../src/quotes/model.ts"
import { Quotes } from "../src/quotes/service.ts"
import { defaultEngineSettings, EngineConfig } from "../src/shared/engine-config.ts"
import { approvalReplies } from "../src/transactions/approvals.ts"
import { paymentLegs, refundReference, sourceLedgerAccount } from "../src/transactions/legs.ts"
import type { TransactionRecord } from "../src/transactions/model.ts"
import { Transactions } from "../src/transactions/service.ts"
import type { WebhookReply } from "../src/webhooks/model.ts"
import {
  allTransactions,
  eventOrderProblem,
  FAILURE_REASONS,
  ledgerViolations,
  makeEnv,
  type Outcome,
  seedCustomer,
  seedExternalAccount,
  seedInternalAccount,
  setConfig,
  startClock,
  timelineProblem,
  usAccount
} from "./fixtures.ts"

const reasons = FAILURE_REASONS

const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ _tag: fc.constant("Settle" as const), afterSeconds: fc.constantFrom(1, 60, 600) })
  },
  {
    weight: 3,
    arbitrary: fc.record({
      _tag: fc.constant("Fail" as const),
      reason: fc.constantFrom(...reasons),
      refundSucceeds: fc.boolean(),
      afterSeconds: fc.constantFrom(1, 60)
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({ _tag: fc.constant("Return" as const), returnAfterSeconds: fc.constantFrom(60, 600) })
  },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Reject" as const), reason: fc.constantFrom(...reasons) }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Flaky" as const), times: fc.integer({ min: 1, max: 3 }) }) }
)

type Command =
  | { readonly t: "fund"; readonly account: number; readonly amount: number }
  | {
      readonly t: "quote"
      readonly source: number
      readonly destination: number
      readonly side: "SENDING" | "RECEIVING"
      readonly amount: number
      readonly outcome: Outcome
      readonly immediate: boolean
    }
  | { readonly t: "execute"; readonly quote: number }
  | { readonly t: "send"; readonly quote: number }
  | { readonly t: "transferIn"; readonly amount: number; readonly outcome: Outcome }
  | { readonly t: "time"; readonly seconds: number }
  | { readonly t: "worker" }
  | { readonly t: "race"; readonly quote: number }
  | { readonly t: "limits"; readonly maxTransactionAmount: number; readonly maxDailyVolume: number }
  | { readonly t: "cancel"; readonly quote: number }
  | { readonly t: "returnDeposit"; readonly pick: number }
  | { readonly t: "umaReceive"; readonly account: number; readonly amount: number; readonly reply: Reply }
  | { readonly t: "decide"; readonly pick: number; readonly approve: boolean }

/** The platform's answer to INCOMING_PAYMENT.PENDING: a status, no answer at all, or silence (no delivery yet). */
type Reply = number | "unreachable" | "silence"

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("fund" as const),
      account: fc.nat(2),
      amount: fc.integer({ min: 1, max: 50_000 })
    })
  },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("quote" as const),
      source: fc.nat(3),
      destination: fc.nat(3),
      side: fc.constantFrom("SENDING" as const, "RECEIVING" as const),
      amount: fc.integer({ min: 1, max: 40_000 }),
      outcome,
      immediate: fc.boolean()
    })
  },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("execute" as const), quote: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("send" as const), quote: fc.nat(40) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("transferIn" as const),
      amount: fc.integer({ min: 1, max: 20_000 }),
      outcome
    })
  },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant("time" as const), seconds: fc.constantFrom(1, 30, 61, 301, 700, 3_600) })
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("worker" as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("race" as const), quote: fc.nat(40) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("cancel" as const), quote: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("returnDeposit" as const), pick: fc.nat(40) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("umaReceive" as const),
      account: fc.nat(1),
      amount: fc.integer({ min: 1, max: 30_000 }),
      reply: fc.constantFrom<Reply>(200, 202, 403, 409, 422, 500, "unreachable", "silence")
    })
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("decide" as const), pick: fc.nat(40), approve: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("limits" as const),
      maxTransactionAmount: fc.integer({ min: 1_000, max: 50_000 }),
      maxDailyVolume: fc.integer({ min: 10_000, max: 100_000 })
    })
  }
)

/** `PAYCORE_STATS=1` prints how often each final state and each refusal occurred (generator coverage). */
const stats = new Map<string, number>()
const count = (key: string) => {
  if (process.env.PAYCORE_STATS) stats.set(key, (stats.get(key) ?? 0) + 1)
}
const DOMAIN_ERRORS = new Set(["InvalidInput", "Refused", "NotFound", "Forbidden", "Conflict", "LimitExceeded"])

/** Domain refusals are part of the game; anything else (defects, illegal transitions, store errors) is a bug. */
const allowRefusal = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.map((a): A | undefined => a),
    Effect.catchIf(
      (e): e is E => DOMAIN_ERRORS.has(e._tag),
      (e) => {
        count(`refused ${e._tag} ${(e as { code?: string }).code ?? ""}`)
        return Effect.succeed(undefined)
      }
    )
  )

/** Sum of posted movements on `account` from the transfers of one payment (its holds and its refund). */
const postedNet = Effect.fnUntraced(function* (reference: string, account: string) {
  const store = yield* Store
  let net = 0
  for (const ref of [reference, refundReference(reference)]) {
    for (const t of yield* store.ledger.transfers(ref)) {
      if (t.state !== "POSTED") continue
      if (t.credit === account) net += t.amount
      if (t.debit === account) net -= t.amount
    }
  }
  return net
})

/** How a payment's money moved must match its state; returns the problem or undefined. */
const moneyProblem = Effect.fnUntraced(function* (record: TransactionRecord) {
  const store = yield* Store
  const holds = yield* store.ledger.transfers(record.id)
  const refunds = yield* store.ledger.transfers(refundReference(record.id))
  const states = new Set(holds.map((t) => t.state))
  const only = (s: string) => holds.length > 0 && states.size === 1 && states.has(s as never)
  if (record.transaction.type === "INCOMING") {
    const { amount } = record.transaction.receivedAmount
    // Credited exactly once: one deposit transfer of the amount (an approval's too).
    const creditedOnce = only("POSTED") && holds.length === 1 && holds[0]!.amount === amount
    // A returned deposit holds its amount at once (deposit-returns.ts); a returned pull moves nothing until refunded.
    const returnHeld = refunds.length === 0 || (refunds.length === 1 && refunds[0]!.state === "PENDING")
    const ok =
      (record.state === "PENDING" && (only("PENDING") || holds.length === 0)) ||
      (record.state === "AWAITING_APPROVAL" && holds.length === 0 && refunds.length === 0) ||
      (record.state === "COMPLETED" && creditedOnce && refunds.length === 0) ||
      (record.state === "FAILED" && (only("VOIDED") || holds.length === 0) && refunds.length === 0) ||
      (record.state === "REFUND_PENDING" && creditedOnce && returnHeld) ||
      (record.state === "REFUND_COMPLETED" &&
        creditedOnce &&
        refunds.length === 1 &&
        refunds[0]!.state === "POSTED" &&
        refunds[0]!.amount === amount) ||
      (record.state === "REFUND_FAILED" && creditedOnce && refunds.length === 0)
    return ok ? undefined : `incoming ${record.state}: holds ${[...states]} refunds ${refunds.length}`
  }
  const quote = yield* store.quotes.get(record.transaction.quoteId!)
  const total = quote!.quote.totalSendingAmount
  const source = sourceLedgerAccount(quote!)
  const net = yield* postedNet(record.id, source)
  const legs = paymentLegs(quote!).length
  switch (record.state) {
    case "PENDING":
    case "EXPIRED":
      return holds.length === 0 && refunds.length === 0 ? undefined : `${record.state} moved money`
    case "PROCESSING":
      return only("PENDING") && holds.length === legs && refunds.length === 0
        ? undefined
        : `PROCESSING holds ${[...states]}`
    case "COMPLETED":
      return only("POSTED") && refunds.length === 0 && net === -total ? undefined : `COMPLETED net ${net} of ${total}`
    case "REFUND_PENDING":
      return (only("PENDING") || only("POSTED")) && refunds.length === 0 ? undefined : "REFUND_PENDING moved a refund"
    case "REFUND_COMPLETED": {
      const voided = only("VOIDED") && refunds.length === 0
      const reversed = only("POSTED") && refunds.length === legs && refunds.every((t) => t.state === "POSTED")
      return (voided || reversed) && net === 0 ? undefined : `REFUND_COMPLETED refunds ${refunds.length} net ${net}`
    }
    case "REFUND_FAILED": {
      const suspense = systemAccount("suspense", quote!.quote.sendingCurrency.code)
      const ok =
        only("VOIDED") &&
        refunds.length === 1 &&
        refunds[0]!.credit === suspense &&
        refunds[0]!.amount === total &&
        net === -total
      return ok ? undefined : `REFUND_FAILED refunds ${refunds.length} net ${net}`
    }
    default:
      return `unknown state ${record.state}`
  }
})

/** The scripted rail, cancelling (WH-07) any payout it has not decided yet, as the sandbox rail does. */
const cancellableRail = (rail: Rail["Service"]): Rail["Service"] => ({
  ...rail,
  cancel: (reference) =>
    Effect.map(rail.status(reference), (status) =>
      status._tag === "Pending" ? { _tag: "Cancelled" as const } : { _tag: "TooLate" as const }
    )
})

const checkAll = Effect.gen(function* () {
  const problems: Array<string> = [...(yield* ledgerViolations)]
  for (const record of yield* allTransactions) {
    const order = yield* eventOrderProblem(record)
    if (order !== undefined) problems.push(`${record.id}: ${order}`)
    const timeline = yield* timelineProblem(record)
    if (timeline !== undefined) problems.push(`${record.id}: ${timeline}`)
    const money = yield* moneyProblem(record)
    if (money !== undefined) problems.push(`${record.id}: ${money}`)
  }
  return problems
})

const scenario = (commands: ReadonlyArray<Command>, store: Layer.Layer<Store, unknown> | undefined) => {
  const env = makeEnv(commands.length + 1, {
    ...(store === undefined ? {} : { storeLayer: store }),
    rail: cancellableRail
  })
  return Effect.gen(function* () {
    yield* startClock
    const quotes = yield* Quotes
    const transactions = yield* Transactions
    const a = yield* seedCustomer({ currencies: ["USD", "EUR"] })
    const b = yield* seedCustomer()
    const accounts = [
      yield* seedInternalAccount(a.id, "USD"),
      yield* seedInternalAccount(b.id, "USD"),
      yield* seedInternalAccount(a.id, "EUR")
    ]
    // A starting balance on every account, so most payments can be reserved; the rest is random.
    for (const account of accounts) yield* transactions.fundSandbox(account.id, 40_000)
    const usdPayee = yield* seedExternalAccount(a.id, "USD")
    const eurPayee = yield* seedExternalAccount(a.id, "EUR")
    const puller = yield* seedExternalAccount(a.id, "USD", { accountInfo: usAccount("444555666") })
    const replies = approvalReplies({
      store: yield* Store,
      ids: yield* Ids,
      rail: yield* Rail,
      screening: yield* Screening
    })
    const customers = [a, b]
    const destinations: ReadonlyArray<CreateQuoteRequest["destination"]> = [
      { destinationType: "ACCOUNT", accountId: usdPayee.id },
      { destinationType: "ACCOUNT", accountId: eurPayee.id },
      { destinationType: "ACCOUNT", accountId: accounts[1]!.id },
      { destinationType: "UMA_ADDRESS", umaAddress: "$alice@bank.example" }
    ]
    const created: Array<{ readonly id: string; readonly realtime: boolean }> = []
    /** A worker pass; a step that failed unexpectedly (logged and skipped by the worker) is a bug here. */
    const work = Effect.flatMap(transactions.processDue(), (report) =>
      report.errors > 0 ? Effect.die(new Error(`${report.errors} worker steps failed`)) : Effect.void
    )

    for (const [step, c] of commands.entries()) {
      switch (c.t) {
        case "fund":
          yield* transactions.fundSandbox(accounts[c.account]!.id, c.amount)
          break
        case "quote": {
          const realtime = c.source === 3
          const request: CreateQuoteRequest = {
            source: realtime
              ? { sourceType: "REALTIME_FUNDING", currency: "USD", customerId: a.id }
              : { sourceType: "ACCOUNT", accountId: accounts[c.source]!.id },
            destination: destinations[c.destination]!,
            lockedCurrencySide: c.side,
            lockedCurrencyAmount: c.amount,
            ...(c.immediate && !realtime ? { immediatelyExecute: true } : {})
          }
          // Plan the outcome before any submission: ids are predictable only after creation, so
          // immediate quotes are created first and executed in a second call.
          const quote = yield* allowRefusal(quotes.create({ ...request, immediatelyExecute: false }))
          if (quote === undefined) break
          env.rail.plan(quote.transactionId, c.outcome)
          created.push({ id: quote.id, realtime })
          if (request.immediatelyExecute === true) yield* allowRefusal(quotes.execute(quote.id))
          break
        }
        case "execute": {
          const q = created[c.quote % Math.max(1, created.length)]
          if (q !== undefined) yield* allowRefusal(quotes.execute(q.id))
          break
        }
        case "send": {
          const q = created[c.quote % Math.max(1, created.length)]
          if (q !== undefined)
            yield* allowRefusal(transactions.sandboxSend({ quoteId: q.id as never, currencyCode: "USD" }))
          break
        }
        case "transferIn": {
          const tx = yield* allowRefusal(
            transactions.transferIn({
              source: { accountId: puller.id },
              destination: { accountId: accounts[0]!.id },
              amount: c.amount
            })
          )
          // The pull was submitted already; plan its outcome for the polls (the submission itself settled).
          if (tx !== undefined && c.outcome._tag !== "Reject" && c.outcome._tag !== "Flaky")
            env.rail.plan(tx.id, c.outcome)
          break
        }
        case "time":
          yield* TestClock.adjust(c.seconds * 1000)
          yield* work
          break
        case "worker":
          yield* work
          break
        case "race": {
          // Execute and a worker pass at once (and the same quote twice): each effect happens once.
          const q = created[c.quote % Math.max(1, created.length)]
          if (q !== undefined) {
            yield* Effect.all([allowRefusal(quotes.execute(q.id)), allowRefusal(quotes.execute(q.id)), work], {
              concurrency: "unbounded"
            })
          }
          break
        }
        case "cancel": {
          const q = created[c.quote % Math.max(1, created.length)]
          const quote = q === undefined ? undefined : yield* allowRefusal(quotes.get(q.id))
          if (quote !== undefined && (yield* allowRefusal(transactions.cancel(quote.transactionId))) !== undefined) {
            count("cancelled a payout")
          }
          break
        }
        case "returnDeposit": {
          const incoming = (yield* allTransactions).filter((r) => r.transaction.type === "INCOMING")
          const pick = incoming[c.pick % Math.max(1, incoming.length)]
          if (pick !== undefined && (yield* allowRefusal(transactions.sandboxReturnDeposit(pick.id))) !== undefined) {
            count("returned a deposit")
          }
          break
        }
        case "umaReceive": {
          const tx = yield* allowRefusal(
            transactions.sandboxUmaReceive({
              senderUmaAddress: "$alice@bank.example",
              customerId: customers[c.account]!.id as never,
              receivingCurrencyCode: "USD",
              receivingCurrencyAmount: c.amount
            })
          )
          if (tx === undefined || c.reply === "silence") break
          // What the dispatcher hands the handler after the attempt (webhooks/service.ts), the same function.
          const reply: WebhookReply =
            c.reply === "unreachable"
              ? { _tag: "TransportError", message: "connection refused" }
              : { _tag: "Response", status: c.reply, body: "" }
          yield* replies.onReply({ id: `Webhook:${step}`, type: "INCOMING_PAYMENT.PENDING", subject: tx.id }, reply)
          break
        }
        case "decide": {
          // Mostly a payment awaiting approval; any incoming payment when none does (the 409s).
          const incoming = (yield* allTransactions).filter((r) => r.transaction.type === "INCOMING")
          const awaiting = incoming.filter((r) => r.state === "AWAITING_APPROVAL")
          const pool = awaiting.length > 0 ? awaiting : incoming
          const pick = pool[c.pick % Math.max(1, pool.length)]
          const decided =
            pick === undefined
              ? undefined
              : yield* allowRefusal(c.approve ? transactions.approve(pick.id) : transactions.reject(pick.id, null))
          if (decided !== undefined) count(`decided by the API: ${decided.status}`)
          break
        }
        case "limits":
          yield* setConfig({
            transactionLimits: [
              { currency: "USD", maxTransactionAmount: c.maxTransactionAmount, maxDailyVolume: c.maxDailyVolume }
            ]
          })
          break
      }
      const problems = yield* checkAll
      if (problems.length > 0) return { step, command: c, problems }
    }
    // Drain: long enough for every payout, return watch and retry to finish.
    for (let i = 0; i < 12; i++) {
      yield* TestClock.adjust(4 * 3600 * 1000)
      yield* work
    }
    const problems = yield* checkAll
    for (const record of yield* allTransactions) {
      if (
        ["PROCESSING", "REFUND_PENDING", "AWAITING_APPROVAL"].includes(record.state) ||
        (record.transaction.type === "INCOMING" && record.state === "PENDING")
      ) {
        problems.push(`${record.id} still ${record.state} after draining`)
      }
    }
    for (const r of yield* allTransactions) count(`${r.transaction.type} ${r.state}`)
    return problems.length > 0 ? { step: "drain", problems } : undefined
  }).pipe(
    Effect.provide(env.layer),
    // WH-21: UMA payments received await the platform's decision (the sandbox server's timings).
    Effect.provideService(EngineConfig, {
      ...defaultEngineSettings,
      incomingApproval: { replySeconds: 5, decisionSeconds: 60 }
    }),
    Effect.provide(TestClock.layer())
  )
}

export interface PaymentsPropertyOptions {
  readonly numRuns: number
  /** A fresh store per run (default: the memory store). */
  readonly store?: () => Layer.Layer<Store, unknown>
}

/**
 * Runs the property over `numRuns` random command sequences; resolves with the first failing step's problems
 * (fast-check shrinks it first), or throws fast-check's report.
 */
export const checkPaymentsProperty = async (options: PaymentsPropertyOptions): Promise<void> => {
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 30, size: "max" }), async (commands) => {
      const failure = await Effect.runPromise(scenario(commands, options.store?.()))
      if (failure !== undefined) throw new Error(JSON.stringify(failure, null, 2))
    }),
    { numRuns: options.numRuns }
  )
  if (process.env.PAYCORE_STATS) console.log([...stats.entries()].sort())
}
