/** The ledger legs of payments (pure): which accounts an outgoing payment, a deposit and a refund move money between. */
import { systemAccount } from "../ledger/model.ts"
import type { Leg } from "../ledger/transfers.ts"
import type { QuoteRecord } from "../quotes/model.ts"

/** The reference of the ledger transfers of a refund, and the `refund.reference` of the transaction. */
export const refundReference = (transactionId: string): string => `${transactionId}:refund`

/** The ledger account money leaves (an internal account, or the deposits of a quote funded by instructions). */
export const sourceLedgerAccount = (quote: QuoteRecord): string =>
  quote.quote.source.sourceType === "ACCOUNT"
    ? quote.quote.source.accountId
    : systemAccount("deposits", quote.quote.sendingCurrency.code)

/** Where the money goes: another internal account, or out through the payouts account. */
export const destinationLedgerAccount = (quote: QuoteRecord): string => {
  const d = quote.quote.destination
  return d.destinationType === "ACCOUNT" && d.accountId.startsWith("InternalAccount:")
    ? d.accountId
    : systemAccount("payouts", quote.quote.receivingCurrency.code)
}

export const isInternalTransfer = (quote: QuoteRecord): boolean =>
  quote.quote.destination.destinationType === "ACCOUNT" &&
  quote.quote.destination.accountId.startsWith("InternalAccount:")

/**
 * The legs of an outgoing payment: the principal (straight, or cross-currency as two linked
 * transfers through the fx liquidity accounts: the source pays `net` into `fx:<sending>`,
 * `fx:<receiving>` pays the receiving amount out; rounding leftovers stay with fx) and the
 * fees to `fees:<sending>` and `platform-fees:<sending>`.
 */
export const paymentLegs = (quote: QuoteRecord): ReadonlyArray<Leg> => {
  const source = sourceLedgerAccount(quote)
  const destination = destinationLedgerAccount(quote)
  const send = quote.quote.sendingCurrency.code
  const receive = quote.quote.receivingCurrency.code
  const { netSendingAmount, serviceFee, platformFee } = quote.pricing
  const legs: Array<Leg> = []
  if (send === receive) {
    legs.push({ debit: source, credit: destination, amount: netSendingAmount, currency: send })
  } else {
    legs.push({ debit: source, credit: systemAccount("fx", send), amount: netSendingAmount, currency: send })
    legs.push({
      debit: systemAccount("fx", receive),
      credit: destination,
      amount: quote.quote.totalReceivingAmount,
      currency: receive
    })
  }
  if (serviceFee > 0)
    legs.push({ debit: source, credit: systemAccount("fees", send), amount: serviceFee, currency: send })
  if (platformFee > 0) {
    legs.push({ debit: source, credit: systemAccount("platform-fees", send), amount: platformFee, currency: send })
  }
  return legs.filter((leg) => leg.amount > 0)
}

/** Money arriving in an internal account: from `system:deposits:<ccy>`. */
export const depositLeg = (accountId: string, amount: number, currency: string): Leg => ({
  debit: systemAccount("deposits", currency),
  credit: accountId,
  amount,
  currency
})
