import { type Payout, Screening, type ScreeningVerdict } from "@paycore/core"
import { Effect, Layer } from "effect"
import { primaryIdentifier } from "./rail.ts"

/**
 * The last 3 digits of a destination's primary identifier (as the payout table reads them) that hold a payout for
 * compliance review: an extension beside the payout outcomes `002`…`009`.
 */
export const COMPLIANCE_REVIEW_SUFFIX = "010"

/** The suffix whose payouts screening refuses for velocity (C-49): 403 `VELOCITY_LIMIT_EXCEEDED`, nothing moves. */
export const VELOCITY_LIMIT_SUFFIX = "012"

/**
 * The sandbox's screening of a payout, by the last 3 characters of its destination's primary identifier (the account
 * number, CLABE, IBAN, PIX key's local part, wallet address, or the UMA address's user part): `010` → `Review`,
 * `012` → `Refuse` (`VELOCITY_LIMIT_EXCEEDED`), anything else `Clear`.
 */
export const sandboxScreening = (payout: Payout): ScreeningVerdict => {
  const identifier = primaryIdentifier(payout.destination)
  const last3 = identifier?.replace(/\s+/g, "").slice(-3)
  if (last3 === COMPLIANCE_REVIEW_SUFFIX) return { _tag: "Review" }
  if (last3 === VELOCITY_LIMIT_SUFFIX) {
    return {
      _tag: "Refuse",
      code: "VELOCITY_LIMIT_EXCEEDED",
      message: "The sender has made too many payments in the screening window (sandbox: a destination ending in 012)"
    }
  }
  return { _tag: "Clear" }
}

/** `Screening` by the suffix rule above: a held payout waits for `POST /sandbox/transactions/{id}/compliance/…`. */
export const SandboxScreening: Layer.Layer<never> = Layer.succeed(Screening, {
  screen: (payout) => Effect.succeed(sandboxScreening(payout))
})
