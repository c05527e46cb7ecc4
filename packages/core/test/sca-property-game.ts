/**
 * The world of the SCA property test (sca-property.ts): an EEA customer (subject to SCA) and a US customer with their
 * accounts, payees and wallets, and the model of what the calls answered: which sends moved money, which wallets are
 * trusted, the EEA customer's session, each challenge slot's current code. The helpers every command uses are here
 * (sca-property-commands.ts holds the commands).
 */
import { Clock, Effect } from "effect"
import type { AccountInfo, ExternalAccount, InternalAccountRecord } from "../src/accounts/model.ts"
import { Store } from "../src/ports/store.ts"
import type { Quote } from "../src/quotes/model.ts"
import { Quotes } from "../src/quotes/service.ts"
import { lockAt } from "../src/sca/security.ts"
import { Sca } from "../src/sca/service.ts"
import { isoOf } from "../src/shared/time.ts"
import { dailyVolumeKey } from "../src/transactions/limits.ts"
import { Transactions } from "../src/transactions/service.ts"
import { seedCustomer, seedExternalAccount, seedInternalAccount, setConfig, type TestEnv } from "./fixtures.ts"

export type Who = "eu" | "us"
export type Move = "TRUST" | "UNTRUST"

/** One customer of the game: its internal accounts (the sources) and where it pays. */
export interface Party {
  readonly customerId: string
  readonly accounts: ReadonlyArray<InternalAccountRecord>
  readonly destinations: ReadonlyArray<{ readonly id: string; readonly internal: boolean }>
}

/** An external account a trust command aims at; only the EEA customer's USDC wallets can be trusted (AC-39). */
export interface TrustTarget {
  readonly id: string
  readonly owner: Who
  readonly trustable: boolean
}

/** What the model knows of one quote. */
export interface QuoteModel {
  readonly quote: Quote
  readonly who: Who
  /** How many challenges its plan has when it is challenged: a conversion step, then the payment. */
  readonly steps: number
  readonly internalDestination: boolean
  readonly realtime: boolean
  /** Whether its destination was trusted when it was executed without a challenge (undefined: not executed so). */
  trustedAtExecute: boolean | undefined
  executed: boolean
  /** A real-time-funded quote passed its challenges: its deposit may execute it (S-06). */
  fundingAuthorized: boolean
  moved: boolean
}

export interface Model {
  readonly quotes: Array<QuoteModel>
  readonly trusted: Set<string>
  /** Per challenge slot (`QUOTE|<id>`, `TRUST|<account>`, `LOGIN|<customer>`): the code last sent, and the one before. */
  readonly codes: Map<string, string>
  readonly stale: Map<string, string>
  /** The available balance of each internal account. */
  readonly expected: Map<string, number>
  /** The daily-volume count of each key, from the sends that moved money. */
  readonly volume: Map<string, number>
  /** Every UTC day the game went through. */
  readonly days: Set<string>
  /** When the EEA customer's last session ends (undefined: none, or revoked). */
  sessionUntil: number | undefined
}

/** The services, the world and the model a command works on, and the problems found so far. */
export interface Game {
  readonly env: TestEnv
  readonly store: Store["Service"]
  readonly quotes: Quotes["Service"]
  readonly transactions: Transactions["Service"]
  readonly sca: Sca["Service"]
  readonly parties: Readonly<Record<Who, Party>>
  readonly targets: ReadonlyArray<TrustTarget>
  readonly model: Model
  readonly problems: Array<string>
}

export const problem = (game: Game, text: string) => void game.problems.push(text)

// ---- calls and their answers ----

/** `PAYCORE_STATS=1` prints how often each answer occurred (generator coverage). */
export const stats = new Map<string, number>()
export const count = (key: string) => {
  if (process.env.PAYCORE_STATS) stats.set(key, (stats.get(key) ?? 0) + 1)
}

const DOMAIN_ERRORS = new Set(["InvalidInput", "Refused", "NotFound", "Forbidden", "Conflict", "LimitExceeded"])

/** The refusals a right proof (or an execute that may go ahead) can still meet: the reservation's own checks. */
export const RESERVATION_REFUSALS = new Set([
  "INSUFFICIENT_FUNDS",
  "TRANSACTION_SIZE_LIMIT_EXCEEDED",
  "DAILY_VOLUME_LIMIT_EXCEEDED"
])

type Refusal = { readonly _tag: string; readonly code?: string }
export type Attempt<A> =
  | { readonly ok: A; readonly error?: undefined }
  | { readonly ok?: undefined; readonly error: Refusal }

/** A refusal's message without its ids and numbers: one line of the statistics per kind. */
const brief = (message: string | undefined) =>
  (message ?? "")
    .replace(/[A-Za-z]+:[0-9a-f-]{36}/g, "<id>")
    .replace(/\d+/g, "n")
    .slice(0, 60)

/** A call whose domain refusal is part of the game; anything else (a defect, a store error) fails the run. */
export const attempt = <A, E extends { readonly _tag: string }, R>(
  label: string,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<Attempt<A>, E, R> =>
  effect.pipe(
    Effect.map((ok): Attempt<A> => {
      count(`${label} ok`)
      return { ok }
    }),
    Effect.catchIf(
      (e): e is E => DOMAIN_ERRORS.has(e._tag),
      (e) => {
        const error = e as Refusal
        count(`${label} ${error._tag} ${error.code ?? brief((e as { message?: string }).message)}`)
        return Effect.succeed<Attempt<A>>({ error })
      }
    )
  )

export const codeOf = (error: Refusal | undefined) => (error === undefined ? "ok" : (error.code ?? error._tag))

/** A code that is surely not `code`: its last digit moved on. */
export const wrongOf = (code: string) => `${code.slice(0, 5)}${(Number(code[5]) + 1) % 10}`

// ---- the world ----

const PHONES: Record<Who, string> = { eu: "+4915112345678", us: "+12025550123" }

const walletInfo = (n: number): AccountInfo => ({
  accountType: "ETHEREUM_WALLET",
  address: `0x${String(n).repeat(40)}`
})

/** USDC has 6 decimals: its amounts are scaled to be worth about as much as the others'. */
export const scaled = (account: InternalAccountRecord, amount: number) =>
  account.currency === "USDC" ? amount * 10_000 : amount

const seedParty = Effect.fnUntraced(function* (who: Who, region: string, currencies: ReadonlyArray<string>) {
  const store = yield* Store
  const seeded = yield* seedCustomer({ currencies })
  const customer = { ...seeded, region, phoneNumber: PHONES[who] } as typeof seeded
  yield* Effect.orDie(store.customers.update(customer))
  const accounts: Array<InternalAccountRecord> = []
  for (const currency of currencies) accounts.push(yield* seedInternalAccount(customer.id, currency))
  return { customerId: customer.id, accounts }
})

const wallet = (customerId: string, n: number) =>
  seedExternalAccount(customerId, "USDC", { accountInfo: walletInfo(n), rails: ["ETHEREUM"] })

/**
 * The two customers, their accounts, payees and wallets, on a clock already started: the EEA customer (DE) pays from
 * USD, EUR and USDC accounts to its USD and EUR bank accounts, two USDC wallets and the US customer's USD account; the
 * US customer pays from USD and USDC to its bank account, its wallet and the EEA customer's USD account.
 */
export const setUpGame = Effect.fnUntraced(function* (env: TestEnv) {
  // Every pair of the game's currencies priced (the fixtures price USD against the others).
  env.fx.set("EUR/USDC", "1.08695652173913")
  env.fx.set("USDC/USD", "1")
  env.fx.set("USDC/EUR", "0.92")
  yield* setConfig({ supportedCurrencies: ["USD", "EUR", "USDC"] })
  const eu = yield* seedParty("eu", "DE", ["USD", "EUR", "USDC"])
  const us = yield* seedParty("us", "US", ["USD", "USDC"])
  const euUsdBank = yield* seedExternalAccount(eu.customerId, "USD")
  const euEurBank = yield* seedExternalAccount(eu.customerId, "EUR")
  const walletA = yield* wallet(eu.customerId, 1)
  const walletB = yield* wallet(eu.customerId, 2)
  const usBank = yield* seedExternalAccount(us.customerId, "USD")
  const usWallet = yield* wallet(us.customerId, 3)
  const external = (a: ExternalAccount) => ({ id: a.id as string, internal: false })
  const internal = (a: InternalAccountRecord) => ({ id: a.id as string, internal: true })
  const parties: Record<Who, Party> = {
    eu: {
      ...eu,
      destinations: [
        external(walletA),
        external(euUsdBank),
        external(walletB),
        external(euEurBank),
        internal(us.accounts[0]!)
      ]
    },
    us: { ...us, destinations: [external(usBank), external(usWallet), internal(eu.accounts[0]!)] }
  }
  const targets: ReadonlyArray<TrustTarget> = [walletA, walletB, euUsdBank, usWallet].map((a) => ({
    id: a.id,
    owner: a.customerId === eu.customerId ? "eu" : "us",
    trustable: a.currency === "USDC" && a.customerId === eu.customerId
  }))
  const model: Model = {
    quotes: [],
    trusted: new Set(),
    codes: new Map(),
    stale: new Map(),
    expected: new Map(),
    volume: new Map(),
    days: new Set(),
    sessionUntil: undefined
  }
  const game: Game = {
    env,
    store: yield* Store,
    quotes: yield* Quotes,
    transactions: yield* Transactions,
    sca: yield* Sca,
    parties,
    targets,
    model,
    problems: []
  }
  return game
})

// ---- what the commands share ----

export const fund = Effect.fnUntraced(function* (game: Game, account: InternalAccountRecord, amount: number) {
  const funded = yield* attempt("fund", game.transactions.fundSandbox(account.id, amount))
  if (funded.error !== undefined) return problem(game, `funding ${account.id} refused: ${codeOf(funded.error)}`)
  game.model.expected.set(account.id, (game.model.expected.get(account.id) ?? 0) + amount)
})

export interface Gate {
  readonly now: number
  /** The customer's proofs are locked (its security row, C-41). */
  readonly locked: boolean
  /** The customer has a live session (the model, S-13). */
  readonly live: boolean
}

export const gateOf = Effect.fnUntraced(function* (game: Game, who: Who) {
  const now = yield* Clock.currentTimeMillis
  const security = yield* game.store.scaSecurity.get(game.parties[who].customerId)
  const { sessionUntil } = game.model
  const gate: Gate = {
    now,
    locked: lockAt(security, now) !== undefined,
    live: who === "eu" && sessionUntil !== undefined && now < sessionUntil
  }
  return gate
})

/** The code last sent becomes the slot's current code; the one before it is kept as stale. */
export const takeLastCode = (game: Game, slot: string) => {
  const previous = game.model.codes.get(slot)
  if (previous !== undefined) game.model.stale.set(slot, previous)
  game.model.codes.set(slot, game.env.codes[game.env.codes.length - 1]!)
}

/**
 * The codes a call sent (those after `before`): at most one, to the customer's own phone, never while its proofs are
 * locked (for a call that checks the lock), never to the US customer; it becomes the slot's current code.
 */
export const sentBy = (game: Game, before: number, slot: string, who: Who, locked: boolean, label: string) => {
  const sent = game.env.sent.slice(before)
  if (sent.length === 0) return
  if (sent.length > 1) problem(game, `${label}: ${sent.length} codes sent`)
  if (who === "us") problem(game, `${label}: a code sent to the US customer`)
  if (locked) problem(game, `${label}: a code sent while the customer is locked`)
  if (sent.some((s) => s.to !== PHONES[who])) problem(game, `${label}: a code sent to another number`)
  takeLastCode(game, slot)
}

export const quoteSlot = (q: QuoteModel) => `QUOTE|${q.quote.id}`
export const trustSlot = (move: Move, account: string) => `${move}|${account}`
export const openChallenge = (game: Game, slot: string) => game.store.scaChallenges.findUnique("openSlot", slot)

/** One of the last quotes; for authorize and resend mostly one waiting for authorization, when there is one. */
export const pickQuote = Effect.fnUntraced(function* (game: Game, n: number, preferWaiting = false) {
  const waiting: Array<QuoteModel> = []
  if (preferWaiting && n % 4 !== 3) {
    for (const q of game.model.quotes) {
      const record = yield* game.store.transactions.get(q.quote.transactionId)
      if (record?.state === "PENDING_AUTHORIZATION") waiting.push(q)
    }
  }
  const pool = waiting.length > 0 ? waiting : game.model.quotes
  const window = Math.min(pool.length, 3)
  return window === 0 ? undefined : pool[pool.length - 1 - (n % window)]
})

/** The send moved money: its source account pays the total, an internal destination gets what it receives, counted. */
export const moved = Effect.fnUntraced(function* (game: Game, q: QuoteModel) {
  const { expected, volume } = game.model
  const now = yield* Clock.currentTimeMillis
  const { quote } = q
  q.moved = true
  if (quote.source.sourceType === "ACCOUNT") {
    const source = quote.source.accountId
    expected.set(source, (expected.get(source) ?? 0) - quote.totalSendingAmount)
  }
  if (q.internalDestination && quote.destination.destinationType === "ACCOUNT") {
    const to = quote.destination.accountId
    expected.set(to, (expected.get(to) ?? 0) + quote.totalReceivingAmount)
  }
  const key = dailyVolumeKey(quote.customerId, quote.sendingCurrency.code, isoOf(now))
  volume.set(key, (volume.get(key) ?? 0) + quote.totalSendingAmount)
})

/**
 * What an execute (or a quote executed or real-time-funded at creation) answered, against the model: a challenge only
 * for the EEA customer, unlocked, with a live session, paying an untrusted destination, starting with the plan's first
 * step; money moved only for the US customer or a trusted destination (S-03, AC-38); a send that could go ahead
 * (`mayGoAhead`) is not refused but by its reservation.
 */
export const executed = Effect.fnUntraced(function* (
  game: Game,
  q: QuoteModel,
  result: Attempt<Quote>,
  gate: Gate,
  mayGoAhead: boolean,
  label: string
) {
  const destination = q.quote.destination
  const trusted = destination.destinationType === "ACCOUNT" && game.model.trusted.has(destination.accountId)
  const subject = q.who === "eu"
  if (result.error !== undefined) {
    const allowed = subject && (!gate.live || gate.locked)
    if (mayGoAhead && !allowed && !RESERVATION_REFUSALS.has(codeOf(result.error))) {
      problem(game, `${label}: refused ${codeOf(result.error)} although it could go ahead`)
    }
    return
  }
  q.executed = true
  const status = result.ok.status
  if (subject && (gate.locked || !gate.live)) problem(game, `${label}: ${status} while locked or without a session`)
  if (status === "PENDING_AUTHORIZATION") {
    if (!subject) problem(game, `${label}: the US customer's payment waits for authorization`)
    if (trusted) problem(game, `${label}: a trusted destination challenged`)
    q.trustedAtExecute = false
    const purpose = result.ok.scaChallenge?.purpose
    const first = q.steps === 2 ? "CURRENCY_CONVERSION" : q.internalDestination ? "TRANSFER" : "PAYOUT"
    if (purpose !== first) problem(game, `${label}: first challenge ${purpose}, the plan starts with ${first}`)
    return
  }
  // A real-time-funded quote that needs no challenge waits for its deposit, with its payment instructions.
  const waiting = q.realtime && status === "PENDING"
  if (!waiting && status !== "PROCESSING" && status !== "COMPLETED")
    return problem(game, `${label}: answered ${status}`)
  if (subject && !trusted) problem(game, `${label}: ${status} to an untrusted destination without a challenge`)
  q.trustedAtExecute = subject ? trusted : undefined
  if (!waiting) yield* moved(game, q)
})
