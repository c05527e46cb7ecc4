/**
 * Returned deposits (WH-08, design Q13): a completed incoming payment (a sandbox funding, an UMA payment received, a
 * deposit) that the sending bank takes back. `returnDepositSteps` is the move a deposit adapter makes; the sandbox
 * route `POST /sandbox/transactions/{id}/return` simulates one. The amount is held at once (account →
 * `system:deposits:<ccy>`, pending under the refund's reference, so it cannot be spent meanwhile) and the payment
 * moves `RETURN` (`INCOMING_PAYMENT.REFUND_PENDING`, due now); the worker's refund step then posts the hold and
 * settles the refund (`INCOMING_PAYMENT.REFUND_COMPLETED`, refunds.ts).
 */
import { type Clock, Effect } from "effect"
import { recordSteps } from "../accounts/balance-updates.ts"
import { systemAccount } from "../ledger/model.ts"
import type { Refused } from "../shared/errors.ts"
import type { Steps } from "../shared/tracing.ts"
import { depositNotReturnable, transactionNotFound } from "./errors.ts"
import { refundReference } from "./legs.ts"
import type { TransactionRecord } from "./model.ts"
import { dieOnUnique, type MoveError, moveTransactionSteps, nowOf } from "./moves.ts"
import type { PaymentPorts } from "./ports.ts"

const isInsufficientFunds = (e: unknown): e is Refused =>
  typeof e === "object" &&
  e !== null &&
  (e as { _tag?: unknown })._tag === "Refused" &&
  (e as { code?: unknown }).code === "INSUFFICIENT_FUNDS"

/**
 * Returns a completed incoming payment (inside the store transaction that locked it): 409 `CONFLICT` when it is
 * not a completed incoming payment into an internal account, or the account no longer holds the amount.
 */
export function* returnDepositSteps(
  ports: PaymentPorts,
  current: TransactionRecord,
  now: string
): Steps<TransactionRecord, MoveError | Refused | ReturnType<typeof depositNotReturnable>> {
  const account = current.accountId
  if (current.transaction.type !== "INCOMING" || current.state !== "COMPLETED" || account === undefined) {
    return yield* Effect.fail(depositNotReturnable(current, "only a completed incoming payment can be returned"))
  }
  const { amount, currency } = current.transaction.receivedAmount
  const reference = refundReference(current.id)
  yield* Effect.catchIf(
    Effect.gen(() =>
      recordSteps(
        ports,
        reference,
        [{ debit: account, credit: systemAccount("deposits", currency.code), amount, currency: currency.code }],
        "PENDING",
        now
      )
    ),
    isInsufficientFunds,
    () => Effect.fail(depositNotReturnable(current, `account ${account} no longer holds the amount`))
  )
  return yield* moveTransactionSteps(
    ports,
    current,
    "RETURN",
    {
      transaction: { refund: { reference, initiatedAt: now, status: "PENDING", reason: "TRANSACTION_FAILED" } },
      record: { dueAt: now }
    },
    now
  )
}

const returnInStore = Effect.fnUntraced(function* (ports: PaymentPorts, id: string, clock: Clock.Clock) {
  const current = yield* ports.store.transactions.getForUpdate(id)
  if (current === undefined) return yield* Effect.fail(transactionNotFound(id))
  return yield* returnDepositSteps(ports, current, nowOf(clock))
})

/** `POST /sandbox/transactions/{transactionId}/return`: the transaction, `COMPLETED` with `refund.status` PENDING. */
export const sandboxReturnDeposit = Effect.fnUntraced(function* (ports: PaymentPorts, id: string, clock: Clock.Clock) {
  const record = yield* dieOnUnique(ports.store.transaction(returnInStore(ports, id, clock)))
  return record.transaction
})
