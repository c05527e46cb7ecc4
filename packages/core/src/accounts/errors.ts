import { Conflict, type InvalidInput, NotFound, type StoreError } from "../shared/errors.ts"

/** 404 `NOT_FOUND` for an internal account (the spec has no dedicated code). */
export const internalAccountNotFound = (id: string): NotFound =>
  new NotFound({ code: "NOT_FOUND", message: `Internal account ${id} was not found` })

/** 404 `NOT_FOUND` for an external account (unknown or deleted). */
export const externalAccountNotFound = (id: string): NotFound =>
  new NotFound({ code: "NOT_FOUND", message: `External account ${id} was not found` })

/**
 * 404 `USER_NOT_FOUND` (the spec's code for an unknown customer): the customer an account would belong to does not
 * exist or was deleted. Accounts sit below customers (customers open their accounts), so the error is said here.
 */
export const accountOwnerNotFound = (customerId: string): NotFound =>
  new NotFound({ code: "USER_NOT_FOUND", message: `Customer ${customerId} was not found` })

/** 409 `CONFLICT`: the customer already has this external account (same currency and account number / address). */
export const duplicateExternalAccount = (existingId: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `This customer already has this external account (${existingId})`,
    details: { existingAccountId: existingId }
  })

export type InternalAccountError = InvalidInput | NotFound | StoreError
export type ExternalAccountError = InvalidInput | NotFound | Conflict | StoreError
