/**
 * The built-in commands of the model harness: customers, sandbox funding, payments executed under an idempotency key
 * (to a payee that settles or one that fails), replays and reuses of those keys, time passing with the settlement
 * worker, and webhook delivery. Each checks its own prediction as it runs; the invariants are checked after it.
 */
import {
  Accounts,
  Customers,
  Idempotency,
  PlatformConfigService,
  Quotes,
  Transactions,
  WebhookDispatcher
} from "@paycore/core"
import { Cause, Clock, Effect, Exit } from "effect"
import * as fc from "fast-check"
import type { ModelEngine } from "./engine.ts"
import type { EngineModel, ModelCustomer, ModelPayees, ModelPayment, PaymentFate } from "./model.ts"

/** A step of a model run: `check` says whether it applies to the model now, `run` does it and updates the model. */
export type EngineCommand<U = unknown> = fc.AsyncCommand<EngineModel<U>, ModelEngine>

/** A command from its parts, for commands of your own (`name` is what a failing run prints). */
export const engineCommand = <U = unknown>(spec: {
  readonly name: string
  readonly check?: (model: Readonly<EngineModel<U>>) => boolean
  readonly run: (model: EngineModel<U>, engine: ModelEngine) => Promise<void>
}): EngineCommand<U> => ({
  check: spec.check ?? (() => true),
  run: spec.run,
  toString: () => spec.name
})

/** The key space the harness's idempotent executes are stored under (`<scope>:<key>` in the store). */
export const IDEMPOTENCY_SCOPE = "engine-model"

/** What an execute under a key answers, and what a replay must answer again. */
export interface ExecuteResponse {
  readonly quoteId: string
  readonly transactionId: string
}

/**
 * `Quotes.execute(quoteId)` at most once per `key`, as an embedder makes it idempotent (the HTTP binding does the
 * same for `Idempotency-Key`): `body` is the request body the key is bound to (its fingerprint).
 */
export const executeUnderKey = (key: string, quoteId: string, body = "") =>
  Idempotency.run(
    IDEMPOTENCY_SCOPE,
    key,
    Idempotency.fingerprint("POST", `/quotes/${quoteId}/execute`, body),
    Effect.flatMap(Quotes, (quotes) => quotes.execute(quoteId)),
    (quote) => ({ status: 200, body: { quoteId: quote.id, transactionId: quote.transactionId ?? "" } })
  )

/** The payments' statuses that end them (a FAILED one ends when its refund does). */
const FINAL = new Set(["COMPLETED", "FAILED", "EXPIRED"])

/** The error's `_tag` and `code` (`Refused/INSUFFICIENT_FUNDS`), or the whole cause when it is a defect. */
const failureOf = <A, E>(exit: Exit.Exit<A, E>): string => {
  if (Exit.isSuccess(exit)) return "success"
  const error = Cause.findErrorOption(exit.cause)
  if (error._tag === "None") return Cause.pretty(exit.cause)
  const e = error.value as { _tag?: string; code?: string }
  return `${e._tag}/${e.code}`
}

const pick = <A>(items: ReadonlyArray<A>, n: number): A => items[n % items.length]!

/** Creates a customer (terms accepted) with its USD internal account, and its two payees. */
const addCustomer = <U>(payees: ModelPayees, name: string) =>
  engineCommand<U>({
    name: `addCustomer(${JSON.stringify(name)})`,
    check: (model) => model.customers.length < 4,
    run: async (model, engine) => {
      const created = await engine.run(
        Effect.gen(function* () {
          const terms = yield* Effect.flatMap(PlatformConfigService, (c) => c.endUserTerms())
          const accounts = yield* Accounts
          const customers = yield* Customers
          const customer = yield* customers.create({
            customerType: "INDIVIDUAL",
            fullName: name,
            currencies: ["USD"],
            endUserTermsConsent: {
              acceptedAt: new Date(yield* Clock.currentTimeMillis).toISOString(),
              ipAddress: "203.0.113.7",
              termsVersion: terms.version,
              acceptanceMethod: "CHECKBOX"
            }
          })
          const [usd] = (yield* accounts.listInternal({ customerId: customer.id, currency: "USD" })).data
          if (usd === undefined) return yield* Effect.die(new Error(`no USD internal account for ${customer.id}`))
          const payee = (accountInfo: ModelPayees["settles"]) =>
            Effect.map(
              accounts.createExternal({ customerId: customer.id, currency: "USD", accountInfo }),
              (account) => account.id
            )
          return {
            customerId: customer.id,
            accountId: usd.id,
            payees: { settles: yield* payee(payees.settles), fails: yield* payee(payees.fails) }
          } satisfies ModelCustomer
        })
      )
      model.customers.push(created)
      model.balances.set(created.accountId, 0)
    }
  })

/** Funds a customer's account in the sandbox: the balance grows by the amount at once. */
const fund = <U>(customer: number, amount: number) =>
  engineCommand<U>({
    name: `fund(customer ${customer}, ${amount})`,
    check: (model) => model.customers.length > 0,
    run: async (model, engine) => {
      const { accountId } = pick(model.customers, customer)
      await engine.run(Effect.flatMap(Transactions, (t) => t.fundSandbox(accountId, amount)))
      model.balances.set(accountId, (model.balances.get(accountId) ?? 0) + amount)
    }
  })

/**
 * Quotes a payment of `amount` (sending side locked) and executes it under `key`. The model predicts the answer:
 * accepted when the account covers `totalSendingAmount` (which leaves the available balance at once), else refused
 * `INSUFFICIENT_FUNDS`.
 */
const pay = <U>(customer: number, fate: PaymentFate, amount: number, key: string) =>
  engineCommand<U>({
    name: `pay(customer ${customer}, ${amount}, ${fate}, key ${key})`,
    check: (model) => model.customers.length > 0 && !model.payments.some((p) => p.key === key),
    run: async (model, engine) => {
      const payer = pick(model.customers, customer)
      const payee = fate === "COMPLETED" ? payer.payees.settles : payer.payees.fails
      const quote = await engine.run(
        Effect.flatMap(Quotes, (quotes) =>
          quotes.create({
            source: { sourceType: "ACCOUNT", accountId: payer.accountId },
            destination: { destinationType: "ACCOUNT", accountId: payee },
            lockedCurrencySide: "SENDING",
            lockedCurrencyAmount: amount
          })
        )
      )
      const available = model.balances.get(payer.accountId) ?? 0
      const exit = await engine.exit(executeUnderKey(key, quote.id))
      const needs = `${quote.totalSendingAmount} from ${available} available`
      if (quote.totalSendingAmount > available) {
        const got = failureOf(exit)
        if (got !== "Refused/INSUFFICIENT_FUNDS") throw new Error(`${needs}: expected INSUFFICIENT_FUNDS, got ${got}`)
        return
      }
      if (Exit.isFailure(exit)) throw new Error(`${needs}: ${failureOf(exit)}`)
      if (exit.value.replayed) throw new Error(`a first execute under ${key} answered as a replay`)
      model.balances.set(payer.accountId, available - quote.totalSendingAmount)
      model.payments.push({
        key,
        quoteId: quote.id,
        transactionId: (exit.value.body as ExecuteResponse).transactionId,
        accountId: payer.accountId,
        debited: quote.totalSendingAmount,
        fate,
        executedAt: model.now,
        status: "PROCESSING"
      })
    }
  })

/** Sends an accepted payment's execute again under its key: the same answer, replayed, and nothing moves. */
const replay = <U>(n: number) =>
  engineCommand<U>({
    name: `replay(payment ${n})`,
    check: (model) => model.payments.length > 0,
    run: async (model, engine) => {
      const payment = pick(model.payments, n)
      const answer = await engine.run(executeUnderKey(payment.key, payment.quoteId))
      if (!answer.replayed || (answer.body as ExecuteResponse).transactionId !== payment.transactionId) {
        throw new Error(`replay of ${payment.key} answered ${JSON.stringify(answer)}, not ${payment.transactionId}`)
      }
    }
  })

/** Uses an accepted payment's key for another request body: 409 `IDEMPOTENCY_KEY_REUSED`, and nothing runs. */
const reuseKey = <U>(n: number) =>
  engineCommand<U>({
    name: `reuseKey(payment ${n})`,
    check: (model) => model.payments.length > 0,
    run: async (model, engine) => {
      const payment = pick(model.payments, n)
      const got = failureOf(await engine.exit(executeUnderKey(payment.key, payment.quoteId, '{"reused":true}')))
      if (got !== "Conflict/IDEMPOTENCY_KEY_REUSED") throw new Error(`key ${payment.key} reused: got ${got}`)
    }
  })

/** The status a payment has once its refund (if any) ended; `undefined` while anything is in flight. */
const settledStatus = (transaction: {
  readonly status: string
  readonly refund?: { readonly status: string } | undefined
}) => {
  if (!FINAL.has(transaction.status)) return undefined
  if (transaction.status === "FAILED" && transaction.refund?.status !== "COMPLETED") return undefined
  return transaction.status
}

/** Moves the model by what the engine says of one open payment; throws when it ended otherwise than its payee makes it. */
const observe = <U>(
  model: EngineModel<U>,
  payment: ModelPayment,
  seen: Parameters<typeof settledStatus>[0],
  within: number
) => {
  const status = settledStatus(seen)
  if (status === undefined) {
    const age = model.now - payment.executedAt
    if (age > within) throw new Error(`${payment.transactionId} still ${seen.status} after ${age} s`)
    return
  }
  if (status !== payment.fate) throw new Error(`${payment.transactionId} ended ${status}, not ${payment.fate}`)
  payment.status = status
  if (status === "FAILED") {
    model.balances.set(payment.accountId, (model.balances.get(payment.accountId) ?? 0) + payment.debited)
  }
}

/**
 * Lets `seconds` pass and runs the settlement worker until it has nothing due. Every payment that ended must have
 * ended as its payee makes it (a failed one refunded: its money is available again); none may be in flight longer
 * than `settleWithinSeconds`.
 */
const advance = <U>(seconds: number, settleWithinSeconds: number) =>
  engineCommand<U>({
    name: `advance(${seconds} s)`,
    run: async (model, engine) => {
      await engine.advance(seconds)
      model.now += seconds
      const open = model.payments.filter((p) => !FINAL.has(p.status))
      const seen = await engine.run(
        Effect.gen(function* () {
          const transactions = yield* Transactions
          for (let pass = 0; pass < 20; pass++) {
            const report = yield* transactions.processDue()
            if (report.stepped === 0 && report.expired === 0) break
          }
          return yield* Effect.forEach(open, (p) => transactions.get(p.transactionId))
        })
      )
      for (const [i, payment] of open.entries()) observe(model, payment, seen[i]!, settleWithinSeconds)
    }
  })

/** Runs the webhook dispatcher until nothing is due. */
const deliver = <U>() =>
  engineCommand<U>({
    name: "deliver()",
    run: async (_model, engine) => {
      await engine.run(
        Effect.gen(function* () {
          const dispatcher = yield* WebhookDispatcher
          for (let pass = 0; pass < 20; pass++) if ((yield* dispatcher.dispatchDue()).claimed === 0) return
        })
      )
    }
  })

/**
 * The built-in commands, as arbitraries for `fc.commands`: add them to your own (or take some of them). `payees`
 * are the accounts the payments go to.
 */
export const builtInCommands = <U>(payees: ModelPayees): ReadonlyArray<fc.Arbitrary<EngineCommand<U>>> => {
  const customers = fc
    .constantFrom("Ada Lovelace", "Grace Hopper", "Alan Turing")
    .map((name) => addCustomer<U>(payees, name))
  const funds = fc.tuple(fc.nat(3), fc.integer({ min: 1, max: 50_000 })).map(([c, amount]) => fund<U>(c, amount))
  const payments = fc
    .tuple(
      fc.nat(3),
      fc.constantFrom<PaymentFate>("COMPLETED", "COMPLETED", "FAILED"),
      fc.integer({ min: 1, max: 30_000 }),
      fc.uuid()
    )
    .map(([c, fate, amount, key]) => pay<U>(c, fate, amount, key))
  const time = fc
    .constantFrom(60, 3_600, 86_400, 2 * 86_400, 3 * 86_400)
    .map((seconds) => advance<U>(seconds, payees.settleWithinSeconds))
  // fc.commands draws each arbitrary alike: the ones that move money are listed more than once to weigh them.
  return [
    customers,
    funds,
    funds,
    payments,
    payments,
    payments,
    fc.nat(20).map((p) => replay<U>(p)),
    fc.nat(20).map((p) => reuseKey<U>(p)),
    time,
    time,
    fc.constant(deliver<U>())
  ]
}
