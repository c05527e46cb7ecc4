/**
 * Random command sequences of two agents of one customer (docs/design/agents.md, "Property test"; memory store,
 * TestClock, fast-check with a fixed seed): executes, transfers, approvals, rejections, pauses, policy changes
 * (limits cut below usage included) and time crossing UTC days and a month end. The model (agents-property.ts,
 * written apart from policy.ts) predicts every answer and every action's state; the counters, the transactions and
 * the ledger are checked after each step.
 */

import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { AgentActions } from "../src/agents/service.ts"
import { Transactions } from "../src/transactions/service.ts"
import {
  agentOf,
  agentQuoteOf,
  answerOf,
  checkAgentsProperty,
  type ModelPolicy,
  makeAgentEnv,
  principalOf,
  toAgentPolicy
} from "./agents-property.ts"
import { seedCustomer, seedExternalAccount, seedInternalAccount } from "./fixtures.ts"

describe("agents (property)", () => {
  it("AG-03, AG-05, AG-06, AG-10, AG-19 … AG-23, AG-33, AG-38: answers, actions, usage counters and transactions follow the model over random sequences of two agents' commands", async () => {
    // A fixed seed keeps CI repeatable; change it (or raise numRuns) locally to explore.
    const met = await checkAgentsProperty({ numRuns: 400, maxCommands: 50, seed: 20_260_331 })
    // The runs reach every kind of answer the model predicts.
    for (const key of [
      "execute APPROVED",
      "execute PENDING_APPROVAL",
      "execute PERMISSION_MISSING",
      "execute ACCOUNT_NOT_ALLOWED",
      "execute PER_TRANSACTION_LIMIT_EXCEEDED",
      "execute DAILY_LIMIT_EXCEEDED",
      "execute AGENT_PAUSED",
      "transferOut APPROVED",
      "transferIn APPROVED",
      "approve APPROVED",
      "approve FAILED QUOTE_EXPIRED",
      "approve FAILED AGENT_PAUSED",
      "approve FAILED DAILY_TRANSACTION_LIMIT_EXCEEDED",
      "approve CONFLICT",
      "reject REJECTED"
    ]) {
      expect(met.get(key), key).toBeGreaterThan(0)
    }
  }, 60_000)
})

describe("agents' usage windows", () => {
  it("AG-05, AG-06: the day's and month's usage start again at 00:00 UTC (23:59:59 → 00:00 on a month's end)", async () => {
    const answers = await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2026-03-31T23:59:59.000Z"))
        const actions = yield* AgentActions
        const customer = yield* seedCustomer()
        const usd = (yield* seedInternalAccount(customer.id, "USD")).id
        const payee = (yield* seedExternalAccount(customer.id, "USD")).id
        yield* (yield* Transactions).fundSandbox(usd, 10_000)
        const policy: ModelPolicy = {
          permissions: ["EXECUTE_QUOTES"],
          mode: "AUTO",
          currency: "USD",
          perTransactionLimit: 1_000,
          dailyLimit: 100,
          monthlyLimit: 150,
          dailyTransactionLimit: undefined,
          threshold: undefined,
          allowed: undefined,
          rule: undefined
        }
        const agent = yield* agentOf(customer.id, toAgentPolicy(policy, { USD: usd, EUR: usd }))
        const pay = (amount: number) =>
          Effect.gen(function* () {
            const quote = yield* agentQuoteOf(agent.id, usd, payee, amount)
            return answerOf(yield* Effect.exit(actions.executeQuote(principalOf(agent), quote.id, undefined)))
          })
        const lastSecond = [yield* pay(100), yield* pay(1)]
        yield* TestClock.adjust(1_000)
        // A new day and a new month: 100 more fits both; then the day is full again.
        const nextDay = [yield* pay(100), yield* pay(1)]
        yield* TestClock.adjust(86_400_000)
        // The month holds 100 of its 150: 51 passes it, 50 does not.
        const dayAfter = [yield* pay(51), yield* pay(50)]
        return [...lastSecond, ...nextDay, ...dayAfter]
      }).pipe(Effect.provide(makeAgentEnv(17).layer), Effect.provide(TestClock.layer()))
    )
    expect(answers).toEqual([
      "APPROVED",
      "DAILY_LIMIT_EXCEEDED",
      "APPROVED",
      "DAILY_LIMIT_EXCEEDED",
      "MONTHLY_LIMIT_EXCEEDED",
      "APPROVED"
    ])
  })
})
