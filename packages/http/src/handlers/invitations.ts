import { Invitations } from "@paycore/core"
import { Effect } from "effect"
import type { GroupHandlers } from "./shared.ts"

/** The `invitations` group: inviting an end user, and their claiming it. */
export const invitationsHandlers = Effect.fnUntraced(function* () {
  const invitations = yield* Invitations
  const handlers: GroupHandlers<"invitations"> = {
    createInvitation: ({ payload }) => invitations.create(payload),
    getInvitation: ({ params }) => invitations.get(params.invitationCode),
    claimInvitation: ({ params, payload }) => invitations.claim(params.invitationCode, payload),
    // IN-05, design Q6: one engine serves one platform; any write token may cancel.
    cancelInvitation: ({ params }) => invitations.cancel(params.invitationCode)
  }
  return handlers
})
