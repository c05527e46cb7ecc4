import { ClaimInvitationRequest, CreateInvitationRequest, Invitation } from "@paycore/core"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { created, TypedCodeParam } from "./shared.ts"

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
      params: { invitationCode: TypedCodeParam },
      success: Invitation
    })
  )
  .add(
    HttpApiEndpoint.post("claimInvitation", "/invitations/:invitationCode/claim", {
      params: { invitationCode: TypedCodeParam },
      payload: ClaimInvitationRequest,
      success: Invitation
    })
  )
  .add(
    HttpApiEndpoint.post("cancelInvitation", "/invitations/:invitationCode/cancel", {
      params: { invitationCode: TypedCodeParam },
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
