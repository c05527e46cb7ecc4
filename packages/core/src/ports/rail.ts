import { Context, type Effect } from "effect"
import type { AccountInfo, PaymentRail } from "../accounts/model.ts"
import type { FailureReason, OnChainTransaction } from "../transactions/model.ts"

/** A payout handed to a rail. */
export interface Payout {
  readonly transactionId: string
  readonly rail: PaymentRail
  readonly amount: number
  readonly currency: string
  /** Where the money goes: an external account's details or an UMA address. */
  readonly destination:
    | { readonly kind: "ACCOUNT"; readonly accountInfo: AccountInfo }
    | { readonly kind: "UMA"; readonly umaAddress: string }
    | { readonly kind: "INTERNAL"; readonly accountId: string }
  readonly remittanceInformation?: string | undefined
  /**
   * A deprecated transfer (SB-07): `IN` is a pull from `destination` (the customer's own bank account) into the
   * service, `OUT` a same-currency push to it. Absent: a payout.
   */
  readonly transfer?: "IN" | "OUT" | undefined
}

export interface Submitted {
  readonly reference: string
  /** When the rail expects to settle; the settlement worker polls from then on. */
  readonly expectedSettlementAt: string
}

/** What a rail reports about a payout. */
export type PayoutStatus =
  | { readonly _tag: "Pending"; readonly checkAgainAt: string }
  | {
      readonly _tag: "Settled"
      readonly settledAt: string
      /** A payout to an external wallet on a chain (not Lightning): the transfer that delivered it. */
      readonly onChain?: OnChainTransaction | undefined
      /** An UMA payout: the hash of its inter-VASP settlement leg. */
      readonly settlementHash?: string | undefined
    }
  /** The payout failed; `refundSucceeds` false means the money could not be returned automatically. */
  | { readonly _tag: "Failed"; readonly reason: FailureReason; readonly refundSucceeds: boolean }
  /** Settled, then returned by the receiving bank. */
  | { readonly _tag: "Returned"; readonly reason: FailureReason }

/**
 * What a rail answers to a cancellation (WH-07): the payout will not settle (`Cancelled`), or it is past the
 * rail's cancellation window (`TooLate`: settled, or being processed).
 */
export type CancelOutcome = { readonly _tag: "Cancelled" } | { readonly _tag: "TooLate" }

/** A rail refused the payout at submission (terminal), or could not be reached (retry). */
export interface RailError {
  readonly _tag: "RailError"
  readonly retryable: boolean
  readonly reason: FailureReason
  readonly message: string
}

export class Rail extends Context.Service<
  Rail,
  {
    /**
     * Hands a payout to the rail. It may be called again for the same `transactionId` (after a crash between the
     * submission and the record of its reference, or when that record was lost): an adapter makes
     * `transactionId` the rail's idempotency key, so the money moves once.
     */
    readonly submit: (payout: Payout) => Effect.Effect<Submitted, RailError>
    readonly status: (reference: string) => Effect.Effect<PayoutStatus, RailError>
    /**
     * Optional: asks the rail to cancel a submitted payout it has not settled (ACH and WIRE, WH-07). A rail
     * without it cancels nothing: every cancellation is 409 `TRANSACTION_NOT_CANCELLABLE`. Called outside any
     * store transaction; a retryable error is 503.
     */
    readonly cancel?: ((reference: string) => Effect.Effect<CancelOutcome, RailError>) | undefined
    /** Typical settlement time of a rail in seconds (the spec's timing table). */
    readonly settlementSeconds: (rail: PaymentRail) => number
  }
>()("paycore/ports/Rail") {}

/** How a payout's rail is chosen when its quote names none (the `RailSelection` port). */
export interface RailSelectionService {
  /**
   * The rail of a payout to an external account whose quote names none ("a default rail for the destination is
   * selected"), among the rails the account can be paid on (never empty, in its payee type's order).
   */
  readonly choose: (rails: ReadonlyArray<PaymentRail>) => PaymentRail
}

/**
 * Which rail a payout takes when the quote does not say. The default is the account's first rail (its payee type's
 * order: `ACH` for a US account); the sandbox provides `SandboxRailSelection` (@paycore/sandbox), the fastest rail of
 * its timing table, so a sandbox payment settles over an instant rail wherever the payee has one.
 */
export const RailSelection = Context.Reference<RailSelectionService>("paycore/ports/RailSelection", {
  defaultValue: () => ({ choose: (rails) => rails[0]! })
})
