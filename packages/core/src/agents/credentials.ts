import { Effect } from "effect"
import type { StoreError } from "../shared/errors.ts"
import type { AgentPorts } from "./agent-ports.ts"
import type { AgentPrincipal } from "./model.ts"

// Bearer authentication of `/agents/me/*` (slice A; docs/design/agents.md section 3 step 5). Never cached: one
// indexed read per request, so a deleted agent's token is refused by the very next call (AG-11).

/** The agent a `gat_…` token belongs to, or `undefined` (malformed, unknown, deleted, wrong verifier). */
export const authenticateAgent = (
  _ports: AgentPorts,
  _token: string
): Effect.Effect<AgentPrincipal | undefined, StoreError> => Effect.succeed(undefined)
