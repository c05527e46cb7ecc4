import { systemAccount } from "../ledger/model.ts"
import type { Leg } from "../ledger/transfers.ts"
import type { CardDirection } from "./model.ts"

// The ledger legs of card transactions (pure; docs/design/cards.md, section 3 "Reconciliation"). S is the
// transaction's funding account, N `system:card-network:<ccy>` (what the service owes the network), and
// `system:suspense:<ccy>` fronts what the network settled but the funding pull could not pay. Every transfer of a card
// transaction is recorded under its id, so `resolveSteps(id)` finds its one pending set.

/** What a leg is about: the transaction's funding account, currency and direction. */
export interface CardLedgerSide {
  readonly accountId: string
  readonly currency: string
  readonly direction: CardDirection
}

export const cardNetworkAccount = (currency: string): string => systemAccount("card-network", currency)

/** The spend of a transaction: S → N for a purchase, N → S for a credit (held, posted, or pulled post hoc). */
export const spendLeg = (side: CardLedgerSide, amount: number): Leg =>
  side.direction === "DEBIT"
    ? { debit: side.accountId, credit: cardNetworkAccount(side.currency), amount, currency: side.currency }
    : { debit: cardNetworkAccount(side.currency), credit: side.accountId, amount, currency: side.currency }

/** A merchant return of a purchase (N → S), or the undoing of a failed pull's settled part. */
export const returnLeg = (side: CardLedgerSide, amount: number): Leg => ({
  debit: cardNetworkAccount(side.currency),
  credit: side.accountId,
  amount,
  currency: side.currency
})

/** What the network settled that the funding source did not pay: the service fronts it (suspense → N). */
export const frontLeg = (currency: string, amount: number): Leg => ({
  debit: systemAccount("suspense", currency),
  credit: cardNetworkAccount(currency),
  amount,
  currency
})

/**
 * What an embedded wallet's delegated key signs to authorize a card pull (design section 3, step 7): the transaction,
 * the paying account, the amount and its currency.
 */
export const pullPayload = (pull: {
  readonly cardTransactionId: string
  readonly accountId: string
  readonly amount: number
  readonly currency: string
}): string =>
  JSON.stringify({
    type: "CARD_PULL",
    cardTransactionId: pull.cardTransactionId,
    accountId: pull.accountId,
    amount: pull.amount,
    currency: pull.currency
  })
