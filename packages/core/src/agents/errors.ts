import { Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound, Refused } from "../shared/errors.ts"
import type { AgentRefusalReason } from "./model.ts"

// The agents context's refusals (docs/design/agents.md, sections 1 and 5). Statuses (packages/http's table):
// REFERENCE_NOT_FOUND 404; FORBIDDEN 403 with `details.reason` (Q2); CONFLICT 409; EXPIRED and INVALID_INPUT 400 (Q13);
// RATE_LIMITED 429 with Retry-After; UNAUTHORIZED 401. Messages never carry a device code or a token.

/** 404 `REFERENCE_NOT_FOUND` (upstream `Error404` has no agent code): an unknown or deleted agent. */
export const agentNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Agent ${id} was not found` })

/** 404 `REFERENCE_NOT_FOUND`: an unknown action, or one of another agent (C-48). */
export const agentActionNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Agent action ${id} was not found` })

/** 404 `REFERENCE_NOT_FOUND` (AG-14, AG-15): no device code is stored under this one. */
export const deviceCodeNotFound = (): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: "No device code matches this one" })

/** What a policy refusal is about (`details` beside `reason`): the permission, the account, the limit and amounts. */
export type RefusalDetails = Readonly<Record<string, string | number>>

const refusalMessage = (reason: AgentRefusalReason, d: RefusalDetails): string => {
  switch (reason) {
    case "AGENT_PAUSED":
      return "The agent is paused: the platform must resume it before it acts"
    case "PERMISSION_MISSING":
      return `The agent's policy does not grant ${d.permission ?? "the permission this needs"}`
    case "ACCOUNT_NOT_ALLOWED":
      return `Account ${d.accountId ?? ""} is not among the policy's allowedAccountIds`
    case "PER_TRANSACTION_LIMIT_EXCEEDED":
      return `${d.amount} ${d.currency} is above the per-transaction limit of ${d.limit} ${d.currency}`
    case "DAILY_LIMIT_EXCEEDED":
      return `${d.amount} ${d.currency} with ${d.used} spent today would pass the daily limit of ${d.limit} ${d.currency}`
    case "MONTHLY_LIMIT_EXCEEDED":
      return `${d.amount} ${d.currency} with ${d.used} spent this month would pass the monthly limit of ${d.limit} ${d.currency}`
    case "DAILY_TRANSACTION_LIMIT_EXCEEDED":
      return `The agent already executed ${d.used} of its ${d.limit} transactions today`
  }
}

/**
 * 403 `FORBIDDEN` (AG-06, AG-10, AG-30, AG-31, design Q2): the agent's policy refuses; `details.reason` says which rule,
 * and a limit's refusal adds `limit`, `used`, `amount`, `currency` (in the policy currency, converted amounts rounded
 * up). `policy.ts` decides; this is its answer.
 */
export const agentForbidden = (refusal: {
  readonly reason: AgentRefusalReason
  readonly details?: RefusalDetails | undefined
}): Forbidden => {
  const details = refusal.details ?? {}
  return new Forbidden({
    code: "FORBIDDEN",
    message: refusalMessage(refusal.reason, details),
    details: { reason: refusal.reason, ...details }
  })
}

/** 409 `CONFLICT` (AG-13, design Q12): a connected agent gets no new code; reinstall is delete and create. */
export const agentAlreadyConnected = (id: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Agent ${id} is connected: delete it and create a new one to connect another installation`
  })

/** 409 `CONFLICT` with `details.status` (AG-23): only a `PENDING_APPROVAL` action is approved or rejected. */
export const agentActionNotPending = (id: string, status: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Agent action ${id} is ${status}: only a PENDING_APPROVAL action can be decided`,
    details: { status }
  })

/** 409 `CONFLICT` (AG-33): an action of this quote already waits for approval. */
export const agentActionAlreadyPending = (quoteId: string): Conflict =>
  new Conflict({ code: "CONFLICT", message: `An action on quote ${quoteId} is already waiting for approval` })

/** 400 `EXPIRED` (AG-15, design Q13): the code's life ended, or a newer code replaced it; ask for a new one. */
export const deviceCodeExpired = (): Refused =>
  new Refused({ code: "EXPIRED", message: "The device code expired or was replaced: ask the platform for a new one" })

/** 400 `INVALID_INPUT` on `code` (AG-15, design Q13): a device code connects once. */
export const deviceCodeRedeemed = (): InvalidInput =>
  InvalidInput.one("code", { redeemed: true }, "The device code was already redeemed")

/**
 * 429 `RATE_LIMITED` (design section 2): this caller tried too many unknown codes this minute (issue 31 item 7:
 * counted per caller); `Retry-After` is the seconds to the next minute.
 */
export const redeemRateLimited = (retryAfterSeconds: number): LimitExceeded =>
  new LimitExceeded({
    code: "RATE_LIMITED",
    message: "Too many unknown device codes were tried: wait for the next minute",
    retryAfterSeconds
  })

/** 401 `UNAUTHORIZED` (A-06, AG-11): a Bearer token that is malformed, unknown, wrong, or of a deleted agent. */
export const agentUnauthorized = (): Refused =>
  new Refused({ code: "UNAUTHORIZED", message: "The agent access token is not valid" })

/** 400 (AG-09): a `PATCH /agents/{agentId}` naming no field. */
export const emptyAgentUpdate = (): InvalidInput =>
  InvalidInput.one("body", { minProperties: 1 }, "Give at least one of name, isPaused")

/** 400 (AG-12): a `PATCH /agents/{agentId}/policy` naming no field. */
export const emptyPolicyUpdate = (): InvalidInput =>
  InvalidInput.one(
    "body",
    { minProperties: 1 },
    "Give at least one of permissions, defaultExecutionMode, spendingLimits, accountRestrictions, approvalThresholds"
  )
