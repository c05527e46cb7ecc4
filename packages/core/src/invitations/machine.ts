import { defineMachine } from "../shared/machine.ts"

/**
 * An UMA invitation (IN-04 … IN-10; docs/design/invitations-stablecoins.md, section 2). A `PENDING` invitation is
 * claimed once (`CLAIM`: the invitee recorded, `INVITATION.CLAIMED` with the invitation as `data`), cancelled by the
 * platform (`CANCEL`), or `EXPIRE`s once `expiresAt` passed (the sweeper, or a claim or cancel finding it passed; no
 * event). A `PENDING` row past `expiresAt` reads `EXPIRED` before it is written.
 */
export const invitationMachine = defineMachine({
  name: "Invitation",
  states: ["PENDING", "CLAIMED", "CANCELLED", "EXPIRED"],
  events: ["CLAIM", "CANCEL", "EXPIRE"],
  initial: "PENDING",
  terminal: ["CLAIMED", "CANCELLED", "EXPIRED"],
  transitions: {
    PENDING: {
      CLAIM: { to: "CLAIMED", emits: ["INVITATION.CLAIMED"] },
      CANCEL: { to: "CANCELLED", emits: [] },
      EXPIRE: { to: "EXPIRED", emits: [] }
    },
    CLAIMED: {},
    CANCELLED: {},
    EXPIRED: {}
  }
})
export type InvitationEvent = (typeof invitationMachine.events)[number]
