import { Invitations } from "@paycore/core"
import { Effect } from "effect"
import { type GroupHandlers, type HttpObservations, missBudgetCaller } from "./shared.ts"

/** The `invitations` group: inviting an end user, and their claiming it. */
export const invitationsHandlers = Effect.fnUntraced(function* ({ missBudgetKey }: HttpObservations) {
  const invitations = yield* Invitations
  // IN-11, issue 31 item 7: an unknown code spends the miss budget of the caller that asked (its token by default).
  const handlers: GroupHandlers<"invitations"> = {
    createInvitation: ({ payload }) => invitations.create(payload),
    getInvitation: (request) =>
      invitations.get(request.params.invitationCode, missBudgetCaller(missBudgetKey, request)),
    claimInvitation: (request) =>
      invitations.claim(request.params.invitationCode, request.payload, missBudgetCaller(missBudgetKey, request)),
    // IN-05, design Q6: one engine serves one platform; any write token may cancel.
    cancelInvitation: (request) =>
      invitations.cancel(request.params.invitationCode, missBudgetCaller(missBudgetKey, request))
  }
  return handlers
})
