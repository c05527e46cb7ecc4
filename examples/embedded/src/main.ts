/**
 * paycore embedded: the engine called in-process, no HTTP. What a team that embeds paycore in its own
 * server writes: compose the ports, provide `EngineLayer`, call the services as Effects.
 *
 *   node --conditions=@paycore/source examples/embedded/src/main.ts
 *
 * One customer, funded in the sandbox, pays a US account in USD and a CLABE account in MXN; the settlement
 * worker and the webhook dispatcher are driven by hand; a summary is printed.
 */
import {
  Accounts,
  type Amount,
  type Currency,
  Customers,
  type DispatchSummary,
  EngineLayer,
  Ids,
  PlatformConfigService,
  type Quote,
  Quotes,
  type Transaction,
  type TransactionId,
  Transactions,
  WebhookDispatcher,
  WebhookSigner
} from "@paycore/core"
import * as Sandbox from "@paycore/sandbox"
import * as MemoryStore from "@paycore/store-memory"
import { makeWebhookRecorder, type RecordedWebhook, type WebhookRecorder } from "@paycore/testkit"
import { Clock, Context, Effect, Layer, ManagedRuntime } from "effect"

/** Where the engine POSTs webhooks (the recorder below catches them; in production, your receiver). */
export const WEBHOOK_ENDPOINT = "https://embedder.example/paycore/webhooks"

/** The requests the webhook transport received, for the program to report (an in-memory recorder here). */
export class DeliveredWebhooks extends Context.Service<DeliveredWebhooks, WebhookRecorder>()(
  "paycore-example/embedded/DeliveredWebhooks"
) {}

/** A fresh recorder per build of the layer: the `WebhookTransport` port and the view on what it received. */
const recordingTransport = Layer.unwrap(
  Effect.sync(() => {
    const recorder = makeWebhookRecorder()
    return Layer.merge(recorder.layer, Layer.succeed(DeliveredWebhooks, recorder))
  })
)

/**
 * The ports: an in-memory store (and one for uploaded files), uuid v7 ids, the sandbox rail/FX/directory/notifier (settling a million times
 * faster than real rails), a recording webhook transport and a signing key generated at start.
 */
export const Ports = Layer.mergeAll(
  MemoryStore.layer,
  MemoryStore.documentStoreLayer,
  Ids.layer,
  Sandbox.layer({ speedUp: 1e6 }),
  recordingTransport,
  WebhookSigner.layerGenerated
)

/** Every engine service, plus the ports themselves (`WebhookSigner` for its public key, the recorder). */
export const EmbeddedEngine = EngineLayer.pipe(Layer.provideMerge(Ports))

export interface PaymentSummary {
  readonly label: string
  readonly quote: Quote
  readonly transaction: Transaction
}

export interface FirstPaymentsSummary {
  readonly customerId: string
  readonly accountId: string
  /** The USD internal account after funding, before the payments. */
  readonly balanceBefore: Amount
  readonly balanceAfter: Amount
  readonly payments: ReadonlyArray<PaymentSummary>
  /** `Transactions.processDue` passes until both payments settled. */
  readonly workerPasses: number
  /** The webhook dispatcher's pass. */
  readonly dispatch: DispatchSummary
  /** Every POST the engine made, in order (raw body and headers, as a receiver sees them). */
  readonly webhooks: ReadonlyArray<RecordedWebhook>
  /** Verifies `X-Service-Signature`. */
  readonly publicKeyPem: string
}

const isSettling = (t: Transaction) => t.status === "PENDING" || t.status === "PROCESSING"

/** Runs the settlement worker until no transaction of `ids` is in flight (the rail settles on the real clock). */
const settle = Effect.fnUntraced(function* (ids: ReadonlyArray<TransactionId>) {
  const transactions = yield* Transactions
  for (let pass = 1; pass <= 200; pass++) {
    yield* transactions.processDue()
    const current = yield* Effect.forEach(ids, (id) => transactions.get(id))
    if (!current.some(isSettling)) return { transactions: current, passes: pass }
    yield* Effect.sleep("5 millis")
  }
  return yield* Effect.die(new Error(`transactions still in flight after 200 worker passes: ${ids.join(", ")}`))
})

export const firstPayments = Effect.gen(function* () {
  const config = yield* PlatformConfigService
  const customers = yield* Customers
  const accounts = yield* Accounts
  const quotes = yield* Quotes
  const transactions = yield* Transactions
  const dispatcher = yield* WebhookDispatcher
  const signer = yield* WebhookSigner
  const delivered = yield* DeliveredWebhooks

  // 1. Where webhooks go (this also queues a TEST event).
  yield* config.update({ webhookEndpoint: WEBHOOK_ENDPOINT })

  // 2. A customer who accepted the current end-user terms; it gets a USD internal account.
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

  // 3. Fund it (sandbox only): $1,000.00.
  yield* transactions.fundSandbox(usd.id, 100_000)
  const before = yield* accounts.getInternal(usd.id)

  // 4. Two payees: a US bank account and a Mexican CLABE.
  const beneficiary = { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" } as const
  const usPayee = yield* accounts.createExternal({
    customerId: customer.id,
    currency: "USD",
    accountInfo: { accountType: "US_ACCOUNT", accountNumber: "123456789", routingNumber: "021000021", beneficiary }
  })
  const mxPayee = yield* accounts.createExternal({
    customerId: customer.id,
    currency: "MXN",
    accountInfo: { accountType: "CLABE", clabeNumber: "002010077777777771", beneficiary }
  })

  // 5. Quote, then execute: $25.00 to the US account over RTP, $100.00 converted to MXN over SPEI.
  const pay = Effect.fnUntraced(function* (label: string, accountId: string, amount: number, paymentRail?: "RTP") {
    const quote = yield* quotes.create({
      source: { sourceType: "ACCOUNT", accountId: usd.id },
      destination: {
        destinationType: "ACCOUNT",
        accountId,
        ...(paymentRail === undefined ? {} : { paymentRail })
      },
      lockedCurrencySide: "SENDING",
      lockedCurrencyAmount: amount,
      description: label
    })
    return yield* quotes.execute(quote.id)
  })
  const domestic = yield* pay("USD to a US account", usPayee.id, 2_500, "RTP")
  const crossBorder = yield* pay("USD to MXN (CLABE)", mxPayee.id, 10_000)

  // 6. The settlement worker (your server would run it on a schedule), then the webhook dispatcher.
  const settled = yield* settle([domestic.transactionId, crossBorder.transactionId])
  const dispatch = yield* dispatcher.dispatchDue() // one pass claims up to 50 due events

  const after = yield* accounts.getInternal(usd.id)
  return {
    customerId: customer.id,
    accountId: usd.id,
    balanceBefore: before.balance,
    balanceAfter: after.balance,
    payments: [
      { label: "USD to a US account", quote: domestic, transaction: settled.transactions[0]! },
      { label: "USD to MXN (CLABE)", quote: crossBorder, transaction: settled.transactions[1]! }
    ],
    workerPasses: settled.passes,
    dispatch,
    webhooks: delivered.requests(),
    publicKeyPem: signer.publicKeyPem
  } satisfies FirstPaymentsSummary
})

// ---- printing ----

/** Minor units as a decimal in the currency's major unit: 2500 USD → "25.00 USD". */
export const formatMoney = (amount: number, currency: Currency): string => {
  const negative = amount < 0
  const digits = Math.abs(amount)
    .toString()
    .padStart(currency.decimals + 1, "0")
  const major =
    currency.decimals === 0 ? digits : `${digits.slice(0, -currency.decimals)}.${digits.slice(-currency.decimals)}`
  return `${negative ? "-" : ""}${major} ${currency.code}`
}

export const formatSummary = (s: FirstPaymentsSummary): string => {
  const money = (a: Amount) => formatMoney(a.amount, a.currency)
  const lines = [
    `customer ${s.customerId}`,
    `USD account ${s.accountId}: ${money(s.balanceBefore)} -> ${money(s.balanceAfter)}`,
    ""
  ]
  for (const { label, quote: q, transaction: t } of s.payments) {
    lines.push(
      `${label}  (${q.id})`,
      `  send ${formatMoney(q.totalSendingAmount, q.sendingCurrency)}` +
        `  fees ${formatMoney(q.feesIncluded, q.sendingCurrency)}` +
        ` (platform ${formatMoney(q.platformFeesIncluded, q.sendingCurrency)})` +
        `  rate ${q.exchangeRate}  receive ${formatMoney(q.totalReceivingAmount, q.receivingCurrency)}`,
      `  ${t.id} ${t.status} on ${t.paymentRail ?? "?"}${t.settledAt === undefined ? "" : ` at ${t.settledAt}`}`
    )
  }
  lines.push(
    "",
    `settled after ${s.workerPasses} worker pass(es); webhooks delivered ${s.dispatch.delivered} of ${s.dispatch.claimed} claimed:`
  )
  for (const request of s.webhooks) {
    const event = JSON.parse(request.body) as { type: string; data: { id?: string } }
    lines.push(`  ${event.type.padEnd(28)} ${event.data.id ?? ""}`)
  }
  return lines.join("\n")
}

if (import.meta.main) {
  // Build the engine once and keep it for the life of your server; run each command with `runtime.runPromise`.
  const runtime = ManagedRuntime.make(EmbeddedEngine)
  try {
    const summary = await runtime.runPromise(firstPayments)
    process.stdout.write(`${formatSummary(summary)}\n`)
  } finally {
    await runtime.dispose()
  }
}
