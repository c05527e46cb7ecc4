import type { PlatformConfigService } from "../platform/service.ts"
import type { Ids } from "../ports/ids.ts"
import type { KeyVaultService } from "../ports/key-vault.ts"
import type { KycProvider } from "../ports/kyc.ts"
import type { LivenessProviderService } from "../ports/liveness.ts"
import type { Notifier } from "../ports/notifier.ts"
import type { Repositories, Store } from "../ports/store.ts"
import type { Conflict, InvalidInput, LimitExceeded, NotFound, Refused, StoreError } from "../shared/errors.ts"

/**
 * What the one challenge mechanism (challenges.ts) runs on: the `Sca` use cases' ports, or the quote flow's
 * (`ScaPaymentPorts` of transactions/authorization.ts, through `challengesInContext`).
 */
export interface ChallengePorts {
  readonly store: Repositories
  readonly ids: Ids["Service"]
  readonly notifier: Notifier["Service"]
  readonly kyc: Pick<KycProvider["Service"], "contactVerification">
  readonly vault: KeyVaultService
  readonly platform: PlatformConfigService["Service"]
}

/** The ports the `Sca` use cases run on, resolved once when its layer is built (sca/service.ts). */
export interface ScaPorts extends ChallengePorts {
  readonly store: Store["Service"]
  /** The liveness check behind a factor reset (resets.ts). */
  readonly liveness: LivenessProviderService
}

/** Every refusal an `Sca` operation can answer (their HTTP statuses are in packages/http/src/errors.ts). */
export type ScaError = InvalidInput | NotFound | Refused | Conflict | LimitExceeded | StoreError
