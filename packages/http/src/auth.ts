import type { AgentPermission, AgentPrincipal, Permission, PlatformPrincipal, Principal } from "@paycore/core"
import type { EndpointInfo, ErrorResponse } from "./listener-types.ts"

/** What an endpoint demands of the token: one of `anyOf`, and a sandbox token when `sandbox`. */
export interface Requirement {
  readonly anyOf: ReadonlyArray<Permission>
  readonly sandbox?: true
}

/** Any token: a POST that only computes (every token has at least one permission). */
const read: Requirement = { anyOf: ["VIEW", "TRANSACT", "MANAGE"] }
const write: Requirement = { anyOf: ["TRANSACT", "MANAGE"] }
const manage: Requirement = { anyOf: ["MANAGE"] }
const transact: Requirement = { anyOf: ["TRANSACT"] }
const sandbox: Requirement = { anyOf: ["TRANSACT"], sandbox: true }

/**
 * The permission rules of every mutating endpoint (group → endpoint); reads need any valid token.
 * Writes need TRANSACT or MANAGE; tokens and configuration need MANAGE; money movement needs TRANSACT;
 * sandbox helpers also refuse production tokens. The listener checks them before the body is read, so an
 * `Idempotency-Key` replay can never hand a stored response to a caller who could not have made the request.
 */
export const requirements: Readonly<Record<string, Readonly<Record<string, Requirement>>>> = {
  platform: { createToken: manage, deleteToken: manage, updateConfig: manage },
  customers: { create: write, update: write, delete: write, bulkImportCsv: write },
  onboarding: {
    createKycLink: write,
    sendEmailCode: write,
    confirmEmailCode: write,
    sendPhoneCode: write,
    confirmPhoneCode: write,
    createVerification: write,
    createBeneficialOwner: write,
    updateBeneficialOwner: write,
    uploadDocument: write,
    replaceDocument: write,
    deleteDocument: write
  },
  accounts: {
    createExternal: write,
    deleteExternal: write,
    challengeOwnership: write,
    verifyOwnership: write,
    createPlatformExternal: write,
    deletePlatformExternal: write,
    challengePlatformOwnership: write,
    verifyPlatformOwnership: write,
    startBeneficiaryTrust: write,
    confirmBeneficiaryTrust: write,
    startBeneficiaryUntrust: write,
    confirmBeneficiaryUntrust: write
  },
  walletAuth: {
    createCredential: write,
    challengeCredential: write,
    verifyCredential: write,
    revokeCredential: write,
    refreshSession: write,
    revokeSession: write,
    createDelegatedKey: write,
    revokeDelegatedKey: write,
    exportWallet: write,
    updateInternalAccount: write
  },
  sca: {
    startLogin: write,
    completeLogin: write,
    recordSecurityEvent: write,
    startFactorEnrollment: write,
    confirmFactorEnrollment: write,
    deleteFactor: write,
    startFactorReset: write,
    completeFactorReset: write
  },
  payments: {
    createQuote: transact,
    executeQuote: transact,
    authorizeQuote: transact,
    resendQuoteScaCode: transact,
    transferOut: transact,
    transferIn: transact,
    // a computation, stored nowhere: what a read may ask.
    estimateWithdrawalFee: read,
    // Issue 17 slice D: a receipt's confirmation is a write; the rest move money.
    confirmTransaction: write,
    cancelTransaction: transact,
    approveTransaction: transact,
    rejectTransaction: transact
  },
  sandbox: {
    fund: sandbox,
    send: sandbox,
    umaReceive: sandbox,
    returnDeposit: sandbox,
    releaseComplianceHold: sandbox,
    rejectComplianceHold: sandbox,
    testWebhook: sandbox,
    settleLiveness: sandbox,
    settleScaResetLiveness: sandbox,
    // CD-52: the card simulations refuse a production token too.
    simulateCardAuthorization: sandbox,
    simulateCardClearing: sandbox,
    simulateCardReturn: sandbox,
    simulateCardBalanceInquiry: sandbox,
    simulateCardCreditAuthorization: sandbox,
    simulateCardFinancialAuthorization: sandbox,
    simulateCardFinancialCreditAuthorization: sandbox,
    simulateCardAuthorizationAdvice: sandbox,
    simulateCardCreditAuthorizationAdvice: sandbox,
    simulateCardReturnReversal: sandbox
  },
  cards: { createCard: write, updateCard: write, revealCard: write },
  // AG-01 … AG-23: approving runs the held payment, so it needs TRANSACT; redeem is public (the agent has no token).
  agents: {
    createAgent: write,
    updateAgent: write,
    deleteAgent: write,
    updateAgentPolicy: write,
    createDeviceCode: write,
    approveAction: transact,
    rejectAction: write
  },
  // IN-01, IN-04, IN-05 (design section 1): invitation writes are WRITE; the read is READ (the default).
  invitations: { createInvitation: write, claimInvitation: write, cancelInvitation: write },
  // P-08 … P-18 (design section 1): links and registrations are configuration (MANAGE); mints and burns move money.
  stablecoins: { linkProviderAccount: manage, registerStablecoin: manage, createMint: transact, createBurn: transact },
  webhooks: { replayDelivery: write, rotateSigningSecret: manage }
}

/**
 * What an `/agents/me` route demands of the agent (docs/design/agents.md section 1): the policy `permission` (AG-30),
 * and for a write an agent that is not paused (AG-10; reads stay open so a paused agent can see `isPaused` and poll
 * its actions). The agent's profile, its own quotes and actions need neither. The service checks both again under
 * the agent's row lock, since a PATCH may land between this check and the write.
 */
export interface AgentRequirement {
  readonly permission?: AgentPermission
  readonly write?: true
}

export const agentRequirements: Readonly<Record<string, AgentRequirement>> = {
  listInternalAccounts: { permission: "VIEW_TRANSACTIONS" },
  createExternalAccount: { permission: "MANAGE_EXTERNAL_ACCOUNTS", write: true },
  listExternalAccounts: { permission: "MANAGE_EXTERNAL_ACCOUNTS" },
  getExternalAccount: { permission: "MANAGE_EXTERNAL_ACCOUNTS" },
  deleteExternalAccount: { permission: "MANAGE_EXTERNAL_ACCOUNTS", write: true },
  createQuote: { permission: "CREATE_QUOTES", write: true },
  executeQuote: { permission: "EXECUTE_QUOTES", write: true },
  transferOut: { permission: "CREATE_TRANSFERS", write: true },
  transferIn: { permission: "CREATE_TRANSFERS", write: true },
  listTransactions: { permission: "VIEW_TRANSACTIONS" },
  getTransaction: { permission: "VIEW_TRANSACTIONS" },
  getTransactionTimeline: { permission: "VIEW_TRANSACTIONS" }
}

/** 403 FORBIDDEN with `details.reason` (AGENT_PAUSED, PERMISSION_MISSING) when the agent may not call the route. */
const authorizeAgent = (agent: AgentPrincipal, endpoint: EndpointInfo): ErrorResponse | undefined => {
  const requirement = agentRequirements[endpoint.name]
  if (requirement === undefined) return undefined
  if (requirement.write === true && agent.isPaused) {
    return {
      status: 403,
      code: "FORBIDDEN",
      message: "This agent is paused: the platform must resume it before it acts again",
      details: { reason: "AGENT_PAUSED" }
    }
  }
  const permission = requirement.permission
  if (permission !== undefined && !agent.permissions.includes(permission)) {
    return {
      status: 403,
      code: "FORBIDDEN",
      message: `This agent's policy lacks the ${permission} permission needed for this request`,
      details: { reason: "PERMISSION_MISSING", permission }
    }
  }
  return undefined
}

/** 403 FORBIDDEN when the principal does not meet the endpoint's requirement; `undefined` when it does. */
export const authorize = (principal: Principal, endpoint: EndpointInfo): ErrorResponse | undefined =>
  principal.kind === "AGENT" ? authorizeAgent(principal, endpoint) : authorizePlatform(principal, endpoint)

const authorizePlatform = (principal: PlatformPrincipal, endpoint: EndpointInfo): ErrorResponse | undefined => {
  const requirement = requirements[endpoint.group]?.[endpoint.name]
  if (requirement === undefined) return undefined
  if (requirement.sandbox === true && principal.environment !== "SANDBOX") {
    return { status: 403, code: "FORBIDDEN", message: "Sandbox endpoints refuse a production platform token" }
  }
  if (!requirement.anyOf.some((p) => principal.permissions.includes(p))) {
    return {
      status: 403,
      code: "FORBIDDEN",
      message: `This token lacks the ${requirement.anyOf.join(" or ")} permission needed for this request`
    }
  }
  return undefined
}
