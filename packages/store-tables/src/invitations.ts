import type { InvitationFilter, InvitationRecord } from "@paycore/core"
import { atOrBefore, bigint, eq, instant, key, oneOf, optional, table, text } from "./describe.ts"

/**
 * UMA invitations (IN-01 … IN-10; docs/design/invitations-stablecoins.md, section 2). `code` is unique (8 lowercase
 * hex): reads, claims and cancels find their invitation by it. `states` with `expiresAtOrBefore` are the sweeper's
 * (the `PENDING` rows past `expiresAt`). `amount` in the smallest unit of `currency` (the inviter's).
 */
export const invitations = table<InvitationRecord, InvitationFilter, "code">()({
  name: "invitations",
  columns: {
    id: key("id"),
    code: text("code"),
    url: text("url"),
    inviterCustomerId: key("inviter_customer_id"),
    inviterUma: text("inviter_uma"),
    inviteeUma: optional(text("invitee_uma")),
    amount: optional(bigint("amount")),
    currency: optional(text("currency")),
    firstName: optional(text("first_name")),
    state: text("state"),
    expiresAt: optional(instant("expires_at")),
    claimedAt: optional(instant("claimed_at")),
    cancelledAt: optional(instant("cancelled_at")),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  queue: "expiresAt",
  unique: { code: { column: "code" } },
  filters: {
    inviterCustomerId: eq("inviterCustomerId"),
    states: oneOf("state"),
    expiresAtOrBefore: atOrBefore("expiresAt")
  }
})
