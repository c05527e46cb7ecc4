import type { Ids } from "../ports/ids.ts"
import type { KeyVaultService } from "../ports/key-vault.ts"
import type { StablecoinProviderService } from "../ports/stablecoin-provider.ts"
import type { Store } from "../ports/store.ts"
import type { Conflict, InvalidInput, NotFound, Refused, StoreError } from "../shared/errors.ts"

/** What the stablecoins' use cases run on, a provider configured (the service answers 501 without one). */
export interface StablecoinPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly provider: StablecoinProviderService
  /** Seals and opens the links' API client secrets (context `stablecoin-provider:<id>`). */
  readonly vault: KeyVaultService
}

/** Every refusal a stablecoins operation can answer (their HTTP statuses are in packages/http/src/errors.ts). */
export type StablecoinsError = InvalidInput | NotFound | Refused | Conflict | StoreError
