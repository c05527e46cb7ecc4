import { amountOf } from "../shared/money.ts"
import type {
  Card,
  CardRecord,
  CardTransaction,
  CardTransactionRecord,
  CardTransactionStatus,
  StoredCardTransactionState
} from "./model.ts"

// Records → resources, and the card transaction's derived status (pure: what reads, events and lists share).

/** The card as the API and `card.state_change` show it: limits always present (null: none), never a URL (CD-08). */
export const toCard = (r: CardRecord): Card => ({
  id: r.id,
  cardholderId: r.cardholderId,
  platformCardId: r.platformCardId,
  state: r.state,
  stateReason: r.stateReason ?? null,
  ...(r.brand === undefined ? {} : { brand: r.brand }),
  form: r.form,
  ...(r.last4 === undefined ? {} : { last4: r.last4 }),
  ...(r.expMonth === undefined ? {} : { expMonth: r.expMonth }),
  ...(r.expYear === undefined ? {} : { expYear: r.expYear }),
  fundingSources: r.fundingSources,
  currency: r.currency,
  maxSpendPerTransaction: r.maxSpendPerTransaction ?? null,
  maxSpendPerDay: r.maxSpendPerDay ?? null,
  maxTransactionsPerDay: r.maxTransactionsPerDay ?? null,
  cardCapabilities: r.cardCapabilities,
  ...(r.processorRef === undefined ? {} : { processorRef: r.processorRef }),
  ...(r.issuerRef === undefined ? {} : { issuerRef: r.issuerRef }),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

/**
 * The public status of a stored state (CD-34, CD-37, design section 2, like `outgoingStatus`): an expired
 * authorization is closed against the funding source (`SETTLED`, Q5); a failed pull after the network settled, and a
 * legacy `EXCEPTION`, read `DECLINED`. `REFUNDED` is no status (CD-38): a returned purchase stays `SETTLED`.
 */
export const cardTransactionStatus: { readonly [K in StoredCardTransactionState]: CardTransactionStatus } = {
  AUTHORIZED: "AUTHORIZED",
  PARTIALLY_SETTLED: "PARTIALLY_SETTLED",
  SETTLED: "SETTLED",
  EXPIRED: "SETTLED",
  DECLINED: "DECLINED",
  PULL_FAILED: "DECLINED",
  EXCEPTION: "DECLINED"
}

const storedStates = Object.keys(cardTransactionStatus) as ReadonlyArray<StoredCardTransactionState>

/** The stored states that read `status` (the `GET /transactions` status filter: `DECLINED` → three states). */
export const cardTransactionStatesOf = (status: CardTransactionStatus): ReadonlyArray<StoredCardTransactionState> =>
  storedStates.filter((state) => cardTransactionStatus[state] === status)

/**
 * The card transaction as `GET /transactions` and the `CARD_TRANSACTION.*` events show it (CD-41): amounts as
 * `Amount` objects in the transaction's currency, `settledAmount` and `refundedAmount` always given.
 */
export const toCardTransaction = (r: CardTransactionRecord): CardTransaction => ({
  type: "CARD",
  id: r.id,
  cardId: r.cardId,
  customerId: r.customerId,
  platformCustomerId: r.platformCustomerId,
  issuerTransactionToken: r.issuerTransactionToken,
  status: cardTransactionStatus[r.state],
  direction: r.direction,
  merchant: r.merchant,
  authorizedAmount: amountOf(r.authorizedAmount, r.currency),
  settledAmount: amountOf(r.settledAmount, r.currency),
  refundedAmount: amountOf(r.refundedAmount, r.currency),
  accountId: r.accountId,
  ...(r.declineReason === undefined ? {} : { declineReason: r.declineReason }),
  pullSummary: r.pullSummary,
  settlementSummary: r.settlementSummary,
  refundSummary: r.refundSummary,
  authorizedAt: r.authorizedAt,
  ...(r.lastEventAt === undefined ? {} : { lastEventAt: r.lastEventAt }),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})
