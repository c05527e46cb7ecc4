import { systemAccount } from "../ledger/model.ts"
import type { Leg } from "../ledger/transfers.ts"
import type { StablecoinOperationRecord } from "./model.ts"

// The ledger of issuance (pure; design section 3 "Stablecoins", Q2). `a` is the amount in the coin's smallest unit
// (its ledger currency S), `f` its base-currency equivalent; supply = `system:stablecoin-supply:<S>`, reserve =
// `system:stablecoin-reserve:<base>`. Every transfer of an operation is recorded under its id.
//
// | operation, source / destination | at commit | at COMPLETE | at FAIL, EXPIRE, REFUSE |
// | mint, SERVICE_INTERNAL_ACCOUNT A (base) | A → reserve PENDING f | post it | void it |
// | mint, WIRE / ACH debits | — | deposits:base → reserve POSTED f | — |
// | mint, PROVIDER_INTERNAL_BALANCE | — | — | — |
// | mint, destination internal D / external wallet | — | supply:S → D, or supply:S → payouts:S, POSTED a | — |
// | burn, SERVICE_INTERNAL_ACCOUNT A (S) | A → supply:S PENDING a | post it; reserve → payouts:base POSTED f | void it |
// | burn, external wallet / provider balance | — | deposits:S → supply:S POSTED a; reserve → payouts:base POSTED f | — |

export const supplyAccount = (ledgerCurrency: string): string => systemAccount("stablecoin-supply", ledgerCurrency)
export const reserveAccount = (baseCurrency: string): string => systemAccount("stablecoin-reserve", baseCurrency)

type Op = Pick<
  StablecoinOperationRecord,
  "operationType" | "source" | "destination" | "minorAmount" | "baseAmount" | "baseCurrency" | "ledgerCurrency"
>

const isInternal = (accountId: string): boolean => accountId.startsWith("InternalAccount:")

/** The hold placed when the operation is committed (service-held funds of an internal account), or none. */
export const holdLegs = (op: Op): ReadonlyArray<Leg> => {
  if (op.source.type !== "SERVICE_INTERNAL_ACCOUNT" || op.source.accountId === undefined) return []
  return op.operationType === "MINT"
    ? [
        {
          debit: op.source.accountId,
          credit: reserveAccount(op.baseCurrency),
          amount: op.baseAmount,
          currency: op.baseCurrency
        }
      ]
    : [
        {
          debit: op.source.accountId,
          credit: supplyAccount(op.ledgerCurrency),
          amount: op.minorAmount,
          currency: op.ledgerCurrency
        }
      ]
}

/** What is posted at `COMPLETE` besides the hold (which is posted too). */
export const completionLegs = (op: Op): ReadonlyArray<Leg> => {
  const legs: Array<Leg> = []
  const S = op.ledgerCurrency
  const base = op.baseCurrency
  if (op.operationType === "MINT") {
    if (op.source.type === "WIRE" || op.source.type === "ACH_DEBIT" || op.source.type === "SAME_DAY_ACH_DEBIT") {
      legs.push({
        debit: systemAccount("deposits", base),
        credit: reserveAccount(base),
        amount: op.baseAmount,
        currency: base
      })
    }
    const to = isInternal(op.destination.accountId) ? op.destination.accountId : systemAccount("payouts", S)
    legs.push({ debit: supplyAccount(S), credit: to, amount: op.minorAmount, currency: S })
    return legs
  }
  if (op.source.type !== "SERVICE_INTERNAL_ACCOUNT") {
    legs.push({ debit: systemAccount("deposits", S), credit: supplyAccount(S), amount: op.minorAmount, currency: S })
  }
  legs.push({
    debit: reserveAccount(base),
    credit: systemAccount("payouts", base),
    amount: op.baseAmount,
    currency: base
  })
  return legs
}
