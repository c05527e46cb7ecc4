import { Schema } from "effect"
import type { CustomerId, InvitationId } from "../shared/ids.ts"
import { Amount, PositiveMinorUnits } from "../shared/money.ts"
import { boundedString, DateTimeString } from "../shared/schemas.ts"

// UMA invitations (issue 17 slice A; docs/design/invitations-stablecoins.md): the Schemas of the `/invitations`
// routes with the upstream's names and shapes (UmaInvitationCreateRequest, UmaInvitation, UmaInvitationClaimRequest)
// and the stored record.

/** IN-02: `EXPIRED` is derived on read from `expiresAt` before the sweeper stores it. */
export const InvitationStatus = Schema.Literals(["PENDING", "CLAIMED", "EXPIRED", "CANCELLED"])
export type InvitationStatus = typeof InvitationStatus.Type

/** An UMA address as a request carries it: any short text; its form is checked by the service (400 `INVALID_UMA_ADDRESS`). */
const UmaAddressInput = boundedString(255)

/** IN-01 (upstream `UmaInvitationCreateRequest`): `amountToSend` in the smallest unit of the inviter's currency. */
export const CreateInvitationRequest = Schema.Struct({
  inviterUma: UmaAddressInput,
  firstName: Schema.optionalKey(boundedString(255)),
  amountToSend: Schema.optionalKey(PositiveMinorUnits),
  expiresAt: Schema.optionalKey(DateTimeString)
})
export type CreateInvitationRequest = typeof CreateInvitationRequest.Type

/** IN-04 (upstream `UmaInvitationClaimRequest`). */
export const ClaimInvitationRequest = Schema.Struct({ inviteeUma: UmaAddressInput })
export type ClaimInvitationRequest = typeof ClaimInvitationRequest.Type

/** IN-02 (upstream `UmaInvitation`): the resource, and the `data` of `INVITATION.CLAIMED`. */
export const Invitation = Schema.Struct({
  code: Schema.String,
  createdAt: Schema.String,
  claimedAt: Schema.optionalKey(Schema.String),
  url: Schema.String,
  expiresAt: Schema.optionalKey(Schema.String),
  inviterUma: Schema.String,
  inviteeUma: Schema.optionalKey(Schema.String),
  status: InvitationStatus,
  firstName: Schema.optionalKey(Schema.String),
  amountToSend: Schema.optionalKey(Amount)
})
export type Invitation = typeof Invitation.Type

/** Stored states: `EXPIRED` is stored by a claim, cancel or the sweeper finding `expiresAt` passed. */
export type InvitationState = InvitationStatus

/**
 * An invitation as stored (`invitations`). `code` is unique (8 lowercase hex); `url` is fixed at creation (a shared
 * link does not change with the platform's `umaDomain`). `amount` is in the smallest unit of `currency`.
 */
export interface InvitationRecord {
  readonly id: InvitationId
  readonly code: string
  readonly url: string
  readonly inviterCustomerId: CustomerId
  readonly inviterUma: string
  readonly inviteeUma?: string | undefined
  readonly amount?: number | undefined
  readonly currency?: string | undefined
  readonly firstName?: string | undefined
  readonly state: InvitationState
  readonly expiresAt?: string | undefined
  readonly claimedAt?: string | undefined
  readonly cancelledAt?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

export interface InvitationFilter {
  readonly inviterCustomerId?: string | undefined
  readonly states?: ReadonlyArray<InvitationState> | undefined
  /** The sweeper's: `expiresAt` at or before this instant (rows without one never match). */
  readonly expiresAtOrBefore?: string | undefined
}

/** The counters that budget invitations (IN-11; design section 2). */
export const invitationCounters = {
  /** Invitations an inviter created in one UTC hour (`YYYY-MM-DDTHH`). */
  created: (customerId: string, hour: string): string => `invitation-create:${customerId}:${hour}`,
  /** Unknown codes one caller (`callerKey`, shared/miss-budget.ts) asked for in one UTC minute (`YYYY-MM-DDTHH:MM`). */
  misses: (caller: string, minute: string): string => `invitation-miss:${caller}:${minute}`
} as const
