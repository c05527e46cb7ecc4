import type { LedgerBalance } from "../ledger/model.ts"
import type { PlatformConfig } from "../platform/model.ts"
import type {
  AuthorizationKind,
  CardDirection,
  CardFundingBinding,
  CardRecord,
  CardState,
  DeclineReason
} from "./model.ts"

// The authorization decision's rules (pure; docs/design/cards.md, section 3 "Authorization"): the effective caps, the
// declines by card state and by cap, and which funding source pays. `authorize.ts` reads the store and asks these.

/** The caps in force at one authorization: the lower of the card's and the platform's (absent: no cap). */
export interface EffectiveCaps {
  readonly perTransaction: number | undefined
  readonly perDay: number | undefined
  readonly countPerDay: number | undefined
}

const lower = (a: number | null | undefined, b: number | null | undefined): number | undefined =>
  a == null ? (b ?? undefined) : b == null ? a : Math.min(a, b)

/** CD-12, L-13, P-03 (design Q11): per card, the lower of its own limit and the platform's `cardConfigs` cap. */
export const effectiveCaps = (card: CardRecord, config: PlatformConfig | undefined): EffectiveCaps => {
  const platform = config?.cardConfigs
  return {
    perTransaction: lower(card.maxSpendPerTransaction, platform?.maxSpendPerTransaction),
    perDay: lower(card.maxSpendPerDay, platform?.maxSpendPerDay),
    countPerDay: lower(card.maxTransactionsPerDay, platform?.maxTransactionsPerDay)
  }
}

/**
 * Why a card in each state declines a new authorization (`undefined`: it may approve). C-46, CD-22: a `FROZEN` card
 * declines with `CARD_PAUSED`; its reconciliation goes on.
 */
export const stateDeclineReason: { readonly [K in CardState]: DeclineReason | undefined } = {
  PROCESSING: "CARD_NOT_ACTIVE",
  ACTIVE: undefined,
  FROZEN: "CARD_PAUSED",
  CLOSED: "CARD_CLOSED"
}

/** Which way the money of an authorization kind goes: a purchase debits the funding account, a credit credits it. */
export const directionOf = (kind: AuthorizationKind): CardDirection =>
  kind === "CREDIT" || kind === "FINANCIAL_CREDIT" || kind === "CREDIT_ADVICE" ? "CREDIT" : "DEBIT"

/**
 * What counts toward the daily limits (design Q12): approved purchases (authorizations and single-message financial
 * authorizations) at their authorized amount; credits, advices and balance inquiries count nothing.
 */
export const countsTowardLimits = (kind: AuthorizationKind): boolean => kind === "AUTHORIZATION" || kind === "FINANCIAL"

/** Single-message kinds post at once (`POST` → `SETTLED`): no hold, no clearing. */
export const postsAtOnce = (kind: AuthorizationKind): boolean => kind === "FINANCIAL" || kind === "FINANCIAL_CREDIT"

/** `TRANSACTION_LIMIT_EXCEEDED` when one purchase is over the per-transaction cap (equal to it is allowed). */
export const transactionLimitDecline = (caps: EffectiveCaps, amount: number): DeclineReason | undefined =>
  caps.perTransaction !== undefined && amount > caps.perTransaction ? "TRANSACTION_LIMIT_EXCEEDED" : undefined

/**
 * The daily caps against the day's totals with this purchase counted (CD-11): spend first, then count; equal to a
 * cap is allowed.
 */
export const dailyLimitDecline = (
  caps: EffectiveCaps,
  spendTotal: number,
  countTotal: number
): DeclineReason | undefined =>
  caps.perDay !== undefined && spendTotal > caps.perDay
    ? "DAILY_SPEND_LIMIT_EXCEEDED"
    : caps.countPerDay !== undefined && countTotal > caps.countPerDay
      ? "DAILY_TRANSACTION_COUNT_EXCEEDED"
      : undefined

/** An embedded-wallet source pays only with an `ACTIVE` delegated key (CD-13). */
export const isWalletBinding = (binding: Pick<CardFundingBinding, "accountType">): boolean =>
  binding.accountType === "EMBEDDED_WALLET"

/**
 * Design Q8: the index of the first source, in priority order (`balances` are the candidates' in that order), whose
 * available balance covers the whole amount (no split: a card transaction has one `accountId`).
 */
export const coveringSource = (balances: ReadonlyArray<LedgerBalance>, amount: number): number | undefined => {
  const index = balances.findIndex((b) => b.posted - b.pendingDebits >= amount)
  return index < 0 ? undefined : index
}
