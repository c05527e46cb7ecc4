/**
 * Random command sequences over card transactions (docs/design/cards.md, "Property test"; memory store, TestClock):
 * two cardholders, three cards (two sharing a fiat source, one with an embedded wallet first), funding,
 * authorizations of every kind with the sandbox's descriptor outcomes (002, 003, 005, 006), advices, clearings
 * (partial, full, over, zero, refused pulls), returns and reversals, freeze / unfreeze / close, limits and sources
 * patched, platform caps, a delegated key created and revoked, time (+30 s, the next UTC midnight) and worker passes.
 * After every step: the ledger balances, no internal account is overdrawn, every card transaction's holds and amounts
 * agree with its transfers, its events walk the machine and none is `EXCEPTION` / `REFUNDED`; the day's counters are
 * the sum of the day's approvals; and each approval was allowed when it was made (card `ACTIVE`, within the caps in
 * force, a wallet only with an `ACTIVE` key).
 */

import { seedCard } from "@paycore/testkit"
import { Clock, Effect, type Layer } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import type {
  AuthorizationRequest,
  CardRecord,
  CardTransactionKind,
  CardTransactionRecord
} from "../src/cards/model.ts"
import { cardCounters } from "../src/cards/model.ts"
import { CardsWorker } from "../src/cards/service.ts"
import { Store } from "../src/ports/store.ts"
import { Transactions } from "../src/transactions/service.ts"
import type { DelegatedKeyRecord } from "../src/wallet-auth/model.ts"
import {
  activeDelegatedKey,
  authorize,
  cardInvariantProblems,
  cardTx,
  cardWorld,
  deliver,
  revokeKey,
  setCardState
} from "./card-kit.ts"
import { makeEnv, setConfig, startClock } from "./fixtures.ts"

type Suffix = "100" | "002" | "003" | "005" | "006"

/**
 * Which transactions a follow-up event picks from: any of the run's, those it can act on by their amounts alone (an
 * open hold, a net settled part of a purchase, a posted return), those of these on a closed card (CD-24: a return
 * after the close), or the run's latest, so that the rarer paths are met.
 */
type Among = "any" | "live" | "closed" | "last"

type Command =
  | { readonly t: "fund"; readonly account: number; readonly amount: number }
  | {
      readonly t: "authorize"
      readonly card: number
      readonly amount: number
      readonly kind: CardTransactionKind
      readonly suffix: Suffix
      /** The pull result of 005 / 006 is due 30 s later (else 006 fails at once, as the sandbox does). */
      readonly late: boolean
    }
  | { readonly t: "advice"; readonly tx: number; readonly among: Among; readonly amount: number }
  | {
      readonly t: "clear"
      readonly tx: number
      readonly among: Among
      readonly mode: "part" | "full" | "over" | "zero"
      readonly refused: boolean
    }
  | { readonly t: "return"; readonly tx: number; readonly among: Among; readonly percent: number }
  | { readonly t: "reversal"; readonly tx: number; readonly among: Among }
  | { readonly t: "state"; readonly card: number; readonly to: "ACTIVE" | "FROZEN" | "CLOSED" }
  | {
      readonly t: "limits"
      readonly card: number
      readonly perTransaction: number | undefined
      readonly perDay: number | undefined
      readonly count: number | undefined
    }
  | { readonly t: "sources"; readonly card: number }
  | {
      readonly t: "caps"
      readonly perTransaction: number | null
      readonly perDay: number | null
      readonly count: number | null
    }
  | { readonly t: "key" }
  | { readonly t: "time"; readonly seconds: 30 | "midnight" }
  | { readonly t: "worker" }

const among = fc.constantFrom<Among>("any", "any", "live", "live", "closed")

const limit = (min: number, max: number) => fc.option(fc.integer({ min, max }), { nil: undefined })
const cap = (min: number, max: number) => fc.option(fc.integer({ min, max }), { nil: null })

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("fund" as const),
      account: fc.nat(2),
      amount: fc.integer({ min: 1, max: 8_000 })
    })
  },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant("authorize" as const),
      card: fc.nat(2),
      amount: fc.integer({ min: 1, max: 4_000 }),
      kind: fc.constantFrom<CardTransactionKind>(
        "AUTHORIZATION",
        "AUTHORIZATION",
        "AUTHORIZATION",
        "FINANCIAL",
        "CREDIT",
        "FINANCIAL_CREDIT",
        "CREDIT_ADVICE"
      ),
      suffix: fc.constantFrom<Suffix>("100", "100", "100", "002", "003", "005", "006"),
      late: fc.boolean()
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("advice" as const),
      tx: fc.nat(30),
      among,
      amount: fc.integer({ min: 1, max: 6_000 })
    })
  },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("clear" as const),
      tx: fc.nat(30),
      among,
      mode: fc.constantFrom("part" as const, "full" as const, "over" as const, "zero" as const),
      refused: fc.boolean()
    })
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("return" as const),
      tx: fc.nat(30),
      among,
      percent: fc.integer({ min: 1, max: 120 })
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant("reversal" as const), tx: fc.nat(30), among })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("state" as const),
      card: fc.nat(2),
      to: fc.constantFrom("ACTIVE" as const, "FROZEN" as const, "FROZEN" as const, "CLOSED" as const)
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("limits" as const),
      card: fc.nat(2),
      perTransaction: limit(500, 5_000),
      perDay: limit(1_000, 12_000),
      count: limit(1, 6)
    })
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("sources" as const), card: fc.nat(2) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("caps" as const),
      perTransaction: cap(500, 5_000),
      perDay: cap(1_000, 12_000),
      count: cap(1, 6)
    })
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("key" as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("time" as const),
      seconds: fc.constantFrom(30 as const, "midnight" as const)
    })
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("worker" as const) }) }
)

const pick = <A>(list: ReadonlyArray<A>, n: number): A | undefined =>
  list.length === 0 ? undefined : list[n % list.length]

const lower = (a: number | null | undefined, b: number | null | undefined): number | undefined =>
  a == null ? (b ?? undefined) : b == null ? a : Math.min(a, b)

/** The states in which a purchase takes returns and their reversals (the model's own list, not the machine's). */
const RETURNABLE: ReadonlySet<string> = new Set(["PARTIALLY_SETTLED", "SETTLED", "EXPIRED"])

/**
 * A purchase cleared in part, then its card closed (CD-24): three commands in a row, so that the returns and
 * reversals that follow (`among: "closed"`) meet an `EXPIRED` purchase with a settled part within a few runs.
 */
const closeAfterPart: fc.Arbitrary<ReadonlyArray<Command>> = fc
  .record({ card: fc.nat(2), amount: fc.integer({ min: 2, max: 3_000 }) })
  .map(({ card, amount }) => [
    { t: "authorize", card, amount, kind: "AUTHORIZATION", suffix: "100", late: false },
    { t: "clear", tx: 0, among: "last", mode: "part", refused: false },
    { t: "state", card, to: "CLOSED" }
  ])

/** A run's commands: up to `maxLength` single ones and now and then the close-after-part group of three. */
const commandsOf = (maxLength: number): fc.Arbitrary<ReadonlyArray<Command>> =>
  fc
    .array(fc.oneof({ weight: 30, arbitrary: command.map((c) => [c]) }, { weight: 1, arbitrary: closeAfterPart }), {
      minLength: 1,
      maxLength,
      size: "max"
    })
    .map((groups) => groups.flat())

/** One run: the world, then each command and the checks after it; the first failing step's problems, or undefined. */
const scenario = (
  commands: ReadonlyArray<Command>,
  storeLayer: Layer.Layer<Store, unknown> | undefined,
  tally: (key: string) => void
) => {
  const env = makeEnv(11, storeLayer === undefined ? {} : { storeLayer })
  return Effect.gen(function* () {
    yield* startClock
    const store = yield* Store
    const first = yield* cardWorld([20_000, { amount: 20_000, wallet: true }])
    const [fiatA, walletA] = first.accounts
    const sharing = yield* seedCard(first.customer.id, [fiatA!.id])
    const second = yield* cardWorld([10_000])
    // card 0: the wallet first, then the fiat account; card 1: the same fiat account; card 2: another cardholder's.
    const cards: Array<CardRecord> = [first.card, sharing, second.card]
    const accounts = [fiatA!.id, walletA!.id, second.accounts[0]!.id]
    const walletBinding = first.card.bindings[0]!
    let key: DelegatedKeyRecord | undefined
    const txs: Array<CardTransactionRecord> = []
    // The day's approved purchases per card, as the counters must show them.
    const approved = new Map<string, { spend: number; count: number }>()
    const nowIso = () => Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

    const check = (step: string, extra: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const problems = [...extra, ...(yield* cardInvariantProblems)]
        const day = (yield* nowIso()).slice(0, 10)
        for (const card of cards) {
          const want = approved.get(`${card.id}:${day}`) ?? { spend: 0, count: 0 }
          const spend = yield* store.counters.get(cardCounters.spend(card.id, day))
          const count = yield* store.counters.get(cardCounters.count(card.id, day))
          if (spend !== want.spend || count !== want.count) {
            problems.push(`${card.id} ${day}: counters ${spend}/${count}, approvals ${want.spend}/${want.count}`)
          }
        }
        return problems.length > 0 ? { step, problems } : undefined
      })

    for (const [i, c] of commands.entries()) {
      const extra: Array<string> = []
      switch (c.t) {
        case "fund":
          yield* (yield* Transactions).fundSandbox(accounts[c.account]!, c.amount)
          break
        case "authorize": {
          const card = (yield* store.cards.get(cards[c.card]!.id))!
          const config = yield* store.config.get()
          const request: Partial<AuthorizationRequest> = {
            kind: c.kind,
            merchant: { descriptor: `MERCHANT ${c.suffix}` },
            ...(c.suffix === "002" ? { forcedDecline: "INSUFFICIENT_FUNDS" as const } : {}),
            ...(c.suffix === "003" ? { forcedDecline: "CARD_PAUSED" as const } : {}),
            ...(c.suffix === "005" || c.suffix === "006" ? { awaitPullResult: true } : {})
          }
          const decision = yield* authorize(card, c.amount, request)
          const tx = yield* cardTx(decision.cardTransactionId)
          txs.push(tx)
          if (decision._tag !== "Approved") break
          const now = yield* nowIso()
          if (card.state !== "ACTIVE") extra.push(`${tx.id} approved on a ${card.state} card`)
          if (tx.accountId === walletA!.id && key === undefined) extra.push(`${tx.id} paid by a wallet without a key`)
          if (c.kind === "AUTHORIZATION" || c.kind === "FINANCIAL") {
            const perTx = lower(card.maxSpendPerTransaction, config?.cardConfigs?.maxSpendPerTransaction)
            const perDay = lower(card.maxSpendPerDay, config?.cardConfigs?.maxSpendPerDay)
            const perCount = lower(card.maxTransactionsPerDay, config?.cardConfigs?.maxTransactionsPerDay)
            const dayKey = `${card.id}:${now.slice(0, 10)}`
            const sum = approved.get(dayKey) ?? { spend: 0, count: 0 }
            const next = { spend: sum.spend + c.amount, count: sum.count + 1 }
            if (perTx !== undefined && c.amount > perTx) extra.push(`${tx.id}: ${c.amount} over the cap ${perTx}`)
            if (perDay !== undefined && next.spend > perDay) extra.push(`${tx.id}: day at ${next.spend} > ${perDay}`)
            if (perCount !== undefined && next.count > perCount) extra.push(`${tx.id}: ${next.count} > ${perCount}`)
            approved.set(dayKey, next)
          }
          // The sandbox's network: 005 confirms the pull 30 s later, 006 fails it at once (or, from a real
          // processor, later: after a clearing or a return).
          const later = { dueAt: new Date(Date.parse(now) + 30_000).toISOString() }
          if (c.suffix === "005") yield* deliver(tx, { _tag: "PullResult", outcome: "CONFIRMED" }, later)
          if (c.suffix === "006") {
            yield* deliver(tx, { _tag: "PullResult", outcome: "FAILED" }, c.late ? later : {})
          }
          break
        }
        case "advice":
        case "clear":
        case "return":
        case "reversal": {
          const current = yield* Effect.forEach(txs, (t) => cardTx(t.id))
          const closed = new Set<string>()
          for (const card of cards) if ((yield* store.cards.get(card.id))?.state === "CLOSED") closed.add(card.id)
          const candidates =
            c.among === "any"
              ? current
              : c.among === "last"
                ? current.slice(-1)
                : current.filter(
                    (t) =>
                      (c.among === "live" || closed.has(t.cardId)) &&
                      (c.t === "advice" || c.t === "clear"
                        ? t.heldAmount > 0
                        : c.t === "return"
                          ? t.direction === "DEBIT" && t.settledAmount > t.refundedAmount
                          : t.refundedAmount > 0)
                  )
          const tx = pick(candidates, c.tx)
          if (tx === undefined) break
          if (c.t === "advice") yield* deliver(tx, { _tag: "Advice", amount: c.amount })
          else if (c.t === "reversal") {
            const outcome = yield* deliver(tx, { _tag: "ReturnReversal" })
            const moved = yield* cardTx(tx.id)
            tally(`reversal on ${tx.state}: ${outcome._tag}`)
            // A posted return of a purchase can always be reversed: pulled from the account, or fronted (CD-51).
            const reversible = tx.direction === "DEBIT" && RETURNABLE.has(tx.state) && tx.refundedAmount > 0
            if (reversible !== (outcome._tag === "Applied")) {
              extra.push(`${tx.id}: a reversal on ${tx.state} refunded ${tx.refundedAmount} was ${outcome._tag}`)
            }
            if (outcome._tag === "Applied" && moved.state !== tx.state && moved.state !== "PULL_FAILED") {
              extra.push(`${tx.id}: a reversal moved ${tx.state} to ${moved.state}`)
            }
          } else if (c.t === "return") {
            const net = tx.settledAmount - tx.refundedAmount
            const amount = Math.max(1, Math.floor((net * c.percent) / 100))
            const outcome = yield* deliver(tx, { _tag: "Return", amount })
            tally(
              `return on ${tx.state}${tx.state === "EXPIRED" && net > 0 ? " (cleared in part)" : ""}: ${outcome._tag}`
            )
            // In-flight refunds complete (CD-24, CD-49): a purchase that settled takes a return of what is not yet
            // returned, its card closed or not; nothing else does.
            const returnable = tx.direction === "DEBIT" && RETURNABLE.has(tx.state) && amount <= net
            if (returnable !== (outcome._tag === "Applied")) {
              extra.push(`${tx.id}: a return of ${amount} on ${tx.state} (net ${net}) was ${outcome._tag}`)
            }
            const after = yield* cardTx(tx.id)
            if (after.state !== tx.state) extra.push(`${tx.id}: a return moved ${tx.state} to ${after.state}`)
          } else {
            const held = tx.heldAmount
            const amount =
              c.mode === "zero"
                ? 0
                : c.mode === "full"
                  ? held
                  : c.mode === "part"
                    ? Math.max(1, Math.floor(held / 2))
                    : held + 1 + (c.tx % 500)
            yield* deliver(tx, { _tag: "Clearing", amount, ...(c.refused ? { pullRefused: true } : {}) })
          }
          break
        }
        case "state": {
          const card = (yield* store.cards.get(cards[c.card]!.id))!
          const legal =
            (c.to === "FROZEN" && card.state === "ACTIVE") ||
            (c.to === "ACTIVE" && card.state === "FROZEN") ||
            (c.to === "CLOSED" && card.state !== "CLOSED")
          if (!legal) break
          yield* setCardState(card, c.to)
          // A closed card's bindings are detached: the wallet's key is revoked with it (slice A's close).
          if (c.to === "CLOSED" && c.card === 0 && key !== undefined) {
            yield* revokeKey(key)
            key = undefined
          }
          break
        }
        case "limits": {
          const card = (yield* store.cards.get(cards[c.card]!.id))!
          if (card.state === "CLOSED") break
          yield* Effect.orDie(
            store.cards.update({
              ...card,
              maxSpendPerTransaction: c.perTransaction,
              maxSpendPerDay: c.perDay,
              maxTransactionsPerDay: c.count
            })
          )
          break
        }
        case "sources": {
          // The bindings in reverse priority, each keeping its id (and its key), as a PATCH reordering them.
          const card = (yield* store.cards.get(cards[c.card]!.id))!
          if (card.state === "CLOSED" || card.bindings.length < 2) break
          const bindings = [...card.bindings].reverse()
          yield* Effect.orDie(
            store.cards.update({ ...card, bindings, fundingSources: bindings.map((b) => b.accountId) })
          )
          break
        }
        case "caps":
          yield* setConfig({
            cardConfigs: {
              maxSpendPerTransaction: c.perTransaction,
              maxSpendPerDay: c.perDay,
              maxTransactionsPerDay: c.count
            }
          })
          break
        case "key": {
          const card = (yield* store.cards.get(cards[0]!.id))!
          if (key !== undefined) {
            yield* revokeKey(key)
            key = undefined
          } else if (card.state !== "CLOSED") key = yield* activeDelegatedKey(card, walletBinding)
          break
        }
        case "time":
          if (c.seconds === 30) yield* TestClock.adjust(30_000)
          else {
            const now = yield* Clock.currentTimeMillis
            yield* TestClock.adjust(86_400_000 - (now % 86_400_000))
          }
          break
        case "worker": {
          const report = yield* (yield* CardsWorker).processDue()
          if (report.errors > 0) extra.push(`${report.errors} worker steps failed`)
          break
        }
      }
      const failed = yield* check(`${i}: ${JSON.stringify(c)}`, extra)
      if (failed !== undefined) return failed
    }
    const all = yield* store.cardTransactions.list({}, { limit: 10_000, sortOrder: "asc" })
    for (const tx of all.data) {
      const part = tx.state === "EXPIRED" && tx.settledAmount > 0 ? " (cleared in part)" : ""
      tally(`${tx.state}${part}${tx.declineReason === undefined ? "" : ` ${tx.declineReason}`}`)
    }
    return undefined
  }).pipe(Effect.provide(env.layer), Effect.provide(TestClock.layer()))
}

export interface CardsPropertyOptions {
  readonly numRuns: number
  /** fast-check's seed: a fixed one makes CI repeatable. */
  readonly seed?: number
  /** A fresh store per run (default: the memory store). */
  readonly store?: () => Layer.Layer<Store, unknown>
  /** The most commands (or groups) of a run (default 40): each step's checks read every transaction. */
  readonly maxCommands?: number
}

/**
 * Runs the property over `numRuns` random sequences; throws fast-check's report (shrunk) on the first failure. Answers
 * how often each path was met over the runs: the final states of the card transactions, and the outcomes of returns
 * and reversals by the state they met (`return on EXPIRED (cleared in part): Applied` is a return after the close,
 * CD-24), so a test can require its paths (PAYCORE_STATS=1 prints them).
 */
export const checkCardsProperty = async (options: CardsPropertyOptions): Promise<ReadonlyMap<string, number>> => {
  const stats = new Map<string, number>()
  const tally = (key: string) => stats.set(key, (stats.get(key) ?? 0) + 1)
  await fc.assert(
    fc.asyncProperty(commandsOf(options.maxCommands ?? 40), async (run) => {
      const failure = await Effect.runPromise(scenario(run, options.store?.(), tally))
      if (failure !== undefined) throw new Error(JSON.stringify(failure, null, 2))
    }),
    { numRuns: options.numRuns, ...(options.seed === undefined ? {} : { seed: options.seed }) }
  )
  if (process.env.PAYCORE_STATS) console.log([...stats.entries()].sort())
  return stats
}
