import { Effect } from "effect"
import { Store } from "../ports/store.ts"
import type { Refused, StoreError } from "../shared/errors.ts"
import { nowIso } from "../shared/time.ts"
import { insufficientFunds } from "./errors.ts"
import type { CappedCount, Debit, LedgerBalance, LedgerTransfer } from "./model.ts"
import type { LedgerPorts } from "./ports.ts"

/**
 * The double-entry ledger, TigerBeetle style, as plain Effects over the `Store` port.
 *
 * - Accounts are strings: an internal account's id, or a system account `system:<role>:<currency>`
 *   (see `systemAccount`). Balances are credit-normal: a customer's money is a positive `posted`.
 * - Every transfer debits and credits the same amount in one currency, so per currency the
 *   `posted` of all accounts sums to zero, and pending debits equal pending credits.
 * - A transfer is POSTED at once (single phase), or PENDING (a hold) and later POSTED or VOIDED
 *   by `resolve` (two phase). Transfers are immutable: a correction is a new transfer.
 * - An internal account's available balance (posted minus pending debits) never goes below zero:
 *   `record` checks and writes in one step (`ledger.recordIfAvailable`: one statement under the balances' locks
 *   on PostgreSQL) and refuses with `INSUFFICIENT_FUNDS` having written nothing. System accounts may go negative
 *   (deposits, fx liquidity).
 *
 * Call these inside the `Store.transaction` of the command they belong to. The commands above accounts call them
 * through `accounts/balance-updates.ts`, which announces the internal accounts' new balances (WH-22).
 */

/** One movement to record: `amount` (smallest unit, > 0) of `currency` from `debit` to `credit`. */
export interface Leg {
  readonly debit: string
  readonly credit: string
  readonly amount: number
  readonly currency: string
}

export const isSystemAccount = (account: string): boolean => account.startsWith("system:")

/** A malformed leg is a bug in the caller, not a client error. */
const legDefect = (leg: Leg): RangeError | undefined => {
  if (!Number.isSafeInteger(leg.amount) || leg.amount <= 0) {
    return new RangeError(`ledger: amount must be a positive safe integer, got ${leg.amount}`)
  }
  if (leg.debit === leg.credit) return new RangeError(`ledger: debit and credit are the same account ${leg.debit}`)
  return undefined
}

/** The debits of `legs` per internal account and currency, sorted by account (the order balances are locked in). */
export const debitsOf = (legs: ReadonlyArray<Leg>): ReadonlyArray<Debit> => {
  // A payment has a handful of legs: a list, not a map.
  const wanted: Array<{ account: string; currency: string; amount: number }> = []
  for (const leg of legs) {
    if (leg.amount === 0 || isSystemAccount(leg.debit)) continue
    const prev = wanted.find((w) => w.account === leg.debit && w.currency === leg.currency)
    if (prev === undefined) wanted.push({ account: leg.debit, currency: leg.currency, amount: leg.amount })
    else prev.amount += leg.amount
  }
  if (wanted.length > 1) wanted.sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0))
  return wanted
}

/** `INSUFFICIENT_FUNDS` for the first debit its (locked) balance cannot cover; `balances` in the order of `debits`. */
export const shortfallOf = (
  debits: ReadonlyArray<Debit>,
  balances: ReadonlyArray<LedgerBalance>
): Refused | undefined => {
  for (let i = 0; i < debits.length; i++) {
    const want = debits[i]!
    const b = balances[i]
    const available = (b?.posted ?? 0) - (b?.pendingDebits ?? 0)
    if (available < want.amount) return insufficientFunds(want.account, want.currency, available, want.amount)
  }
  return undefined
}

/** The transfers `legs` make for `reference` (legs of amount 0 skipped), numbered after those it has. */
function* newTransfersSteps(
  store: LedgerPorts,
  reference: string,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING",
  createdAt: string,
  /** How many transfers `reference` has, when the caller knows (e.g. none for a payment being reserved). */
  knownCount: number | undefined
): Generator<Effect.Effect<unknown, StoreError>, ReadonlyArray<LedgerTransfer>, any> {
  let moving = 0
  for (const leg of legs) {
    if (leg.amount === 0) continue
    moving++
    const defect = legDefect(leg)
    if (defect !== undefined) return yield* Effect.die(defect)
  }
  if (moving === 0) return []
  const existing = knownCount ?? (yield* store.ledger.transfers(reference)).length
  const transfers: Array<LedgerTransfer> = []
  for (const leg of legs) {
    if (leg.amount === 0) continue
    transfers.push({
      id: `${reference}#${existing + transfers.length + 1}`,
      debit: leg.debit,
      credit: leg.credit,
      amount: leg.amount,
      currency: leg.currency,
      state,
      reference,
      createdAt
    })
  }
  return transfers
}

/** What `recordIfAvailableSteps` did. */
export interface Recorded {
  /** The transfers were written and the counts added; `false`: nothing was written. */
  readonly written: boolean
  /** The transfers written: none when refused. */
  readonly transfers: ReadonlyArray<LedgerTransfer>
  /** The debited internal accounts' balances just before (in the order of `debitsOf(legs)`). */
  readonly before: ReadonlyArray<LedgerBalance>
  /** The counts' totals just before (in the order of `counts`). */
  readonly totals: ReadonlyArray<number>
  /** `INSUFFICIENT_FUNDS` for the first debit its balance could not cover: nothing was written. */
  readonly refused?: Refused
}

/** Whether a count would pass its cap. */
const overCap = (counts: ReadonlyArray<CappedCount>, totals: ReadonlyArray<number>): boolean =>
  counts.some((c, i) => c.cap !== undefined && totals[i]! + c.amount > c.cap)

/**
 * Records `legs` as transfers caused by `reference` if every internal account they debit has the money available,
 * checked and written in one step (`ledger.recordIfAvailable`); a shortfall writes nothing and is answered, not
 * failed, so the caller can rank it among its other refusals. `counts` (a card's day): running totals added to in
 * the same step, and only if each stays within its cap (nothing is written otherwise, answered with the totals).
 * A plain generator over a store the caller already holds: `yield*` it inside an `Effect.gen` and it costs no
 * run-loop step of its own. `createdAt` is the command's timestamp.
 */
export function* recordIfAvailableSteps(
  store: LedgerPorts,
  reference: string,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING",
  createdAt: string,
  knownCount?: number,
  counts: ReadonlyArray<CappedCount> = []
): Generator<Effect.Effect<unknown, StoreError>, Recorded, any> {
  const transfers = yield* newTransfersSteps(store, reference, legs, state, createdAt, knownCount)
  if (transfers.length === 0 && counts.length === 0) return { written: true, transfers, before: [], totals: [] }
  const debits = debitsOf(legs)
  const done = yield* store.ledger.recordIfAvailable(transfers, debits, counts)
  if (done.recorded) return { written: true, transfers, before: done.balances, totals: done.totals }
  const refused = shortfallOf(debits, done.balances)
  if (refused === undefined && !overCap(counts, done.totals))
    return yield* Effect.die(new Error(`ledger: the store refused debits it covers (${reference})`))
  return {
    written: false,
    transfers: [],
    before: done.balances,
    totals: done.totals,
    ...(refused === undefined ? {} : { refused })
  }
}

/**
 * Records `legs` whose debits the caller found available under lock (see `debitsOf`, `shortfallOf`); legs of
 * amount 0 are skipped.
 */
export function* writeTransfersSteps(
  store: LedgerPorts,
  reference: string,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING",
  createdAt: string,
  knownCount?: number
): Generator<Effect.Effect<unknown, StoreError>, ReadonlyArray<LedgerTransfer>, any> {
  const transfers = yield* newTransfersSteps(store, reference, legs, state, createdAt, knownCount)
  if (transfers.length > 0) yield* store.ledger.record(transfers)
  return transfers
}

/**
 * `resolve` as a plain generator over a store the caller already holds (see `recordIfAvailableSteps`): the transfers
 * resolved.
 */
export function* resolveSteps(
  store: LedgerPorts,
  reference: string,
  outcome: "POSTED" | "VOIDED",
  known?: ReadonlyArray<LedgerTransfer>
): Generator<Effect.Effect<unknown, StoreError>, ReadonlyArray<LedgerTransfer>, any> {
  const transfers = known ?? (yield* store.ledger.transfers(reference))
  const pending: Array<LedgerTransfer> = []
  for (const t of transfers) if (t.state === "PENDING") pending.push(t)
  if (pending.length > 0)
    yield* store.ledger.resolve(
      pending.map((t) => t.id),
      outcome
    )
  return pending
}

/**
 * Records `legs` as transfers caused by `reference` (a transaction id, or `<id>:refund`), all
 * POSTED or all PENDING. Legs of amount 0 are skipped. Refuses with `INSUFFICIENT_FUNDS` (and
 * records nothing) when an internal account's available balance would go below zero.
 * Transfer ids are `<reference>#<n>`, numbered per reference, so a second writer racing on the
 * same reference collides on the id instead of moving money twice.
 */
export const record = Effect.fnUntraced(function* (
  reference: string,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING"
) {
  const store = yield* Store
  const createdAt = yield* nowIso
  const done = yield* recordIfAvailableSteps(store, reference, legs, state, createdAt)
  if (done.refused !== undefined) return yield* Effect.fail(done.refused)
  return done.transfers
})

/**
 * Resolves every PENDING transfer of `reference`: POSTED moves the held money, VOIDED releases
 * the hold. Returns how many were resolved (0 when there was nothing pending: idempotent).
 */
export const resolve = Effect.fnUntraced(function* (reference: string, outcome: "POSTED" | "VOIDED") {
  const store = yield* Store
  return (yield* resolveSteps(store, reference, outcome)).length
})

/** The same legs in the opposite direction (a return, a reversal). */
export const reversed = (legs: ReadonlyArray<Leg>): ReadonlyArray<Leg> =>
  legs.map((leg) => ({ debit: leg.credit, credit: leg.debit, amount: leg.amount, currency: leg.currency }))
