import { systemAccount } from "./model.ts"
import { balanceOf, transfersOf } from "./reads.ts"
import { isSystemAccount, record, resolve, reversed } from "./transfers.ts"

// The double-entry ledger (transfers.ts: recording and resolving transfers, as steps inside the caller's store
// transaction; reads.ts: balances and a reference's transfers). It has no layer: its operations are plain Effects
// over the `Store` port.

/** The ledger operations as one object, for callers that prefer `Ledger.record(...)`. */
export const Ledger = { balanceOf, record, resolve, transfersOf, reversed, isSystemAccount, systemAccount } as const
