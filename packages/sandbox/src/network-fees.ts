import { type CryptoNetwork, currency, NetworkFees, type WithdrawalFees } from "@paycore/core"
import { BigDecimal, Effect, Layer } from "effect"

export interface SandboxNetworkFee {
  /** What the chain's fee is paid in. */
  readonly asset: string
  /** The fee in the smallest unit of `asset` (lamports, wei, sat…). */
  readonly fee: number
  /** The same fee in major units of the withdrawal's currency (the stablecoins are at par with USD). */
  readonly inCurrency: string
}

/** Fixed fees per network (issue 17 plan, section 2; Q-45): round figures of each chain's typical cost. */
export const SANDBOX_NETWORK_FEES: Readonly<Record<CryptoNetwork, SandboxNetworkFee>> = {
  SOLANA: { asset: "SOL", fee: 5_000, inCurrency: "0.001" },
  BASE: { asset: "ETH", fee: 20_000_000_000_000, inCurrency: "0.01" },
  POLYGON: { asset: "POL", fee: 10_000_000_000_000_000, inCurrency: "0.01" },
  ETHEREUM: { asset: "ETH", fee: 500_000_000_000_000, inCurrency: "1.50" },
  TRON: { asset: "TRX", fee: 1_000_000, inCurrency: "1.00" },
  PLASMA: { asset: "XPL", fee: 0, inCurrency: "0" },
  BITCOIN: { asset: "BTC", fee: 2_000, inCurrency: "0.00002" },
  LIGHTNING: { asset: "BTC", fee: 1, inCurrency: "0.00000001" },
  // No currency moves on SPARK yet (quotes/networks.ts): never asked.
  SPARK: { asset: "BTC", fee: 0, inCurrency: "0" }
}

/** The platform's fee: 10 basis points of the amount, rounded down. */
export const SANDBOX_APPLICATION_FEE_BPS = 10n

/** `major` major units of `code` in its smallest unit (the table's figures are exact there). */
const minorUnits = (major: string, code: string): number =>
  Number(
    BigDecimal.scale(
      BigDecimal.multiply(
        BigDecimal.fromStringUnsafe(major),
        BigDecimal.make(10n ** BigInt(currency(code).decimals), 0)
      ),
      0
    ).value
  )

export const sandboxWithdrawalFees = (network: CryptoNetwork, code: string, amount: number): WithdrawalFees => {
  const entry = SANDBOX_NETWORK_FEES[network]
  return {
    networkFee: entry.fee,
    networkFeeAsset: entry.asset,
    networkFeeInCurrency: minorUnits(entry.inCurrency, code),
    applicationFee: Number((BigInt(amount) * SANDBOX_APPLICATION_FEE_BPS) / 10_000n)
  }
}

/** `NetworkFees` from the fixed table above. */
export const SandboxNetworkFees: Layer.Layer<never> = Layer.succeed(NetworkFees, {
  estimate: ({ network, currency: code, amount }) => Effect.succeed(sandboxWithdrawalFees(network, code, amount))
})
