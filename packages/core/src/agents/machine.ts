import { defineMachine } from "../shared/machine.ts"

/**
 * An agent's action (AG-17 … AG-23; docs/design/agents.md, section 2). `SUBMITTED` is never stored: a new row is the
 * result of its first move, `HOLD` (approval needed: the platform is told with `AGENT_ACTION.PENDING_APPROVAL`, whose
 * data is the action, WH-22) or `RUN` (`AUTO` and within the policy: executed at once). The platform `APPROVE`s a
 * held action (its operation executed) or `REJECT`s it; `FAIL` when the approval's re-check or the execution refused,
 * or the agent was deleted (design Q11). The transaction emits its own events; no decision has a webhook (Q17).
 */
export const agentActionMachine = defineMachine({
  name: "AgentAction",
  states: ["SUBMITTED", "PENDING_APPROVAL", "APPROVED", "REJECTED", "FAILED"],
  events: ["HOLD", "RUN", "APPROVE", "FAIL", "REJECT"],
  initial: "SUBMITTED",
  terminal: ["APPROVED", "REJECTED", "FAILED"],
  transitions: {
    SUBMITTED: {
      HOLD: { to: "PENDING_APPROVAL", emits: ["AGENT_ACTION.PENDING_APPROVAL"] },
      RUN: { to: "APPROVED", emits: [] }
    },
    PENDING_APPROVAL: {
      APPROVE: { to: "APPROVED", emits: [] },
      FAIL: { to: "FAILED", emits: [] },
      REJECT: { to: "REJECTED", emits: [] }
    },
    APPROVED: {},
    REJECTED: {},
    FAILED: {}
  }
})
export type AgentActionState = (typeof agentActionMachine.states)[number]
export type AgentActionEvent = (typeof agentActionMachine.events)[number]

/**
 * An agent's device code (AG-01, AG-13 … AG-15). Expiry is derived (`ISSUED` and now ≥ `expiresAt`), not a move.
 * Redeeming it connects the agent (`REDEEM`); a newer code for the agent, or the agent's delete, `INVALIDATE`s it.
 * Pause, connection and deletion of the agent are plain fields, not a machine.
 */
export const agentDeviceCodeMachine = defineMachine({
  name: "AgentDeviceCode",
  states: ["ISSUED", "REDEEMED", "INVALIDATED"],
  events: ["REDEEM", "INVALIDATE"],
  initial: "ISSUED",
  terminal: ["REDEEMED", "INVALIDATED"],
  transitions: {
    ISSUED: {
      REDEEM: { to: "REDEEMED", emits: [] },
      INVALIDATE: { to: "INVALIDATED", emits: [] }
    },
    REDEEMED: {},
    INVALIDATED: {}
  }
})
export type AgentDeviceCodeEvent = (typeof agentDeviceCodeMachine.events)[number]
