import { Context, Effect } from "effect"
import type { Payout } from "./rail.ts"

/**
 * What compliance screening makes of an outgoing payment as it is executed: `Clear` lets it go to its rail;
 * `Refuse` refuses the execute; `Review` holds it (`pendingReason: COMPLIANCE_REVIEW`, its money held, nothing sent to the rail) until a decision
 * releases it to the rail or rejects it (`COMPLIANCE_REJECTED`, the hold released).
 */
export type ScreeningVerdict =
  | { readonly _tag: "Clear" }
  | { readonly _tag: "Review" }
  /**
   * Refuses the payment outright (C-49): the execute answers 403 with `code` and nothing moves (the quote stays
   * executable). `VELOCITY_LIMIT_EXCEEDED`: too many payments of the sender in the provider's window;
   * `COUNTERPARTY_NOT_ALLOWED`: the receiver is on a list the platform may not pay.
   */
  | {
      readonly _tag: "Refuse"
      readonly code: "VELOCITY_LIMIT_EXCEEDED" | "COUNTERPARTY_NOT_ALLOWED"
      readonly message: string
    }

export interface ScreeningService {
  /**
   * Screens the payout of a payment being executed (the `Payout` its rail would get). It runs inside the executing
   * store transaction, which may run again: it answers from what it has (lists, rules) and does nothing that must
   * happen once. A provider that decides later answers `Review`; its decision comes back through
   * `Transactions.releaseComplianceHold` or `Transactions.rejectComplianceHold`. A provider it cannot reach should
   * answer `Review`: a hold is safe, a missed screening is not. Transfers between internal accounts are not
   * screened (no money leaves the service).
   */
  readonly screen: (payout: Payout) => Effect.Effect<ScreeningVerdict>
}

const clear: ScreeningVerdict = { _tag: "Clear" }

/**
 * Compliance screening of outgoing payments. The default clears every payment, so a deployment without a
 * screening provider holds nothing; the sandbox provides `SandboxScreening` (@paycore/sandbox), which holds payouts
 * to a destination whose identifier ends in `010`.
 */
export const Screening = Context.Reference<ScreeningService>("paycore/ports/Screening", {
  defaultValue: () => ({ screen: () => Effect.succeed(clear) })
})
