/**
 * The ledger's writes as the commands above accounts make them (transactions, cards, stablecoins): each is the
 * ledger's step (ledger/transfers.ts) followed, in the same store transaction, by `INTERNAL_ACCOUNT.BALANCE_UPDATED`
 * (WH-22) for every internal account whose `balance` (available) or `totalBalance` (posted) it moved, with the
 * account as `GET` shows it after the write. One event per account per ledger write: a command that holds and then
 * posts in one transaction (an internal transfer) announces both. A hold on an account's incoming side (a pending
 * deposit) moves neither figure, so it announces nothing until it is posted.
 * `packages/core/test/balance-updates.test.ts` checks that no context above writes the ledger past these.
 */

import type { LedgerBalance, LedgerTransfer } from "../ledger/model.ts"
import {
  isSystemAccount,
  type Leg,
  recordSteps as recordLedgerSteps,
  resolveSteps as resolveLedgerSteps,
  writeTransfersSteps as writeLedgerTransfersSteps
} from "../ledger/transfers.ts"
import type { Ids } from "../ports/ids.ts"
import type { Store } from "../ports/store.ts"
import type { Refused, StoreError } from "../shared/errors.ts"
import type { Steps } from "../shared/tracing.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { withBalance, withBalances } from "./internal-accounts.ts"
import type { InternalAccountRecord } from "./model.ts"

/** What the steps run on: any context's ports with the store and ids (`PaymentPorts`, `CardPorts`, ...). */
export interface BalanceUpdatePorts {
  readonly store: Pick<Store["Service"], "ledger" | "outbox" | "internalAccounts">
  readonly ids: Ids["Service"]
}

export const BALANCE_UPDATED = "INTERNAL_ACCOUNT.BALANCE_UPDATED"

/**
 * The internal accounts whose shown balances `transfers` move, in order: both sides of a posting (written posted, or
 * a hold posted); only the debited side of a hold written or voided (its available balance; the credited side's
 * figures count posted money only).
 */
export const accountsMovedBy = (transfers: ReadonlyArray<LedgerTransfer>, posting: boolean): ReadonlyArray<string> => {
  const moved: Array<string> = []
  for (const t of transfers) {
    if (!isSystemAccount(t.debit) && !moved.includes(t.debit)) moved.push(t.debit)
    if (posting && !isSystemAccount(t.credit) && !moved.includes(t.credit)) moved.push(t.credit)
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
 * `INTERNAL_ACCOUNT.BALANCE_UPDATED` for each of `accounts` (its subject), with its balances as they are now: from
 * `locked` moved by `transfers` when it holds every one of them (no read), else read.
 */
export function* announceBalancesSteps(
  ports: BalanceUpdatePorts,
  accounts: ReadonlyArray<string>,
  now: string,
  known?: { readonly locked: ReadonlyArray<LockedAccount>; readonly transfers: ReadonlyArray<LedgerTransfer> }
): Steps<void, StoreError> {
  if (accounts.length === 0) return
  const locked = accounts.map((id) => known?.locked.find((l) => l.record.id === id))
  if (known !== undefined && locked.every((l) => l !== undefined)) {
    for (const l of locked as ReadonlyArray<LockedAccount>) {
      const view = withBalance(l.record, balanceAfter(l.balance, known.transfers))
      yield* emitSteps(ports.store, ports.ids, [BALANCE_UPDATED], view.id, view, now)
    }
    return
  }
  const records: Array<InternalAccountRecord> = []
  for (const id of accounts) {
    const record = yield* ports.store.internalAccounts.get(id)
    if (record !== undefined) records.push(record)
  }
  const views = yield* withBalances(ports.store, records)
  for (const view of views) yield* emitSteps(ports.store, ports.ids, [BALANCE_UPDATED], view.id, view, now)
}

/** The ledger's `recordSteps` (refused with `INSUFFICIENT_FUNDS` before anything is written), then the announcements. */
export function* recordSteps(
  ports: BalanceUpdatePorts,
  reference: string,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING",
  now: string,
  knownCount?: number
): Steps<ReadonlyArray<LedgerTransfer>, StoreError | Refused> {
  const transfers = yield* recordLedgerSteps(ports.store, reference, legs, state, now, knownCount)
  yield* announceBalancesSteps(ports, accountsMovedBy(transfers, state === "POSTED"), now)
  return transfers
}

/**
 * The ledger's `writeTransfersSteps` (the caller checked the debits under lock), then the announcements; `locked`: the
 * accounts the caller read under lock before (see `LockedAccount`), announced without reading them again.
 */
export function* writeTransfersSteps(
  ports: BalanceUpdatePorts,
  reference: string,
  legs: ReadonlyArray<Leg>,
  state: "POSTED" | "PENDING",
  now: string,
  knownCount?: number,
  locked?: ReadonlyArray<LockedAccount>
): Steps<ReadonlyArray<LedgerTransfer>, StoreError> {
  const transfers = yield* writeLedgerTransfersSteps(ports.store, reference, legs, state, now, knownCount)
  const moved = accountsMovedBy(transfers, state === "POSTED")
  yield* announceBalancesSteps(ports, moved, now, locked === undefined ? undefined : { locked, transfers })
  return transfers
}

/** The ledger's `resolveSteps` (every pending transfer of `reference` posted or voided), then the announcements. */
export function* resolveSteps(
  ports: BalanceUpdatePorts,
  reference: string,
  outcome: "POSTED" | "VOIDED",
  now: string
): Steps<ReadonlyArray<LedgerTransfer>, StoreError> {
  const resolved = yield* resolveLedgerSteps(ports.store, reference, outcome)
  yield* announceBalancesSteps(ports, accountsMovedBy(resolved, outcome === "POSTED"), now)
  return resolved
}
