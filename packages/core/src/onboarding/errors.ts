import {
  Conflict,
  type Forbidden,
  InvalidInput,
  LimitExceeded,
  NotFound,
  Refused,
  type StoreError
} from "../shared/errors.ts"
import { statesAllowing } from "../shared/machine.ts"
import { customerKycMachine } from "./machine.ts"
import { CONTACT_CHANNELS, type ContactChannel, DOCUMENT_CONTENT_TYPES, MAX_DOCUMENT_BYTES } from "./model.ts"

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
    { kycStatus: statesAllowing(customerKycMachine, "APPROVE") },
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

/** 409 `CONFLICT`: the customer's provider does not require this channel to be verified. */
export const contactVerificationNotRequired = (customerId: string, channel: ContactChannel): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Customer ${customerId}'s provider does not require ${CONTACT_CHANNELS[channel].key} verification`
  })

/** 409 `CONFLICT`: the channel is already `VERIFIED`. */
export const contactAlreadyVerified = (customerId: string, channel: ContactChannel): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Customer ${customerId}'s ${CONTACT_CHANNELS[channel].key} is already VERIFIED`
  })

/** 400 `MISSING_MANDATORY_USER_INFO`: no email address / phone number to send the code to. */
export const contactMissing = (customerId: string, channel: ContactChannel): Refused =>
  new Refused({
    code: "MISSING_MANDATORY_USER_INFO",
    message: `Customer ${customerId} has no ${CONTACT_CHANNELS[channel].field} to send a code to`,
    details: { field: CONTACT_CHANNELS[channel].field }
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

/** 404 `REFERENCE_NOT_FOUND`: no such document (or it was deleted). */
export const documentNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Document not found: ${id}` })

/** 404 `REFERENCE_NOT_FOUND`: the `documentHolder` is no customer or beneficial owner. */
export const documentHolderNotFound = (holder: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Document holder not found: ${holder}` })

/** 400 `INVALID_INPUT` on `file`: a media type other than PDF, JPEG or PNG (the part's Content-Type). */
export const unsupportedDocumentType = (mediaType: string): InvalidInput =>
  InvalidInput.one(
    "file",
    { contentType: [...DOCUMENT_CONTENT_TYPES] },
    `The file's Content-Type ${mediaType} is not accepted: send ${DOCUMENT_CONTENT_TYPES.join(", ")}`
  )

/** 400 `INVALID_INPUT` on `file`: larger than `maxBytes` (10 MB for documents). */
export const fileTooLarge = (maxBytes: number = MAX_DOCUMENT_BYTES): InvalidInput =>
  InvalidInput.one("file", { maxBytes }, `The file is larger than ${maxBytes} bytes`)

/** 400 `INVALID_INPUT` on `file`: the file has no bytes. */
export const emptyFile = (): InvalidInput => InvalidInput.one("file", { minBytes: 1 }, "The file is empty")

/** 400 `INVALID_INPUT`: a `PUT /documents/{id}` with neither a file nor a field to change. */
export const nothingToReplace = (): InvalidInput =>
  InvalidInput.one("body", { minProperties: 1 }, "Send a new file, metadata to change, or both")

/** 422 `DOCUMENT_REJECTED`: the provider's screening failed the image; no document was stored. */
export const documentRejected = (reason: string): Refused =>
  new Refused({
    code: "DOCUMENT_REJECTED",
    message: `The document was rejected by screening (${reason}): upload a clear, whole, unexpired original`,
    details: { reason }
  })

/** 409 `CONFLICT`: a document a packet review has seen is kept (replace it with PUT instead). */
export const documentSubmitted = (id: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `Document ${id} was submitted for verification and cannot be deleted; replace it with PUT instead`
  })

/** 404 `BULK_UPLOAD_JOB_NOT_FOUND`. */
export const bulkImportJobNotFound = (id: string): NotFound =>
  new NotFound({ code: "BULK_UPLOAD_JOB_NOT_FOUND", message: `Bulk upload job not found: ${id}` })

export type OnboardingError = InvalidInput | Refused | NotFound | Forbidden | Conflict | LimitExceeded | StoreError
