import { Effect } from "effect"
import { Store } from "../ports/store.ts"

// Reading the ledger: an account's balance, a reference's transfers.

export interface AccountBalance {
  readonly account: string
  readonly currency: string
  readonly posted: number
  readonly pendingDebits: number
  readonly pendingCredits: number
  /** What can be spent now: posted minus held. */
  readonly available: number
  /** Posted, i.e. available plus held by payments in flight. */
  readonly total: number
}

/** The balance of one ledger account (zeros for an account that never moved). */
export const balanceOf = Effect.fnUntraced(function* (account: string, currency: string) {
  const store = yield* Store
  const [b] = yield* store.ledger.balances([{ account, currency }])
  const posted = b?.posted ?? 0
  const pendingDebits = b?.pendingDebits ?? 0
  const pendingCredits = b?.pendingCredits ?? 0
  return {
    account,
    currency,
    posted,
    pendingDebits,
    pendingCredits,
    available: posted - pendingDebits,
    total: posted
  } satisfies AccountBalance
})

/** The transfers recorded for `reference`, oldest first. */
export const transfersOf = Effect.fnUntraced(function* (reference: string) {
  const store = yield* Store
  return yield* store.ledger.transfers(reference)
})
