import { Effect } from "effect"
import { isoOf, nowIso } from "../shared/time.ts"
import { authorizeSteps } from "./authorize.ts"
import { reconcileSteps } from "./inbox.ts"
import { countAuthorization } from "./metrics.ts"
import type { AuthorizationRequest, NetworkEvent } from "./model.ts"
import type { CardNetworkPorts } from "./ports.ts"
import { dieOnUniqueViolation } from "./reconcile.ts"

// The inbound side of the card network (design section 0), `CardNetwork` in service.ts: what an issuer processor's
// webhook adapter calls, as the sandbox simulator does. Nothing here knows the sandbox. authorize.ts decides,
// inbox.ts and reconcile.ts apply the later events.

/** A real-time authorization decision at `nowMs`, in one store transaction (authorize.ts). */
export const authorizeCard = (ports: CardNetworkPorts, request: AuthorizationRequest, nowMs: number) =>
  dieOnUniqueViolation(ports.store.transaction(Effect.gen(() => authorizeSteps(ports, request, isoOf(nowMs))))).pipe(
    Effect.tap((decision) => countAuthorization(request, decision))
  )

/** A later network event through the inbox (inbox.ts): applied now, or at `dueAt` when later than now. */
export const reconcileNetworkEvent = Effect.fnUntraced(function* (
  ports: CardNetworkPorts,
  event: NetworkEvent,
  options?: { readonly dueAt?: string | undefined }
) {
  const now = yield* nowIso
  return yield* dieOnUniqueViolation(
    ports.store.transaction(Effect.gen(() => reconcileSteps(ports, event, options?.dueAt, now)))
  )
})
