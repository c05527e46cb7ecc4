import { Conflict, InvalidInput, NotFound, Refused, type StoreError } from "../shared/errors.ts"

/** 404 `REFERENCE_NOT_FOUND` (C-26): an unknown internal or external account, as every other unknown reference. */
export const accountNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Account ${id} was not found` })

/** 404 `REFERENCE_NOT_FOUND` for an internal account (the catalogue has no account code: C-26). */
export const internalAccountNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Internal account ${id} was not found` })

/** 404 `REFERENCE_NOT_FOUND` for an external account (unknown or deleted). */
export const externalAccountNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `External account ${id} was not found` })

/**
 * 404 `USER_NOT_FOUND` (the spec's code for an unknown customer): the customer an account would belong to does not
 * exist or was deleted. Accounts sit below customers (customers open their accounts), so the error is said here.
 */
export const accountOwnerNotFound = (customerId: string): NotFound =>
  new NotFound({ code: "USER_NOT_FOUND", message: `Customer ${customerId} was not found` })

/**
 * 400 `INVALID_BANK_ACCOUNT` (SB-08 `105`): the beneficiary check found no such account at its bank; nothing stored.
 */
export const invalidBankAccount = (message: string): Refused => new Refused({ code: "INVALID_BANK_ACCOUNT", message })

/** 409 `CONFLICT`: the customer already has this external account (same currency and account number / address). */
export const duplicateExternalAccount = (existingId: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `This customer already has this external account (${existingId})`,
    details: { existingAccountId: existingId }
  })

/** 409 `CONFLICT`: another of the platform's external accounts has this `platformAccountId`. */
export const platformAccountIdTaken = (platformAccountId: string, existingId: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `The platform already has an external account with platformAccountId ${platformAccountId} (${existingId})`,
    details: { platformAccountId, existingAccountId: existingId }
  })

/**
 * 400 `INVALID_INPUT` on `destination.accountId`: the platform's own external account (no customer) is paid from
 * one of the platform's internal accounts only, never from a customer's money (or an unowned deposit), or `undefined`
 * when `payee` may be paid from `source`.
 */
export const platformPayeeRefusal = (
  payee: { readonly id: string; readonly customerId?: string | undefined },
  source: { readonly customerId?: string | undefined } | undefined
): InvalidInput | undefined =>
  payee.customerId === undefined && (source === undefined || source.customerId !== undefined)
    ? InvalidInput.one(
        "destination.accountId",
        { sourceOwner: "PLATFORM" },
        `External account ${payee.id} is the platform's own: pay it from a platform internal account (GET /platform/internal-accounts)`
      )
    : undefined

export type InternalAccountError = InvalidInput | NotFound | StoreError
export type ExternalAccountError = InvalidInput | NotFound | Conflict | StoreError

// ---- ownership verification (AC-24 … AC-30) ----

/** 409 `CONFLICT`: the account is not one whose ownership can be verified now (AC-26). */
export const ownershipNotApplicable = (id: string, why: string): Conflict =>
  new Conflict({ code: "CONFLICT", message: `External account ${id}: ${why}`, details: { externalAccountId: id } })

/** 409 `CONFLICT`: `/verify` without an open WALLET_SIGNATURE challenge (AC-27), or a liveness verdict without one. */
export const noOpenChallenge = (id: string, method: "WALLET_SIGNATURE" | "LIVENESS"): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `External account ${id} has no open ${method} challenge; start one with POST …/external-accounts/${id}/challenge`,
    details: { externalAccountId: id, method }
  })

/** 400 `INVALID_INPUT` on `signature`: the signature does not prove the wallet's key, or came late (AC-27, AC-30). */
export const ownershipSignatureRejected = (id: string, reason: "SIGNATURE_INVALID" | "CHALLENGE_EXPIRED") =>
  InvalidInput.one(
    "signature",
    { reason },
    reason === "CHALLENGE_EXPIRED"
      ? `The challenge of external account ${id} expired; the account is UNVERIFIED, start a new challenge`
      : `The signature does not prove control of the wallet of external account ${id}; the account is UNVERIFIED, start a new challenge`
  )

/**
 * 400 `EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED` (AC-24): a payment at or above the Travel Rule threshold to a wallet
 * whose ownership is not verified yet.
 */
export const ownershipVerificationRequired = (
  id: string,
  status: string,
  amount: number,
  currency: string,
  threshold: number
): Refused =>
  new Refused({
    code: "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED",
    message:
      `External account ${id} is ${status}: a payment of ${amount} ${currency} (smallest unit) reaches the threshold ` +
      `of ${threshold} above which the wallet's ownership must be verified first`,
    details: { status, amount, currency, threshold }
  })

// ---- trusted beneficiaries (AC-22, AC-23) ----

/** 409 `BENEFICIARY_TRUSTED` (AC-22, AC-23): a trusted account is not deleted (nor its trust revoked); untrust first. */
export const beneficiaryTrusted = (id: string): Conflict =>
  new Conflict({
    code: "BENEFICIARY_TRUSTED",
    message: `External account ${id} is a trusted beneficiary; untrust it first (POST /customers/external-accounts/${id}/untrust and its /confirm), then delete it`,
    details: { externalAccountId: id }
  })
