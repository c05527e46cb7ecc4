/**
 * The background work of an embedded engine, for a host without the HTTP binding (`makeApp` of `@paycore/http` runs
 * the same for a host with it): the worker pass (quote expiry and settlement, abandoned bulk imports, cards,
 * invitations, stablecoin operations) and the webhook dispatcher, forked into the layer's scope every
 * `intervalMillis`. They stop when that scope closes (`runtime.dispose()`); a step cut short rolls back and stays due.
 *
 *   node examples/embedded/src/workers.ts
 *
 * makes one payment and waits until the worker, running on its own, has settled it.
 */
import {
  Accounts,
  BulkImports,
  CardsWorker,
  Customers,
  Invitations,
  PlatformConfigService,
  Quotes,
  StablecoinsWorker,
  Transactions,
  WebhookDispatcher
} from "@paycore/core"
import { Cause, Clock, Effect, Layer, ManagedRuntime, Schedule } from "effect"
import { EmbeddedEngine, WEBHOOK_ENDPOINT } from "./main.ts"

export const workersLayer = (intervalMillis = 1000) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const transactions = yield* Transactions
      const bulkImports = yield* BulkImports
      const cards = yield* CardsWorker
      const invitations = yield* Invitations
      const stablecoins = yield* StablecoinsWorker
      const dispatcher = yield* WebhookDispatcher
      yield* transactions.processDue().pipe(
        Effect.andThen(bulkImports.sweep()),
        Effect.andThen(cards.processDue()),
        Effect.andThen(invitations.processDue()),
        Effect.andThen(stablecoins.processDue()),
        Effect.catchCause((cause) => Effect.logError("worker pass failed", Cause.pretty(cause))),
        Effect.repeat(Schedule.spaced(intervalMillis)),
        Effect.forkScoped
      )
      yield* Effect.forkScoped(dispatcher.run(intervalMillis))
    })
  )

/** The engine with its background work: build it once, for the life of your process. */
export const EngineWithWorkers = workersLayer(50).pipe(Layer.provideMerge(EmbeddedEngine))

/** One $25.00 payment, its webhooks sent to `WEBHOOK_ENDPOINT`; the worker settles it without being called. */
export const payAndWaitForSettlement = Effect.gen(function* () {
  const config = yield* PlatformConfigService
  const customers = yield* Customers
  const accounts = yield* Accounts
  const quotes = yield* Quotes
  const transactions = yield* Transactions
  yield* config.update({ webhookEndpoint: WEBHOOK_ENDPOINT })
  const terms = yield* config.endUserTerms()
  const customer = yield* customers.create({
    customerType: "INDIVIDUAL",
    fullName: "Ada Lovelace",
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
  yield* transactions.fundSandbox(usd.id, 100_000)
  const payee = yield* accounts.createExternal({
    customerId: customer.id,
    currency: "USD",
    accountInfo: {
      accountType: "US_ACCOUNT",
      accountNumber: "123456789",
      routingNumber: "021000021",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" }
    }
  })
  const quote = yield* quotes.create({
    source: { sourceType: "ACCOUNT", accountId: usd.id },
    destination: { destinationType: "ACCOUNT", accountId: payee.id, paymentRail: "RTP" },
    lockedCurrencySide: "SENDING",
    lockedCurrencyAmount: 2_500
  })
  const executed = yield* quotes.execute(quote.id)
  // Reads the transaction until it settled, as a caller would: it never calls the worker.
  for (let read = 0; read < 1_500; read++) {
    const transaction = yield* transactions.get(executed.transactionId)
    if (transaction.status !== "PENDING" && transaction.status !== "PROCESSING") return transaction
    yield* Effect.sleep("20 millis")
  }
  return yield* Effect.die(new Error(`${executed.transactionId} still in flight after 30 s`))
})

if (import.meta.main) {
  const runtime = ManagedRuntime.make(EngineWithWorkers)
  try {
    const transaction = await runtime.runPromise(payAndWaitForSettlement)
    process.stdout.write(`${transaction.id} ${transaction.status} at ${transaction.settledAt ?? "?"}\n`)
  } finally {
    await runtime.dispose() // stops the worker and the dispatcher
  }
}
