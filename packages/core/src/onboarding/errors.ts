import {
  Conflict,
  type Forbidden,
  InvalidInput,
  LimitExceeded,
  NotFound,
  Refused,
  type StoreError
} from "../shared/errors.ts"
import type { ContactChannel } from "./model.ts"

/**
 * 404 `REFERENCE_NOT_FOUND`: no such beneficial owner (the upstream 404 code list has no dedicated one;
 * `REFERENCE_NOT_FOUND` is its code for an unknown referenced resource).
 */
export const beneficialOwnerNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Beneficial owner not found: ${id}` })

/** 404 `REFERENCE_NOT_FOUND`: no such verification. */
export const verificationNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Verification not found: ${id}` })

/** 400 `INVALID_INPUT` on `customerId`: beneficial owners belong to business customers only. */
export const notABusiness = (customerId: string): InvalidInput =>
  InvalidInput.one(
    "customerId",
    { customerType: "BUSINESS" },
    `Customer ${customerId} is an individual; beneficial owners belong to BUSINESS customers`
  )

/** 400 `INVALID_INPUT` on `customerId`: an APPROVED or REJECTED verification is final and cannot be re-submitted. */
export const verificationDecided = (customerId: string, status: string): InvalidInput =>
  InvalidInput.one(
    "customerId",
    { kycStatus: ["UNVERIFIED", "PENDING", "HOLD"] },
    `Customer ${customerId} is already ${status}; a decided verification cannot be re-submitted`
  )

/** 409 `CONFLICT`: the provider wants email and/or phone verified before KYC can begin. */
export const contactVerificationIncomplete = (
  customerId: string,
  pending: ReadonlyArray<"email" | "phone">
): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Customer ${customerId} must verify ${pending.join(" and ")} before KYC can begin (see verify-email / verify-phone)`,
    details: { contactVerification: Object.fromEntries(pending.map((channel) => [channel, "PENDING"])) }
  })

const channelName = (channel: ContactChannel) => (channel === "EMAIL" ? "email" : "phone")

/** 409 `CONFLICT`: the customer's provider does not require this channel to be verified. */
export const contactVerificationNotRequired = (customerId: string, channel: ContactChannel): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Customer ${customerId}'s provider does not require ${channelName(channel)} verification`
  })

/** 409 `CONFLICT`: the channel is already `VERIFIED`. */
export const contactAlreadyVerified = (customerId: string, channel: ContactChannel): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Customer ${customerId}'s ${channelName(channel)} is already VERIFIED`
  })

/** 400 `MISSING_MANDATORY_USER_INFO`: no email address / phone number to send the code to. */
export const contactMissing = (customerId: string, channel: ContactChannel): Refused =>
  new Refused({
    code: "MISSING_MANDATORY_USER_INFO",
    message: `Customer ${customerId} has no ${channel === "EMAIL" ? "email" : "phoneNumber"} to send a code to`,
    details: { field: channel === "EMAIL" ? "email" : "phoneNumber" }
  })

/** 429 `RATE_LIMITED`: a code was sent moments ago; `Retry-After` says when another may be sent. */
export const resendTooSoon = (retryAfterSeconds: number): LimitExceeded =>
  new LimitExceeded({
    code: "RATE_LIMITED",
    message: `A code was sent recently; request another in ${retryAfterSeconds} s`,
    retryAfterSeconds
  })

/** 400 `INVALID_INPUT` on `code`: no code is open (none sent, already used, voided, or sent to an old address). */
export const noOpenCode = (): InvalidInput =>
  InvalidInput.one("code", { requested: true }, "No verification code is open for this channel; request a new one")

/** 400 `INVALID_INPUT` on `code`: the code expired. */
export const codeExpired = (): InvalidInput =>
  InvalidInput.one("code", { expired: true }, "The verification code has expired; request a new one")

/** 400 `INVALID_INPUT` on `code`: a wrong code; after the last attempt the code is void. */
export const wrongCode = (attemptsLeft: number): InvalidInput =>
  InvalidInput.one(
    "code",
    { valid: true, attemptsLeft },
    attemptsLeft > 0
      ? `The verification code is not correct; ${attemptsLeft} attempt(s) left`
      : "The verification code is not correct; it is now void, request a new one"
  )

/** 409 `CONFLICT`: the customer or its owners changed while the provider reviewed the packet. */
export const changedDuringReview = (customerId: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Customer ${customerId} changed while its packet was reviewed; submit it again`
  })

/** 503 `SERVICE_UNAVAILABLE`: the KYC provider could not be reached. */
export const providerUnavailable = (message: string): Refused =>
  new Refused({ code: "SERVICE_UNAVAILABLE", message: `The KYC provider is unavailable: ${message}` })

export type OnboardingError = InvalidInput | Refused | NotFound | Forbidden | Conflict | LimitExceeded | StoreError
