import { Clock, Effect, Result } from "effect"
import type { Refused } from "../shared/errors.ts"
import { transition } from "../shared/machine.ts"
import { isoOf } from "../shared/time.ts"
import { accountLocked } from "./errors.ts"
import { scaSessionMachine } from "./machine.ts"
import type { RecordSecurityEventRequest, RecordSecurityEventResponse, ScaSecurityRecord } from "./model.ts"
import type { ScaPorts } from "./ports.ts"
import { afterFailure, afterPasswordReset, lockAt, openSecurity } from "./security.ts"
import { subjectCustomer } from "./sessions.ts"

// Security events the integrator records (S-10, upstream `POST /sca/record-event`): its own login failures feed the
// customer's one lock ladder (security.ts), and a completed password reset is the way out of a lock or a suspension
// and ends every SCA session of the customer.

type Outcome<A> = { readonly ok: A } | { readonly error: Refused }

/** How many live sessions one page of the revoke reads (it pages on until none is left). */
const REVOKE_PAGE = 100

/** The lock state a response shows: `lockedUntil` null when not locked now, or when suspended. */
const stateOf = (
  eventType: RecordSecurityEventRequest["eventType"],
  security: ScaSecurityRecord | undefined,
  nowMs: number
): RecordSecurityEventResponse => {
  const lock = lockAt(security, nowMs)
  return {
    eventType,
    suspended: security?.suspended ?? false,
    lockedUntil: lock?.lockedUntil ?? null,
    failedAttempts: security?.failedAttempts ?? 0
  }
}

/** `REVOKE`s every live session of the customer (session machine), in the caller's transaction. */
const revokeSessions = Effect.fnUntraced(function* (ports: ScaPorts, customerId: string, nowMs: number) {
  const { store } = ports
  const move = transition(scaSessionMachine, "ACTIVE", "REVOKE")
  // A fixed row of the machine: its absence is a bug, not a client's doing.
  if (Result.isFailure(move)) throw move.failure
  let after: string | undefined
  for (;;) {
    const page = yield* store.scaSessions.list(
      { customerId, expiresAfter: isoOf(nowMs), includeRevoked: false },
      { limit: REVOKE_PAGE, after, sortOrder: "asc" }
    )
    for (const session of page.data) {
      yield* Effect.orDie(store.scaSessions.update({ ...session, revokedAt: isoOf(nowMs) }))
    }
    if (!page.hasMore || page.data.length === 0) return
    after = page.data[page.data.length - 1]!.id
  }
})

/** A security event the integrator records: a failure into the lock ladder, or a password reset that lifts it. */
export const recordSecurityEvent = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  req: RecordSecurityEventRequest
) {
  const { store } = ports
  // A failure recorded while locked is counted and answered 423: the transaction commits the count and returns
  // the refusal as a value.
  const outcome: Outcome<RecordSecurityEventResponse> = yield* store.transaction(
    Effect.gen(function* () {
      // The customer's row is the lock of its ladder, as in the login (the security row may not exist yet).
      yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
      const nowMs = yield* Clock.currentTimeMillis
      const security = yield* store.scaSecurity.get(customerId)
      if (req.eventType === "FAILED_LOGIN_ATTEMPT") {
        const lockedBefore = lockAt(security, nowMs) !== undefined
        const next = afterFailure(security ?? openSecurity(customerId, isoOf(nowMs)), nowMs)
        if (security === undefined) yield* Effect.orDie(store.scaSecurity.insert(next))
        else yield* Effect.orDie(store.scaSecurity.update(next))
        const lock = lockAt(next, nowMs)
        if (lockedBefore && lock !== undefined) return { error: accountLocked(lock) }
        return { ok: stateOf(req.eventType, next, nowMs) }
      }
      const next = security === undefined ? undefined : afterPasswordReset(security, nowMs)
      if (next !== undefined) yield* Effect.orDie(store.scaSecurity.update(next))
      yield* revokeSessions(ports, customerId, nowMs)
      return { ok: stateOf(req.eventType, next, nowMs) }
    })
  )
  if ("error" in outcome) return yield* outcome.error
  return outcome.ok
})
