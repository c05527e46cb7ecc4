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
