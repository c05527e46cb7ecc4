import type { Effect } from "effect"
import type { TransferInRequest, TransferOutRequest } from "../transactions/model.ts"
import type { AgentPorts, AgentsError } from "./agent-ports.ts"
import type { AgentAction, AgentPrincipal } from "./model.ts"
import { notBuilt } from "./not-built.ts"

// An agent's money movement (slice B; docs/design/agents.md section 3 "Submit an execute"): evaluated against the
// policy, counted and executed (or held for approval) in one store transaction that locks the agent first.

export const executeAgentQuote = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _quoteId: string,
  _walletSignature: string | undefined
): Effect.Effect<AgentAction, AgentsError> => notBuilt("POST /agents/me/quotes/{quoteId}/execute")

export const agentTransferOut = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _request: TransferOutRequest
): Effect.Effect<AgentAction, AgentsError> => notBuilt("POST /agents/me/transfer-out")

export const agentTransferIn = (
  _ports: AgentPorts,
  _principal: AgentPrincipal,
  _request: TransferInRequest
): Effect.Effect<AgentAction, AgentsError> => notBuilt("POST /agents/me/transfer-in")
