import { Conflict, InvalidInput, NotFound, Refused, type StoreError } from "../shared/errors.ts"
import type { TransactionRecord } from "./model.ts"

/** 404 `TRANSACTION_NOT_FOUND`. */
export const transactionNotFound = (id: string): NotFound =>
  new NotFound({ code: "TRANSACTION_NOT_FOUND", message: `Transaction ${id} was not found` })

/** 400 on `cursor`: a cursor this engine did not issue. */
export const invalidCursor = (): InvalidInput =>
  InvalidInput.one("cursor", { format: "cursor" }, "Expected a cursor returned as nextCursor by the previous page")

/** Sandbox funding bounds (upstream: 1 to 100 000 000 000 in the smallest unit). */
export const SANDBOX_FUND_MAX = 100_000_000_000

export const invalidFundAmount = (amount: number): InvalidInput =>
  InvalidInput.one(
    "amount",
    { minimum: 1, maximum: SANDBOX_FUND_MAX },
    `Expected an integer amount from 1 to ${SANDBOX_FUND_MAX} in the smallest unit, got ${amount}`
  )

export type TransactionQueryError = InvalidInput | NotFound | StoreError

/** 409 `TRANSACTION_NOT_CANCELLABLE` (WH-07): not a submitted ACH or WIRE payout the rail can still stop. */
export const transactionNotCancellable = (record: TransactionRecord, why: string): Conflict =>
  new Conflict({
    code: "TRANSACTION_NOT_CANCELLABLE",
    message: `Transaction ${record.id} cannot be cancelled: ${why}`,
    details: {
      status: record.transaction.status,
      ...(record.transaction.paymentRail === undefined ? {} : { paymentRail: record.transaction.paymentRail })
    }
  })

/** 503 `SERVICE_UNAVAILABLE`: the rail did not answer a cancellation; nothing changed, the call may be repeated. */
export const railUnavailable = (message: string): Refused =>
  new Refused({ code: "SERVICE_UNAVAILABLE", message: `The payment rail did not answer: ${message}; try again` })

/** 409 `TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL` (WH-21): approve / reject of a payment not awaiting approval. */
export const transactionNotPendingApproval = (record: TransactionRecord): Conflict =>
  new Conflict({
    code: "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL",
    message: `Transaction ${record.id} is not an incoming payment awaiting the platform's approval`,
    details: { status: record.transaction.status }
  })

/** 409 `CONFLICT` on a sandbox deposit return (WH-08): not a completed deposit, or its account no longer holds it. */
export const depositNotReturnable = (record: TransactionRecord, why: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Transaction ${record.id} cannot be returned: ${why}`,
    details: { status: record.transaction.status }
  })

/** 409 `CONFLICT`: a compliance decision about a payment that is not held for compliance review. */
export const transactionNotUnderReview = (record: TransactionRecord): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Transaction ${record.id} is not an outgoing payment held for compliance review`,
    details: {
      status: record.transaction.status,
      ...(record.transaction.failureReason === undefined ? {} : { failureReason: record.transaction.failureReason })
    }
  })
