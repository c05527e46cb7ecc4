import { Context, Effect } from "effect"
import type {
  AccountInfo,
  BeneficiaryVerificationStatus,
  BeneficiaryVerifiedData,
  PaymentRail
} from "../accounts/model.ts"

/** A new external account whose beneficiary name is to be checked (AC-12, SB-08). */
export interface BeneficiaryCheck {
  readonly currency: string
  readonly accountInfo: AccountInfo
  /** The rails the account is paid on, the default first. */
  readonly paymentRails: ReadonlyArray<PaymentRail>
  /** The name the platform gave: the beneficiary's `fullName`, or a business beneficiary's `legalName`. */
  readonly beneficiaryName: string
}

/**
 * What the check makes of the account: `Checked` with the outcome (and the holder's name as the rail has it, when it
 * returned one), or `InvalidAccount`: the rail says no such account exists, and the account is refused (400
 * `INVALID_BANK_ACCOUNT`, nothing stored).
 */
export type BeneficiaryVerdict =
  | {
      readonly _tag: "Checked"
      readonly status: BeneficiaryVerificationStatus
      readonly verifiedData?: BeneficiaryVerifiedData | undefined
    }
  | { readonly _tag: "InvalidAccount"; readonly message: string }

export interface BeneficiaryVerificationService {
  /**
   * Checks the beneficiary name of an external account being created, before it is stored (outside any store
   * transaction). Asked once per account: the outcome is stored with it and never asked again, so a provider that
   * decides later answers `PENDING`, and one it cannot reach should answer `PENDING` too (the account is still
   * created). Not asked for an account that names no beneficiary (it is `UNSUPPORTED`).
   */
  readonly verify: (check: BeneficiaryCheck) => Effect.Effect<BeneficiaryVerdict>
}

const unsupported: BeneficiaryVerdict = { _tag: "Checked", status: "UNSUPPORTED" }

/**
 * Beneficiary name verification of new external accounts (AC-12, SB-08). The default answers `UNSUPPORTED` for every
 * account, so a deployment without a verification provider needs nothing; the sandbox provides
 * `SandboxBeneficiaryVerification` (@paycore/sandbox), whose outcome is the last 3 digits of the account's number
 * (`102` … `107`).
 */
export const BeneficiaryVerification = Context.Reference<BeneficiaryVerificationService>(
  "paycore/ports/BeneficiaryVerification",
  { defaultValue: () => ({ verify: () => Effect.succeed(unsupported) }) }
)
