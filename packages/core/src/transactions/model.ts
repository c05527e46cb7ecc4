import { Schema } from "effect"
import { PaymentRail } from "../accounts/model.ts"
import { CardTransaction, CardTransactionStatus } from "../cards/model.ts"
import { TransactionType } from "../platform/model.ts"
import { PurposeOfPayment } from "../quotes/model.ts"
import { CurrencyCode } from "../shared/currency.ts"
import {
  AgentId,
  CustomerId,
  ExternalAccountId,
  InternalAccountId,
  QuoteId,
  TransactionId,
  uuidPattern
} from "../shared/ids.ts"
import { Amount, PositiveMinorUnits } from "../shared/money.ts"
import { PageQueryFields } from "../shared/paging.ts"
import { DateTimeString, UmaAddress } from "../shared/schemas.ts"

/** `PENDING_AUTHORIZATION`: an outgoing payment waiting for its quote's SCA challenges (S-03). */
export const TransactionStatus = Schema.Literals([
  "PENDING",
  "PENDING_AUTHORIZATION",
  "PROCESSING",
  "COMPLETED",
  "FAILED",
  "EXPIRED"
])
export type TransactionStatus = typeof TransactionStatus.Type

/** The spec's payout failure reasons (removed ones are never emitted). */
export const FailureReason = Schema.Literals([
  "QUOTE_EXECUTION_FAILED",
  "PAYOUT_RETURNED",
  "LIMIT_EXCEEDED",
  "ACCOUNT_CANNOT_RECEIVE",
  "ACCOUNT_INVALID",
  "COMPLIANCE_REJECTED"
])
export type FailureReason = typeof FailureReason.Type

/**
 * A transaction's `failureReason`: a payout's is the rail's (above), or `SCA_NOT_COMPLETED` when its SCA challenge
 * expired before it was authorized (S-11, Q-35: nothing moved); an incoming payment (a pull, a deposit) keeps
 * `COMPLIANCE_REJECTED` and `QUOTE_EXECUTION_FAILED` and otherwise reads `COLLECTION_FAILED`, the upstream's name
 * for a collection that did not credit (its incoming catalogue has no payout reasons).
 */
export const TransactionFailureReason = Schema.Literals([
  "QUOTE_EXECUTION_FAILED",
  "PAYOUT_RETURNED",
  "LIMIT_EXCEEDED",
  "ACCOUNT_CANNOT_RECEIVE",
  "ACCOUNT_INVALID",
  "COMPLIANCE_REJECTED",
  "COLLECTION_FAILED",
  "SCA_NOT_COMPLETED",
  // Incoming approvals (WH-21, Q-37: the upstream incoming catalogue): the platform did not decide in time, its
  // webhook reply was not one the service understands, or it answered 422 (payee data missing).
  "PAYMENT_APPROVAL_TIMED_OUT",
  "PAYMENT_APPROVAL_WEBHOOK_ERROR",
  "MISSING_MANDATORY_PAYEE_DATA"
])
export type TransactionFailureReason = typeof TransactionFailureReason.Type

/** The failure reason an incoming payment reports for a rail's reason. */
export const incomingFailureReason = (reason: FailureReason): TransactionFailureReason =>
  reason === "COMPLIANCE_REJECTED" || reason === "QUOTE_EXECUTION_FAILED" ? reason : "COLLECTION_FAILED"

export const RefundStatus = Schema.Literals(["PENDING", "COMPLETED", "FAILED"])
export const Refund = Schema.Struct({
  reference: Schema.String,
  initiatedAt: DateTimeString,
  settledAt: Schema.optionalKey(DateTimeString),
  status: RefundStatus,
  reason: Schema.optionalKey(Schema.Literals(["TRANSACTION_FAILED", "USER_CANCELLATION", "TIMEOUT"]))
})
export type Refund = typeof Refund.Type

/** The networks an on-chain transfer settles on (upstream `CryptoNetwork` of `OnChainTransaction`; not Lightning). */
export const OnChainNetwork = Schema.Literals([
  "BITCOIN",
  "ETHEREUM",
  "SOLANA",
  "BASE",
  "POLYGON",
  "TRON",
  "PLASMA",
  "SPARK"
])
export type OnChainNetwork = typeof OnChainNetwork.Type

/** the on-chain transfer that delivered a leg to or from an external wallet, once it settled. */
export const OnChainTransaction = Schema.Struct({ transactionHash: Schema.String, network: OnChainNetwork })
export type OnChainTransaction = typeof OnChainTransaction.Type

export const TransactionEndpoint = Schema.Struct({
  sourceType: Schema.optionalKey(Schema.String),
  destinationType: Schema.optionalKey(Schema.String),
  accountId: Schema.optionalKey(Schema.String),
  umaAddress: Schema.optionalKey(Schema.String),
  currency: Schema.optionalKey(CurrencyCode),
  paymentRail: Schema.optionalKey(PaymentRail),
  onChainTransaction: Schema.optionalKey(OnChainTransaction)
})

export const Transaction = Schema.Struct({
  id: TransactionId,
  status: TransactionStatus,
  type: TransactionType,
  direction: Schema.Literals(["CREDIT", "DEBIT"]),
  source: TransactionEndpoint,
  destination: TransactionEndpoint,
  customerId: Schema.optionalKey(CustomerId),
  platformCustomerId: Schema.optionalKey(Schema.String),
  /** AG-38: the agent that initiated the payment (its quote's or transfer's); absent for the platform's own. */
  agentId: Schema.optionalKey(AgentId),
  sentAmount: Amount,
  receivedAmount: Amount,
  exchangeRate: Schema.optionalKey(Schema.Finite),
  quoteId: Schema.optionalKey(QuoteId),
  description: Schema.optionalKey(Schema.String),
  failureReason: Schema.optionalKey(TransactionFailureReason),
  pendingReason: Schema.optionalKey(
    Schema.Literals([
      "COUNTERPARTY_DECLARATION_REQUIRED",
      "WALLET_VERIFICATION_REQUIRED",
      "COUNTERPARTY_INFORMATION_REQUIRED",
      "COMPLIANCE_REVIEW"
    ])
  ),
  refund: Schema.optionalKey(Refund),
  /**
   * What the sending institution told about its customer on an incoming UMA payment, by field name: the fields the
   * platform asks for in `supportedCurrencies[].requiredCounterpartyFields` (L-19).
   */
  counterpartyInformation: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  fees: Schema.optionalKey(Schema.Int),
  platformFees: Schema.optionalKey(Schema.Int),
  paymentRail: Schema.optionalKey(PaymentRail),
  railSelectionMode: Schema.optionalKey(Schema.Literals(["AUTO", "MANUAL"])),
  expectedSettlementAt: Schema.optionalKey(DateTimeString),
  settlementTimelineSeconds: Schema.optionalKey(Schema.Int),
  remittanceInformation: Schema.optionalKey(Schema.String),
  /**
   * `transactionHash` (Q-42, V-03, deprecated upstream for wallet transfers): only the hash of an UMA payment's
   * inter-VASP settlement leg; a wallet transfer's hash is its source's or destination's `onChainTransaction`.
   */
  reconciliationInstructions: Schema.optionalKey(
    Schema.Struct({ reference: Schema.String, transactionHash: Schema.optionalKey(Schema.String) })
  ),
  settledAt: Schema.optionalKey(DateTimeString),
  /** when the platform delivered the receipt to its customer (`POST /transactions/{id}/confirm`). */
  receiptDeliveryConfirmedAt: Schema.optionalKey(DateTimeString),
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type Transaction = typeof Transaction.Type

/**
 * What `GET /transactions` and `GET /transactions/{id}` answer (upstream `TransactionOneOf`, discriminated by
 * `type`): a payment (`INCOMING`, `OUTGOING`) or a card transaction (`CARD`, Q-34, CD-41).
 */
export const TransactionOneOf = Schema.Union([Transaction, CardTransaction])
export type TransactionOneOf = typeof TransactionOneOf.Type

/** A listed transaction that is a payment (not a card transaction). */
export const isPayment = (t: TransactionOneOf): t is Transaction => t.type !== "CARD"

/** `GET /transactions/{transactionId}` takes a payment's id or a card transaction's: one rule, one error. */
export const AnyTransactionId = Schema.String.check(
  Schema.isPattern(new RegExp(`^(Transaction|CardTransaction):${uuidPattern}$`), {
    expected: "a Transaction id (Transaction:<uuid>) or a CardTransaction id (CardTransaction:<uuid>)"
  })
)

/** The listing's `type` filter: a payment's type, or `CARD` for card transactions. */
export const ListedTransactionType = Schema.Literals([...TransactionType.literals, "CARD"])
export type ListedTransactionType = typeof ListedTransactionType.Type

/**
 * The listing's `status` filter: a payment's status or a card transaction's (two enums, CD-35). `EXCEPTION` and
 * `REFUNDED` are neither (V-04, V-05): 400.
 */
export const ListedTransactionStatus = Schema.Literals([
  ...TransactionStatus.literals,
  ...CardTransactionStatus.literals
])
export type ListedTransactionStatus = typeof ListedTransactionStatus.Type

/**
 * `GET /transactions`: payments and card transactions in one time order (design section 3, "Listing").
 * `reference` is a payment's reconciliation reference or a card transaction's `issuerTransactionToken`;
 * `accountIdentifier` a payment's source or destination account, or a card transaction's funding account.
 */
export const ListTransactionsQuery = Schema.Struct({
  customerId: Schema.optionalKey(CustomerId),
  platformCustomerId: Schema.optionalKey(Schema.String),
  accountIdentifier: Schema.optionalKey(Schema.String),
  status: Schema.optionalKey(ListedTransactionStatus),
  type: Schema.optionalKey(ListedTransactionType),
  reference: Schema.optionalKey(Schema.String),
  startDate: Schema.optionalKey(DateTimeString),
  endDate: Schema.optionalKey(DateTimeString),
  ...PageQueryFields
})
export type ListTransactionsQuery = typeof ListTransactionsQuery.Type

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
  /** Retryable rail errors so far (submission or polling); the worker gives up after a bound. */
  readonly attempts?: number | undefined
  /**
   * When the worker stopped retrying a rail that kept failing retryably (see `MAX_POLL_ATTEMPTS` in
   * service.ts): the row keeps its state and holds and has no `dueAt`; an operator looks at it.
   */
  readonly stalledAt?: string | undefined
  /** Why the platform rejected an incoming payment awaiting approval (its `reason`; not shown in the resource). */
  readonly decisionReason?: string | undefined
  /**
   * A deprecated transfer's direction (SB-07): `IN` for `POST /transfer-in`, `OUT` for `POST /transfer-out` (the
   * platform's or an agent's). Its rail is told (`Payout.transfer`): a bank pull or push is not a payout.
   */
  readonly transfer?: "IN" | "OUT" | undefined
}

// ---- deprecated same-currency transfers and sandbox helpers ----

/** `POST /transfer-out` (deprecated): a same-currency payout from an internal account; returns the Transaction. */
export const TransferOutRequest = Schema.Struct({
  source: Schema.Struct({ accountId: InternalAccountId }),
  destination: Schema.Struct({ accountId: ExternalAccountId, paymentRail: Schema.optionalKey(PaymentRail) }),
  amount: PositiveMinorUnits,
  remittanceInformation: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(80))),
  purposeOfPayment: Schema.optionalKey(PurposeOfPayment)
})
export type TransferOutRequest = typeof TransferOutRequest.Type

/** `POST /transfer-in` (deprecated): pull from a pull-capable external account into an internal account. */
export const TransferInRequest = Schema.Struct({
  source: Schema.Struct({ accountId: ExternalAccountId }),
  destination: Schema.Struct({ accountId: InternalAccountId }),
  amount: PositiveMinorUnits
})
export type TransferInRequest = typeof TransferInRequest.Type

/** `POST /sandbox/internal-accounts/{accountId}/fund`. */
export const SandboxFundRequest = Schema.Struct({
  amount: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100_000_000_000 }))
})
export type SandboxFundRequest = typeof SandboxFundRequest.Type

/** `POST /sandbox/send`: pays a quote funded by payment instructions (the deposit arrives, the quote executes). */
export const SandboxSendRequest = Schema.Struct({
  quoteId: QuoteId,
  currencyCode: CurrencyCode,
  /** Defaults to the quote's `totalSendingAmount`; any other amount is refused. */
  currencyAmount: Schema.optionalKey(PositiveMinorUnits)
})
export type SandboxSendRequest = typeof SandboxSendRequest.Type

/** `POST /sandbox/uma/receive`: an UMA payment arrives for a customer (by UMA address or customer id). */
export const SandboxUmaReceiveRequest = Schema.Struct({
  senderUmaAddress: UmaAddress,
  receiverUmaAddress: Schema.optionalKey(Schema.String),
  customerId: Schema.optionalKey(CustomerId),
  receivingCurrencyCode: CurrencyCode,
  receivingCurrencyAmount: PositiveMinorUnits
})
export type SandboxUmaReceiveRequest = typeof SandboxUmaReceiveRequest.Type

// ---- actions on a transaction (issue 17 slice D) ----

/** `POST /transactions/{transactionId}/confirm`: the body may be absent; the time defaults to now. */
export const ConfirmTransactionRequest = Schema.NullOr(
  Schema.Struct({ receiptDeliveryConfirmedAt: Schema.optionalKey(DateTimeString) })
)
export type ConfirmTransactionRequest = typeof ConfirmTransactionRequest.Type

/** `POST /transactions/{transactionId}/approve` (WH-21): what the platform tells of the receiver, if asked. */
export const ApproveTransactionRequest = Schema.NullOr(
  Schema.Struct({ receiverCustomerInfo: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)) })
)
export type ApproveTransactionRequest = typeof ApproveTransactionRequest.Type

/** `POST /transactions/{transactionId}/reject` and `/cancel`: an optional reason, for the platform's own records. */
export const TransactionReasonRequest = Schema.NullOr(
  Schema.Struct({ reason: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1000))) })
)
export type TransactionReasonRequest = typeof TransactionReasonRequest.Type
