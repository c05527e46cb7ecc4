/**
 * The engine as the engine benches (bench/core.ts, bench/postgres.ts) run it: the services on a store, the sandbox
 * rail sped up so an instant rail settles after 1 ms of a TestClock, and customers who pay `AMOUNT` USD a quote.
 */
import type { AccountInfo, CreateQuoteRequest, CustomerId, InternalAccountId, Store } from "@paycore/core"
import { Accounts, Customers, Ids, PaymentsLayer, PlatformConfigService, Quotes, Transactions } from "@paycore/core"
import { layer as sandbox } from "@paycore/sandbox"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

export const T0 = Date.parse("2026-03-02T12:00:00.000Z")
/** Instant rails take 5 s in the sandbox timing table; divided by this they settle after 1 ms of TestClock. */
export const SPEED_UP = 5_000
export const SETTLE_MS = 1
/** What each payment sends, in USD cents. */
export const AMOUNT = 1_000
/** What each sender's account is funded with: never the limit of a run. */
export const FUNDING = 100_000_000_000

/** Customers, Accounts, Quotes and Transactions on `store`, the sandbox (sped up) and a TestClock. */
export const engineOn = <E>(store: Layer.Layer<Store, E>) =>
  Layer.mergeAll(Customers.layer, Accounts.layer, PaymentsLayer).pipe(
    Layer.provideMerge(PlatformConfigService.layer),
    Layer.provideMerge(Layer.mergeAll(store, Ids.layer, sandbox({ speedUp: SPEED_UP }), TestClock.layer()))
  )

/** A customer who accepted the end-user terms, with its USD internal account funded with `FUNDING`. */
export const makeSender = Effect.fnUntraced(function* (fullName: string) {
  const customers = yield* Customers
  const accounts = yield* Accounts
  const transactions = yield* Transactions
  const customer = yield* customers.create({
    customerType: "INDIVIDUAL",
    fullName,
    currencies: ["USD"],
    endUserTermsConsent: {
      acceptedAt: new Date(T0).toISOString(),
      ipAddress: "127.0.0.1",
      termsVersion: "2025-10-13",
      acceptanceMethod: "CHECKBOX"
    }
  })
  const [source] = (yield* accounts.listInternal({ customerId: customer.id, currency: "USD" })).data
  if (source === undefined) return yield* Effect.die(new Error("bench: the customer has no USD internal account"))
  yield* transactions.fundSandbox(source.id, FUNDING)
  return { customerId: customer.id, sourceId: source.id }
})

const beneficiary = { beneficiaryType: "INDIVIDUAL", fullName: "Bench Payee" } as const
/** A US account, paid on RTP. */
export const US_PAYEE: AccountInfo = {
  accountType: "US_ACCOUNT",
  accountNumber: "123456789",
  routingNumber: "021000021",
  beneficiary
}
/** A Mexican CLABE account, paid on SPEI. */
export const MX_PAYEE: AccountInfo = { accountType: "CLABE", clabeNumber: "002010077777777771", beneficiary }

/** An ACTIVE external account of the customer; its id. */
export const makePayee = Effect.fnUntraced(function* (
  customerId: CustomerId,
  currency: string,
  accountInfo: AccountInfo
) {
  const accounts = yield* Accounts
  const payee = yield* accounts.createExternal({ customerId, currency, accountInfo })
  if (payee.status !== "ACTIVE") return yield* Effect.die(new Error("bench: the external account is not ACTIVE"))
  return payee.id
})

/** A quote of `AMOUNT` USD (SENDING locked) from the sender's account to the payee on `paymentRail`. */
export const paymentRequest = (
  sourceId: InternalAccountId,
  payeeId: string,
  paymentRail: "RTP" | "SPEI"
): CreateQuoteRequest => ({
  source: { sourceType: "ACCOUNT", accountId: sourceId },
  destination: { destinationType: "ACCOUNT", accountId: payeeId, paymentRail },
  lockedCurrencySide: "SENDING",
  lockedCurrencyAmount: AMOUNT
})

/** Executes a quote; anything but PROCESSING stops the bench. */
export const executeOne = Effect.fnUntraced(function* (quoteId: string) {
  const quotes = yield* Quotes
  const executed = yield* quotes.execute(quoteId)
  if (executed.status !== "PROCESSING") {
    return yield* Effect.die(new Error(`bench: executed quote ${executed.id} is ${executed.status}`))
  }
})

/** One worker pass after `SETTLE_MS` of TestClock: it must settle exactly `expected` payments. */
export const settlePass = (expected: number) =>
  Effect.gen(function* () {
    const transactions = yield* Transactions
    yield* TestClock.adjust(SETTLE_MS)
    const report = yield* transactions.processDue()
    if (report.errors > 0 || report.stepped !== expected || report.expired !== 0) {
      return yield* Effect.die(
        new Error(`bench: a worker pass settled ${report.stepped}/${expected} (${JSON.stringify(report)})`)
      )
    }
  })
