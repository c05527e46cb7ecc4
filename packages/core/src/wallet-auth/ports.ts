import type { Effect } from "effect"
import type { Accounts } from "../accounts/service.ts"
import type { PlatformConfigService } from "../platform/service.ts"
import type { CardFundingSourcesService } from "../ports/card-funding-sources.ts"
import type { Ids } from "../ports/ids.ts"
import type { KeyVaultService } from "../ports/key-vault.ts"
import type { Notifier } from "../ports/notifier.ts"
import type { Store } from "../ports/store.ts"

export type { WalletAuthError } from "./errors.ts"

/**
 * The ports the wallet-auth use cases run on, resolved once when `WalletAuth.layer` is built. The references a
 * request may bring its own of (`OidcKeys`, `WalletVault`, the `KeyVault` of an OTP challenge, `StampVerifier`) are
 * read where the request runs, as before, and are not here.
 */
export interface WalletAuthPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly notifier: Notifier["Service"]
  /** The delegated keys' vault (W-42 … W-47). */
  readonly vault: KeyVaultService
  readonly fundingSources: CardFundingSourcesService
  /** A wallet's privacy update answers the account as `Accounts` shows it (W-34). */
  readonly accounts: Accounts["Service"]
  readonly platformConfig: PlatformConfigService["Service"]
  /**
   * Runs the steps that read `Store` and `Ids` from their context (the signed retry, the session helpers) with
   * `store` and `ids`: `providing(store, ids)` of signed-retry.ts, made once with the layer.
   */
  readonly provide: <A, E>(effect: Effect.Effect<A, E, Store | Ids>) => Effect.Effect<A, E>
}
