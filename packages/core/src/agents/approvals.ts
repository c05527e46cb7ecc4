import type { Effect } from "effect"
import type { Page } from "../shared/paging.ts"
import type { AgentPorts, AgentsError } from "./agent-ports.ts"
import type { AgentAction, AgentActionRejectRequest, ListApprovalsQuery } from "./model.ts"
import { notBuilt } from "./not-built.ts"

// The platform's decisions on held actions (slice B; docs/design/agents.md section 3 "Approve and reject").

export const listApprovals = (
  _ports: AgentPorts,
  _query: ListApprovalsQuery
): Effect.Effect<Page<AgentAction>, AgentsError> => notBuilt("GET /agents/approvals")

export const approveAction = (
  _ports: AgentPorts,
  _agentId: string,
  _actionId: string
): Effect.Effect<AgentAction, AgentsError> => notBuilt("POST /agents/{agentId}/actions/{actionId}/approve")

export const rejectAction = (
  _ports: AgentPorts,
  _agentId: string,
  _actionId: string,
  _request: AgentActionRejectRequest
): Effect.Effect<AgentAction, AgentsError> => notBuilt("POST /agents/{agentId}/actions/{actionId}/reject")
