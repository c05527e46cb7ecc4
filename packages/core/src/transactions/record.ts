import type { Transaction } from "./model.ts"

/** A transaction as stored: the public resource and the engine's bookkeeping. */
export interface TransactionRecord {
  readonly id: string
  readonly transaction: Transaction
  /** Machine state; finer than the public status (refund sub-states). See machine.ts. */
  readonly state: string
  /** The internal account the money moves from (outgoing) or to (incoming). */
  readonly accountId?: string | undefined
  /** The rail's reference once submitted. */
  readonly railReference?: string | undefined
  /** When a worker should next look at it (settlement poll, expiry). */
  readonly dueAt?: string | undefined
}
