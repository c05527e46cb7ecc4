import type { Quote } from "../quotes/model.ts"
import type { Transaction } from "../transactions/model.ts"
import type {
  Agent,
  AgentAction,
  AgentActionRecord,
  AgentDeviceCode,
  AgentDeviceCodeRecord,
  AgentPrincipal,
  AgentRecord,
  AgentUsage
} from "./model.ts"

// Records → resources (pure: what reads, lists and events share). The service reads what a view needs beside the
// record: the usage counters, an action's live quote and transaction.

/** The agent as the API shows it (AG-02): connected while it holds a token; usage of the current UTC day and month. */
export const toAgent = (r: AgentRecord, usage: AgentUsage): Agent => ({
  id: r.id,
  name: r.name,
  customerId: r.customerId,
  isPaused: r.isPaused,
  isConnected: r.tokenSelector !== undefined,
  policy: r.policy,
  usage,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

/**
 * An action as the API and `AGENT_ACTION.PENDING_APPROVAL` show it (AG-17): the live `quote` of an `EXECUTE_QUOTE`,
 * `transferDetails` of a transfer, and its `transaction` only once `APPROVED` (execution began; upstream shows none
 * while pending, design Q5). `failureReason` is ours (Q10).
 */
export const toAgentAction = (r: AgentActionRecord, quote?: Quote, transaction?: Transaction): AgentAction => ({
  id: r.id,
  agentId: r.agentId,
  customerId: r.customerId,
  platformCustomerId: r.platformCustomerId,
  status: r.status,
  type: r.type,
  ...(quote === undefined || r.type !== "EXECUTE_QUOTE" ? {} : { quote }),
  ...(r.transferDetails === undefined ? {} : { transferDetails: r.transferDetails }),
  ...(transaction === undefined || r.status !== "APPROVED" ? {} : { transaction }),
  ...(r.rejectionReason === undefined ? {} : { rejectionReason: r.rejectionReason }),
  ...(r.failureReason === undefined ? {} : { failureReason: r.failureReason }),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

/** A device code as its issue answers it (AG-01, AG-13): the code in clear exists only then, never in the record. */
export const toAgentDeviceCode = (r: AgentDeviceCodeRecord, code: string): AgentDeviceCode => ({
  code,
  agentId: r.agentId,
  expiresAt: r.expiresAt,
  redeemed: r.state === "REDEEMED"
})

/** The principal an agent's Bearer token establishes, as its row reads now (credentials.ts; never cached). */
export const toAgentPrincipal = (agent: AgentRecord): AgentPrincipal => ({
  kind: "AGENT",
  agentId: agent.id,
  customerId: agent.customerId,
  platformCustomerId: agent.platformCustomerId,
  permissions: agent.policy.permissions,
  isPaused: agent.isPaused
})
