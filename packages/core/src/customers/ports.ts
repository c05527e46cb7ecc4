import type { PlatformConfigService } from "../platform/service.ts"
import type { Ids } from "../ports/ids.ts"
import type { Store } from "../ports/store.ts"
import type { Conflict, InvalidInput, NotFound, Refused, StoreError } from "../shared/errors.ts"

/**
 * What the customers' use cases run on, resolved once when the layer is built (as `CardPorts`). The platform config
 * (supported currencies, UMA domain) is read through its service on each create and update.
 */
export interface CustomersPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  readonly config: PlatformConfigService["Service"]
}

/** Every refusal a customers operation can answer (their HTTP statuses are in packages/http/src/errors.ts). */
export type CustomersError = InvalidInput | NotFound | Refused | Conflict | StoreError
