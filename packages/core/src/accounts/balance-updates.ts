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
import type { LedgerBalance, LedgerTransfer } from "../ledger/model.ts"
import {
  isSystemAccount,
  type Leg,
  recordSteps as recordLedgerSteps,
  resolveSteps as resolveLedgerSteps,
  writeTransfersSteps as writeLedgerTransfersSteps
} from "../ledger/transfers.ts"
import type { Ids } from "../ports/ids.ts"
import { type Store, together } from "../ports/store.ts"
import type { Refused, StoreError } from "../shared/errors.ts"
import type { Steps } from "../shared/tracing.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { viewsWithBalances } from "./internal-accounts.ts"
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

/** `INTERNAL_ACCOUNT.BALANCE_UPDATED` for each of `moved` (its subject), with its balances as they are now. */
export function* announceBalancesSteps(
  ports: BalanceUpdatePorts,
  moved: ReadonlyArray<MovedAccount>,
  now: string
): Steps<void, StoreError> {
  if (moved.length === 0) return
  const { store } = ports
  // The accounts and their balances asked for together (one round trip on PostgreSQL).
  const [found, balances] = yield* together(
    store,
    () =>
      Effect.forEach(moved, (m) => store.internalAccounts.get(m.account), {
        concurrency: store.pipelines ? "unbounded" : 1
      }),
    () => store.ledger.balances(moved)
  )
  const records = found.filter((r): r is InternalAccountRecord => r !== undefined)
  for (const view of viewsWithBalances(records, balances)) {
    yield* emitSteps(store, ports.ids, [BALANCE_UPDATED], view.id, view, now)
  }
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
 * The debited accounts of a hold, read under lock before it is written (`ledger.balances` in the caller's store
 * transaction, and their records, `undefined` for a ledger account that is no internal account): the
 * announcements of `writeHoldSteps` are computed from them instead of read again.
 */
export interface HeldAccounts {
  readonly balances: ReadonlyArray<LedgerBalance>
  readonly records: ReadonlyArray<InternalAccountRecord | undefined>
}

/** The records of `debits`' accounts, for `HeldAccounts` (read together where the store pipelines). */
export const heldRecords = (
  store: BalanceUpdatePorts["store"],
  debits: ReadonlyArray<Pick<LedgerBalance, "account">>
): Effect.Effect<ReadonlyArray<InternalAccountRecord | undefined>, StoreError> =>
  Effect.forEach(debits, (d) => store.internalAccounts.get(d.account), {
    concurrency: store.pipelines ? "unbounded" : 1
  })

/**
 * The ledger's `writeTransfersSteps` of PENDING transfers (holds) on accounts the caller locked and read (`held`),
 * then the announcements, with the balances the holds leave (no read: the rows are locked by this transaction).
 */
export function* writeHoldsSteps(
  ports: BalanceUpdatePorts,
  reference: string,
  legs: ReadonlyArray<Leg>,
  now: string,
  knownCount: number,
  held: HeldAccounts
): Steps<ReadonlyArray<LedgerTransfer>, StoreError> {
  const transfers = yield* writeLedgerTransfersSteps(ports.store, reference, legs, "PENDING", now, knownCount)
  const moved = accountsMovedBy(transfers, false)
  const after = held.balances.map((b) => {
    let pendingDebits = b.pendingDebits
    for (const t of transfers) if (t.debit === b.account) pendingDebits += t.amount
    return { ...b, pendingDebits }
  })
  const records: Array<InternalAccountRecord> = []
  for (const m of moved) {
    const record = held.records.find((r) => r?.id === m.account)
    if (record !== undefined) records.push(record)
  }
  for (const view of viewsWithBalances(records, after)) {
    yield* emitSteps(ports.store, ports.ids, [BALANCE_UPDATED], view.id, view, now)
  }
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
