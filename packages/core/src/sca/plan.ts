import type { ScaPurpose } from "./model.ts"

// How many challenges a quote needs, and what each authorizes (docs/design/sca.md, section 3). Pure: the caller
// reads who is subject (regions.ts) and whether the destination is trusted, in its own store transaction.

/** Where a quote pays to: another internal account (a transfer), an external account, or an UMA address. */
export type ScaDestinationKind = "INTERNAL" | "EXTERNAL" | "UMA"

export interface ScaPlanInput {
  /** The paying customer's region is one of `scaRegions` (S-01); a platform-funded quote never is. */
  readonly subject: boolean
  /** The destination is a trusted beneficiary of the customer at execute time (AC-31…AC-38). */
  readonly trusted: boolean
  /** The sending and receiving currencies differ. */
  readonly crossCurrency: boolean
  readonly destination: ScaDestinationKind
}

/**
 * The challenge steps of a quote, in order (S-05): none when not subject or the destination is trusted; a
 * cross-currency send authorizes the conversion, then the payment; otherwise one step, `TRANSFER` between internal
 * accounts and `PAYOUT` elsewhere. A client loops on status, so the count may change without breaking anyone.
 */
export const challengePlan = (input: ScaPlanInput): ReadonlyArray<ScaPurpose> => {
  if (!input.subject || input.trusted) return []
  const payment: ScaPurpose = input.destination === "INTERNAL" ? "TRANSFER" : "PAYOUT"
  return input.crossCurrency ? ["CURRENCY_CONVERSION", payment] : [payment]
}
