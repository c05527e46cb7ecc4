/**
 * Test ports and helpers for the ledger / quotes / transactions tests: a scriptable Rail, a
 * counting FxRates, a tiny Directory, seeding of customers and accounts straight into the store,
 * and the ledger / event invariants the tests and the property test check after every step.
 */
import { makeMemoryStore, layer as memoryStore } from "@paycore/store-memory"
import { ledgerViolations } from "@paycore/testkit"
import { Clock, Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import type { AccountInfo, ExternalAccount, InternalAccountRecord, PaymentRail } from "../src/accounts/model.ts"
import type { CardNetwork, CardSimulations, Cards, CardsWorker } from "../src/cards/service.ts"
import type { Customer } from "../src/customers/model.ts"
import { CardsLayer, PaymentsLayer } from "../src/engine.ts"
import { defaultCurrencyConfig } from "../src/platform/currencies.ts"
import type { PlatformConfig, PlatformCurrencyConfig } from "../src/platform/model.ts"
import { PlatformConfigService } from "../src/platform/service.ts"
import { CardIssuer, type CardIssuerService } from "../src/ports/card-issuer.ts"
import { CardNetworkSimulator, type CardNetworkSimulatorService } from "../src/ports/card-network-simulator.ts"
import { Directory, type UmaReceiver } from "../src/ports/directory.ts"
import { FxRates } from "../src/ports/fx.ts"
import { Ids } from "../src/ports/ids.ts"
import { KycProvider } from "../src/ports/kyc.ts"
import { Notifier } from "../src/ports/notifier.ts"
import { type Payout, type PayoutStatus, Rail, type RailError } from "../src/ports/rail.ts"
import { Screening, type ScreeningService } from "../src/ports/screening.ts"
import { Store } from "../src/ports/store.ts"
import type { CreateQuoteRequest } from "../src/quotes/model.ts"
import { Quotes } from "../src/quotes/service.ts"
import { Sca } from "../src/sca/service.ts"
import { SCA_SESSION_SECONDS } from "../src/sca/sessions.ts"
import { isoAfter, isoOf } from "../src/shared/time.ts"
import { incomingPaymentMachine, outgoingPaymentMachine } from "../src/transactions/machine.ts"
import type { FailureReason, TransactionRecord } from "../src/transactions/model.ts"
import { Transactions } from "../src/transactions/service.ts"

export const T0 = Date.parse("2026-03-02T12:00:00.000Z")

// ---- Rail ----

/** What the test rail does with one payout (keyed by transaction id; the default settles). */
export type Outcome =
  | { readonly _tag: "Settle"; readonly afterSeconds?: number }
  | {
      readonly _tag: "Fail"
      readonly reason: FailureReason
      readonly refundSucceeds: boolean
      readonly afterSeconds?: number
    }
  | { readonly _tag: "Return"; readonly afterSeconds?: number; readonly returnAfterSeconds?: number }
  /** `submit` refuses the payout (terminal). */
  | { readonly _tag: "Reject"; readonly reason: FailureReason }
  /** `submit` fails retryably `times` times, then accepts and settles. */
  | { readonly _tag: "Flaky"; readonly times: number }

const DEFAULT_SECONDS = 60

export interface TestRail {
  readonly service: Rail["Service"]
  readonly plan: (transactionId: string, outcome: Outcome) => void
  readonly submissions: ReadonlyArray<Payout>
}

export const makeTestRail = (): TestRail => {
  const plans = new Map<string, Outcome>()
  const flakyLeft = new Map<string, number>()
  const submitted = new Map<string, { readonly payout: Payout; readonly atMs: number }>()
  const submissions: Array<Payout> = []
  let n = 0
  const service = Rail.of({
    submit: (payout) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const plan = plans.get(payout.transactionId) ?? { _tag: "Settle" }
        if (plan._tag === "Reject") {
          return Effect.fail<RailError>({
            _tag: "RailError",
            retryable: false,
            reason: plan.reason,
            message: "rejected"
          })
        }
        if (plan._tag === "Flaky") {
          const left = flakyLeft.get(payout.transactionId) ?? plan.times
          if (left > 0) {
            flakyLeft.set(payout.transactionId, left - 1)
            return Effect.fail<RailError>({
              _tag: "RailError",
              retryable: true,
              reason: "QUOTE_EXECUTION_FAILED",
              message: "try again"
            })
          }
        }
        submissions.push(payout)
        const reference = `test:${++n}:${payout.transactionId}`
        submitted.set(reference, { payout, atMs: now })
        const after = "afterSeconds" in plan && plan.afterSeconds !== undefined ? plan.afterSeconds : DEFAULT_SECONDS
        return Effect.succeed({ reference, expectedSettlementAt: new Date(now + after * 1000).toISOString() })
      }),
    status: (reference) =>
      Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<PayoutStatus, RailError> => {
        const s = submitted.get(reference)
        if (s === undefined) {
          return Effect.fail({
            _tag: "RailError",
            retryable: false,
            reason: "QUOTE_EXECUTION_FAILED",
            message: "unknown"
          })
        }
        const plan = plans.get(s.payout.transactionId) ?? { _tag: "Settle" }
        const after = "afterSeconds" in plan && plan.afterSeconds !== undefined ? plan.afterSeconds : DEFAULT_SECONDS
        const due = s.atMs + after * 1000
        if (now < due) return Effect.succeed({ _tag: "Pending", checkAgainAt: new Date(due).toISOString() })
        switch (plan._tag) {
          case "Fail":
            return Effect.succeed({ _tag: "Failed", reason: plan.reason, refundSucceeds: plan.refundSucceeds })
          case "Return": {
            const returnAt = due + (plan.returnAfterSeconds ?? 300) * 1000
            return Effect.succeed(
              now >= returnAt
                ? { _tag: "Returned", reason: "PAYOUT_RETURNED" }
                : { _tag: "Settled", settledAt: new Date(due).toISOString() }
            )
          }
          default:
            return Effect.succeed({ _tag: "Settled", settledAt: new Date(due).toISOString() })
        }
      }),
    settlementSeconds: (_rail: PaymentRail) => DEFAULT_SECONDS
  })
  return { service, plan: (id, outcome) => plans.set(id, outcome), submissions }
}

// ---- FX ----

export const RATES: Readonly<Record<string, string>> = {
  "USD/EUR": "0.92",
  "EUR/USD": "1.08695652173913",
  "USD/JPY": "151.25",
  "USD/BTC": "0.00001",
  "USD/USDC": "1",
  "USD/MXN": "17.25",
  "EUR/MXN": "18.75"
}

export interface TestFx {
  readonly service: FxRates["Service"]
  readonly calls: () => number
  readonly set: (pair: string, rate: string | undefined) => void
}

export const makeTestFx = (): TestFx => {
  const rates = new Map(Object.entries(RATES))
  let calls = 0
  return {
    service: FxRates.of({
      rate: (from, to) =>
        Effect.suspend(() => {
          calls++
          const rate = rates.get(`${from}/${to}`)
          return rate === undefined ? Effect.fail({ _tag: "FxUnavailable" as const, from, to }) : Effect.succeed(rate)
        })
    }),
    calls: () => calls,
    set: (pair, rate) => {
      if (rate === undefined) rates.delete(pair)
      else rates.set(pair, rate)
    }
  }
}

export const UMA_RECEIVERS: Readonly<Record<string, UmaReceiver>> = {
  "$alice@bank.example": {
    umaAddress: "$alice@bank.example",
    currencies: ["EUR", "USD"],
    minAmount: 100,
    maxAmount: 1_000_000
  },
  // a receiver whose institution asks for payer data (one field optional).
  "$bob@kyc.example": {
    umaAddress: "$bob@kyc.example",
    currencies: ["USD"],
    minAmount: 1,
    maxAmount: 1_000_000,
    requiredPayerDataFields: [
      { name: "FULL_NAME", mandatory: true },
      { name: "BIRTH_DATE", mandatory: true },
      { name: "NATIONALITY", mandatory: false }
    ]
  }
}

const directory = Directory.of({
  institutions: () => Effect.succeed([]),
  umaProviders: () => Effect.succeed([]),
  umaReceiver: (address) => Effect.succeed(UMA_RECEIVERS[address]),
  vasps: () => Effect.succeed([])
})

/** The sandbox's SCA code (SB-11): the test notifier accepts it besides the codes it sends. */
export const SCA_CODE = "123456"

/** A code the test notifier sent: the channel, the number and the text it was linked to (PSD2 dynamic linking). */
export interface SentCode {
  readonly channel: string
  readonly to: string
  readonly context: string | undefined
}

/**
 * A notifier that records what it sends (the codes apart, in the same order), and a KYC provider that asks for no
 * contact verification.
 */
const makeNotifier = (sent: Array<SentCode>, codes: Array<string>, fixedCode: string | undefined) =>
  Notifier.of({
    send: (channel, to, code, context) =>
      Effect.sync(() => {
        sent.push({ channel, to, context })
        codes.push(Redacted.value(code))
      }),
    fixedCode,
    fixedWalletCode: undefined
  })

const kycProvider = KycProvider.of({
  createLink: () => Effect.die("not used"),
  review: () => Effect.die("not used"),
  screenDocument: () => Effect.succeed({ _tag: "Accepted" }),
  contactVerification: () => ({ email: false, phone: false })
})

// ---- the environment ----

export interface TestEnv {
  readonly rail: TestRail
  readonly fx: TestFx
  /** Every code the notifier sent (SCA challenges of quotes). */
  readonly sent: ReadonlyArray<SentCode>
  /** The codes themselves, in the order of `sent`: what the customer reads off its phone. */
  readonly codes: ReadonlyArray<string>
  readonly layer: Layer.Layer<
    | Quotes
    | Transactions
    | Sca
    | Cards
    | CardNetwork
    | CardSimulations
    | CardsWorker
    | Store
    | Ids
    | Rail
    | FxRates
    | Directory
    | Notifier
    | KycProvider
    | PlatformConfigService
  >
}

export interface EnvOptions {
  /** Wraps the scripted rail (a rail that blocks or fails on cue). */
  readonly rail?: (rail: Rail["Service"]) => Rail["Service"]
  /** Wraps the memory store (a store that fails on cue). */
  readonly store?: (store: Store["Service"]) => Store["Service"]
  /** Another store instead of the memory store (the property test on PostgreSQL). */
  readonly storeLayer?: Layer.Layer<Store, unknown>
  /** The card issuer (e.g. the testkit's `scriptedCardIssuer().service`); none by default: cards are 501. */
  readonly cardIssuer?: CardIssuerService
  /** The card network simulator; none by default (the simulations are 404). */
  readonly cardNetworkSimulator?: CardNetworkSimulatorService
  /**
   * `"sandbox"` (the default): every SCA code is the sandbox's `SCA_CODE`; `"random"`: the engine draws each code,
   * so only the code last sent for a challenge is right (a resent code kills the one before).
   */
  readonly scaCodes?: "sandbox" | "random"
  /** Compliance screening of payouts; by default the port's, which clears every payout. */
  readonly screening?: ScreeningService
}

export const makeEnv = (seed = 7, options: EnvOptions = {}): TestEnv => {
  const rail = makeTestRail()
  const fx = makeTestFx()
  const sent: Array<SentCode> = []
  const codes: Array<string> = []
  const wrapStore = options.store
  const ports = Layer.mergeAll(
    options.storeLayer !== undefined
      ? Layer.orDie(options.storeLayer)
      : wrapStore === undefined
        ? memoryStore
        : Layer.effect(Store, Effect.map(makeMemoryStore, wrapStore)),
    Ids.layerSeeded(seed),
    Layer.succeed(Rail, options.rail === undefined ? rail.service : options.rail(rail.service)),
    Layer.succeed(FxRates, fx.service),
    Layer.succeed(Directory, directory),
    Layer.succeed(Notifier, makeNotifier(sent, codes, options.scaCodes === "random" ? undefined : SCA_CODE)),
    Layer.succeed(KycProvider, kycProvider),
    options.cardIssuer === undefined ? Layer.empty : Layer.succeed(CardIssuer, options.cardIssuer),
    options.cardNetworkSimulator === undefined
      ? Layer.empty
      : Layer.succeed(CardNetworkSimulator, options.cardNetworkSimulator),
    options.screening === undefined ? Layer.empty : Layer.succeed(Screening, options.screening)
  )
  const layer = Layer.mergeAll(PaymentsLayer, CardsLayer, Sca.layer).pipe(
    Layer.provideMerge(PlatformConfigService.layer),
    Layer.provideMerge(ports)
  )
  return { rail, fx, sent, codes, layer }
}

/** Puts the TestClock on a fixed, readable instant. */
export const startClock = TestClock.setTime(T0)

// ---- seeding ----

const iso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

export const seedCustomer = Effect.fnUntraced(function* (
  options: { readonly terms?: boolean; readonly deleted?: boolean; readonly currencies?: ReadonlyArray<string> } = {}
) {
  const store = yield* Store
  const ids = yield* Ids
  const id = yield* ids.make("Customer")
  const now = yield* iso
  const customer: Customer = {
    id,
    platformCustomerId: `p-${id.slice(-6)}`,
    customerType: "INDIVIDUAL",
    kycStatus: "APPROVED",
    currencies: options.currencies ?? ["USD"],
    umaAddress: `$c${id.slice(-6)}@paycore.test`,
    contactVerification: { email: "VERIFIED", phone: "VERIFIED" },
    ...(options.terms === false
      ? {}
      : {
          endUserTermsConsent: {
            acceptedAt: now,
            ipAddress: "127.0.0.1",
            termsVersion: "2025-10-13",
            acceptanceMethod: "CHECKBOX" as const
          }
        }),
    isDeleted: options.deleted ?? false,
    createdAt: now,
    updatedAt: now
  }
  yield* Effect.orDie(store.customers.insert(customer))
  return customer
})

export const seedInternalAccount = Effect.fnUntraced(function* (
  customerId: string | undefined,
  currency: string,
  options: { readonly status?: InternalAccountRecord["status"]; readonly type?: InternalAccountRecord["type"] } = {}
) {
  const store = yield* Store
  const ids = yield* Ids
  const id = yield* ids.make("InternalAccount")
  const now = yield* iso
  const account: InternalAccountRecord = {
    id,
    ...(customerId === undefined ? {} : { customerId: customerId as InternalAccountRecord["customerId"] & string }),
    type: options.type ?? "INTERNAL_FIAT",
    status: options.status ?? "ACTIVE",
    currency: currency as InternalAccountRecord["currency"],
    fundingPaymentInstructions: [],
    cardCapabilities: { supportsSpendLimits: false, supportsTransactionCountLimit: false },
    createdAt: now,
    updatedAt: now
  }
  yield* Effect.orDie(store.internalAccounts.insert(account))
  return account
})

export const usAccount = (accountNumber = "123456789"): AccountInfo => ({
  accountType: "US_ACCOUNT",
  accountNumber,
  routingNumber: "021000021",
  beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Jane Payee" }
})

export const ibanAccount: AccountInfo = {
  accountType: "IBAN",
  iban: "DE89370400440532013000",
  beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Jean Payee", countryOfResidence: "FR" }
}

export const seedExternalAccount = Effect.fnUntraced(function* (
  customerId: string,
  currency: string,
  options: {
    readonly status?: ExternalAccount["status"]
    readonly rails?: ReadonlyArray<PaymentRail>
    readonly accountInfo?: AccountInfo
  } = {}
) {
  const store = yield* Store
  const ids = yield* Ids
  const id = yield* ids.make("ExternalAccount")
  const now = yield* iso
  const account: ExternalAccount = {
    id,
    customerId: customerId as NonNullable<ExternalAccount["customerId"]>,
    status: options.status ?? "ACTIVE",
    currency: currency as ExternalAccount["currency"],
    ownershipType: "FIRST_PARTY",
    defaultUmaDepositAccount: false,
    paymentRails: options.rails ?? (currency === "USD" ? ["ACH", "WIRE", "RTP"] : ["SEPA", "SEPA_INSTANT"]),
    accountInfo: options.accountInfo ?? (currency === "USD" ? usAccount() : ibanAccount),
    createdAt: now,
    updatedAt: now
  }
  yield* Effect.orDie(store.externalAccounts.insert(account))
  return account
})

/** A config patch written straight to the store; a currency given by its code alone takes the default settings. */
export type ConfigPatch = Omit<Partial<PlatformConfig>, "supportedCurrencies"> & {
  readonly supportedCurrencies?: ReadonlyArray<string | PlatformCurrencyConfig>
}

export const setConfig = Effect.fnUntraced(function* ({ supportedCurrencies, ...patch }: ConfigPatch) {
  const store = yield* Store
  const now = yield* iso
  const current = yield* store.config.get()
  const base: PlatformConfig = current ?? {
    id: "PlatformConfig:test",
    umaDomain: "paycore.test",
    supportedCurrencies: ["USD", "EUR"].map(defaultCurrencyConfig),
    isRegulatedFinancialInstitution: false,
    skipVerificationPaperwork: false,
    feeConfigs: [],
    transactionLimits: [],
    createdAt: now,
    updatedAt: now
  }
  const currencies = supportedCurrencies?.map((c) => (typeof c === "string" ? defaultCurrencyConfig(c) : c))
  yield* store.config.put({
    ...base,
    ...patch,
    ...(currencies === undefined ? {} : { supportedCurrencies: currencies }),
    updatedAt: now
  })
})

// ---- invariants ----

export interface BalanceView {
  readonly posted: number
  readonly pendingDebits: number
  readonly pendingCredits: number
  readonly available: number
}

export const balance = Effect.fnUntraced(function* (account: string, currency: string) {
  const store = yield* Store
  const [b] = yield* store.ledger.balances([{ account, currency }])
  const posted = b?.posted ?? 0
  const pendingDebits = b?.pendingDebits ?? 0
  return {
    posted,
    pendingDebits,
    pendingCredits: b?.pendingCredits ?? 0,
    available: posted - pendingDebits
  } satisfies BalanceView
})

export { ledgerViolations }

/** The event types of one subject, in sequence order. */
export const eventsOf = Effect.fnUntraced(function* (subject: string) {
  const store = yield* Store
  const page = yield* store.outbox.list({ subject }, { limit: 100, sortOrder: "asc" })
  return [...page.data].sort((a, b) => a.sequence - b.sequence).map((r) => r.type)
})

type MachineMoves = Record<string, Record<string, { to: string; emits: ReadonlyArray<string> }>>

/** `state` and the states a machine reaches from it by moves that emit nothing, in order of discovery. */
const silentlyReachable = (transitions: MachineMoves, state: string): ReadonlyArray<string> => {
  const reached = [state]
  for (let i = 0; i < reached.length; i++) {
    for (const move of Object.values(transitions[reached[i]!] ?? {})) {
      if (move.emits.length === 0 && !reached.includes(move.to)) reached.push(move.to)
    }
  }
  return reached
}

/**
 * Whether the events of a transaction are exactly a walk of its machine from creation to its
 * current state (each move's events, in order; a move that emits nothing, as `AUTHORIZE_FUNDING`
 * bringing a real-time-funded payment back to PENDING, may come between them). Returns a
 * description of the problem, or undefined.
 */
export const eventOrderProblem = Effect.fnUntraced(function* (record: TransactionRecord) {
  const events = yield* eventsOf(record.id)
  const outgoing = record.transaction.type === "OUTGOING"
  const machine = outgoing ? outgoingPaymentMachine : incomingPaymentMachine
  const transitions = machine.transitions as MachineMoves
  let i = 0
  if (outgoing) {
    if (events[0] !== "OUTGOING_PAYMENT.PENDING") return `first event ${events[0]} is not OUTGOING_PAYMENT.PENDING`
    i = 1
  } else if (events[0] === "INCOMING_PAYMENT.PENDING" && record.transaction.source.sourceType !== "UMA_ADDRESS") {
    // A transfer-in pull announces itself PENDING at creation; an UMA payment's PENDING is its AWAIT_APPROVAL move.
    i = 1
  }
  // Two moves may emit the same events (a payout executed or held, Q-38, both announce PROCESSING): every walk the
  // events allow is tried, and one that ends where the row is will do.
  const walks = (state: string, at: number): ReadonlyArray<string> => {
    if (at === events.length) return [state]
    return silentlyReachable(transitions, state)
      .flatMap((from) => Object.values(transitions[from] ?? {}))
      .filter((m) => m.emits.length > 0 && m.emits.every((e, k) => events[at + k] === e))
      .flatMap((m) => walks(m.to, at + m.emits.length))
  }
  const ends = walks(machine.initial, i)
  if (ends.length === 0) return `the events are no walk of ${machine.name} (events: ${events.join(", ")})`
  if (!ends.some((end) => silentlyReachable(transitions, end).includes(record.state))) {
    return `events end in ${ends.join(" or ")}, the row is ${record.state} (events: ${events.join(", ")})`
  }
  return undefined
})

/**
 * Issue 18: the payment's timeline is a walk of its machine from its creation to the row's state, each entry a legal
 * move naming the move's first webhook, and the moves' webhooks are the outbox's, in order (`undefined` when so).
 */
export const timelineProblem = Effect.fnUntraced(function* (record: TransactionRecord) {
  const store = yield* Store
  const entries = (yield* store.transitions.list({ transactionId: record.id }, { limit: 100, sortOrder: "asc" })).data
  const outgoing = record.transaction.type === "OUTGOING"
  const machine = outgoing ? outgoingPaymentMachine : incomingPaymentMachine
  const transitions = machine.transitions as MachineMoves
  const [created, ...moves] = entries
  if (created === undefined || created.from !== undefined || created.state !== machine.initial) {
    return `the timeline does not start with its creation in ${machine.initial}`
  }
  const emitted: Array<string> = created.event === undefined ? [] : [created.event]
  let state: string = created.state
  for (const entry of moves) {
    if (entry.from !== state) return `a move from ${entry.from} follows ${state}`
    const move = Object.values(transitions[state] ?? {}).find((m) => m.to === entry.state && m.emits[0] === entry.event)
    if (move === undefined) return `${entry.from} → ${entry.state} (${entry.event}) is no move of ${machine.name}`
    emitted.push(...move.emits)
    state = entry.state
  }
  if (state !== record.state) return `the timeline ends in ${state}, the row is ${record.state}`
  const events = yield* eventsOf(record.id)
  if (emitted.join() !== events.join())
    return `the timeline's webhooks ${emitted.join()} are not the outbox's ${events}`
  return undefined
})

/** All transactions in the store. */
export const allTransactions = Effect.gen(function* () {
  const store = yield* Store
  const page = yield* store.transactions.list({}, { limit: 100_000, sortOrder: "asc" })
  return page.data
})

/**
 * What is wrong with the payments in the store, as a list that should be empty: the ledger's violations, and each
 * transaction whose events or timeline are no walk of its machine (with its id).
 */
export const paymentProblems = Effect.gen(function* () {
  const problems: Array<string> = [...(yield* ledgerViolations)]
  for (const record of yield* allTransactions) {
    for (const problem of [yield* eventOrderProblem(record), yield* timelineProblem(record)]) {
      if (problem !== undefined) problems.push(`${record.id}: ${problem}`)
    }
  }
  return problems
})

/** Runs the worker after moving the TestClock; a worker step that failed unexpectedly fails the test. */
export const advance = (seconds: number) =>
  Effect.gen(function* () {
    yield* TestClock.adjust(seconds * 1000)
    const report = yield* (yield* Transactions).processDue()
    if (report.errors > 0) return yield* Effect.die(new Error(`${report.errors} worker steps failed`))
    return report
  })

// ---- payment scenarios ----

/** Every failure reason a payout can end with. */
export const FAILURE_REASONS: ReadonlyArray<FailureReason> = [
  "QUOTE_EXECUTION_FAILED",
  "LIMIT_EXCEEDED",
  "ACCOUNT_CANNOT_RECEIVE",
  "ACCOUNT_INVALID",
  "COMPLIANCE_REJECTED"
]

/**
 * Starts the clock and seeds a consenting customer with a USD account (funded with `funding` via
 * the sandbox, unless 0), optionally a EUR account, and a USD and a EUR payee.
 */
export const seedPayer = <Eur extends boolean = false>(
  funding = 100_000,
  options: { readonly eurAccount?: Eur } = {}
) =>
  Effect.gen(function* () {
    yield* startClock
    const customer = yield* seedCustomer()
    const account = yield* seedInternalAccount(customer.id, "USD")
    const eurAccount = (
      options.eurAccount === true ? yield* seedInternalAccount(customer.id, "EUR") : undefined
    ) as Eur extends true ? InternalAccountRecord : undefined
    const usdPayee = yield* seedExternalAccount(customer.id, "USD")
    const eurPayee = yield* seedExternalAccount(customer.id, "EUR")
    if (funding > 0) yield* (yield* Transactions).fundSandbox(account.id, funding)
    return { customer, account, eurAccount, usdPayee, eurPayee }
  })

/** `seedPayer`, in Germany (subject to SCA) with a verified phone and a live SCA session. */
export const seedScaSubjectPayer = (funding = 100_000) =>
  Effect.gen(function* () {
    const payer = yield* seedPayer(funding)
    const store = yield* Store
    const ids = yield* Ids
    const nowMs = yield* Clock.currentTimeMillis
    const customer = { ...payer.customer, region: "DE", phoneNumber: "+4915112345678" } as typeof payer.customer
    yield* Effect.orDie(store.customers.update(customer))
    yield* Effect.orDie(
      store.scaSessions.insert({
        id: yield* ids.make("ScaSession"),
        customerId: customer.id,
        factor: "SMS_OTP",
        endUserIp: "203.0.113.42",
        challengeId: yield* ids.make("ScaChallenge"),
        createdAt: isoOf(nowMs),
        expiresAt: isoAfter(nowMs, SCA_SESSION_SECONDS)
      })
    )
    return { ...payer, customer }
  })

/** A quote request paying `amount` (sending side locked) from an internal account to a payee account. */
export const payeeQuote = (accountId: string, payeeId: string, amount: number): CreateQuoteRequest => ({
  source: { sourceType: "ACCOUNT", accountId: accountId as never },
  destination: { destinationType: "ACCOUNT", accountId: payeeId },
  lockedCurrencySide: "SENDING",
  lockedCurrencyAmount: amount
})

/** A retryable rail failure, as a failed effect. */
export const retryableRailError = (message: string) =>
  Effect.fail<RailError>({ _tag: "RailError", retryable: true, reason: "QUOTE_EXECUTION_FAILED", message })

/** Quotes `amount` from an account to a payee, scripts the rail's outcome for it (if given) and executes it. */
export const executePayment = Effect.fnUntraced(function* (
  env: TestEnv,
  accountId: string,
  payeeId: string,
  amount: number,
  outcome?: Outcome
) {
  const quotes = yield* Quotes
  const quote = yield* quotes.create(payeeQuote(accountId, payeeId, amount))
  if (outcome !== undefined) env.rail.plan(quote.transactionId, outcome)
  yield* quotes.execute(quote.id)
  return quote
})
