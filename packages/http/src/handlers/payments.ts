import { Quotes, Transactions } from "@paycore/core"
import { Effect } from "effect"
import type { GroupHandlers } from "./shared.ts"

/** The `payments` group: quotes, transactions and their actions, lookups, transfers. */
export const paymentsHandlers = Effect.fnUntraced(function* () {
  const quotes = yield* Quotes
  const transactions = yield* Transactions
  const handlers: GroupHandlers<"payments"> = {
    createQuote: ({ payload }) => quotes.create(payload),
    getQuote: ({ params }) => quotes.get(params.quoteId),
    executeQuote: ({ params, headers, payload }) =>
      quotes.execute(params.quoteId, {
        walletSignature: headers["service-wallet-signature"],
        scaFactor: payload?.scaFactor
      }),
    authorizeQuote: ({ params, payload }) => transactions.authorizeQuote(params.quoteId, payload),
    resendQuoteScaCode: ({ params }) => transactions.resendQuoteScaCode(params.quoteId),
    listTransactions: ({ query }) => transactions.list(query),
    getTransaction: ({ params }) => transactions.get(params.transactionId),
    getTransactionTimeline: ({ params }) => transactions.timeline(params.transactionId),
    confirmTransaction: ({ params, payload }) => transactions.confirm(params.transactionId, payload),
    cancelTransaction: ({ params, payload }) => transactions.cancel(params.transactionId, payload),
    approveTransaction: ({ params, payload }) => transactions.approve(params.transactionId, payload),
    rejectTransaction: ({ params, payload }) => transactions.reject(params.transactionId, payload),
    lookupExternalAccount: ({ params, query }) => quotes.lookupExternalAccount(params.accountId, query),
    lookupUma: ({ params, query }) => quotes.lookupUma(params.receiverUmaAddress, query),
    estimateWithdrawalFee: ({ payload }) => quotes.estimateWithdrawalFee(payload),
    transferOut: ({ payload }) => transactions.transferOut(payload),
    transferIn: ({ payload }) => transactions.transferIn(payload)
  }
  return handlers
})
