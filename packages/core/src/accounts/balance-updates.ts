/**
 * The ledger's writes as the commands above accounts make them (transactions, cards, stablecoins): each is the
 * ledger's step (ledger/transfers.ts) followed, in the same store transaction, by `INTERNAL_ACCOUNT.BALANCE_UPDATED`
 * (WH-22) for every internal account whose `balance` (available) or `totalBalance` (posted) it moved, with the
 * account as `GET` shows it after the write. One event per account per ledger write: a command that holds and then
 * posts in one transaction (an internal transfer) announces both. A hold on an account's incoming side (a pending
 * deposit) moves neither figure, so it announces nothing until it is posted.
 * `packages/core/test/balance-updates.test.ts` checks that no context above writes the ledger past these.
 */

import { Effect } from "effect"
import type { CappedCount, LedgerBalance, LedgerTransfer } from "../ledger/model.ts"
import {
  debitsOf,
  isSystemAccount,
  type Leg,
  type Recorded,
  recordIfAvailableSteps as recordLedgerIfAvailableSteps,
  resolveSteps as resolveLedgerSteps,
  writeTransfersSteps as writeLedgerTransfersSteps
} from "../ledger/transfers.ts"
import type { Ids } from "../ports/ids.ts"
import { type Store, together } from "../ports/store.ts"
import type { Refused, StoreError } from "../shared/errors.ts"
import type { Steps } from "../shared/tracing.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { withBalance } from "./internal-accounts.ts"
import type { InternalAccountRecord } from "./model.ts"

/** What the steps run on: any context's ports with the store and ids (`PaymentPorts`, `CardPorts`, ...). */
export interface BalanceUpdatePorts {
  readonly store: Pick<Store["Service"], "ledger" | "outbox" | "internalAccounts" | "pipelines">
  readonly ids: Ids["Service"]
}

/** A ledger account a write moved, with its currency (`ledger.balances` asks for both). */
type MovedAccount = Pick<LedgerBalance, "account" | "currency">

export const BALANCE_UPDATED = "INTERNAL_ACCOUNT.BALANCE_UPDATED"

/**
 * The internal accounts whose shown balances `transfers` move, in order: both sides of a posting (written posted, or
 * a hold posted); only the debited side of a hold written or voided (its available balance; the credited side's
 * figures count posted money only).
 */
export const accountsMovedBy = (
  transfers: ReadonlyArray<LedgerTransfer>,
  posting: boolean
): ReadonlyArray<MovedAccount> => {
  const moved: Array<MovedAccount> = []
  const add = (account: string, currency: string) => {
    if (!isSystemAccount(account) && !moved.some((m) => m.account === account)) moved.push({ account, currency })
  }
  for (const t of transfers) {
    add(t.debit, t.currency)
    if (posting) add(t.credit, t.currency)
  }
  return moved
}

/**
 * An internal account and its balance read in this store transaction with the balance row locked (`ledger.balances`),
 * before a write: the balance after the write is then known without reading it again.
 */
export interface LockedAccount {
  readonly record: InternalAccountRecord
  readonly balance: LedgerBalance
}

/** The records of `accounts` (those that are internal accounts), each with its locked balance from `balances`. */
export const lockedAccounts = (
  records: ReadonlyArray<InternalAccountRecord | undefined>,
  balances: ReadonlyArray<LedgerBalance>
): ReadonlyArray<LockedAccount> => {
  const locked: Array<LockedAccount> = []
  for (const record of records) {
    const balance = record === undefined ? undefined : balances.find((b) => b.account === record.id)
    if (record !== undefined && balance !== undefined) locked.push({ record, balance })
  }
  return locked
}

/** The records of `accounts` (`undefined` for a ledger account that is no internal account), read together. */
export const accountRecords = (
  store: BalanceUpdatePorts["store"],
  accounts: ReadonlyArray<Pick<LedgerBalance, "account">>
): Effect.Effect<ReadonlyArray<InternalAccountRecord | undefined>, StoreError> =>
  Effect.forEach(accounts, (a) => store.internalAccounts.get(a.account), {
    concurrency: store.pipelines ? "unbounded" : 1
  })

/** `balance` moved by `transfers` (its side of each: a POSTED one moves `posted`, a PENDING one holds). */
const balanceAfter = (balance: LedgerBalance, transfers: ReadonlyArray<LedgerTransfer>): LedgerBalance => {
  let { posted, pendingDebits, pendingCredits } = balance
  for (const t of transfers) {
    const debit = t.debit === balance.account ? t.amount : 0
    const credit = t.credit === balance.account ? t.amount : 0
    if (t.state === "POSTED") posted += credit - debit
    else if (t.state === "PENDING") {
      pendingDebits += debit
      pendingCredits += credit
    }
  }
  return { ...balance, posted, pendingDebits, pendingCredits }
}

/**
 * `INTERNAL_ACCOUNT.BALANCE_UPDATED` for each of `moved` (its subject), with its balances as they are now: from
 * `known.locked` moved by `known.transfers` when it holds every one of them (no read), else read (the accounts and
 * their balances together: one round trip on PostgreSQL).
 */
export function* announceBalancesSteps(
  ports: BalanceUpdatePorts,
  moved: ReadonlyArray<MovedAccount>,
  now: string,
  known?: { readonly locked: ReadonlyArray<LockedAccount>; readonly transfers: ReadonlyArray<LedgerTransfer> }
): Steps<void, StoreError> {
  if (moved.length === 0) return
  const { store } = ports
  const locked = moved.map((m) => known?.locked.find((l) => l.record.id === m.account))
  if (known !== undefined && locked.every((l) => l !== undefined)) {
    for (const l of locked as ReadonlyArray<LockedAccount>) {
      const view = withBalance(l.record, balanceAfter(l.balance, known.transfers))
      yield* emitSteps(store, ports.ids, [BALANCE_UPDATED], view.id, view, now)
    }
    return
  }
  const [found, balances] = yield* together(
    store,
    () => accountRecords(store, moved),
    () => store.ledger.balances(moved)
  )
  for (const l of lockedAccounts(found, balances)) {
    const view = withBalance(l.record, l.balance)
    yield* emitSteps(store, ports.ids, [BALANCE_UPDATED], view.id, view, now)
  }
}

/**
 * The ledger's `recordIfAvailableSteps` (checked and written in one step, with `counts` if any; a shortfall or a
 * count over its cap writes nothing and is answered), with the debited internal accounts' records read alongside,
 * then the announcements: a debited account's from its balance just before the write (no read again).
 */
export function* recordIfAvailableSteps(
  ports: BalanceUpdatePorts,
  reference: string,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING",
  now: string,
  knownCount?: number,
  counts?: ReadonlyArray<CappedCount>
): Steps<Recorded, StoreError> {
  const { store } = ports
  const [done, records] = yield* together(
    store,
    () => recordLedgerIfAvailableSteps(store, reference, legs, state, now, knownCount, counts),
    () => accountRecords(store, debitsOf(legs))
  )
  if (!done.written) return done
  yield* announceBalancesSteps(ports, accountsMovedBy(done.transfers, state === "POSTED"), now, {
    locked: lockedAccounts(records, done.before),
    transfers: done.transfers
  })
  return done
}

/** `recordIfAvailableSteps`, failed with `INSUFFICIENT_FUNDS` (nothing written) when a debit is not covered. */
export function* recordSteps(
  ports: BalanceUpdatePorts,
  reference: string,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING",
  now: string,
  knownCount?: number
): Steps<ReadonlyArray<LedgerTransfer>, StoreError | Refused> {
  const done = yield* recordIfAvailableSteps(ports, reference, legs, state, now, knownCount)
  if (done.refused !== undefined) return yield* Effect.fail(done.refused)
  return done.transfers
}

/** The ledger's `writeTransfersSteps` (the caller checked the debits under lock), then the announcements. */
export function* writeTransfersSteps(
  ports: BalanceUpdatePorts,
  reference: string,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING",
  now: string,
  knownCount?: number
): Steps<ReadonlyArray<LedgerTransfer>, StoreError> {
  const transfers = yield* writeLedgerTransfersSteps(ports.store, reference, legs, state, now, knownCount)
  yield* announceBalancesSteps(ports, accountsMovedBy(transfers, state === "POSTED"), now)
  return transfers
}

/**
 * The ledger's `resolveSteps` (every pending transfer of `reference` posted or voided), then the announcements.
 * `known`: the reference's transfers, read by the caller in this store transaction after it locked what they belong to.
 */
export function* resolveSteps(
  ports: BalanceUpdatePorts,
  reference: string,
  outcome: "POSTED" | "VOIDED",
  now: string,
  known?: ReadonlyArray<LedgerTransfer>
): Steps<ReadonlyArray<LedgerTransfer>, StoreError> {
  const resolved = yield* resolveLedgerSteps(ports.store, reference, outcome, known)
  yield* announceBalancesSteps(ports, accountsMovedBy(resolved, outcome === "POSTED"), now)
  return resolved
}
