import { Effect, Result } from "effect"
import { commandEnv } from "../shared/engine-config.ts"
import type { StoreError } from "../shared/errors.ts"
import { transition } from "../shared/machine.ts"
import { isoOf } from "../shared/time.ts"
import type { Steps } from "../shared/tracing.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { isUmaAddress } from "./codes.ts"
import { invalidUmaAddress, invitationExpired, invitationNotFound, notPending, selfClaim } from "./errors.ts"
import { findByCode } from "./lookup.ts"
import { type InvitationEvent, invitationMachine } from "./machine.ts"
import type { ClaimInvitationRequest, Invitation, InvitationRecord } from "./model.ts"
import type { InvitationPorts, InvitationsError } from "./ports.ts"
import { isPastExpiry, toInvitation } from "./views.ts"

/**
 * One move of a locked invitation, saved in the caller's transaction with the events it emits (`CLAIM`:
 * `INVITATION.CLAIMED`, `data` the invitation as claimed).
 */
export function* moveInvitationSteps(
  ports: InvitationPorts,
  current: InvitationRecord,
  event: InvitationEvent,
  nowMs: number,
  inviteeUma?: string
): Steps<InvitationRecord, StoreError> {
  const move = transition(invitationMachine, current.state, event)
  if (Result.isFailure(move)) return yield* Effect.die(move.failure)
  const now = isoOf(nowMs)
  const next: InvitationRecord = {
    ...current,
    state: move.success.to,
    ...(event === "CLAIM" ? { inviteeUma, claimedAt: now } : {}),
    ...(event === "CANCEL" ? { cancelledAt: now } : {}),
    updatedAt: now
  }
  yield* Effect.catchTag(ports.store.invitations.update(next), "UniqueViolation", (e) =>
    Effect.die(new Error(`unexpected unique violation on ${e.index}`))
  )
  yield* emitSteps(ports.store, ports.ids, move.success.emits, next.id, toInvitation(next, nowMs), now)
  return next
}

/**
 * A claim or cancel (IN-04 … IN-09; design section 3 step 3): one transaction locks the invitation. A `PENDING` one
 * past `expiresAt` `EXPIRE`s and that commits, then 400 `INVITATION_EXPIRED` follows; a terminal one answers its
 * state's 400; else the move. Two concurrent claims: the second waits on the row lock and finds it `CLAIMED`.
 */
const moveByCode = Effect.fnUntraced(function* (
  ports: InvitationPorts,
  code: string,
  event: "CLAIM" | "CANCEL",
  caller: string | undefined,
  inviteeUma?: string
): Effect.fn.Return<Invitation, InvitationsError> {
  const { store } = ports
  const env = yield* commandEnv
  const found = yield* findByCode(ports, env, code, caller)
  const outcome = yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.invitations.getForUpdate(found.id)
      if (current === undefined) return yield* invitationNotFound()
      if (current.state === "PENDING" && isPastExpiry(current, env.nowMs)) {
        return { expired: yield* moveInvitationSteps(ports, current, "EXPIRE", env.nowMs) }
      }
      if (current.state !== "PENDING") return yield* notPending(current.state, current)
      if (event === "CLAIM" && inviteeUma?.toLowerCase() === current.inviterUma.toLowerCase()) {
        return yield* selfClaim()
      }
      return { moved: yield* moveInvitationSteps(ports, current, event, env.nowMs, inviteeUma) }
    })
  )
  if ("expired" in outcome) return yield* invitationExpired(outcome.expired.expiresAt)
  return toInvitation(outcome.moved, env.nowMs)
})

/** `POST /invitations/{code}/claim` (IN-04, IN-07 … IN-09, WH-11): `inviteeUma` by its form only (Q8). */
export const claimInvitation = (
  ports: InvitationPorts,
  code: string,
  request: ClaimInvitationRequest,
  caller?: string
): Effect.Effect<Invitation, InvitationsError> =>
  isUmaAddress(request.inviteeUma)
    ? moveByCode(ports, code, "CLAIM", caller, request.inviteeUma)
    : Effect.fail(invalidUmaAddress("inviteeUma", "MALFORMED"))

/** `POST /invitations/{code}/cancel` (IN-05, IN-06): any `write` token of the platform (Q6). */
export const cancelInvitation = (
  ports: InvitationPorts,
  code: string,
  caller?: string
): Effect.Effect<Invitation, InvitationsError> => moveByCode(ports, code, "CANCEL", caller)

/** `GET /invitations/{code}` (IN-03, IN-10): `EXPIRED` once `expiresAt` passed, written or not. */
export const getInvitation = Effect.fnUntraced(function* (
  ports: InvitationPorts,
  code: string,
  caller?: string
): Effect.fn.Return<Invitation, InvitationsError> {
  const env = yield* commandEnv
  return toInvitation(yield* findByCode(ports, env, code, caller), env.nowMs)
})
