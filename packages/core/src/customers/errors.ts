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

export type CreateCustomerError = InvalidInput | Refused | Conflict | StoreError
export type UpdateCustomerError = InvalidInput | NotFound | Refused | Conflict | StoreError
export type CustomerError = InvalidInput | NotFound | Refused | Conflict | StoreError
