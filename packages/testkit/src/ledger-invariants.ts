import { type LedgerBalance, Store } from "@paycore/core"
import { Effect } from "effect"

/** What the balances of one currency add up to. */
export interface CurrencyTotals {
  posted: number
  pendingDebits: number
  pendingCredits: number
}

/** The balances' totals per currency: a sound ledger's posted total is zero, its pending debits equal its credits. */
export const currencyTotals = (balances: ReadonlyArray<LedgerBalance>): Map<string, CurrencyTotals> => {
  const totals = new Map<string, CurrencyTotals>()
  for (const b of balances) {
    const c = totals.get(b.currency) ?? { posted: 0, pendingDebits: 0, pendingCredits: 0 }
    c.posted += b.posted
    c.pendingDebits += b.pendingDebits
    c.pendingCredits += b.pendingCredits
    totals.set(b.currency, c)
  }
  return totals
}

/**
 * The ledger's invariants over every balance in the Store: per currency the posted balances sum to zero and
 * pending debits equal pending credits; no pending amount is negative; no internal (non-`system:`) account
 * has a negative available balance. Returns the violations, each as a sentence (empty: all hold).
 */
export const ledgerViolations: Effect.Effect<ReadonlyArray<string>, unknown, Store> = Effect.gen(function* () {
  const store = yield* Store
  const balances = yield* store.ledger.allBalances()
  const out: Array<string> = []
  for (const b of balances) {
    if (!b.account.startsWith("system:") && b.posted - b.pendingDebits < 0) {
      out.push(`${b.account}: available ${b.posted - b.pendingDebits} < 0`)
    }
    if (b.pendingDebits < 0 || b.pendingCredits < 0) out.push(`${b.account}: negative pending amount`)
  }
  for (const [currency, c] of currencyTotals(balances)) {
    if (c.posted !== 0) out.push(`${currency}: posted balances sum to ${c.posted}, not 0`)
    if (c.pendingDebits !== c.pendingCredits) {
      out.push(`${currency}: pending debits ${c.pendingDebits} <> pending credits ${c.pendingCredits}`)
    }
  }
  return out
})

/**
 * The card transactions' invariants against the ledger (docs/design/cards.md, "Property test"): for each card
 * transaction, its pending transfers hold exactly `heldAmount` (0 unless `AUTHORIZED` / `PARTIALLY_SETTLED`);
 * `refundedAmount ≤ settledAmount`; what its posted transfers moved toward the network (a purchase: S → N, less N → S,
 * plus what suspense fronted; a credit: N → S less S → N) equals `settledAmount − refundedAmount`; a declined
 * authorization moved nothing; no stored state is `REFUNDED` and no status read is other than the four public ones.
 * Returns the violations, each as a sentence (empty: all hold).
 */
export const cardTransactionViolations: Effect.Effect<ReadonlyArray<string>, unknown, Store> = Effect.gen(function* () {
  const store = yield* Store
  const page = yield* store.cardTransactions.list({}, { limit: 1_000_000, sortOrder: "asc" })
  const out: Array<string> = []
  for (const tx of page.data) {
    const transfers = yield* store.ledger.transfers(tx.id)
    const network = `system:card-network:${tx.currency}`
    const suspense = `system:suspense:${tx.currency}`
    let held = 0
    let toNetwork = 0
    for (const t of transfers) {
      if (t.state === "PENDING") held += t.amount
      if (t.state !== "POSTED") continue
      const sign = tx.direction === "DEBIT" ? 1 : -1
      if (t.debit === tx.accountId && t.credit === network) toNetwork += sign * t.amount
      else if (t.debit === network && t.credit === tx.accountId) toNetwork -= sign * t.amount
      else if (t.debit === suspense && t.credit === network) toNetwork += t.amount
      else
        out.push(`${tx.id}: transfer ${t.id} moves ${t.debit} → ${t.credit}, not between its account and the network`)
    }
    const open = tx.state === "AUTHORIZED" || tx.state === "PARTIALLY_SETTLED"
    if (held !== tx.heldAmount) out.push(`${tx.id}: pending transfers hold ${held}, heldAmount is ${tx.heldAmount}`)
    if (!open && tx.heldAmount !== 0) out.push(`${tx.id}: ${tx.state} still holds ${tx.heldAmount}`)
    if (tx.refundedAmount > tx.settledAmount) {
      out.push(`${tx.id}: refunded ${tx.refundedAmount} > settled ${tx.settledAmount}`)
    }
    if (toNetwork !== tx.settledAmount - tx.refundedAmount) {
      out.push(`${tx.id}: the ledger moved ${toNetwork}, settled − refunded is ${tx.settledAmount - tx.refundedAmount}`)
    }
    if (tx.state === "DECLINED" && transfers.length > 0) out.push(`${tx.id}: a declined authorization moved money`)
  }
  return out
})
