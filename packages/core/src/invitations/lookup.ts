import { Effect } from "effect"
import type { CommandEnv } from "../shared/engine-config.ts"
import { callerKey } from "../shared/miss-budget.ts"
import { isoOf } from "../shared/time.ts"
import { normalizeInvitationCode, secondsToWindowEnd, utcMinute } from "./codes.ts"
import { invitationNotFound, missRateLimited } from "./errors.ts"
import { type InvitationRecord, invitationCounters } from "./model.ts"
import type { InvitationPorts, InvitationsError } from "./ports.ts"

/**
 * The invitation a typed code names (IN-03, IN-11, design Q3). Codes are budgeted per caller (issue 31 item 7,
 * shared/miss-budget.ts): once `invitationCodeMissesPerMinute` unknown codes were asked for by this caller this UTC
 * minute, its every lookup is 429 `RATE_LIMITED` until the minute ends (`Retry-After`), before any lookup, while
 * other callers read and claim; an unknown or malformed code counts one miss of its caller and is 404
 * `INVITATION_NOT_FOUND`.
 */
export const findByCode = Effect.fnUntraced(function* (
  ports: InvitationPorts,
  env: CommandEnv,
  input: string,
  caller: string | undefined
): Effect.fn.Return<InvitationRecord, InvitationsError> {
  const { store } = ports
  const missKey = invitationCounters.misses(callerKey(caller), utcMinute(isoOf(env.nowMs)))
  if ((yield* store.counters.get(missKey)) >= env.settings.invitationCodeMissesPerMinute) {
    return yield* missRateLimited(secondsToWindowEnd(env.nowMs, 60_000))
  }
  const code = normalizeInvitationCode(input)
  const found = code === undefined ? undefined : yield* store.invitations.findUnique("code", code)
  if (found === undefined) {
    yield* store.counters.add(missKey, 1)
    return yield* invitationNotFound()
  }
  return found
})
