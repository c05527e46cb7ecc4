import type { Quote } from "./model.ts"

/** A quote as stored: the public quote and how it was priced (exact decimals as strings). */
export interface QuoteRecord {
  readonly id: string
  readonly quote: Quote
  readonly pricing: {
    /** Sending amount converted (after fees), in the sending currency's smallest unit. */
    readonly netSendingAmount: number
    /** The service's fee and the platform's fee, in the sending currency's smallest unit. */
    readonly serviceFee: number
    readonly platformFee: number
    /** Exact receiving-minor-units per sending-minor-unit rate used (decimal string). */
    readonly minorRate: string
  }
}
