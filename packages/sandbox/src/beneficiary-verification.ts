import {
  type BeneficiaryCheck,
  type BeneficiaryVerdict,
  BeneficiaryVerification,
  type BeneficiaryVerificationStatus,
  CryptoNetwork
} from "@paycore/core"
import { Effect, Layer } from "effect"
import { primaryIdentifier } from "./rail.ts"

/**
 * The beneficiary name check's outcomes by the last 3 digits of the account's primary identifier (SB-08): a `1xx`
 * range of its own, apart from the payout (`002`…`012`) and transfer tables. `105` is not here: the account is refused.
 */
export const BENEFICIARY_VERIFICATION_SUFFIXES: Readonly<Record<string, BeneficiaryVerificationStatus>> = {
  "102": "NOT_MATCHED",
  "103": "PARTIAL_MATCH",
  "104": "PENDING",
  "106": "UNSUPPORTED",
  "107": "CHECKED_BY_RECEIVING_FI"
}

/** The suffix whose account the check says does not exist: 400 `INVALID_BANK_ACCOUNT`, nothing stored. */
export const INVALID_BANK_ACCOUNT_SUFFIX = "105"

const CRYPTO_NETWORKS: ReadonlySet<string> = new Set(CryptoNetwork.literals)

/**
 * The holder's name as the sandbox's "bank" has it on a partial match: the first word cut to its initial
 * (`Grace Hopper` → `G. Hopper`), a one-word name with ` Jr.` added.
 */
export const partialMatchName = (name: string): string => {
  const [first = "", ...rest] = name.trim().split(/\s+/)
  return rest.length === 0 ? `${first} Jr.` : `${first.slice(0, 1)}. ${rest.join(" ")}`
}

/**
 * The sandbox's check of a beneficiary name (SB-08), by the last 3 characters of the account's primary identifier
 * (the account number, CLABE, IBAN, PIX key's local part…, as the payout table reads it): `102` `NOT_MATCHED`, `103`
 * `PARTIAL_MATCH` (the name returned slightly different), `104` `PENDING` (stays so: the sandbox never decides
 * later), `105` no such account, `106` `UNSUPPORTED`, `107` `CHECKED_BY_RECEIVING_FI`, anything else `MATCHED` (the
 * name returned as given). A wallet (paid on a crypto network only) is `UNSUPPORTED`: chains check no names.
 */
export const sandboxBeneficiaryVerification = (check: BeneficiaryCheck): BeneficiaryVerdict => {
  if (check.paymentRails.every((rail) => CRYPTO_NETWORKS.has(rail))) return { _tag: "Checked", status: "UNSUPPORTED" }
  const identifier = primaryIdentifier({ kind: "ACCOUNT", accountInfo: check.accountInfo }, check.paymentRails[0])
  const last3 = identifier?.replace(/\s+/g, "").slice(-3) ?? ""
  if (last3 === INVALID_BANK_ACCOUNT_SUFFIX) {
    return {
      _tag: "InvalidAccount",
      message: "The beneficiary's bank knows no such account (sandbox: an account identifier ending in 105)"
    }
  }
  const status = BENEFICIARY_VERIFICATION_SUFFIXES[last3] ?? "MATCHED"
  if (status === "MATCHED") return { _tag: "Checked", status, verifiedData: { fullName: check.beneficiaryName } }
  if (status === "PARTIAL_MATCH") {
    return { _tag: "Checked", status, verifiedData: { fullName: partialMatchName(check.beneficiaryName) } }
  }
  return { _tag: "Checked", status }
}

/** `BeneficiaryVerification` by the suffix rule above. */
export const SandboxBeneficiaryVerification: Layer.Layer<never> = Layer.succeed(BeneficiaryVerification, {
  verify: (check) => Effect.succeed(sandboxBeneficiaryVerification(check))
})
