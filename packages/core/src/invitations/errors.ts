import { InvalidInput, LimitExceeded, NotFound, Refused } from "../shared/errors.ts"
import type { InvitationState } from "./model.ts"

// The invitations context's refusals (docs/design/invitations-stablecoins.md, sections 1 and 5 Q3). One casing for
// every code, uppercase (IN-12; the spec's examples are lowercase, the upstream enum uppercase). Every refusal of a
// state is 400, as upstream; 404 `INVITATION_NOT_FOUND` for an unknown or malformed code; 429 `RATE_LIMITED` with
// Retry-After. Messages never carry an invitation code (a bearer secret of the link).

/** 404 `INVITATION_NOT_FOUND` (IN-03, IN-11): no invitation has this code (a malformed code included). */
export const invitationNotFound = (): NotFound =>
  new NotFound({ code: "INVITATION_NOT_FOUND", message: "No invitation has this code" })

/** Why an UMA address is refused (`details.reason`). */
export type UmaAddressProblem = "MALFORMED" | "NOT_A_CUSTOMER"

/** 400 `INVALID_UMA_ADDRESS` (IN-11, Q7, Q8): malformed, or (for the inviter) no live customer of this platform. */
export const invalidUmaAddress = (field: string, reason: UmaAddressProblem): Refused =>
  new Refused({
    code: "INVALID_UMA_ADDRESS",
    message:
      reason === "MALFORMED"
        ? `${field} is not an UMA address ($name@domain)`
        : `${field} is not the UMA address of a customer of this platform`,
    details: { field, reason }
  })

/** 400 `INVALID_INPUT` on `expiresAt` (IN-10): not after now, or more than a year ahead. */
export const expiresAtOutOfRange = (maxDays: number): InvalidInput =>
  InvalidInput.one(
    "expiresAt",
    { after: "now", maxDays },
    `expiresAt must be in the future and at most ${maxDays} days ahead`
  )

/** 400 `INVITATION_ALREADY_CLAIMED` (IN-06, IN-07) with `details{status, inviteeUma}`. */
export const invitationAlreadyClaimed = (inviteeUma: string | undefined): Refused =>
  new Refused({
    code: "INVITATION_ALREADY_CLAIMED",
    message: "The invitation was already claimed",
    details: { status: "CLAIMED", ...(inviteeUma === undefined ? {} : { inviteeUma }) }
  })

/** 400 `INVITATION_CANCELLED` (IN-06, IN-08). */
export const invitationCancelled = (): Refused =>
  new Refused({
    code: "INVITATION_CANCELLED",
    message: "The invitation was cancelled",
    details: { status: "CANCELLED" }
  })

/** 400 `INVITATION_EXPIRED` (IN-06, IN-09) with `details.expirationTime`. */
export const invitationExpired = (expiresAt: string | undefined): Refused =>
  new Refused({
    code: "INVITATION_EXPIRED",
    message: "The invitation expired",
    details: { status: "EXPIRED", ...(expiresAt === undefined ? {} : { expirationTime: expiresAt }) }
  })

/** The 400 of a terminal state: what a claim or cancel of it answers. */
export const notPending = (
  state: Exclude<InvitationState, "PENDING">,
  record: { readonly inviteeUma?: string | undefined; readonly expiresAt?: string | undefined }
): Refused => {
  switch (state) {
    case "CLAIMED":
      return invitationAlreadyClaimed(record.inviteeUma)
    case "CANCELLED":
      return invitationCancelled()
    case "EXPIRED":
      return invitationExpired(record.expiresAt)
  }
}

/** 400 `SELF_PAYMENT` (design section 1 row 3): the inviter cannot claim its own invitation. */
export const selfClaim = (): Refused =>
  new Refused({ code: "SELF_PAYMENT", message: "The inviter cannot claim its own invitation" })

/** 429 `RATE_LIMITED` (IN-11): the inviter's hourly budget is spent; `Retry-After` is the seconds to the next hour. */
export const createRateLimited = (retryAfterSeconds: number): LimitExceeded =>
  new LimitExceeded({
    code: "RATE_LIMITED",
    message: "This inviter created too many invitations this hour: wait for the next hour",
    retryAfterSeconds
  })

/** 429 `RATE_LIMITED` (IN-11, Q3): this caller asked for too many unknown codes this minute (counted per caller). */
export const missRateLimited = (retryAfterSeconds: number): LimitExceeded =>
  new LimitExceeded({
    code: "RATE_LIMITED",
    message: "Too many unknown invitation codes were tried: wait for the next minute",
    retryAfterSeconds
  })
