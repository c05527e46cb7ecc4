import { ClaimInvitationRequest, CreateInvitationRequest, Invitation } from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { created } from "./shared.ts"

/** An invitation code in a path: any short text (codes.ts normalizes it; an unknown one is 404, not a 400 of the path). */
const InvitationCodeParam = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64))

/** IN-01 … IN-12: UMA invitations (Basic). */
export const InvitationsGroup = HttpApiGroup.make("invitations")
  .add(
    HttpApiEndpoint.post("createInvitation", "/invitations", {
      payload: CreateInvitationRequest,
      success: Invitation.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.get("getInvitation", "/invitations/:invitationCode", {
      params: { invitationCode: InvitationCodeParam },
      success: Invitation
    })
  )
  .add(
    HttpApiEndpoint.post("claimInvitation", "/invitations/:invitationCode/claim", {
      params: { invitationCode: InvitationCodeParam },
      payload: ClaimInvitationRequest,
      success: Invitation
    })
  )
  .add(
    HttpApiEndpoint.post("cancelInvitation", "/invitations/:invitationCode/cancel", {
      params: { invitationCode: InvitationCodeParam },
      success: Invitation
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Invitations",
      description:
        "UMA invitations: create (optionally pay-by-link with amountToSend), read, claim (INVITATION.CLAIMED) and " +
        "cancel; EXPIRED once expiresAt passes"
    })
  )
