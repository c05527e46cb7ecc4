import { Conflict, type InvalidInput, NotFound, Refused, type StoreError } from "../shared/errors.ts"

/** 404 `USER_NOT_FOUND`: the spec's code for an unknown customer. */
export const customerNotFound = (id: string): NotFound =>
  new NotFound({ code: "USER_NOT_FOUND", message: `Customer ${id} was not found` })

/** 410 `CUSTOMER_DELETED`: the customer was deleted and cannot be changed (or deleted again). */
export const customerDeleted = (id: string): Refused =>
  new Refused({ code: "CUSTOMER_DELETED", message: `Customer ${id} has been deleted` })

/** 409 `CONFLICT`: another customer already uses this `platformCustomerId`. */
export const platformCustomerIdTaken = (platformCustomerId: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `A customer with platformCustomerId ${platformCustomerId} already exists`,
    details: { field: "platformCustomerId" }
  })

/** 409 `UMA_ADDRESS_EXISTS`: the UMA address belongs to another customer. */
export const umaAddressTaken = (umaAddress: string): Conflict =>
  new Conflict({
    code: "UMA_ADDRESS_EXISTS",
    message: `The UMA address ${umaAddress} is already taken`,
    details: { field: "umaAddress" }
  })

/** 400 `END_USER_TERMS_VERSION_NOT_FOUND`: consent given to terms that are not the current ones. */
export const termsVersionNotFound = (given: string, current: string): Refused =>
  new Refused({
    code: "END_USER_TERMS_VERSION_NOT_FOUND",
    message: `End-user terms version ${given} does not exist; the current version is ${current}`,
    details: { termsVersion: given, currentVersion: current }
  })

// ---- contact updates with tied embedded-wallet credentials (CU-14 … CU-18) ----

/**
 * 409 (CU-18): the new email is where another active `EMAIL_OTP` credential sends its codes
 * (`EMAIL_OTP_EMAIL_ALREADY_EXISTS`); the new phone number, another `SMS_OTP` credential's (the catalogue has no
 * SMS code: `CONFLICT`).
 */
export const contactTaken = (field: "email" | "phoneNumber"): Conflict =>
  field === "email"
    ? new Conflict({
        code: "EMAIL_OTP_EMAIL_ALREADY_EXISTS",
        message: "This email address already receives the codes of another EMAIL_OTP credential",
        details: { field }
      })
    : new Conflict({
        code: "CONFLICT",
        message: "This phone number already receives the codes of another SMS_OTP credential",
        details: { field }
      })

/**
 * 409 `EMAIL_OTP_CREDENTIAL_SET_CHANGED` (CU-18): the OTP credentials tied to the contact changed after the 202
 * (or appeared before an update that did not ask for a signature): start again.
 */
export const tiedCredentialsChanged = (): Conflict =>
  new Conflict({
    code: "EMAIL_OTP_CREDENTIAL_SET_CHANGED",
    message: "The embedded-wallet credentials tied to this contact changed since the first request: start again"
  })

/** 424 `EMAIL_OTP_CREDENTIAL_SYNC_FAILED` (CU-17): a tied credential could not be updated, so nothing was. */
export const tiedCredentialSyncFailed = (): Refused =>
  new Refused({
    code: "EMAIL_OTP_CREDENTIAL_SYNC_FAILED",
    message:
      "A tied embedded-wallet credential could not be updated; the customer was not changed. The signed retry may be sent again until its requestId expires"
  })

export type CreateCustomerError = InvalidInput | Refused | Conflict | StoreError
export type UpdateCustomerError = InvalidInput | NotFound | Refused | Conflict | StoreError
export type CustomerError = InvalidInput | NotFound | Refused | Conflict | StoreError
