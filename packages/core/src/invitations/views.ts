import { amountOf } from "../shared/money.ts"
import type { Invitation, InvitationRecord, InvitationStatus } from "./model.ts"

// Record → resource (pure: what reads, claims, cancels and `INVITATION.CLAIMED` share).

/** Whether a `PENDING` invitation's `expiresAt` has passed at `nowMs` (IN-10: none never expires). */
export const isPastExpiry = (r: InvitationRecord, nowMs: number): boolean =>
  r.expiresAt !== undefined && nowMs >= Date.parse(r.expiresAt)

/** The status a reader sees: a `PENDING` row past `expiresAt` reads `EXPIRED` before the sweeper writes it. */
export const invitationStatus = (r: InvitationRecord, nowMs: number): InvitationStatus =>
  r.state === "PENDING" && isPastExpiry(r, nowMs) ? "EXPIRED" : r.state

/** The invitation as the API and `INVITATION.CLAIMED` show it (IN-02; upstream `UmaInvitation`). */
export const toInvitation = (r: InvitationRecord, nowMs: number): Invitation => ({
  code: r.code,
  createdAt: r.createdAt,
  ...(r.claimedAt === undefined ? {} : { claimedAt: r.claimedAt }),
  url: r.url,
  ...(r.expiresAt === undefined ? {} : { expiresAt: r.expiresAt }),
  inviterUma: r.inviterUma,
  ...(r.inviteeUma === undefined ? {} : { inviteeUma: r.inviteeUma }),
  status: invitationStatus(r, nowMs),
  ...(r.firstName === undefined ? {} : { firstName: r.firstName }),
  ...(r.amount === undefined || r.currency === undefined ? {} : { amountToSend: amountOf(r.amount, r.currency) })
})
