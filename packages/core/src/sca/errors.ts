import { Conflict, InvalidInput, LimitExceeded, NotFound, Refused } from "../shared/errors.ts"
import type { LockDetails, ScaChallengeKind, ScaFactor } from "./model.ts"

/** 409 `CONFLICT` (S-01): the customer's region is not subject to SCA; every SCA endpoint answers this. */
export const scaNotRequired = (customerId: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Strong Customer Authentication is not required for customer ${customerId} (its region is not subject)`
  })

/**
 * 423 `ACCOUNT_LOCKED` (C-41, S-10): too many consecutive failed proofs; `details` as upstream's `Error423`
 * (`lockedUntil` null while suspended). Nothing is counted while locked.
 */
export const accountLocked = (lock: LockDetails): Refused =>
  new Refused({
    code: "ACCOUNT_LOCKED",
    message: lock.suspended
      ? "SCA is suspended after too many failed attempts; a password reset lifts it"
      : `SCA is locked after too many failed attempts; retry after ${lock.lockedUntil}`,
    details: { suspended: lock.suspended, lockedUntil: lock.lockedUntil ?? null, failedAttempts: lock.failedAttempts }
  })

/** 409 `SCA_SESSION_REQUIRED` (S-09, C-38): no live SCA login session; log the customer in again, then retry. */
export const scaSessionRequired = (customerId: string): Refused =>
  new Refused({
    code: "SCA_SESSION_REQUIRED",
    message: `Customer ${customerId} has no live SCA session; complete POST /sca/login/start and /sca/login/complete`
  })

/** 429 `RATE_LIMITED` (L-14): a code was sent for this login a moment ago. */
export const scaCodeTooSoon = (retryAfterSeconds: number): LimitExceeded =>
  new LimitExceeded({
    code: "RATE_LIMITED",
    message: `An SCA code was sent recently; request another in ${retryAfterSeconds} s`,
    retryAfterSeconds
  })

/** 429 `RATE_LIMITED` (L-14, not counted): a proof came too soon after a failed one on the same challenge. */
export const scaProofTooSoon = (retryAfterSeconds: number): LimitExceeded =>
  new LimitExceeded({
    code: "RATE_LIMITED",
    message: `The last SCA proof failed a moment ago; retry in ${retryAfterSeconds} s`,
    retryAfterSeconds
  })

/** 429 `RATE_LIMITED` (L-14): this challenge had its five codes; wait for it to expire and start again. */
export const scaResendsExhausted = (retryAfterSeconds: number): LimitExceeded =>
  new LimitExceeded({
    code: "RATE_LIMITED",
    message: "No more codes can be sent for this SCA challenge; let it expire and start again",
    retryAfterSeconds
  })

/** 400 on `factor`: the factor cannot be used by this customer (not enrolled, no verified phone). */
export const factorNotUsable = (factor: ScaFactor, why: string): InvalidInput =>
  InvalidInput.one("factor", { usable: true }, `The ${factor} factor cannot be used: ${why}`)

/** 400 on `factor`: the complete call names another factor than the login was started with. */
export const factorMismatch = (started: ScaFactor): InvalidInput =>
  InvalidInput.one("factor", { enum: [started] }, `The login was started with ${started}`)

/** 400 on `challengeId`: no open login challenge has this id (none started, already used, or superseded). */
export const noOpenChallenge = (): InvalidInput =>
  InvalidInput.one("challengeId", { open: true }, "No open SCA login challenge has this id; start a login")

/** 400 on a required proof field that is missing. */
export const proofMissing = (
  field: "challengeId" | "code" | "passkeyAssertion" | "origin",
  factor: ScaFactor
): InvalidInput => InvalidInput.one(field, { required: true }, `${field} is required to prove an ${factor} challenge`)

/** 400 on `code` (counted): the code is wrong; `attemptsLeftBeforeLock` tells the client how close the lock is. */
export const wrongScaCode = (attemptsLeftBeforeLock: number): InvalidInput =>
  InvalidInput.one(
    "code",
    { valid: true, attemptsLeftBeforeLock },
    `The SCA code is not correct; ${attemptsLeftBeforeLock} attempt(s) left before the account is locked`
  )

/** What a customer does once a challenge of this kind expired: the message says it (a trust code is no login). */
const afterExpiry = (kind: ScaChallengeKind): string =>
  kind === "LOGIN"
    ? "start a new login"
    : kind === "QUOTE"
      ? "the payment can no longer be authorized; create a new quote"
      : `start the ${kind.toLowerCase()} again`

/** 400 on `code` (counted when proved): the challenge expired. */
export const scaCodeExpired = (kind: ScaChallengeKind): InvalidInput =>
  InvalidInput.one("code", { expired: true }, `The SCA code has expired; ${afterExpiry(kind)}`)

/** 400 on `code` (not counted): this TOTP code's time step was already used; wait for the next code (S-14). */
export const totpCodeReused = (): InvalidInput =>
  InvalidInput.one("code", { reused: true }, "This TOTP code was already used; wait for the next one")

/** 400 on `secret` (not counted): no pending TOTP enrolment of this customer has this secret. */
export const noPendingEnrolment = (): InvalidInput =>
  InvalidInput.one(
    "secret",
    { pending: true },
    "No pending TOTP enrolment of this customer has this secret; start one with POST /sca/factors"
  )

/** 400 on `code` (counted): the enrolment was started more than 600 s ago; start a new one. */
export const enrolmentExpired = (): InvalidInput =>
  InvalidInput.one("code", { expired: true }, "The TOTP enrolment has expired; start a new one with POST /sca/factors")

/**
 * 400 on `passkeyAssertion` (counted): the assertion does not verify: not from an allowed origin, not over the
 * challenge, not for the relying party, not signed by the enrolled passkey, or its counter did not move on.
 */
export const wrongPasskeyAssertion = (attemptsLeftBeforeLock: number): InvalidInput =>
  InvalidInput.one(
    "passkeyAssertion",
    { valid: true, attemptsLeftBeforeLock },
    `The passkey assertion does not verify; ${attemptsLeftBeforeLock} attempt(s) left before the account is locked`
  )

/** 400 on `passkeyAssertion` (counted): the passkey challenge was issued more than 300 s ago. */
export const passkeyChallengeExpired = (kind: ScaChallengeKind): InvalidInput =>
  InvalidInput.one("passkeyAssertion", { expired: true }, `The passkey challenge has expired; ${afterExpiry(kind)}`)

/** 400 on `passkeyAssertion` (not counted): no passkey login of this customer is open; start one. */
export const noOpenPasskeyLogin = (): InvalidInput =>
  InvalidInput.one(
    "passkeyAssertion",
    { open: true },
    "No passkey login of this customer is open; start one with POST /sca/login/start"
  )

/**
 * 400 on `credential` (counted): the registration does not verify: not from an allowed origin, not over the
 * enrolment's challenge, not for the relying party, or not an acceptable P-256 passkey.
 */
export const wrongPasskeyCredential = (attemptsLeftBeforeLock: number): InvalidInput =>
  InvalidInput.one(
    "credential",
    { valid: true, attemptsLeftBeforeLock },
    `The passkey credential does not verify; ${attemptsLeftBeforeLock} attempt(s) left before the account is locked`
  )

/** 400 on `credential` (not counted): no passkey enrolment of this customer is pending. */
export const noPendingPasskeyEnrolment = (): InvalidInput =>
  InvalidInput.one(
    "credential",
    { pending: true },
    "No passkey enrolment of this customer is pending; start one with POST /sca/factors"
  )

/** 400 on `credential` (counted): the passkey enrolment was started more than 600 s ago; start a new one. */
export const passkeyEnrolmentExpired = (): InvalidInput =>
  InvalidInput.one(
    "credential",
    { expired: true },
    "The passkey enrolment has expired; start a new one with POST /sca/factors"
  )

/** 409 `PASSKEY_ALREADY_ENROLLED`: one SCA passkey per customer (upstream); delete it first. */
export const passkeyAlreadyEnrolled = (customerId: string): Conflict =>
  new Conflict({
    code: "PASSKEY_ALREADY_ENROLLED",
    message: `Customer ${customerId} already has a passkey; delete it with DELETE /sca/factors/{credentialId} first`
  })

/** 404 `REFERENCE_NOT_FOUND`: the customer has no factor reset with this id. */
export const factorResetNotFound = (resetId: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `No SCA factor reset has id ${resetId}` })

/** 429 `RATE_LIMITED` (upstream): five factor resets were started in the last 24 h. */
export const tooManyFactorResets = (retryAfterSeconds: number): LimitExceeded =>
  new LimitExceeded({
    code: "RATE_LIMITED",
    message: `At most 5 SCA factor resets may be started in 24 hours; retry in ${retryAfterSeconds} s`,
    retryAfterSeconds
  })

/** 400 on `resetId`: the reset is not `LIVENESS_PASSED` (liveness pending or failed, already completed, lapsed). */
export const factorResetNotReady = (status: string): InvalidInput =>
  InvalidInput.one(
    "resetId",
    { status: "LIVENESS_PASSED" },
    `The factor reset is ${status}; it can be completed once its liveness check has passed`
  )

/** 400 on `mobile`: an SMS_OTP reset is completed with the new number. */
export const resetMobileRequired = (): InvalidInput =>
  InvalidInput.one("mobile", { required: true }, "An SMS_OTP reset is completed with the new mobile number")

/** 400 on `mobile.number`: the dialling code and the number make more than the 15 digits of an E.164 number. */
export const resetMobileTooLong = (): InvalidInput =>
  InvalidInput.one(
    "mobile.number",
    { maxDigits: 15 },
    "The dialling code and the number together have more than the 15 digits of an E.164 phone number"
  )

/** 409 `CONFLICT` (sandbox): the reset awaits no liveness verdict (already given, completed, or lapsed). */
export const resetNotAwaitingLiveness = (resetId: string, status: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `The factor reset ${resetId} is ${status}: it awaits no liveness verdict`,
    details: { resetId, status }
  })

/** 404 `REFERENCE_NOT_FOUND`: the customer has no enrolled factor with this credential id. */
export const scaFactorNotFound = (credentialId: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `No enrolled SCA factor has credential id ${credentialId}` })

/** 400 on the proof field (not counted, AC-37): the proof is for another factor than the challenge's. */
export const proofOfAnotherFactor = (field: "code" | "passkeyAssertion", factor: ScaFactor): InvalidInput =>
  InvalidInput.one(
    field,
    { factor },
    `The challenge's factor is ${factor}: only its proof is accepted (${factor === "PASSKEY" ? "passkeyAssertion and origin" : "code"})`
  )

// ---- trusted beneficiaries (AC-31 … AC-39) ----

/** 400 `INVALID_INPUT` (AC-39): only a USDC wallet address can be trusted. */
export const notUsdcAddress = (externalAccountId: string, currency: string): InvalidInput =>
  InvalidInput.one(
    "externalAccountId",
    { currency: "USDC", wallet: true },
    `Only USDC wallet addresses can be trusted; external account ${externalAccountId} is a ${currency} account` +
      `${currency === "USDC" ? " that is not a wallet address" : ""}`
  )

/** 409 `CONFLICT`: the account cannot make this trust move now (already trusted, not trusted, not `ACTIVE`). */
export const trustNotApplicable = (externalAccountId: string, why: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `External account ${externalAccountId}: ${why}`,
    details: { externalAccountId }
  })

/** 400 on `challengeId` (not counted): no open challenge of this trust move, or the id is not the open one's. */
export const noOpenTrustChallenge = (move: "TRUST" | "UNTRUST", given: string | undefined): InvalidInput => {
  const start = move === "TRUST" ? "trust" : "untrust"
  return InvalidInput.one(
    "challengeId",
    { open: true },
    given === undefined
      ? `No ${start} challenge is open for this account; start one with POST …/${start}`
      : `${given} is not the open ${start} challenge of this account; use the last start's scaChallenge.id`
  )
}

/** 400 (not counted): the customer has no factor to prove with (no verified phone, nothing enrolled). */
export const noUsableFactor = (): InvalidInput =>
  InvalidInput.one(
    "factor",
    { usable: true },
    "The customer has no usable SCA factor: verify its phone number or enrol a TOTP or passkey factor"
  )
