/**
 * The real paycore server for `bench/run.ts`: memory store, sandbox ports, the HTTP binding with auth,
 * validation and idempotency — exactly what `npm start` serves — seeded with one customer to read and pay from.
 */
import type { RequestListener } from "node:http"
import { Customers, Ids, Tokens, WebhookSigner } from "@paycore/core"
import { makeApp } from "@paycore/http"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import { makeWebhookRecorder } from "@paycore/testkit"
import { Context, Effect, Layer, Scope } from "effect"
import { BENCH_CUSTOMER_INPUT } from "./http.ts"

export const BENCH_CREDENTIALS = { clientId: "bench", clientSecret: "bench-secret-0001" } as const
export { BENCH_CUSTOMER, BENCH_CUSTOMER_INPUT } from "./http.ts"

export const paycoreListener = async (): Promise<RequestListener> => {
  const ports = Layer.mergeAll(
    MemoryStore.layer,
    MemoryStore.documentStoreLayer,
    Ids.layer,
    Sandbox.layer({ speedUp: 3600 }),
    makeWebhookRecorder().layer,
    WebhookSigner.layerGenerated
  )
  // The scope lives as long as the worker thread that serves the bench.
  const scope = Effect.runSync(Scope.make())
  return Effect.runPromise(
    Effect.gen(function* () {
      const portsContext = yield* Layer.build(ports)
      const app = yield* makeApp({ workerIntervalMillis: 0, webhookIntervalMillis: 0 }).pipe(
        Effect.provide(portsContext)
      )
      yield* Context.get(app.context, Tokens).createWithCredentials({
        ...BENCH_CREDENTIALS,
        name: "bench",
        permissions: ["VIEW", "TRANSACT", "MANAGE"]
      })
      yield* Context.get(app.context, Customers).create({
        ...BENCH_CUSTOMER_INPUT,
        currencies: [...BENCH_CUSTOMER_INPUT.currencies]
      })
      return app.listener
    }).pipe(Scope.provide(scope))
  )
}
