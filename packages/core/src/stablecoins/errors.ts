import { Conflict, InvalidInput, NotFound, Refused } from "../shared/errors.ts"

// The stablecoins context's refusals (docs/design/invitations-stablecoins.md, section 1 rows 5-14, section 5 Q16).
// Statuses live in packages/http/src/errors.ts: NOT_IMPLEMENTED 501, SERVICE_UNAVAILABLE 503, the rest 400.

/** 501 `NOT_IMPLEMENTED`: no stablecoin provider is configured, so no stablecoin route is offered here. */
export const stablecoinsNotImplemented = (): Refused =>
  new Refused({ code: "NOT_IMPLEMENTED", message: "Stablecoins are not enabled: no stablecoin provider is configured" })

/** 503 `SERVICE_UNAVAILABLE` (P-15): the provider could not be reached; nothing was stored, retry with the same key. */
export const stablecoinProviderUnavailable = (message: string): Refused =>
  new Refused({ code: "SERVICE_UNAVAILABLE", message: `The stablecoin provider is unavailable: ${message}` })

/** 404 `STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND` (P-09, P-11). */
export const providerAccountNotFound = (id?: string): NotFound =>
  new NotFound({
    code: "STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND",
    message:
      id === undefined
        ? "No ACTIVE stablecoin provider account is linked: link one first"
        : `Stablecoin provider account ${id} was not found`
  })

/** 400 `STABLECOIN_PROVIDER_ACCOUNT_INVALID` (P-08, P-11, Q14): refused credentials, or a secret that no longer opens. */
export const providerAccountInvalid = (why: string): Refused =>
  new Refused({
    code: "STABLECOIN_PROVIDER_ACCOUNT_INVALID",
    message: `The stablecoin provider account link is not usable (${why}): link it again`
  })

/** 400 `STABLECOIN_PROVIDER_ACCOUNT_REVOKED` (P-11). */
export const providerAccountRevoked = (): Refused =>
  new Refused({
    code: "STABLECOIN_PROVIDER_ACCOUNT_REVOKED",
    message: "The provider revoked this account's access: link it again with new credentials"
  })

/** 400 `STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED` (P-11): several active links; name one. */
export const providerAccountSelectionRequired = (count: number): Refused =>
  new Refused({
    code: "STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED",
    message: `${count} stablecoin provider accounts are ACTIVE: pass stablecoinProviderAccountId`,
    details: { activeLinks: count }
  })

/** 409 `CONFLICT` (P-08, Q11): this provider account already has an ACTIVE link in this environment. */
export const providerAccountAlreadyLinked = (id: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `This provider account is already linked (${id})`,
    details: { stablecoinProviderAccountId: id }
  })

/** 404 `REFERENCE_NOT_FOUND` (Q16): an unknown stablecoin. */
export const stablecoinNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Stablecoin ${id} was not found` })

/** 404 `REFERENCE_NOT_FOUND` (Q16): an unknown stablecoin operation. */
export const operationNotFound = (id: string): NotFound =>
  new NotFound({ code: "REFERENCE_NOT_FOUND", message: `Stablecoin operation ${id} was not found` })

/** 409 `CONFLICT` (P-10): the token is already registered on this provider and environment. */
export const stablecoinAlreadyRegistered = (id: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `This token is already registered as ${id}`,
    details: { stablecoinId: id }
  })

/**
 * 400 `INVALID_INPUT` (P-10): the provider issues no such token on this network; `known`, the identifiers it does
 * issue there (`enum`), when the provider can list them.
 */
export const unknownProviderToken = (
  identifier: string,
  network: string,
  known: ReadonlyArray<string> | undefined
): InvalidInput =>
  known === undefined
    ? InvalidInput.one(
        "providerTokenIdentifier",
        { known: "by the provider" },
        `The provider issues no token ${JSON.stringify(identifier)} on ${network}`
      )
    : InvalidInput.one(
        "providerTokenIdentifier",
        { enum: known },
        `The provider issues no token ${JSON.stringify(identifier)} on ${network}: ` +
          (known.length === 0 ? "it issues none there" : `it issues ${known.join(", ")}`)
      )

/** 409 `CONFLICT` (Q15) with `details.issuanceStatus`: a stablecoin not yet `PROVISIONED` cannot be minted or burned. */
export const stablecoinNotProvisioned = (issuanceStatus: string): Conflict =>
  new Conflict({
    code: "CONFLICT",
    message: `The stablecoin is ${issuanceStatus}: only a PROVISIONED stablecoin is minted or burned`,
    details: { issuanceStatus }
  })

/** 400 `INVALID_INPUT` on `amount` (C-05, L-20, Q2). */
export const amountOutOfRange = (why: string, constraint: Record<string, unknown>): InvalidInput =>
  InvalidInput.one("amount", constraint, why)

/** 400 `INVALID_INPUT` on the field naming an account that cannot take part (currency, type, rails, status). */
export const accountUnusable = (field: string, reason: string): InvalidInput =>
  InvalidInput.one(field, { usable: reason }, `The account cannot be used here: ${reason}`)

/** 400 `INVALID_INPUT`: the provider refused the operation itself. */
export const providerRejected = (message: string): InvalidInput =>
  InvalidInput.one("body", { acceptedBy: "the stablecoin provider" }, `The stablecoin provider refused: ${message}`)

/**
 * 409 `CONFLICT`: another request with this `Idempotency-Key` is committing the same provider operation; what it
 * stores is answered to a retry (the idempotent commit replays it at once when it finds it).
 */
export const requestInFlight = (): Conflict =>
  new Conflict({ code: "CONFLICT", message: "A request with this Idempotency-Key is being processed: retry it" })
