import { Context, Effect, Layer } from "effect"
import type { CardTransaction } from "../cards/model.ts"
import type { PlatformConfigService } from "../platform/service.ts"
import type { Ids } from "../ports/ids.ts"
import type { KycProvider } from "../ports/kyc.ts"
import type { Notifier } from "../ports/notifier.ts"
import type { Rail } from "../ports/rail.ts"
import type { Store } from "../ports/store.ts"
import type { Quote } from "../quotes/model.ts"
import { Quotes } from "../quotes/service.ts"
import type { ScaAuthorization } from "../sca/model.ts"
import type { InvalidInput, NotFound, StoreError } from "../shared/errors.ts"
import type { CardTransactionId, TransactionId } from "../shared/ids.ts"
import type { Page } from "../shared/paging.ts"
import { command, operation } from "../shared/tracing.ts"
import type { Timeline } from "../timelines/model.ts"
import { approveIncoming, rejectIncoming } from "./approvals.ts"
import { authorizeQuote, resendQuoteCode } from "./authorize.ts"
import { cancelPayout } from "./cancel.ts"
import { rejectComplianceHold, releaseComplianceHold } from "./compliance.ts"
import { sandboxReturnDeposit } from "./deposit-returns.ts"
import { fundSandbox, sandboxSend, sandboxUmaReceive } from "./incoming.ts"
import type {
  ApproveTransactionRequest,
  ConfirmTransactionRequest,
  ListTransactionsQuery,
  SandboxSendRequest,
  SandboxUmaReceiveRequest,
  Transaction,
  TransactionOneOf,
  TransactionReasonRequest,
  TransferInRequest,
  TransferOutRequest
} from "./model.ts"
import { currentClock } from "./moves.ts"
import { scaPaymentPorts, type TransactionsError } from "./ports.ts"
import { getTimeline, getTransaction, listTransactions } from "./reads.ts"
import { confirmReceipt } from "./receipts.ts"
import { type ProcessDueReport, processDue } from "./settlement.ts"
import { transferIn, transferOut } from "./transfers.ts"

export type { TransactionsError } from "./ports.ts"

/** What `get` answers for an id: a payment for a `Transaction:` id, a card transaction for a `CardTransaction:` one. */
export type TransactionById<Id extends string> = Id extends TransactionId
  ? Transaction
  : Id extends CardTransactionId
    ? CardTransaction
    : TransactionOneOf

/**
 * Transactions: reads (reads.ts), the settlement worker (settlement.ts), incoming payments and the sandbox money
 * helpers (incoming.ts), and the deprecated transfers (transfers.ts). Executing quotes (execute.ts) is reached
 * through `Quotes`, which asks for it as `QuotePayments`.
 */
export class Transactions extends Context.Service<
  Transactions,
  {
    /** `GET /transactions`: payments and card transactions in one time order (reads.ts). */
    readonly list: (query: ListTransactionsQuery) => Effect.Effect<Page<TransactionOneOf>, InvalidInput | StoreError>
    /**
     * `GET /transactions/{transactionId}` (404 `TRANSACTION_NOT_FOUND`): a payment's id answers the payment, a
     * `CardTransaction:` id the card transaction.
     */
    readonly get: <Id extends string>(id: Id) => Effect.Effect<TransactionById<Id>, NotFound | StoreError>
    /** `GET /transactions/{transactionId}/timeline`: the moves of its machine, oldest first (404 as `get`). */
    readonly timeline: (id: string) => Effect.Effect<Timeline, NotFound | StoreError>
    /** One pass of the background worker (see `processDue`). */
    readonly processDue: () => Effect.Effect<ProcessDueReport, StoreError>
    /** `POST /sandbox/internal-accounts/{accountId}/fund`; returns the account id. */
    readonly fundSandbox: (accountId: string, amount: number) => Effect.Effect<string, TransactionsError>
    /** `POST /sandbox/send`. */
    readonly sandboxSend: (request: SandboxSendRequest) => Effect.Effect<Transaction, TransactionsError>
    /** `POST /sandbox/uma/receive`. */
    readonly sandboxUmaReceive: (request: SandboxUmaReceiveRequest) => Effect.Effect<Transaction, TransactionsError>
    /** Deprecated `POST /transfer-in`. */
    readonly transferIn: (request: TransferInRequest) => Effect.Effect<Transaction, TransactionsError>
    /** Deprecated `POST /transfer-out`: a same-currency quote locked on the sending side, executed at once. */
    readonly transferOut: (request: TransferOutRequest) => Effect.Effect<Transaction, TransactionsError>
    /**
     * `POST /quotes/{quoteId}/authorize` (S-04 … S-06, S-11): the proof of the quote's open SCA challenge; the quote
     * then carries the next challenge, or moves (PROCESSING / COMPLETED), or, real-time-funded, is PENDING with
     * its payment instructions (see `authorizeQuote`).
     */
    readonly authorizeQuote: (quoteId: string, proof: ScaAuthorization) => Effect.Effect<Quote, TransactionsError>
    /** `POST /quotes/{quoteId}/authorize/resend` (S-07): a new SMS code for the open challenge, its expiry kept. */
    readonly resendQuoteScaCode: (quoteId: string) => Effect.Effect<void, TransactionsError>
    /** `POST /transactions/{id}/confirm`: records the receipt's delivery (receipts.ts). */
    readonly confirm: (
      id: string,
      request?: ConfirmTransactionRequest | undefined
    ) => Effect.Effect<Transaction, TransactionsError>
    /** `POST /transactions/{id}/cancel` (WH-07): stops an unsettled ACH or WIRE payout (cancel.ts). */
    readonly cancel: (
      id: string,
      request?: TransactionReasonRequest | undefined
    ) => Effect.Effect<Transaction, TransactionsError>
    /** `POST /transactions/{id}/approve` (WH-21): credits an incoming payment awaiting approval (approvals.ts). */
    readonly approve: (
      id: string,
      request?: ApproveTransactionRequest | undefined
    ) => Effect.Effect<Transaction, TransactionsError>
    /** `POST /transactions/{id}/reject` (WH-21): fails an incoming payment awaiting approval (approvals.ts). */
    readonly reject: (
      id: string,
      request?: TransactionReasonRequest | undefined
    ) => Effect.Effect<Transaction, TransactionsError>
    /** `POST /sandbox/transactions/{id}/return` (WH-08): the sending bank takes a deposit back (deposit-returns.ts). */
    readonly sandboxReturnDeposit: (id: string) => Effect.Effect<Transaction, TransactionsError>
    /**
     * a compliance review released a payout the `Screening` port held (COMPLIANCE_REVIEW, `pendingReason:
     * COMPLIANCE_REVIEW`): `PROCESSING` again (`OUTGOING_PAYMENT.PROCESSING`), handed to its rail (compliance.ts).
     * 404 `TRANSACTION_NOT_FOUND`; 409 `CONFLICT` (`details.status`) when it is not held. The sandbox route:
     * `POST /sandbox/transactions/{id}/compliance/release`.
     */
    readonly releaseComplianceHold: (id: string) => Effect.Effect<Transaction, TransactionsError>
    /**
     * a compliance review rejected a held payout: `FAILED` with `COMPLIANCE_REJECTED`, its holds voided and the
     * refund `COMPLETED` at once (`OUTGOING_PAYMENT.FAILED`, `.REFUND_PENDING`, `.REFUND_COMPLETED`); the quote
     * `FAILED`. 404; 409 as release. The sandbox route: `POST /sandbox/transactions/{id}/compliance/reject`.
     */
    readonly rejectComplianceHold: (
      id: string,
      request?: TransactionReasonRequest | undefined
    ) => Effect.Effect<Transaction, TransactionsError>
  }
>()("paycore/transactions/Transactions") {
  static readonly layer: Layer.Layer<
    Transactions,
    never,
    Store | Ids | Rail | Notifier | KycProvider | PlatformConfigService | Quotes
  > = Layer.effect(
    Transactions,
    Effect.gen(function* () {
      const ports = yield* scaPaymentPorts
      const quotes = yield* Quotes
      return Transactions.of({
        list: operation("Transactions.list")(function* (query: ListTransactionsQuery) {
          return yield* listTransactions(ports, query)
        }),
        get: operation("Transactions.get")(function* <Id extends string>(id: Id) {
          return (yield* getTransaction(ports, id)) as TransactionById<Id>
        }),
        timeline: operation("Transactions.timeline")(function* (id: string) {
          return yield* getTimeline(ports, id)
        }),
        // A hot command (see shared/tracing.ts): the worker's pass, whose span would enclose every settlement.
        processDue: () => command("Transactions.processDue", (env) => processDue(ports, env.clock)),
        fundSandbox: operation("Transactions.fundSandbox")(function* (accountId: string, amount: number) {
          return yield* fundSandbox(ports, accountId, amount)
        }),
        sandboxSend: operation("Transactions.sandboxSend")(function* (request: SandboxSendRequest) {
          return yield* sandboxSend(ports, request)
        }),
        sandboxUmaReceive: operation("Transactions.sandboxUmaReceive")(function* (request: SandboxUmaReceiveRequest) {
          return yield* sandboxUmaReceive(ports, request)
        }),
        transferIn: operation("Transactions.transferIn")(function* (request: TransferInRequest) {
          return yield* transferIn(ports, request)
        }),
        transferOut: operation("Transactions.transferOut")(function* (request: TransferOutRequest) {
          return yield* transferOut(ports, quotes, request)
        }),
        authorizeQuote: operation("Transactions.authorizeQuote")(function* (quoteId: string, proof: ScaAuthorization) {
          const authorized = yield* authorizeQuote(ports, quoteId, proof, yield* currentClock)
          return authorized.quote.quote
        }),
        resendQuoteScaCode: operation("Transactions.resendQuoteScaCode")(function* (quoteId: string) {
          return yield* resendQuoteCode(ports, quoteId, yield* currentClock)
        }),
        confirm: operation("Transactions.confirm")(function* (id: string, request?: ConfirmTransactionRequest) {
          return yield* confirmReceipt(ports, id, request, yield* currentClock)
        }),
        cancel: operation("Transactions.cancel")(function* (id: string, request?: TransactionReasonRequest) {
          return yield* cancelPayout(ports, id, request, yield* currentClock)
        }),
        approve: operation("Transactions.approve")(function* (id: string, request?: ApproveTransactionRequest) {
          return yield* approveIncoming(ports, id, request, yield* currentClock)
        }),
        reject: operation("Transactions.reject")(function* (id: string, request?: TransactionReasonRequest) {
          return yield* rejectIncoming(ports, id, request, yield* currentClock)
        }),
        sandboxReturnDeposit: operation("Transactions.sandboxReturnDeposit")(function* (id: string) {
          return yield* sandboxReturnDeposit(ports, id, yield* currentClock)
        }),
        releaseComplianceHold: operation("Transactions.releaseComplianceHold")(function* (id: string) {
          return yield* releaseComplianceHold(ports, id, yield* currentClock)
        }),
        rejectComplianceHold: operation("Transactions.rejectComplianceHold")(function* (
          id: string,
          request?: TransactionReasonRequest
        ) {
          return yield* rejectComplianceHold(ports, id, request, yield* currentClock)
        })
      })
    })
  )
}
