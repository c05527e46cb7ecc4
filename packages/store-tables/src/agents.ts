import type {
  AgentActionFilter,
  AgentActionRecord,
  AgentDeviceCodeFilter,
  AgentDeviceCodeRecord,
  AgentFilter,
  AgentRecord
} from "@paycore/core"
import {
  after,
  atOrBefore,
  before,
  bigint,
  boolean,
  eq,
  includesDeleted,
  instant,
  json,
  key,
  oneOf,
  optional,
  present,
  table,
  text
} from "./describe.ts"

/**
 * Agents (AG-02; docs/design/agents.md, section 2). `token_selector` is unique: a Bearer token is looked up by it,
 * and a delete clears it, so the token dies with the delete's commit (AG-11). Connected = a selector is present
 * (the `isConnected` filter), not a column of its own.
 */
export const agents = table<AgentRecord, AgentFilter, "tokenSelector">()({
  name: "agents",
  columns: {
    id: key("id"),
    name: text("name"),
    customerId: key("customer_id"),
    platformCustomerId: text("platform_customer_id"),
    policy: json("policy"),
    isPaused: boolean("is_paused"),
    tokenSelector: optional(text("token_selector")),
    tokenVerifierSha256: optional(text("token_verifier_sha256")),
    connectedAt: optional(instant("connected_at")),
    deletedAt: optional(instant("deleted_at")),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  unique: { tokenSelector: { column: "tokenSelector" } },
  filters: {
    customerId: eq("customerId"),
    isPaused: eq("isPaused"),
    isConnected: present("tokenSelector"),
    createdAfter: after("createdAt"),
    createdBefore: before("createdAt"),
    updatedAfter: after("updatedAt"),
    updatedBefore: before("updatedAt"),
    includeDeleted: includesDeleted("deletedAt")
  }
})

/**
 * Device codes (AG-13 … AG-15): only the SHA-256 of the normalized code, unique, so a redeem or status finds its code
 * by it. `states` finds the `ISSUED` codes a new code or a delete invalidates.
 */
export const agentDeviceCodes = table<AgentDeviceCodeRecord, AgentDeviceCodeFilter, "codeSha256">()({
  name: "agent_device_codes",
  columns: {
    id: key("id"),
    agentId: key("agent_id"),
    codeSha256: text("code_sha256"),
    state: text("state"),
    expiresAt: instant("expires_at"),
    redeemedAt: optional(instant("redeemed_at")),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  unique: { codeSha256: { column: "codeSha256" } },
  filters: {
    agentId: eq("agentId"),
    states: oneOf("state")
  }
})

/**
 * Agent actions (AG-16 … AG-23, AG-36): `open_slot` holds the quote id while an action on it is `PENDING_APPROVAL`
 * (unique: one pending action per quote; NULL once decided). `createdAtOrBefore` is the approvals list's inclusive
 * `endDate`. `amount` in the smallest unit of `currency`.
 */
export const agentActions = table<AgentActionRecord, AgentActionFilter, "openSlot">()({
  name: "agent_actions",
  columns: {
    id: key("id"),
    agentId: key("agent_id"),
    customerId: key("customer_id"),
    platformCustomerId: text("platform_customer_id"),
    type: text("type"),
    status: text("status"),
    quoteId: optional(key("quote_id")),
    transactionId: optional(key("transaction_id")),
    transferDetails: optional(json("transfer_details")),
    amount: bigint("amount"),
    currency: text("currency"),
    approvalReason: optional(text("approval_reason")),
    walletSignature: optional(text("wallet_signature")),
    rejectionReason: optional(text("rejection_reason")),
    failureReason: optional(text("failure_reason")),
    openSlot: optional(text("open_slot")),
    decidedAt: optional(instant("decided_at")),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  unique: { openSlot: { column: "openSlot" } },
  filters: {
    agentId: eq("agentId"),
    customerId: eq("customerId"),
    status: eq("status"),
    createdAfter: after("createdAt"),
    createdAtOrBefore: atOrBefore("createdAt")
  }
})
