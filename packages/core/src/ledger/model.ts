/**
 * Ledger accounts are keyed by string: an internal account's id, or a system account
 * `system:<role>:<currency>` (deposits, payouts, fx, fees, platform-fees, suspense, card-network).
 * Balances are credit-normal: a customer's money is a positive `posted`.
 */
export interface LedgerBalance {
  readonly account: string
  readonly currency: string
  /** Credits minus debits of posted transfers. */
  readonly posted: number
  /** Sum of pending (reserved) transfers debiting the account. */
  readonly pendingDebits: number
  /** Sum of pending transfers crediting the account. */
  readonly pendingCredits: number
}

export type TransferState = "POSTED" | "PENDING" | "VOIDED"

/** One immutable movement of `amount` from `debit` to `credit`. A pending transfer is a hold until posted or voided. */
export interface LedgerTransfer {
  readonly id: string
  readonly debit: string
  readonly credit: string
  readonly amount: number
  readonly currency: string
  readonly state: TransferState
  /** What caused it: a transaction id. */
  readonly reference: string
  readonly createdAt: string
}

/** An internal account's debits in one currency: what must be available for a record to go through. */
export interface Debit {
  readonly account: string
  readonly currency: string
  readonly amount: number
}

/**
 * A running total (a `counters` key) a record adds `amount` to, only if the total stays within `cap` (equal to it is
 * allowed; absent: no cap): a card's spend and count of the day.
 */
export interface CappedCount {
  readonly key: string
  readonly amount: number
  readonly cap?: number | undefined
}

/**
 * A transfer debiting or crediting one account, numbered by `position` in the order the ledger recorded that
 * account's transfers (a later transfer has a higher position; the numbers need not be consecutive).
 */
export interface AccountTransfer {
  readonly position: number
  readonly transfer: LedgerTransfer
}

/** A page of an account's transfers, newest first (`LedgerStore.accountTransfers`). */
export interface AccountTransfers {
  readonly transfers: ReadonlyArray<AccountTransfer>
  readonly hasMore: boolean
  /**
   * The account's posted balance as of the first transfer of the page: its POSTED transfers up to and including that
   * one, credits minus debits (0 for an empty page). The running balance of the rest follows from their amounts.
   */
  readonly postedThrough: number
}

/**
 * `card-network`: what the service owes the card issuer / network for card transactions (cards/legs.ts).
 * `stablecoin-supply` (per stablecoin currency): its posted balance is minus the outstanding supply of that coin;
 * `stablecoin-reserve` (per base currency): the base currency the stablecoin provider holds for mints
 * (stablecoins/legs.ts).
 */
export type SystemRole =
  | "deposits"
  | "payouts"
  | "fx"
  | "fees"
  | "platform-fees"
  | "suspense"
  | "card-network"
  | "stablecoin-supply"
  | "stablecoin-reserve"

export const systemAccount = (role: SystemRole, currency: string): string => `system:${role}:${currency}`
