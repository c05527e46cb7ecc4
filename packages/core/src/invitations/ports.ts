import type { PlatformConfigService } from "../platform/service.ts"
import type { Ids } from "../ports/ids.ts"
import type { Store } from "../ports/store.ts"
import type { InvalidInput, LimitExceeded, NotFound, Refused, StoreError } from "../shared/errors.ts"

/** What the invitations' use cases run on, resolved once when the service's layer is built (as `AgentPorts`). */
export interface InvitationPorts {
  readonly store: Store["Service"]
  readonly ids: Ids["Service"]
  /** The platform's `umaDomain` (the claim link's host). */
  readonly config: PlatformConfigService["Service"]
}

/** Every refusal an invitations operation can answer (their HTTP statuses are in packages/http/src/errors.ts). */
export type InvitationsError = InvalidInput | NotFound | Refused | LimitExceeded | StoreError
