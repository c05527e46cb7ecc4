import { Effect } from "effect"
import { commandEnv } from "../shared/engine-config.ts"
import { InvalidInput } from "../shared/errors.ts"
import { isoOf } from "../shared/time.ts"
import { claimUrl, INVITATION_CODE_RANDOM_BYTES, isUmaAddress, secondsToWindowEnd, utcHour } from "./codes.ts"
import { createRateLimited, expiresAtOutOfRange, invalidUmaAddress } from "./errors.ts"
import { type CreateInvitationRequest, type Invitation, type InvitationRecord, invitationCounters } from "./model.ts"
import type { InvitationPorts, InvitationsError } from "./ports.ts"
import { toInvitation } from "./views.ts"

const DAY_MS = 86_400_000
/** Fresh draws of a code before a collision is a defect (design section 2: 3 retries). */
const CODE_DRAWS = 4

/** A code no stored invitation has: 8 hex from the CSPRNG, drawn again on a collision. */
const freshCode = Effect.fnUntraced(function* (ports: InvitationPorts) {
  for (let draw = 0; draw < CODE_DRAWS; draw++) {
    const code = (yield* ports.ids.randomHex(INVITATION_CODE_RANDOM_BYTES)).toLowerCase()
    if ((yield* ports.store.invitations.findUnique("code", code)) === undefined) return code
  }
  return yield* Effect.die(new Error("no free invitation code after repeated draws"))
})

/**
 * `POST /invitations` (IN-01, IN-02, IN-10, IN-11; design section 3 step 1). The inviter must be a live customer with
 * that `umaAddress` (Q7), `amountToSend` is in its first currency; `expiresAt` after now and within
 * `invitationMaxLifetimeDays`. One transaction counts the inviter's hourly budget (over: 429, rolled back) and
 * stores the invitation `PENDING` under a fresh code, its link on the platform's `umaDomain`.
 */
export const createInvitation = Effect.fnUntraced(function* (
  ports: InvitationPorts,
  request: CreateInvitationRequest
): Effect.fn.Return<Invitation, InvitationsError> {
  const { store } = ports
  const env = yield* commandEnv
  if (!isUmaAddress(request.inviterUma)) return yield* invalidUmaAddress("inviterUma", "MALFORMED")
  let expiresAt: string | undefined
  if (request.expiresAt !== undefined) {
    const ms = Date.parse(request.expiresAt)
    const maxDays = env.settings.invitationMaxLifetimeDays
    if (!(ms > env.nowMs && ms <= env.nowMs + maxDays * DAY_MS)) return yield* expiresAtOutOfRange(maxDays)
    expiresAt = isoOf(ms)
  }
  const inviter = yield* store.customers.findUnique("umaAddress", request.inviterUma)
  if (inviter === undefined || inviter.isDeleted) return yield* invalidUmaAddress("inviterUma", "NOT_A_CUSTOMER")
  const currency = inviter.currencies[0]
  if (request.amountToSend !== undefined && currency === undefined) {
    return yield* InvalidInput.one("amountToSend", { currency: "none" }, "The inviter has no currency to send in")
  }
  const platform = yield* ports.config.get()
  const now = isoOf(env.nowMs)
  return yield* store.transaction(
    Effect.gen(function* () {
      const used = yield* store.counters.add(invitationCounters.created(inviter.id, utcHour(now)), 1)
      if (used > env.settings.invitationsPerInviterPerHour) {
        return yield* createRateLimited(secondsToWindowEnd(env.nowMs, 3_600_000))
      }
      const code = yield* freshCode(ports)
      const record: InvitationRecord = {
        id: yield* ports.ids.make("Invitation"),
        code,
        url: claimUrl(platform.umaDomain, code),
        inviterCustomerId: inviter.id,
        inviterUma: inviter.umaAddress,
        ...(request.amountToSend === undefined ? {} : { amount: request.amountToSend, currency }),
        ...(request.firstName === undefined ? {} : { firstName: request.firstName }),
        state: "PENDING",
        ...(expiresAt === undefined ? {} : { expiresAt }),
        createdAt: now,
        updatedAt: now
      }
      yield* Effect.catchTag(store.invitations.insert(record), "UniqueViolation", (e) =>
        Effect.die(new Error(`unexpected unique violation on ${e.index}`))
      )
      return toInvitation(record, env.nowMs)
    })
  )
})
