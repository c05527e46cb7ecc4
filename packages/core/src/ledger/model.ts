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
