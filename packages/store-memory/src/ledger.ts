import type { AccountTransfer, LedgerBalance, LedgerTransfer, Repositories } from "@paycore/core"
import { movesOfTransfer } from "@paycore/store-tables"
import { Effect } from "effect"
import { ChunkedMap } from "./chunked-map.ts"
import type { Counters } from "./idempotency.ts"
import type { UndoJournal } from "./transaction.ts"

/** The ledger: balances per account and transfers per reference. */
export const ledgerRepositories = (journal: UndoJournal, counters: Counters): Pick<Repositories, "ledger"> => {
  const balances = new Map<string, LedgerBalance>()
  // Transfers per reference, in recording order. A transfer id is `<reference>#<n>` by the ledger's
  // convention, so resolving one by id finds it through its reference (no map of every transfer);
  // an id of another form is mapped to its reference in `otherIds`.
  const transfersByReference = new ChunkedMap<Array<LedgerTransfer>>()
  const otherIds = new Map<string, string>()
  // Per account (debit and credit side), where its transfers are, in recording order: a transfer's position is its
  // index + 1. Resolving replaces a transfer in its reference's list, so the entry names the place, not the object.
  const placesByAccount = new Map<string, Array<{ readonly reference: string; readonly at: number }>>()

  const addPlace = (account: string, reference: string, at: number) => {
    let places = placesByAccount.get(account)
    if (places === undefined) {
      places = []
      placesByAccount.set(account, places)
    }
    places.push({ reference, at })
    const added = places
    journal.remember(() => {
      added.pop()
      if (added.length === 0) placesByAccount.delete(account)
    })
  }

  const transferAt = (place: { readonly reference: string; readonly at: number }): LedgerTransfer =>
    transfersByReference.get(place.reference)![place.at]!

  const isConventional = (t: LedgerTransfer): boolean =>
    t.id.length > t.reference.length + 1 && t.id.charCodeAt(t.reference.length) === 35 && t.id.startsWith(t.reference)

  const referenceOf = (id: string): string | undefined => {
    const other = otherIds.get(id)
    if (other !== undefined) return other
    const hash = id.lastIndexOf("#")
    return hash < 0 ? undefined : id.slice(0, hash)
  }

  const balanceOf = (account: string, currency: string): LedgerBalance =>
    balances.get(account) ?? { account, currency, posted: 0, pendingDebits: 0, pendingCredits: 0 }

  const adjust = (account: string, currency: string, posted: number, pendingDebits: number, pendingCredits: number) => {
    const before = balances.get(account)
    balances.set(
      account,
      before === undefined
        ? { account, currency, posted, pendingDebits, pendingCredits }
        : {
            account,
            currency,
            posted: before.posted + posted,
            pendingDebits: before.pendingDebits + pendingDebits,
            pendingCredits: before.pendingCredits + pendingCredits
          }
    )
    journal.remember(() => (before === undefined ? balances.delete(account) : balances.set(account, before)))
  }

  /** Adds a new transfer (a second one with the same id would move the money twice: a defect). */
  const addTransfer = (t: LedgerTransfer) => {
    const conventional = isConventional(t)
    if (!conventional && otherIds.has(t.id)) throw new Error(`memory store: ledger transfer ${t.id} exists`)
    let list = transfersByReference.get(t.reference)
    if (list === undefined) {
      list = []
      transfersByReference.set(t.reference, list)
    } else if (conventional && list.some((x) => x.id === t.id)) {
      throw new Error(`memory store: ledger transfer ${t.id} exists`)
    }
    list.push(t)
    addPlace(t.debit, t.reference, list.length - 1)
    addPlace(t.credit, t.reference, list.length - 1)
    if (!conventional) otherIds.set(t.id, t.reference)
    const added = list
    journal.remember(() => {
      added.pop()
      if (added.length === 0) transfersByReference.delete(t.reference)
      if (!conventional) otherIds.delete(t.id)
    })
  }

  const record = (transfers: ReadonlyArray<LedgerTransfer>) => {
    for (const t of transfers) {
      addTransfer(t)
      movesOfTransfer(t, adjust)
    }
  }

  return {
    ledger: {
      balances: (accounts) => Effect.sync(() => accounts.map((a) => balanceOf(a.account, a.currency))),
      record: (transfers) => Effect.sync(() => record(transfers)),
      recordIfAvailable: (transfers, debits, counts = []) =>
        Effect.sync(() => {
          const before = debits.map((d) => balanceOf(d.account, d.currency))
          const totals = counts.map((c) => counters.value(c.key))
          const recorded =
            debits.every((d, i) => before[i]!.posted - before[i]!.pendingDebits >= d.amount) &&
            counts.every((c, i) => c.cap === undefined || totals[i]! + c.amount <= c.cap)
          if (recorded) {
            record(transfers)
            for (const c of counts) counters.add(c.key, c.amount)
          }
          return { recorded, balances: before, totals }
        }),
      resolve: (ids, outcome) =>
        Effect.sync(() => {
          // The ids of one call usually share a reference (a payment's legs): its list is looked up once.
          let reference: string | undefined
          let list: Array<LedgerTransfer> | undefined
          for (const id of ids) {
            if (
              reference === undefined ||
              !(id.length > reference.length && id.charCodeAt(reference.length) === 35 && id.startsWith(reference))
            ) {
              reference = referenceOf(id)
              list = reference === undefined ? undefined : transfersByReference.get(reference)
            }
            if (list === undefined) continue
            let at = 0
            while (at < list.length && list[at]!.id !== id) at++
            const t = list[at]
            // Idempotent per transfer: one already POSTED or VOIDED is not moved again.
            if (t === undefined || t.state !== "PENDING") continue
            const moved = outcome === "POSTED" ? t.amount : 0
            adjust(t.debit, t.currency, -moved, -t.amount, 0)
            adjust(t.credit, t.currency, moved, 0, -t.amount)
            const resolved = list
            resolved[at] = { ...t, state: outcome }
            journal.remember(() => {
              resolved[at] = t
            })
          }
        }),
      transfers: (reference) => Effect.sync(() => transfersByReference.get(reference)?.slice() ?? []),
      accountTransfers: (account, limit, before) =>
        Effect.sync(() => {
          const places = placesByAccount.get(account) ?? []
          const end = Math.min(places.length, before === undefined ? places.length : Math.max(before - 1, 0))
          const transfers: Array<AccountTransfer> = []
          for (let i = end - 1; i >= 0 && transfers.length < limit; i--) {
            transfers.push({ position: i + 1, transfer: transferAt(places[i]!) })
          }
          let postedThrough = 0
          if (transfers.length > 0) {
            for (let i = 0; i < end; i++) {
              const t = transferAt(places[i]!)
              if (t.state === "POSTED") postedThrough += t.credit === account ? t.amount : -t.amount
            }
          }
          return { transfers, hasMore: end - transfers.length > 0, postedThrough }
        }),
      allBalances: () => Effect.sync(() => [...balances.values()])
    }
  }
}
