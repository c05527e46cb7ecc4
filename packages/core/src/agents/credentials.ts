import { Effect } from "effect"
import type { StoreError } from "../shared/errors.ts"
import { parseAccessToken, verifierMatches } from "./codes.ts"
import type { AgentPrincipal } from "./model.ts"
import type { AgentPorts } from "./ports.ts"
import { toAgentPrincipal } from "./views.ts"

// Bearer authentication of `/agents/me/*` (slice A; docs/design/agents.md section 3 step 5). Never cached: one
// indexed read per request, so a deleted agent's token is refused by the very next call (AG-11).

/** The agent a `gat_…` token belongs to, or `undefined` (malformed, unknown, deleted, wrong verifier). */
export const authenticateAgent = Effect.fnUntraced(function* (
  ports: AgentPorts,
  token: string
): Effect.fn.Return<AgentPrincipal | undefined, StoreError> {
  const parts = parseAccessToken(token)
  if (parts === undefined) return undefined
  const agent = yield* ports.store.agents.findUnique("tokenSelector", parts.selector)
  if (agent === undefined || agent.deletedAt !== undefined || agent.tokenVerifierSha256 === undefined) return undefined
  if (!verifierMatches(parts.verifier, agent.tokenVerifierSha256)) return undefined
  return toAgentPrincipal(agent)
})
