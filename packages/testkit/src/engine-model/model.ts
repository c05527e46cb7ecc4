/** What the built-in commands expect of the engine: the model they keep beside it. */
import type { AccountInfo, CustomerId, ExternalAccountId, InternalAccountId } from "@paycore/core"

/** A customer the model created: its USD internal account and its two payees. */
export interface ModelCustomer {
  readonly customerId: CustomerId
  readonly accountId: InternalAccountId
  /** External accounts: `settles` is paid and stays paid; `fails` fails after submission and is refunded. */
  readonly payees: { readonly settles: ExternalAccountId; readonly fails: ExternalAccountId }
}

/** How a payment must end. */
export type PaymentFate = "COMPLETED" | "FAILED"

/** A payment the engine accepted. */
export interface ModelPayment {
  /** The idempotency key it was executed under. */
  readonly key: string
  readonly quoteId: string
  readonly transactionId: string
  readonly accountId: InternalAccountId
  /** What left the account when it was executed (`totalSendingAmount`). */
  readonly debited: number
  readonly fate: PaymentFate
  /** The model time (seconds since the run began) it was executed at. */
  readonly executedAt: number
  /** Its last status seen; terminal once it is `fate`. */
  status: string
}

/**
 * The model: what the engine must hold after every step. `balances` is each account's predicted available balance
 * (minor units of USD); `user` is yours, for the commands you add (`initialUser` builds it for each run).
 */
export interface EngineModel<U = unknown> {
  readonly customers: Array<ModelCustomer>
  readonly balances: Map<string, number>
  readonly payments: Array<ModelPayment>
  /** Seconds since the run began (the engine's TestClock moved by the same). */
  now: number
  readonly user: U
}

/** The payee details the built-in commands create (currency USD). */
export interface ModelPayees {
  /** A payee the rail settles. */
  readonly settles: AccountInfo
  /** A payee the rail accepts, then fails with a refund that succeeds. */
  readonly fails: AccountInfo
  /** How long a payment may stay in flight before the model calls it stuck. */
  readonly settleWithinSeconds: number
}

const beneficiary = { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" } as const

/**
 * The sandbox rail's payees: a US account ending `000` settles over ACH within 2 days, one ending `002` fails and is
 * refunded (the suffix table of packages/sandbox/README.md).
 */
export const sandboxPayees: ModelPayees = {
  settles: { accountType: "US_ACCOUNT", accountNumber: "123456000", routingNumber: "021000021", beneficiary },
  fails: { accountType: "US_ACCOUNT", accountNumber: "123456002", routingNumber: "021000021", beneficiary },
  settleWithinSeconds: 3 * 24 * 3600
}

export const initialModel = <U>(user: U): EngineModel<U> => ({
  customers: [],
  balances: new Map(),
  payments: [],
  now: 0,
  user
})
