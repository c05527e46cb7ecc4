import { Effect } from "effect"
import { walkDue } from "../shared/due-walk.ts"
import { commandEnv } from "../shared/engine-config.ts"
import type { StoreError } from "../shared/errors.ts"
import { isoOf } from "../shared/time.ts"
import { moveInvitationSteps } from "./claim.ts"
import type { InvitationPorts } from "./ports.ts"
import { isPastExpiry } from "./views.ts"

const PAGE = 100

/**
 * `Invitations.processDue` (IN-10; design section 3 step 4): every `PENDING` invitation whose `expiresAt` passed
 * `EXPIRE`s, each in its own transaction under its row lock (a claim or cancel that got there first wins). Expired
 * rows leave the filter, so the first page is read until it is empty. No event.
 */
export const expireDue = Effect.fnUntraced(function* (
  ports: InvitationPorts
): Effect.fn.Return<{ readonly expired: number }, StoreError> {
  const { store } = ports
  const env = yield* commandEnv
  const filter = { states: ["PENDING" as const], expiresAtOrBefore: isoOf(env.nowMs) }
  let expired = 0
  yield* walkDue(store.invitations, filter, PAGE, (rows) =>
    Effect.map(
      Effect.forEach(rows, (row) =>
        store.transaction(
          Effect.gen(function* () {
            const current = yield* store.invitations.getForUpdate(row.id)
            if (current?.state !== "PENDING" || !isPastExpiry(current, env.nowMs)) return 0
            yield* moveInvitationSteps(ports, current, "EXPIRE", env.nowMs)
            return 1
          })
        )
      ),
      (moved) => {
        for (const n of moved) expired += n
      }
    )
  )
  return { expired }
})
