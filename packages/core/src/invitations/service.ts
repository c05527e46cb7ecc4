import { Context, Effect, Layer } from "effect"
import { PlatformConfigService } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import type { StoreError } from "../shared/errors.ts"
import { operation } from "../shared/tracing.ts"
import { cancelInvitation, claimInvitation, getInvitation } from "./claim.ts"
import { createInvitation } from "./create.ts"
import type { ClaimInvitationRequest, CreateInvitationRequest, Invitation } from "./model.ts"
import type { InvitationPorts, InvitationsError } from "./ports.ts"
import { expireDue } from "./sweep.ts"

// The invitations context (issue 17 slice A; docs/design/invitations-stablecoins.md, docs/invitations.md).

export type { InvitationsError } from "./ports.ts"

/** UMA invitations (IN-01 … IN-12). */
export class Invitations extends Context.Service<
  Invitations,
  {
    /** `POST /invitations` (IN-01): `PENDING`, an 8-hex code and its claim link. */
    readonly create: (request: CreateInvitationRequest) => Effect.Effect<Invitation, InvitationsError>
    /**
     * `GET /invitations/{invitationCode}` (IN-03). `caller` (here and on claim and cancel): whose miss budget an
     * unknown code spends (IN-11, issue 31 item 7; the HTTP binding passes the token); omitted, the engine's own.
     */
    readonly get: (code: string, caller?: string) => Effect.Effect<Invitation, InvitationsError>
    /** `POST /invitations/{invitationCode}/claim` (IN-04): `CLAIMED` and `INVITATION.CLAIMED`. */
    readonly claim: (
      code: string,
      request: ClaimInvitationRequest,
      caller?: string
    ) => Effect.Effect<Invitation, InvitationsError>
    /** `POST /invitations/{invitationCode}/cancel` (IN-05). */
    readonly cancel: (code: string, caller?: string) => Effect.Effect<Invitation, InvitationsError>
    /** One sweep: `PENDING` invitations past `expiresAt` stored `EXPIRED` (IN-10). The worker pass calls it. */
    readonly processDue: () => Effect.Effect<{ readonly expired: number }, StoreError>
  }
>()("paycore/invitations/Invitations") {
  static readonly layer: Layer.Layer<Invitations, never, Store | Ids | PlatformConfigService> = Layer.effect(
    Invitations,
    Effect.gen(function* () {
      const ports: InvitationPorts = {
        store: yield* Store,
        ids: yield* Ids,
        config: yield* PlatformConfigService
      }
      return Invitations.of({
        create: operation("Invitations.create")(function* (request) {
          return yield* createInvitation(ports, request)
        }),
        get: operation("Invitations.get")(function* (code, caller) {
          return yield* getInvitation(ports, code, caller)
        }),
        claim: operation("Invitations.claim")(function* (code, request, caller) {
          return yield* claimInvitation(ports, code, request, caller)
        }),
        cancel: operation("Invitations.cancel")(function* (code, caller) {
          return yield* cancelInvitation(ports, code, caller)
        }),
        processDue: operation("Invitations.processDue")(function* () {
          return yield* expireDue(ports)
        })
      })
    })
  )
}
