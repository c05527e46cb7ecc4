import type { Effect } from "effect"
import type { Page } from "../shared/paging.ts"
import type { AgentPorts, AgentsError } from "./agent-ports.ts"
import type {
  Agent,
  AgentCreateRequest,
  AgentCreateResponse,
  AgentPolicyUpdateRequest,
  AgentPrincipal,
  AgentUpdateRequest,
  ListAgentsQuery
} from "./model.ts"
import { notBuilt } from "./not-built.ts"

// The platform's agent lifecycle (slice A, docs/design/agents.md section 3 "Create, device codes, redeem").

export const createAgent = (
  _ports: AgentPorts,
  _request: AgentCreateRequest
): Effect.Effect<AgentCreateResponse, AgentsError> => notBuilt("POST /agents")

export const listAgents = (_ports: AgentPorts, _query: ListAgentsQuery): Effect.Effect<Page<Agent>, AgentsError> =>
  notBuilt("GET /agents")

export const getAgent = (_ports: AgentPorts, _agentId: string): Effect.Effect<Agent, AgentsError> =>
  notBuilt("GET /agents/{agentId}")

export const updateAgent = (
  _ports: AgentPorts,
  _agentId: string,
  _request: AgentUpdateRequest
): Effect.Effect<Agent, AgentsError> => notBuilt("PATCH /agents/{agentId}")

export const deleteAgent = (_ports: AgentPorts, _agentId: string): Effect.Effect<void, AgentsError> =>
  notBuilt("DELETE /agents/{agentId}")

export const updateAgentPolicy = (
  _ports: AgentPorts,
  _agentId: string,
  _request: AgentPolicyUpdateRequest
): Effect.Effect<Agent, AgentsError> => notBuilt("PATCH /agents/{agentId}/policy")

/** `GET /agents/me` (AG-24). */
export const getMe = (_ports: AgentPorts, _principal: AgentPrincipal): Effect.Effect<Agent, AgentsError> =>
  notBuilt("GET /agents/me")
