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
