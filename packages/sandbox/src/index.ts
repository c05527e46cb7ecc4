import type { Directory, FxRates, KycProvider, Notifier, Rail } from "@paycore/core"
import { Layer } from "effect"
import { SandboxBeneficiaryVerification } from "./beneficiary-verification.ts"
import { SandboxCardIssuer, type SandboxCardIssuerOptions } from "./card-issuer.ts"
import { SandboxCardNetwork } from "./card-network.ts"
import { SandboxDirectory } from "./directory.ts"
import { SandboxFxRates } from "./fx.ts"
import { type SandboxKycOptions, SandboxKycProvider } from "./kyc.ts"
import { SandboxNetworkFees } from "./network-fees.ts"
import { SandboxNotifier } from "./notifier.ts"
import { SandboxRailSelection } from "./outcomes.ts"
import { SandboxRail, type SandboxRailOptions } from "./rail.ts"
import { SandboxScreening } from "./screening.ts"
import { SandboxStablecoinProvider } from "./stablecoin-provider.ts"

export * from "./beneficiary-verification.ts"
export * from "./card-issuer.ts"
export * from "./card-network.ts"
export * from "./directory.ts"
export * from "./document-store-folder.ts"
export * from "./fx.ts"
export * from "./kyc.ts"
export * from "./network-fees.ts"
export * from "./notifier.ts"
export * from "./outcomes.ts"
export * from "./payees.ts"
export * from "./rail.ts"
export * from "./screening.ts"
export * from "./stablecoin-provider.ts"

export interface SandboxOptions extends SandboxRailOptions, SandboxKycOptions {
  /** The card issuer's program (default: the service decides, PAN reveal, no 3-D Secure password). */
  readonly cardIssuer?: SandboxCardIssuerOptions | undefined
}

/**
 * Every sandbox port: `Rail`, `FxRates`, `Directory`, `Notifier`, `KycProvider`, the `CardIssuer`, the card
 * network simulator (`CardNetworkSimulator`, a reference: the `/sandbox/cards/*` simulations) and `NetworkFees`
 * (a reference: the crypto withdrawal fee estimate), the `StablecoinProvider` (a reference: stablecoin issuance),
 * `Screening` (a reference: compliance holds of payouts to a destination ending `010`), `BeneficiaryVerification`
 * (a reference: the beneficiary name check of new external accounts, `102` … `107`) and `RailSelection` (a
 * reference: a payment that names no rail goes over the payee's fastest, `fastestRail`).
 */
export const layer = (options: SandboxOptions = {}): Layer.Layer<Rail | FxRates | Directory | Notifier | KycProvider> =>
  Layer.mergeAll(
    SandboxRail(options),
    SandboxRailSelection,
    SandboxFxRates,
    SandboxDirectory,
    SandboxNotifier,
    SandboxKycProvider(options),
    SandboxCardNetwork,
    SandboxCardIssuer(options.cardIssuer),
    SandboxNetworkFees,
    SandboxStablecoinProvider({ speedUp: options.speedUp }),
    SandboxScreening,
    SandboxBeneficiaryVerification
  )
