import { type Payout, Screening, type ScreeningVerdict } from "@paycore/core"
import { Effect, Layer } from "effect"
import { primaryIdentifier } from "./rail.ts"

/**
 * The last 3 digits of a destination's primary identifier (as the payout table reads them) that hold a payout for
 * compliance review: an extension beside the payout outcomes `002`…`009`.
 */
export const COMPLIANCE_REVIEW_SUFFIX = "010"

/**
 * The sandbox's screening of a payout: `Review` when its destination's primary identifier (the account number, CLABE,
 * IBAN, PIX key's local part, wallet address, or the UMA address's user part) ends in `010`; `Clear` otherwise.
 */
export const sandboxScreening = (payout: Payout): ScreeningVerdict => {
  const identifier = primaryIdentifier(payout.destination)
  const last3 = identifier?.replace(/\s+/g, "").slice(-3)
  return last3 === COMPLIANCE_REVIEW_SUFFIX ? { _tag: "Review" } : { _tag: "Clear" }
}

/** `Screening` by the suffix rule above: a held payout waits for `POST /sandbox/transactions/{id}/compliance/…`. */
export const SandboxScreening: Layer.Layer<never> = Layer.succeed(Screening, {
  screen: (payout) => Effect.succeed(sandboxScreening(payout))
})
