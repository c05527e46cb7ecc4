import { Effect, ManagedRuntime } from "effect"
import { describe, expect, it } from "vitest"
import { DeliveredWebhooks } from "../src/main.ts"
import { EngineWithWorkers, payAndWaitForSettlement } from "../src/workers.ts"

describe("examples/embedded: the worker and the webhook dispatcher in the host's process", () => {
  it("settles a payment and delivers its webhooks with nobody calling them, and stops with the runtime", async () => {
    const runtime = ManagedRuntime.make(EngineWithWorkers)
    try {
      const transaction = await runtime.runPromise(payAndWaitForSettlement)
      expect(transaction.status).toBe("COMPLETED")
      const delivered = await runtime.runPromise(
        Effect.gen(function* () {
          const recorder = yield* DeliveredWebhooks
          for (let read = 0; read < 1_500; read++) {
            const types = recorder.requests().map((r) => JSON.parse(r.body) as { type: string; data: { id?: string } })
            const mine = types.filter((e) => e.data.id === transaction.id).map((e) => e.type)
            if (mine.includes("OUTGOING_PAYMENT.COMPLETED")) return mine
            yield* Effect.sleep("20 millis")
          }
          return []
        })
      )
      expect(delivered).toEqual([
        "OUTGOING_PAYMENT.PENDING",
        "OUTGOING_PAYMENT.PROCESSING",
        "OUTGOING_PAYMENT.COMPLETED"
      ])
    } finally {
      await runtime.dispose()
    }
  })
})
