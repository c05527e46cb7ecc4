/**
 * The real paycore server for `bench/run.ts`: memory store, sandbox ports, the HTTP binding with auth,
 * validation and idempotency — exactly what `npm start` serves — seeded with one customer to read and pay from.
 * `paycoreListenerOn` serves the same on another store (bench/http-postgres.ts: a PostgreSQL server).
 */
import type { RequestListener } from "node:http"
import type { DocumentStore, Store, StoreError } from "@paycore/core"
import { Customers, Ids, Tokens, WebhookSigner } from "@paycore/core"
import { makeApp } from "@paycore/http"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import { makeWebhookRecorder } from "@paycore/testkit"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { BARE_POST_BODY, BENCH_CUSTOMER, BENCH_CUSTOMER_INPUT } from "./http.ts"

export const BENCH_CREDENTIALS = { clientId: "bench", clientSecret: "bench-secret-0001" } as const
export { BENCH_CUSTOMER, BENCH_CUSTOMER_INPUT } from "./http.ts"

/** The bench's token and the customer it reads and pays from, made through the services of `context`. */
const seed = Effect.fnUntraced(function* (context: Context.Context<Tokens | Customers>) {
  yield* Context.get(context, Tokens).createWithCredentials({
    ...BENCH_CREDENTIALS,
    name: "bench",
    permissions: ["VIEW", "TRANSACT", "MANAGE"]
  })
  yield* Context.get(context, Customers).create({
    ...BENCH_CUSTOMER_INPUT,
    currencies: [...BENCH_CUSTOMER_INPUT.currencies]
  })
})

/** `seed` on an app's context (bench/worker-plans.ts). */
export const paycoreSeed = (context: Context.Context<Tokens | Customers>): Promise<void> =>
  Effect.runPromise(seed(context))

/**
 * The server on `store` and `documents`, and `close` (its scope: the store's connections). A worker thread that
 * serves the bench never closes it: it lives as long as the thread.
 */
export const paycoreServerOn = async (
  store: Layer.Layer<Store, StoreError>,
  documents: Layer.Layer<DocumentStore, StoreError>
): Promise<{ readonly listener: RequestListener; readonly close: () => Promise<void> }> => {
  const ports = Layer.mergeAll(
    store,
    documents,
    Ids.layer,
    Sandbox.layer({ speedUp: 3600 }),
    makeWebhookRecorder().layer,
    WebhookSigner.layerGenerated
  )
  const scope = Effect.runSync(Scope.make())
  const listener = await Effect.runPromise(
    Effect.gen(function* () {
      const portsContext = yield* Layer.build(ports)
      const app = yield* makeApp({ workerIntervalMillis: 0, webhookIntervalMillis: 0 }).pipe(
        Effect.provide(portsContext)
      )
      yield* seed(app.context)
      return app.listener
    }).pipe(Scope.provide(scope))
  )
  return { listener, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** The server alone (the worker threads of bench/http.ts). */
export const paycoreListenerOn = (
  store: Layer.Layer<Store, StoreError>,
  documents: Layer.Layer<DocumentStore, StoreError>
): Promise<RequestListener> => paycoreServerOn(store, documents).then((server) => server.listener)

export const paycoreListener = (): Promise<RequestListener> =>
  paycoreListenerOn(MemoryStore.layer, MemoryStore.documentStoreLayer)

// -----------------------------------------------------------------------------
// What the HTTP benches send (bench/run.ts, bench/http-postgres.ts)
// -----------------------------------------------------------------------------

export const BENCH_AUTHORIZATION = `Basic ${Buffer.from(`${BENCH_CREDENTIALS.clientId}:${BENCH_CREDENTIALS.clientSecret}`).toString("base64")}`

/** A JSON call to a paycore server with the bench's credentials; anything but 2xx throws. */
export const api = async <T>(url: string, init: RequestInit = {}): Promise<T> => {
  const headers = { authorization: BENCH_AUTHORIZATION, "content-type": "application/json", ...init.headers }
  const response = await fetch(url, { ...init, headers })
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

export interface Page<T> {
  readonly data: ReadonlyArray<T>
  readonly totalCount: number
}
export interface Account {
  readonly id: string
  readonly currency: string
  readonly balance: unknown
}

/**
 * What the benches load on a paycore server at `origin`: `GET /customers/{id}` of `customerId` and a USD → MXN
 * `POST /quotes` from its USD account to a CLABE payee it gets here.
 */
export const quoteTargets = async (origin: string, customerId: string) => {
  const prefix = `${origin}/2025-10-13`
  const accounts = await api<Page<Account>>(`${prefix}/customers/internal-accounts?customerId=${customerId}`)
  const usd = accounts.data.find((account) => account.currency === "USD")!
  const payee = await api<{ id: string }>(`${prefix}/customers/external-accounts`, {
    method: "POST",
    body: JSON.stringify({
      customerId,
      currency: "MXN",
      accountInfo: {
        accountType: "CLABE",
        clabeNumber: "002010077777777771",
        beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" }
      }
    })
  })
  return {
    usd,
    getPath: `/2025-10-13/customers/${customerId}`,
    postPath: "/2025-10-13/quotes",
    postBody: JSON.stringify({
      source: { sourceType: "ACCOUNT", accountId: usd.id },
      destination: { destinationType: "ACCOUNT", accountId: payee.id, paymentRail: "SPEI" },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: 125_000,
      description: "Invoice 1234",
      remittanceInformation: "INV-1234",
      purposeOfPayment: "GOODS_OR_SERVICES"
    })
  }
}

/** The paycore server reads the seeded customer and prices USD → MXN quotes to its own CLABE account. */
const preparePaycore = async (origin: string) => {
  const customer = (
    await api<Page<{ id: string }>>(`${origin}/2025-10-13/customers?platformCustomerId=${BENCH_CUSTOMER}`)
  ).data[0]!
  return quoteTargets(origin, customer.id)
}

/** The bare `node:http` baseline (bench/http.ts), sent a body like paycore's (ids differ). */
export const BARE_TARGETS = {
  listener: { module: new URL("./http.ts", import.meta.url), factory: "bareListener" },
  getPath: "/x",
  postPath: "/x",
  postBody: BARE_POST_BODY
}

/** A paycore server's targets, found once it listens (`listener` is the caller's: the store differs). */
export const PAYCORE_TARGETS = {
  getPath: "",
  postPath: "",
  postBody: "",
  headers: { authorization: BENCH_AUTHORIZATION },
  prepare: preparePaycore
}
