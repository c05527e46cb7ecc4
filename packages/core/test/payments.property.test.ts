import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect, it } from "vitest"
import { Store } from "../src/ports/store.ts"
import { Transactions } from "../src/transactions/service.ts"
import {
  allTransactions,
  eventOrderProblem,
  makeEnv,
  seedCustomer,
  seedInternalAccount,
  startClock
} from "./fixtures.ts"
import { checkPaymentsProperty } from "./payments-property.ts"

describe("payments (property)", () => {
  it("ledger, events and refunds stay consistent over random command sequences", async () => {
    await checkPaymentsProperty({ numRuns: 100 })
  }, 60_000)

  it("the event-order check itself rejects events out of machine order", async () => {
    const env = makeEnv()
    const problem = await Effect.runPromise(
      Effect.gen(function* () {
        yield* startClock
        const store = yield* Store
        const customer = yield* seedCustomer()
        const account = yield* seedInternalAccount(customer.id, "USD")
        yield* (yield* Transactions).fundSandbox(account.id, 100)
        const [record] = yield* allTransactions
        // Append an event the machine cannot produce after COMPLETED without a RETURN.
        const { emit } = yield* Effect.promise(() => import("../src/webhooks/emit.ts"))
        yield* store.transaction(emit("INCOMING_PAYMENT.REFUND_COMPLETED", record!.id, {}))
        return yield* eventOrderProblem(record!)
      }).pipe(Effect.provide(env.layer), Effect.provide(Layer.mergeAll(TestClock.layer())))
    )
    expect(problem).toBeDefined()
  })
})
