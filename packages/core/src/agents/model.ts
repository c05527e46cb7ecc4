import { Schema } from "effect"
import { CreateExternalAccountRequest, InternalAccountType } from "../accounts/model.ts"
import { AgentPermission } from "../platform/model.ts"
import { Quote } from "../quotes/model.ts"
import { CurrencyCode } from "../shared/currency.ts"
import {
  AgentActionId,
  type AgentDeviceCodeId,
  AgentId,
  CustomerId,
  type QuoteId,
  type TransactionId
} from "../shared/ids.ts"
import { MinorUnits, PositiveMinorUnits } from "../shared/money.ts"
import { PageQueryFields } from "../shared/paging.ts"
import { BooleanQueryParam, boundedString, DateString, DateTimeString } from "../shared/schemas.ts"
import { ListTransactionsQuery, Transaction } from "../transactions/model.ts"

// Agents (issue 16, docs/design/agents.md): the Schemas of the `/agents` and `/agents/me` routes with the upstream's
// names and shapes (Agent, AgentPolicy, AgentSpendingLimits, AgentAccountRestrictions, AgentAccountRule,
// AgentApprovalThresholds, AgentUsage, AgentDeviceCode, AgentAction, AgentTransferDetails, AgentPolicyUpdateRequest,
// AgentDeviceCodeRedeemResponse), the stored records and the principal a Bearer token establishes.

// ---- vocabulary ----

// AG-04 `AgentPermission` and the `AgentPrincipal` live in platform/model.ts (the `Principal` union names them below
// this layer); they are the agents' words, re-exported here.
export { AgentPermission, type AgentPrincipal } from "../platform/model.ts"

/** AG-03, AG-19: `AUTO` runs within the policy; `APPROVAL_REQUIRED` waits for the platform. */
export const AgentExecutionMode = Schema.Literals(["AUTO", "APPROVAL_REQUIRED"])
export type AgentExecutionMode = typeof AgentExecutionMode.Type

/** An amount limit in the smallest unit of its currency (design section 2: integers ≥ 0; equal to it is allowed). */
const LimitAmount = MinorUnits
/** Executions per UTC day. */
const CountLimit = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000_000 }))

// ---- the policy ----

/** AG-03, AG-06: limits in `currency`; other currencies are converted at the market rate when evaluated. */
export const AgentSpendingLimits = Schema.Struct({
  currency: CurrencyCode,
  perTransactionLimit: LimitAmount,
  dailyLimit: Schema.optionalKey(Schema.NullOr(LimitAmount)),
  dailyTransactionLimit: Schema.optionalKey(CountLimit),
  monthlyLimit: Schema.optionalKey(Schema.NullOr(LimitAmount))
})
export type AgentSpendingLimits = typeof AgentSpendingLimits.Type

/** A per-account override (design Q14): replaces the default mode and per-transaction limit for its account. */
export const AgentAccountRule = Schema.Struct({
  accountId: Schema.String,
  executionMode: Schema.optionalKey(AgentExecutionMode),
  /** In the account's currency; null inherits the policy's. */
  perTransactionLimit: Schema.optionalKey(Schema.NullOr(LimitAmount))
})
export type AgentAccountRule = typeof AgentAccountRule.Type

export const AgentAccountRestrictions = Schema.Struct({
  /** Null (or absent): every internal account of the customer. */
  allowedAccountIds: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String))),
  accountRules: Schema.optionalKey(Schema.Array(AgentAccountRule))
})
export type AgentAccountRestrictions = typeof AgentAccountRestrictions.Type

/** AG-19: an amount strictly above `amount` (in `currency`) needs approval even in `AUTO`. */
export const AgentApprovalThresholds = Schema.Struct({
  currency: Schema.optionalKey(CurrencyCode),
  amount: Schema.optionalKey(Schema.NullOr(LimitAmount))
})
export type AgentApprovalThresholds = typeof AgentApprovalThresholds.Type

/** AG-03 (upstream `AgentPolicy`). Cross-field rules (accounts of the customer, threshold currency) are the service's. */
export const AgentPolicy = Schema.Struct({
  permissions: Schema.Array(AgentPermission),
  defaultExecutionMode: AgentExecutionMode,
  spendingLimits: AgentSpendingLimits,
  accountRestrictions: Schema.optionalKey(AgentAccountRestrictions),
  approvalThresholds: Schema.optionalKey(AgentApprovalThresholds)
})
export type AgentPolicy = typeof AgentPolicy.Type

/** AG-05: the current UTC day's and month's usage, in `spendingLimits.currency`. */
export const AgentUsage = Schema.Struct({
  dailyTransactionCount: Schema.Int,
  dailySpend: Schema.Int,
  /** The next UTC day (`YYYY-MM-DD`): when the daily counters start again. */
  dailyResetDate: DateString,
  monthlySpend: Schema.Int,
  /** The next UTC month (`YYYY-MM`). */
  monthlyResetMonth: Schema.String
})
export type AgentUsage = typeof AgentUsage.Type

// ---- the agent ----

/** AG-02 (upstream `Agent`). */
export const Agent = Schema.Struct({
  id: AgentId,
  name: Schema.String,
  customerId: CustomerId,
  isPaused: Schema.Boolean,
  isConnected: Schema.Boolean,
  policy: AgentPolicy,
  usage: AgentUsage,
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type Agent = typeof Agent.Type

/** `POST /agents` (AG-01). */
export const AgentCreateRequest = Schema.Struct({
  name: boundedString(255),
  customerId: CustomerId,
  policy: AgentPolicy
})
export type AgentCreateRequest = typeof AgentCreateRequest.Type

/** `PATCH /agents/{agentId}` (AG-09, AG-10): at least one field (the service says which is missing). */
export const AgentUpdateRequest = Schema.Struct({
  name: Schema.optionalKey(boundedString(255)),
  isPaused: Schema.optionalKey(Schema.Boolean)
})
export type AgentUpdateRequest = typeof AgentUpdateRequest.Type

/** AG-12: every field optional; `null` clears a nullable limit; a new `currency` recasts the limits (design Q8). */
export const AgentSpendingLimitsUpdate = Schema.Struct({
  currency: Schema.optionalKey(CurrencyCode),
  perTransactionLimit: Schema.optionalKey(LimitAmount),
  dailyLimit: Schema.optionalKey(Schema.NullOr(LimitAmount)),
  dailyTransactionLimit: Schema.optionalKey(CountLimit),
  monthlyLimit: Schema.optionalKey(Schema.NullOr(LimitAmount))
})
export type AgentSpendingLimitsUpdate = typeof AgentSpendingLimitsUpdate.Type

/** `PATCH /agents/{agentId}/policy` (AG-12): top-level fields replace, `spendingLimits` merges per field. */
export const AgentPolicyUpdateRequest = Schema.Struct({
  permissions: Schema.optionalKey(Schema.Array(AgentPermission)),
  defaultExecutionMode: Schema.optionalKey(AgentExecutionMode),
  spendingLimits: Schema.optionalKey(AgentSpendingLimitsUpdate),
  accountRestrictions: Schema.optionalKey(AgentAccountRestrictions),
  approvalThresholds: Schema.optionalKey(AgentApprovalThresholds)
})
export type AgentPolicyUpdateRequest = typeof AgentPolicyUpdateRequest.Type

/** `GET /agents` (AG-07). */
export const ListAgentsQuery = Schema.Struct({
  customerId: Schema.optionalKey(CustomerId),
  isPaused: Schema.optionalKey(BooleanQueryParam),
  isConnected: Schema.optionalKey(BooleanQueryParam),
  createdAfter: Schema.optionalKey(DateTimeString),
  createdBefore: Schema.optionalKey(DateTimeString),
  updatedAfter: Schema.optionalKey(DateTimeString),
  updatedBefore: Schema.optionalKey(DateTimeString),
  ...PageQueryFields
})
export type ListAgentsQuery = typeof ListAgentsQuery.Type

// ---- device codes ----

/** AG-01, AG-13 (upstream `AgentDeviceCode`): the code in clear is answered once, at issue. */
export const AgentDeviceCode = Schema.Struct({
  code: Schema.String,
  agentId: AgentId,
  expiresAt: DateTimeString,
  redeemed: Schema.Boolean
})
export type AgentDeviceCode = typeof AgentDeviceCode.Type

/** `POST /agents` answers the agent and its first device code (AG-01). */
export const AgentCreateResponse = Schema.Struct({ agent: Agent, deviceCode: AgentDeviceCode })
export type AgentCreateResponse = typeof AgentCreateResponse.Type

/** `GET /agents/device-codes/{code}/status` (AG-14): an invalidated or expired code reads `redeemed: false`. */
export const AgentDeviceCodeStatusResponse = Schema.Struct({ code: Schema.String, redeemed: Schema.Boolean })
export type AgentDeviceCodeStatusResponse = typeof AgentDeviceCodeStatusResponse.Type

/** `POST /agents/device-codes/{code}/redeem` (AG-15): the Bearer token, shown this once (`Cache-Control: no-store`). */
export const AgentDeviceCodeRedeemResponse = Schema.Struct({
  agentId: AgentId,
  agentName: Schema.String,
  accessToken: Schema.String,
  policy: AgentPolicy
})
export type AgentDeviceCodeRedeemResponse = typeof AgentDeviceCodeRedeemResponse.Type

// ---- actions ----

/** AG-18 (upstream `AgentActionStatus`). */
export const AgentActionStatus = Schema.Literals(["PENDING_APPROVAL", "APPROVED", "REJECTED", "FAILED"])
export type AgentActionStatus = typeof AgentActionStatus.Type

/** AG-17 (upstream `AgentActionType`). */
export const AgentActionType = Schema.Literals(["EXECUTE_QUOTE", "TRANSFER_OUT", "TRANSFER_IN"])
export type AgentActionType = typeof AgentActionType.Type

/** Why a policy refused an agent's call (403 `FORBIDDEN`, `details.reason`; design Q2) or failed an approval. */
export const AgentRefusalReason = Schema.Literals([
  "AGENT_PAUSED",
  "PERMISSION_MISSING",
  "ACCOUNT_NOT_ALLOWED",
  "PER_TRANSACTION_LIMIT_EXCEEDED",
  "DAILY_LIMIT_EXCEEDED",
  "MONTHLY_LIMIT_EXCEEDED",
  "DAILY_TRANSACTION_LIMIT_EXCEEDED"
])
export type AgentRefusalReason = typeof AgentRefusalReason.Type

/** Why an action waits for the platform (design section 3): the mode, an account rule's mode, or the threshold. */
export type ApprovalReason = "MODE" | "ACCOUNT_RULE" | "THRESHOLD"

/** Upstream `AgentTransferDetails`: a transfer action's operation. */
export const AgentTransferDetails = Schema.Struct({
  amount: PositiveMinorUnits,
  currency: CurrencyCode,
  sourceAccountId: Schema.String,
  destinationAccountId: Schema.String
})
export type AgentTransferDetails = typeof AgentTransferDetails.Type

/**
 * AG-17 (upstream `AgentAction`): `quote` for `EXECUTE_QUOTE`, `transferDetails` for transfers, `transaction` once
 * approved (execution began). `failureReason` is ours (design Q10): the refusal's code or policy reason.
 */
export const AgentAction = Schema.Struct({
  id: AgentActionId,
  agentId: AgentId,
  customerId: CustomerId,
  platformCustomerId: Schema.String,
  status: AgentActionStatus,
  type: AgentActionType,
  quote: Schema.optionalKey(Quote),
  transferDetails: Schema.optionalKey(AgentTransferDetails),
  transaction: Schema.optionalKey(Transaction),
  rejectionReason: Schema.optionalKey(Schema.String),
  failureReason: Schema.optionalKey(Schema.String),
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type AgentAction = typeof AgentAction.Type

/** `POST /agents/{agentId}/actions/{actionId}/reject` (AG-22). */
export const AgentActionRejectRequest = Schema.Struct({
  reason: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1000)))
})
export type AgentActionRejectRequest = typeof AgentActionRejectRequest.Type

/** `GET /agents/approvals` (AG-16): the `PENDING_APPROVAL` actions; `startDate`/`endDate` inclusive on `createdAt`. */
export const ListApprovalsQuery = Schema.Struct({
  agentId: Schema.optionalKey(AgentId),
  customerId: Schema.optionalKey(CustomerId),
  startDate: Schema.optionalKey(DateTimeString),
  endDate: Schema.optionalKey(DateTimeString),
  ...PageQueryFields
})
export type ListApprovalsQuery = typeof ListApprovalsQuery.Type

/** `GET /agents/me/actions` (AG-36): the caller's own actions. */
export const ListAgentActionsQuery = Schema.Struct({
  status: Schema.optionalKey(AgentActionStatus),
  ...PageQueryFields
})
export type ListAgentActionsQuery = typeof ListAgentActionsQuery.Type

/** `GET /agents/me/internal-accounts` (AG-25). */
export const ListAgentInternalAccountsQuery = Schema.Struct({
  currency: Schema.optionalKey(CurrencyCode),
  type: Schema.optionalKey(InternalAccountType),
  ...PageQueryFields
})
export type ListAgentInternalAccountsQuery = typeof ListAgentInternalAccountsQuery.Type

/** `GET /agents/me/external-accounts` (AG-27). */
export const ListAgentExternalAccountsQuery = Schema.Struct({
  currency: Schema.optionalKey(CurrencyCode),
  ...PageQueryFields
})
export type ListAgentExternalAccountsQuery = typeof ListAgentExternalAccountsQuery.Type

// ---- stored records ----

/**
 * An agent as stored (`agents`). The Bearer token is `gat_<selector><verifier>`: the selector is looked up, only the
 * verifier's SHA-256 is kept (compared in constant time). Connected = a selector is present. Deleted agents keep
 * their row (`deletedAt`) with the token cleared, so the token dies with the delete's commit (AG-11).
 */
export interface AgentRecord {
  readonly id: AgentId
  readonly name: string
  readonly customerId: CustomerId
  readonly platformCustomerId: string
  readonly policy: AgentPolicy
  readonly isPaused: boolean
  readonly tokenSelector?: string | undefined
  /** Hex SHA-256 of the token's verifier part. */
  readonly tokenVerifierSha256?: string | undefined
  readonly connectedAt?: string | undefined
  readonly deletedAt?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

export interface AgentFilter {
  readonly customerId?: string | undefined
  readonly isPaused?: boolean | undefined
  readonly isConnected?: boolean | undefined
  readonly createdAfter?: string | undefined
  readonly createdBefore?: string | undefined
  readonly updatedAfter?: string | undefined
  readonly updatedBefore?: string | undefined
  /** Deleted agents are left out unless true. */
  readonly includeDeleted?: boolean | undefined
}

/** Stored device-code states; expiry is derived (`ISSUED` and now ≥ `expiresAt`). */
export type AgentDeviceCodeState = "ISSUED" | "REDEEMED" | "INVALIDATED"

/** A device code as stored (`agent_device_codes`): only the SHA-256 of its normalized form, never the code. */
export interface AgentDeviceCodeRecord {
  readonly id: AgentDeviceCodeId
  readonly agentId: AgentId
  /** Hex SHA-256 of the normalized code (codes.ts `normalizeDeviceCode`). */
  readonly codeSha256: string
  readonly state: AgentDeviceCodeState
  readonly expiresAt: string
  readonly redeemedAt?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

export interface AgentDeviceCodeFilter {
  readonly agentId?: string | undefined
  readonly states?: ReadonlyArray<AgentDeviceCodeState> | undefined
}

/** An action as stored (`agent_actions`). Its public `quote` and `transaction` are read live by id (views.ts). */
export interface AgentActionRecord {
  readonly id: AgentActionId
  readonly agentId: AgentId
  readonly customerId: CustomerId
  readonly platformCustomerId: string
  readonly type: AgentActionType
  readonly status: AgentActionStatus
  readonly quoteId?: QuoteId | undefined
  readonly transactionId?: TransactionId | undefined
  readonly transferDetails?: AgentTransferDetails | undefined
  /** The operation's amount as the agent asked it (sending amount and currency). */
  readonly amount: number
  readonly currency: string
  readonly approvalReason?: ApprovalReason | undefined
  /** A `Service-Wallet-Signature` given with the execute, checked again when the platform approves. */
  readonly walletSignature?: string | undefined
  readonly rejectionReason?: string | undefined
  readonly failureReason?: string | undefined
  /** `<quoteId>` while `PENDING_APPROVAL` (unique): one pending action per quote. */
  readonly openSlot?: string | undefined
  readonly decidedAt?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

export interface AgentActionFilter {
  readonly agentId?: string | undefined
  readonly customerId?: string | undefined
  readonly status?: AgentActionStatus | undefined
  readonly createdAfter?: string | undefined
  /** Inclusive (`endDate`). */
  readonly createdAtOrBefore?: string | undefined
}

/** Counter keys of the agents context (the store's `counters`); spend in the policy currency at execution. */
export const agentCounters = {
  /** Executed amount of an agent in a currency on a UTC day (`YYYY-MM-DD`): only ever added to (design Q3). */
  daySpend: (agentId: string, currency: string, day: string): string => `agent-spend:${agentId}:${currency}:${day}`,
  /** Executed amount of an agent in a currency in a UTC month (`YYYY-MM`). */
  monthSpend: (agentId: string, currency: string, month: string): string =>
    `agent-spend:${agentId}:${currency}:${month}`,
  /** Executions of an agent on a UTC day. */
  dayCount: (agentId: string, day: string): string => `agent-count:${agentId}:${day}`,
  /** Redemptions of unknown device codes by one caller (`callerKey`) in one UTC minute (`YYYY-MM-DDTHH:MM`). */
  redeemMisses: (caller: string, minute: string): string => `agent-redeem-miss:${caller}:${minute}`
} as const
// ---- the agent's own surface (`/agents/me`) ----

/** `POST /agents/me/external-accounts` (AG-26): the platform's body; `customerId` optional, the agent's customer. */
export const AgentExternalAccountCreateRequest = Schema.Struct({
  ...CreateExternalAccountRequest.fields,
  customerId: Schema.optionalKey(CustomerId)
})
export type AgentExternalAccountCreateRequest = typeof AgentExternalAccountCreateRequest.Type

/** `GET /agents/me/transactions` (AG-34): the `/transactions` filters but the customer's, which is the agent's. */
export const ListAgentTransactionsQuery = ListTransactionsQuery.mapFields(
  ({ customerId: _c, platformCustomerId: _p, ...fields }) => fields
)
export type ListAgentTransactionsQuery = typeof ListAgentTransactionsQuery.Type
