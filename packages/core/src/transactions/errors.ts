import { InvalidInput, NotFound, type StoreError } from "../shared/errors.ts"

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
