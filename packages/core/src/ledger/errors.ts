import { Refused, type StoreError } from "../shared/errors.ts"

/**
 * 400 `INSUFFICIENT_FUNDS`: the debit would take an internal account's available balance
 * (posted minus held) below zero. Nothing was recorded.
 */
export const insufficientFunds = (account: string, currency: string, available: number, requested: number): Refused =>
  new Refused({
    code: "INSUFFICIENT_FUNDS",
    message: `Account ${account} has ${available} ${currency} (smallest unit) available, ${requested} is needed`,
    details: { accountId: account, currency, available, requested }
  })

export type LedgerError = Refused | StoreError
