import type { LedgerBalance, LedgerTransfer } from "@paycore/core"
import { bigint, generated, instant, key, smallint, table, text } from "./describe.ts"

/** Transfers, numbered by `seq` in recording order (`transfers(reference)` lists them in it). */
export const ledgerTransfers = table<LedgerTransfer>()({
  name: "ledger_transfers",
  columns: {
    id: key("id"),
    debit: text("debit"),
    credit: text("credit"),
    amount: bigint("amount"),
    currency: text("currency"),
    state: text("state"),
    reference: text("reference"),
    createdAt: instant("created_at")
  },
  storeColumns: { seq: generated(bigint("seq")) },
  primaryKey: ["id"]
})

/**
 * One row per customer account (`shard` 0); a system account's balance is the sum of up to one row per writing
 * session (see `shardOf` in store-postgres's ledger.ts). The memory store keeps one balance per account.
 */
export const ledgerBalances = table<LedgerBalance>()({
  name: "ledger_balances",
  columns: {
    account: key("account"),
    currency: text("currency"),
    posted: bigint("posted"),
    pendingDebits: bigint("pending_debits"),
    pendingCredits: bigint("pending_credits")
  },
  storeColumns: { shard: smallint("shard") },
  primaryKey: ["account", "shard"]
})

/** Adds `posted`, `pendingDebits` and `pendingCredits` to an account's balance (in `currency`). */
export type BalanceMove = (
  account: string,
  currency: string,
  posted: number,
  pendingDebits: number,
  pendingCredits: number
) => void

/**
 * How a new transfer moves the balances, for both stores: a POSTED one moves the money (debit down, credit up), a
 * PENDING one holds it (the debit's pending debits and the credit's pending credits up); calls `move` for each.
 */
export const movesOfTransfer = (t: LedgerTransfer, move: BalanceMove): void => {
  if (t.state === "POSTED") {
    move(t.debit, t.currency, -t.amount, 0, 0)
    move(t.credit, t.currency, t.amount, 0, 0)
  } else if (t.state === "PENDING") {
    move(t.debit, t.currency, 0, t.amount, 0)
    move(t.credit, t.currency, 0, 0, t.amount)
  }
}
