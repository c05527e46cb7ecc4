import { Context, Effect } from "effect"
import type { CryptoNetwork } from "../quotes/model.ts"

/** A withdrawal of `amount` (smallest unit of `currency`) on `network`. */
export interface WithdrawalFeeQuery {
  readonly network: CryptoNetwork
  readonly currency: string
  readonly amount: number
}

export interface WithdrawalFees {
  /** The network's own fee, in the smallest unit of `networkFeeAsset` (lamports, wei, sat…): informational. */
  readonly networkFee: number
  /** What the network fee is paid in (`SOL` on Solana, `ETH` on Ethereum and Base, …). */
  readonly networkFeeAsset: string
  /** The network fee converted to the smallest unit of the withdrawal's currency: what the withdrawal is charged. */
  readonly networkFeeInCurrency: number
  /** The platform's fee, in the smallest unit of the withdrawal's currency. */
  readonly applicationFee: number
}

export interface NetworkFeesService {
  readonly estimate: (query: WithdrawalFeeQuery) => Effect.Effect<WithdrawalFees>
}

/**
 * The fees of an on-chain withdrawal. The default charges nothing (the fee asset is the currency itself), so a
 * deployment without a fee source answers zero fees rather than a guess; the sandbox provides `SandboxNetworkFees`
 * (@paycore/sandbox).
 */
export const NetworkFees = Context.Reference<NetworkFeesService>("paycore/ports/NetworkFees", {
  defaultValue: () => ({
    estimate: ({ currency }) =>
      Effect.succeed({ networkFee: 0, networkFeeAsset: currency, networkFeeInCurrency: 0, applicationFee: 0 })
  })
})
