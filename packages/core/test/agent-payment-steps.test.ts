/**
 * The seams the agents context builds on (docs/design/agents.md, section 0): quotes and transfers made for an agent
 * carry its id (AG-38, Q-32), an agent's transfer quote lives longer (Q5), the market rate for converting limits,
 * and the execute and transfer-in steps composed inside a caller's own store transaction.
 */
import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Effect } from "effect"
import { TestClock } from "effect/testing"
import { Store } from "../src/ports/store.ts"
import { parseRate } from "../src/quotes/pricing.ts"
import { Quotes } from "../src/quotes/service.ts"
import { EngineConfig } from "../src/shared/engine-config.ts"
import type { AgentId } from "../src/shared/ids.ts"
import { afterExecuteSteps, executeLockedSteps, lockQuoteSteps } from "../src/transactions/execute.ts"
import type { TransferOutRequest } from "../src/transactions/model.ts"
import { currentClock } from "../src/transactions/moves.ts"
import { scaPaymentPorts } from "../src/transactions/ports.ts"
import { Transactions } from "../src/transactions/service.ts"
import { submitSteps } from "../src/transactions/submission.ts"
import { transferInStoreSteps, transferOutQuoteRequest } from "../src/transactions/transfers.ts"
import { advance, balance, eventsOf, ledgerViolations, makeEnv, payeeQuote, seedPayer, startClock } from "./fixtures.ts"

const AGENT = "Agent:0190a000-0000-7000-8000-000000000001" as AgentId

/** The `data.agentId` of every event of a subject, in order (`null` where absent). */
const eventAgentIds = Effect.fnUntraced(function* (subject: string) {
  const store = yield* Store
  const page = yield* store.outbox.list({ subject }, { limit: 100, sortOrder: "asc" })
  return [...page.data]
    .sort((a, b) => a.sequence - b.sequence)
    .map((r) => (JSON.parse(r.body) as { data: { agentId?: string } }).data.agentId ?? null)
})

/** A funded payer and a quote of 10 000 to its USD payee, created for `AGENT`. */
const seedAgentQuote = Effect.gen(function* () {
  const payer = yield* seedPayer()
  const quote = yield* (yield* Quotes).create(payeeQuote(payer.account.id, payer.usdPayee.id, 10_000), {
    agentId: AGENT
  })
  return { ...payer, quote }
})

/** An error's tag and code. */
const refusalOf = (e: unknown) =>
  typeof e === "object" && e !== null && "_tag" in e && "code" in e ? [e._tag, e.code] : [e]

/** The outer store transaction of another context around the execute steps: a counter of its own, then the quote. */
const executeInOuterTransaction = (quoteId: string, counterKey: string, thenFail: boolean) =>
  Effect.gen(function* () {
    const ports = yield* scaPaymentPorts
    const clock = yield* currentClock
    const settings = yield* EngineConfig
    const outcome = yield* ports.store.transaction(
      Effect.gen(function* () {
        yield* ports.store.counters.add(counterKey, 1)
        const locked = yield* lockQuoteSteps(ports.store, quoteId)
        const executed = yield* executeLockedSteps(ports, locked, { settings }, clock)
        if (thenFail) return yield* Effect.fail("refused after executing" as const)
        return executed
      })
    )
    return yield* afterExecuteSteps(ports, outcome, clock)
  })

describe("payments made for an agent", () => {
  it.effect("AG-38, Q-32: a quote created for an agent keeps its id; its transaction and events carry it", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, usdPayee, quote } = yield* seedAgentQuote
      const quotes = yield* Quotes
      const transactions = yield* Transactions
      const store = yield* Store
      // The upstream Quote has no agentId: the record keeps it, the quote does not show it.
      assert.isFalse("agentId" in quote)
      assert.strictEqual((yield* store.quotes.get(quote.id))?.agentId, AGENT)
      assert.strictEqual((yield* transactions.get(quote.transactionId)).agentId, AGENT)
      yield* quotes.execute(quote.id)
      const executed = yield* transactions.get(quote.transactionId)
      assert.strictEqual(executed.status, "PROCESSING")
      assert.strictEqual(executed.agentId, AGENT)
      assert.deepStrictEqual(yield* eventAgentIds(quote.transactionId), [AGENT, AGENT])

      // The platform's own quote: no agentId anywhere.
      const own = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000))
      assert.isFalse("agentId" in ((yield* store.quotes.get(own.id)) ?? {}))
      assert.isFalse("agentId" in (yield* transactions.get(own.transactionId)))
      assert.deepStrictEqual(yield* eventAgentIds(own.transactionId), [null])
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("Q5: a quote created with lifetimeSeconds can be executed that long, then expires", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, usdPayee } = yield* seedPayer()
      const quotes = yield* Quotes
      const day = { agentId: AGENT, lifetimeSeconds: 86_400 }
      const executable = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 1_000), day)
      const expiring = yield* quotes.create(payeeQuote(account.id, usdPayee.id, 2_000), day)
      assert.strictEqual(executable.expiresAt, "2026-03-03T12:00:00.000Z")
      assert.strictEqual(expiring.expiresAt, "2026-03-03T12:00:00.000Z")
      // Past the engine's quoteLifetimeSeconds (300 s) both are still PENDING.
      assert.strictEqual((yield* advance(300)).expired, 0)
      yield* advance(86_099)
      assert.strictEqual((yield* quotes.execute(executable.id)).status, "PROCESSING")
      assert.strictEqual((yield* advance(1)).expired, 1)
      assert.strictEqual((yield* quotes.get(expiring.id)).status, "EXPIRED")
      assert.deepStrictEqual(yield* eventsOf(expiring.transactionId), [
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.EXPIRED"
      ])
    }).pipe(Effect.provide(env.layer))
  })

  it.effect(
    "marketRate: the cached market rate of a pair, 1 within a currency, QUOTE_REQUEST_FAILED without one",
    () => {
      const env = makeEnv()
      return Effect.gen(function* () {
        yield* startClock
        const quotes = yield* Quotes
        const rate = yield* quotes.marketRate("USD", "EUR")
        assert.isTrue(BigDecimal.equals(rate, parseRate("0.92")!))
        assert.isTrue(BigDecimal.equals(yield* quotes.marketRate("USD", "EUR"), rate))
        assert.strictEqual(env.fx.calls(), 1, "the second read is the cached rate")
        assert.isTrue(BigDecimal.equals(yield* quotes.marketRate("EUR", "EUR"), BigDecimal.fromBigInt(1n)))
        assert.strictEqual(env.fx.calls(), 1, "one currency asks nothing of FxRates")
        const missing = yield* Effect.flip(quotes.marketRate("USD", "GBP"))
        assert.deepStrictEqual(
          [missing._tag, "code" in missing ? missing.code : ""],
          ["Refused", "QUOTE_REQUEST_FAILED"]
        )
      }).pipe(Effect.provide(env.layer))
    }
  )

  it.effect("the execute steps inside another context's store transaction: one commit, or nothing at all", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, quote } = yield* seedAgentQuote
      const quotes = yield* Quotes
      const transactions = yield* Transactions
      const store = yield* Store

      // Refused after the execute steps ran: the holds, the moves and the caller's own write are all undone.
      const refused = yield* Effect.flip(executeInOuterTransaction(quote.id, "outer:refused", true))
      assert.strictEqual(refused, "refused after executing")
      assert.strictEqual((yield* quotes.get(quote.id)).status, "PENDING")
      assert.strictEqual((yield* transactions.get(quote.transactionId)).status, "PENDING")
      assert.strictEqual((yield* balance(account.id, "USD")).available, 100_000)
      assert.strictEqual(yield* store.counters.get("outer:refused"), 0)
      assert.deepStrictEqual(yield* eventsOf(quote.transactionId), ["OUTGOING_PAYMENT.PENDING"])

      // Committed: both writes kept, the payout submitted after the commit.
      const executed = yield* executeInOuterTransaction(quote.id, "outer:kept", false)
      assert.strictEqual(executed.transaction.transaction.status, "PROCESSING")
      assert.strictEqual(executed.transaction.transaction.agentId, AGENT)
      assert.strictEqual(yield* store.counters.get("outer:kept"), 1)
      assert.strictEqual(env.rail.submissions.length, 1)
      assert.strictEqual((yield* balance(account.id, "USD")).pendingDebits, 10_000)

      // A second execute is 409 QUOTE_ALREADY_EXECUTED, and undoes the caller's write with it.
      const again = yield* Effect.flip(executeInOuterTransaction(quote.id, "outer:again", false))
      assert.deepStrictEqual(refusalOf(again), ["Conflict", "QUOTE_ALREADY_EXECUTED"])
      assert.strictEqual(yield* store.counters.get("outer:again"), 0)
      yield* advance(60)
      assert.strictEqual((yield* transactions.get(quote.transactionId)).status, "COMPLETED")
      assert.deepStrictEqual(yield* ledgerViolations, [])
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("a quote expired inside another context's transaction: the expiry is committed, then 409", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { quote } = yield* seedAgentQuote
      const quotes = yield* Quotes
      yield* TestClock.adjust(300_000)
      const expired = yield* Effect.flip(executeInOuterTransaction(quote.id, "outer:expired", false))
      assert.deepStrictEqual(refusalOf(expired), ["Conflict", "QUOTE_EXPIRED"])
      assert.strictEqual((yield* quotes.get(quote.id)).status, "EXPIRED")
      assert.strictEqual(yield* (yield* Store).counters.get("outer:expired"), 1)
    }).pipe(Effect.provide(env.layer))
  })

  it.effect("AG-38: an agent's transfer-out is a same-currency quote for the agent, executed later", () => {
    const env = makeEnv()
    return Effect.gen(function* () {
      const { account, usdPayee, eurPayee } = yield* seedPayer()
      const quotes = yield* Quotes
      const transactions = yield* Transactions
      const request: TransferOutRequest = {
        source: { accountId: account.id },
        destination: { accountId: usdPayee.id as never },
        amount: 3_000,
        remittanceInformation: "INV-7"
      }
      const options = { transferOut: true, agentId: AGENT, lifetimeSeconds: 86_400 }
      const quote = yield* quotes.create(transferOutQuoteRequest(request, false), options)
      assert.strictEqual(quote.status, "PENDING")
      assert.strictEqual(quote.expiresAt, "2026-03-03T12:00:00.000Z")
      const pending = yield* transactions.get(quote.transactionId)
      assert.deepStrictEqual(
        [pending.status, pending.agentId, pending.sentAmount.amount, pending.remittanceInformation],
        ["PENDING", AGENT, 3_000, "INV-7"]
      )
      const cross = yield* Effect.flip(
        quotes.create(
          transferOutQuoteRequest({ ...request, destination: { accountId: eurPayee.id as never } }, false),
          options
        )
      )
      assert.strictEqual(cross._tag, "InvalidInput")
      assert.strictEqual((yield* quotes.execute(quote.id)).status, "PROCESSING")
      assert.strictEqual((yield* transactions.get(quote.transactionId)).agentId, AGENT)
    }).pipe(Effect.provide(env.layer))
  })

  it.effect(
    "AG-38: the transfer-in steps inside another context's transaction carry the agent; submitted after",
    () => {
      const env = makeEnv()
      return Effect.gen(function* () {
        const { account, usdPayee, eurPayee } = yield* seedPayer(0)
        const ports = yield* scaPaymentPorts
        const clock = yield* currentClock
        const request = {
          source: { accountId: usdPayee.id as never },
          destination: { accountId: account.id },
          amount: 700
        }
        const created = yield* ports.store.transaction(
          Effect.gen(function* () {
            yield* ports.store.counters.add("outer:transfer-in", 1)
            return yield* transferInStoreSteps(ports, request, { agentId: AGENT })
          })
        )
        assert.strictEqual(created.transaction.agentId, AGENT)
        const submitted = yield* submitSteps(ports, created, clock)
        assert.strictEqual(submitted.transaction.agentId, AGENT)
        assert.deepStrictEqual(yield* eventAgentIds(created.id), [AGENT])
        yield* advance(60)
        const done = yield* (yield* Transactions).get(created.transaction.id)
        assert.deepStrictEqual([done.status, done.agentId], ["COMPLETED", AGENT])
        assert.deepStrictEqual(yield* eventAgentIds(created.id), [AGENT, AGENT])
        assert.strictEqual((yield* balance(account.id, "USD")).posted, 700)

        // Refused inside the outer transaction (not pullable): the caller's write is undone with it.
        const refused = yield* Effect.flip(
          ports.store.transaction(
            Effect.gen(function* () {
              yield* ports.store.counters.add("outer:transfer-in-refused", 1)
              const notPullable = { ...request, source: { accountId: eurPayee.id as never } }
              return yield* transferInStoreSteps(ports, notPullable, { agentId: AGENT })
            })
          )
        )
        assert.strictEqual(refused._tag, "InvalidInput")
        assert.strictEqual(yield* ports.store.counters.get("outer:transfer-in-refused"), 0)
        // The platform's transfer-in has no agent.
        const own = yield* (yield* Transactions).transferIn(request)
        assert.isFalse("agentId" in own)
      }).pipe(Effect.provide(env.layer))
    }
  )
})
