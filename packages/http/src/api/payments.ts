import {
  AnyTransactionId,
  ApproveTransactionRequest,
  ConfirmTransactionRequest,
  CreateQuoteRequest,
  EstimateWithdrawalFeeRequest,
  EstimateWithdrawalFeeResponse,
  ExecuteQuoteRequest,
  ExternalAccountId,
  ExternalAccountLookup,
  ListTransactionsQuery,
  PageOf,
  Quote,
  QuoteAwaitingAuthorization,
  QuoteId,
  ReceiverLookupQuery,
  ScaAuthorization,
  Timeline,
  Transaction,
  TransactionId,
  TransactionOneOf,
  TransactionReasonRequest,
  TransferInRequest,
  TransferOutRequest,
  UmaLookup
} from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { accepted, created } from "./shared.ts"

export const PaymentsGroup = HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.post("createQuote", "/quotes", {
      payload: CreateQuoteRequest,
      // S-06: a real-time-funded quote of a customer subject to SCA waits for its challenge (202), the rest 201.
      success: [QuoteAwaitingAuthorization.pipe(accepted), Quote.pipe(created)]
    })
  )
  .add(HttpApiEndpoint.get("getQuote", "/quotes/:quoteId", { params: { quoteId: QuoteId }, success: Quote }))
  .add(
    HttpApiEndpoint.post("executeQuote", "/quotes/:quoteId/execute", {
      params: { quoteId: QuoteId },
      // required for a quote from an EMBEDDED_WALLET (the wallet's stamp over the quote's payloadToSign, no
      // Request-Id); ignored for other sources.
      headers: {
        "service-wallet-signature": Schema.optionalKey(
          Schema.String.annotate({
            description:
              "Required when the quote's source is an EMBEDDED_WALLET internal account: the stamp over paymentInstructions[].accountOrWalletInfo.payloadToSign by the key of an active session of a verified credential of that wallet. Ignored for other sources."
          })
        )
      },
      payload: ExecuteQuoteRequest,
      success: Quote
    })
  )
  .add(
    HttpApiEndpoint.post("authorizeQuote", "/quotes/:quoteId/authorize", {
      params: { quoteId: QuoteId },
      payload: ScaAuthorization,
      success: Quote
    })
  )
  .add(
    HttpApiEndpoint.post("resendQuoteScaCode", "/quotes/:quoteId/authorize/resend", {
      params: { quoteId: QuoteId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.get("listTransactions", "/transactions", {
      query: ListTransactionsQuery,
      success: PageOf(TransactionOneOf)
    })
  )
  .add(
    HttpApiEndpoint.get("getTransaction", "/transactions/:transactionId", {
      params: { transactionId: AnyTransactionId },
      success: TransactionOneOf
    })
  )
  // Issue 18: the moves of a payment's or card transaction's machine, oldest first (docs/transactions.md).
  .add(
    HttpApiEndpoint.get("getTransactionTimeline", "/transactions/:transactionId/timeline", {
      params: { transactionId: AnyTransactionId },
      success: Timeline
    })
  )
  // Actions on a transaction (issue 17 slice D, docs/transactions.md): receipts, cancellation of an unsettled
  // bank payout (WH-07), the platform's decision on an incoming payment awaiting approval (WH-21).
  .add(
    HttpApiEndpoint.post("confirmTransaction", "/transactions/:transactionId/confirm", {
      params: { transactionId: AnyTransactionId },
      payload: ConfirmTransactionRequest,
      success: Transaction
    })
  )
  .add(
    HttpApiEndpoint.post("cancelTransaction", "/transactions/:transactionId/cancel", {
      params: { transactionId: TransactionId },
      payload: TransactionReasonRequest,
      success: Transaction
    })
  )
  .add(
    HttpApiEndpoint.post("approveTransaction", "/transactions/:transactionId/approve", {
      params: { transactionId: TransactionId },
      payload: ApproveTransactionRequest,
      success: Transaction
    })
  )
  .add(
    HttpApiEndpoint.post("rejectTransaction", "/transactions/:transactionId/reject", {
      params: { transactionId: TransactionId },
      payload: TransactionReasonRequest,
      success: Transaction
    })
  )
  .add(
    HttpApiEndpoint.get("lookupExternalAccount", "/receiver/external-account/:accountId", {
      params: { accountId: ExternalAccountId },
      query: ReceiverLookupQuery,
      success: ExternalAccountLookup
    })
  )
  .add(
    HttpApiEndpoint.get("lookupUma", "/receiver/uma/:receiverUmaAddress", {
      params: { receiverUmaAddress: Schema.String },
      query: ReceiverLookupQuery,
      success: UmaLookup
    })
  )
  .add(
    // a computation (it stores and holds nothing), so any token may ask (auth.ts).
    HttpApiEndpoint.post("estimateWithdrawalFee", "/crypto/estimate-withdrawal-fee", {
      payload: EstimateWithdrawalFeeRequest,
      success: EstimateWithdrawalFeeResponse
    })
  )
  .add(
    HttpApiEndpoint.post("transferOut", "/transfer-out", {
      payload: TransferOutRequest,
      success: Transaction.pipe(created)
    }).annotateMerge(
      OpenApi.annotations({ deprecated: true, description: "Superseded by POST /quotes with immediatelyExecute" })
    )
  )
  .add(
    HttpApiEndpoint.post("transferIn", "/transfer-in", {
      payload: TransferInRequest,
      success: Transaction.pipe(created)
    }).annotateMerge(OpenApi.annotations({ deprecated: true, description: "Superseded by POST /quotes" }))
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Payments",
      description: "Quotes, execution and its SCA authorization, transactions, receivers, crypto withdrawal fees"
    })
  )
