import type { Effect } from "effect"
import type { AgentPorts, AgentsError } from "./agent-ports.ts"
import type { AgentDeviceCode, AgentDeviceCodeRedeemResponse, AgentDeviceCodeStatusResponse } from "./model.ts"
import { notBuilt } from "./not-built.ts"

// Device codes (slice A, RFC 8628 in spirit; docs/design/agents.md section 3 steps 2-4).

export const createDeviceCode = (_ports: AgentPorts, _agentId: string): Effect.Effect<AgentDeviceCode, AgentsError> =>
  notBuilt("POST /agents/{agentId}/device-codes")

export const deviceCodeStatus = (
  _ports: AgentPorts,
  _code: string
): Effect.Effect<AgentDeviceCodeStatusResponse, AgentsError> => notBuilt("GET /agents/device-codes/{code}/status")

export const redeemDeviceCode = (
  _ports: AgentPorts,
  _code: string
): Effect.Effect<AgentDeviceCodeRedeemResponse, AgentsError> => notBuilt("POST /agents/device-codes/{code}/redeem")
