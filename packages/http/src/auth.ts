import type { Permission, Principal } from "@paycore/core"
import type { EndpointInfo, ErrorResponse } from "./serve.ts"

/** What an endpoint demands of the token: one of `anyOf`, and a sandbox token when `sandbox`. */
export interface Requirement {
  readonly anyOf: ReadonlyArray<Permission>
  readonly sandbox?: true
}

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
    transferIn: transact
  },
  sandbox: {
    fund: sandbox,
    send: sandbox,
    umaReceive: sandbox,
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
  webhooks: { replayDelivery: write, rotateSigningSecret: manage }
}

/** 403 FORBIDDEN when the principal does not meet the endpoint's requirement; `undefined` when it does. */
export const authorize = (principal: Principal, endpoint: EndpointInfo): ErrorResponse | undefined => {
  // Agent tokens get their own table (issue 16); until it exists they are refused every route here.
  if (principal.kind !== "PLATFORM") return { status: 403, code: "FORBIDDEN", message: "Agent tokens cannot call this" }
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
