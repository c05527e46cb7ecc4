import { Conflict, Forbidden, InvalidInput, NotFound, Refused } from "../shared/errors.ts"

// The cards context's refusals (docs/design/cards.md, section 1). Statuses: NOT_IMPLEMENTED 501,
// CARDHOLDER_KYC_NOT_APPROVED / CARD_LIMIT_REACHED / FUNDING_SOURCE_INELIGIBLE 400, INVALID_STATE_TRANSITION /
// CARD_NOT_MUTABLE / CONFLICT 409, SCA_SESSION_REQUIRED 409 (sca/errors.ts) — the HTTP table is packages/http's.

/**
 * 501 `NOT_IMPLEMENTED` (CD-42, upstream `Error501`): no card issuer is configured, so cards are not offered here.
 * Also what a card route answers until its slice is built.
 */
export const cardsNotImplemented = (what = "Cards are not enabled: no card issuer is configured"): Refused =>
  new Refused({ code: "NOT_IMPLEMENTED", message: what })

/** 404 `REFERENCE_NOT_FOUND` (upstream `Error404` has no card code): an unknown card, or one on no route of ours. */
export const cardNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Card ${id} was not found` })

/** 404 `TRANSACTION_NOT_FOUND`: an unknown card transaction, or one of another card (CD-52). */
export const cardTransactionNotFound = (id: string): NotFound =>
  new NotFound({ code: "TRANSACTION_NOT_FOUND", message: `Card transaction ${id} was not found` })

/** 404 (CD-52): no network simulator here (a production deployment): every `/sandbox/cards/*` route. */
export const noCardSimulator = (): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: "Card simulations are not available in this environment" })

/** 400 `CARDHOLDER_KYC_NOT_APPROVED` (CD-09). */
export const cardholderKycNotApproved = (customerId: string, kycStatus: string): Refused =>
  new Refused({
    code: "CARDHOLDER_KYC_NOT_APPROVED",
    message: `Customer ${customerId} cannot hold a card: its KYC status is ${kycStatus}, not APPROVED`
  })

/**
 * 400 `FUNDING_SOURCE_INELIGIBLE` (CD-15, CD-44): an account that is unknown, of another customer, not `ACTIVE`, in
 * no card currency or another currency than the others, or refused by the issuer. `details.accountId` names it.
 */
export const fundingSourceIneligible = (accountId: string, reason: string): Refused =>
  new Refused({
    code: "FUNDING_SOURCE_INELIGIBLE",
    message: `Internal account ${accountId} cannot fund this card: ${reason}`,
    details: { accountId, reason }
  })

/** 400 `CARD_LIMIT_REACHED` (CD-14, L-12, C-45): the platform holds its live-card limit of cards not `CLOSED`. */
export const cardLimitReached = (limit: number): Refused =>
  new Refused({
    code: "CARD_LIMIT_REACHED",
    message: `The platform already holds ${limit} cards that are not CLOSED; close one to issue another`,
    details: { liveCardLimit: limit }
  })

/** 409 `INVALID_STATE_TRANSITION` (CD-25) with `details{from, to}`. */
export const invalidCardTransition = (from: string, to: string): Conflict =>
  new Conflict({
    code: "INVALID_STATE_TRANSITION",
    message: `A card in state ${from} cannot become ${to}`,
    details: { from, to }
  })

/** 409 `CARD_NOT_MUTABLE` (upstream; design Q6): a change other than `state` asked of a `CLOSED` card. */
export const cardNotMutable = (id: string): Conflict =>
  new Conflict({
    code: "CARD_NOT_MUTABLE",
    message: `Card ${id} is CLOSED: its funding sources and limits stay as they are`
  })

/** 409 `CONFLICT` (design Q21): the `platformCardId` names another card. */
export const platformCardIdTaken = (platformCardId: string): Conflict =>
  new Conflict({ code: "CONFLICT", message: `platformCardId ${platformCardId} is already used by another card` })

/** 409 `CONFLICT` (CD-32, design Q20): only an `ACTIVE` or `FROZEN` card can be revealed. */
export const cardNotRevealable = (id: string, state: string): Conflict =>
  new Conflict({ code: "CONFLICT", message: `Card ${id} is ${state}: only ACTIVE or FROZEN cards can be revealed` })

/** 403 `FORBIDDEN` (CD-32): the card's program cannot reveal card details. */
export const panRevealUnsupported = (id: string): Forbidden =>
  new Forbidden({ code: "FORBIDDEN", message: `Card ${id} does not support PAN reveal (supportsPanReveal is false)` })

/** 400 on a limit field (CD-10, CD-28, CD-30): the card's capabilities do not include it. */
export const limitNotSupported = (field: string, capability: string): InvalidInput =>
  InvalidInput.one(field, { [capability]: true }, `${field} needs the card capability ${capability}`)

/**
 * 400 `INVALID_INPUT` on a simulation (design Q17), never 409: the parent transaction is not in a state the event
 * applies to (or the amount breaks its rule); `details.status` is the parent's public status.
 */
export const simulationNotApplicable = (status: string, why: string): Refused =>
  new Refused({ code: "INVALID_INPUT", message: why, details: { status } })

/** 503 `SERVICE_UNAVAILABLE`: the card issuer could not be reached, or refused the call (a reveal, an eligibility check). */
export const cardIssuerUnavailable = (message: string): Refused =>
  new Refused({ code: "SERVICE_UNAVAILABLE", message: `The card issuer is unavailable: ${message}` })

/** 400 on `threeDSecurePassword` (design Q19): the card program takes no static 3-D Secure password. */
export const threeDSecurePasswordNotSupported = (): InvalidInput =>
  InvalidInput.one(
    "threeDSecurePassword",
    { supportsThreeDSecurePassword: true },
    "threeDSecurePassword is not supported by this card program"
  )

/** 400 (CD-18): a `PATCH /cards/{id}` naming no field. */
export const emptyCardUpdate = (): InvalidInput =>
  InvalidInput.one(
    "body",
    { minProperties: 1 },
    "Give at least one of state, fundingSources, maxSpendPerTransaction, maxSpendPerDay, maxTransactionsPerDay"
  )

/** 400 (CD-26, CD-28, CD-30): `fundingSources` or a limit beside `state: CLOSED`. */
export const notWithClose = (field: string): InvalidInput =>
  InvalidInput.one(field, { notWith: "state: CLOSED" }, `${field} cannot be changed while closing the card`)

/** 400 (CD-27): on a program where the issuer decides authorizations, `fundingSources` goes without `state`. */
export const notWithStateOnIssuerProgram = (): InvalidInput =>
  InvalidInput.one(
    "fundingSources",
    { notWith: "state" },
    "On an issuer-decisioning card program, fundingSources cannot be changed together with state"
  )
