import { Clock, Effect, Result } from "effect"
import type { InvalidInput } from "../shared/errors.ts"
import { allows, transition } from "../shared/machine.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import { loginSlot, smsNumberOf } from "./challenges.ts"
import {
  factorNotUsable,
  factorResetNotFound,
  factorResetNotReady,
  resetMobileRequired,
  resetMobileTooLong,
  resetNotAwaitingLiveness,
  tooManyFactorResets
} from "./errors.ts"
import { movedFactor } from "./factors.ts"
import { type ScaFactorResetEvent, scaFactorResetMachine } from "./machine.ts"
import type {
  SandboxResetLivenessRequest,
  ScaFactorRecord,
  ScaFactorResetRecord,
  TwoFactorResetCompleteRequest,
  TwoFactorResetStart,
  TwoFactorResetStartRequest,
  TwoFactorResetStatus
} from "./model.ts"
import type { ScaPorts } from "./ports.ts"
import { factorSlot, settled } from "./proofs.ts"
import { subjectCustomer } from "./sessions.ts"

// Factor resets (upstream 2FA reset): a customer who lost a factor proves who it is by a liveness check (the
// ownership verification's LivenessProvider and sandbox settlement), then the platform completes the reset: a TOTP
// or PASSKEY factor is removed (enrol it again), an SMS reset sets the number SMS codes go to (in sca_factors; the
// customer record is untouched, docs/design/sca.md Q12). No live session is needed: the factor to log in with is
// what was lost.

/** How long a reset can be settled and completed (upstream example: 30 min). */
export const FACTOR_RESET_SECONDS = 30 * 60
/** Reset starts per customer in a rolling 24 h (upstream); the next one is 429 `RATE_LIMITED`. */
export const FACTOR_RESETS_PER_DAY = 5
const DAY_SECONDS = 86_400
/** The E.164 form of the number an SMS reset sets (at most 15 digits). */
const E164 = /^\+[1-9]\d{0,14}$/

/** Whether the reset has lapsed at `nowMs`: still under way (it may `EXPIRE`) and `expiresAt` reached. */
const lapsed = (reset: ScaFactorResetRecord, nowMs: number): boolean =>
  allows(scaFactorResetMachine, reset.status, "EXPIRE") && nowMs >= Date.parse(reset.expiresAt)

/** The reset's status at `nowMs`: `EXPIRED` is read lazily, written by the next command on it. */
const statusAt = (reset: ScaFactorResetRecord, nowMs: number): ScaFactorResetRecord["status"] =>
  lapsed(reset, nowMs) ? "EXPIRED" : reset.status

/** The reset after a move of its machine; `undefined` when the move is illegal from its status. */
const movedReset = (
  reset: ScaFactorResetRecord,
  event: ScaFactorResetEvent,
  nowMs: number
): ScaFactorResetRecord | undefined => {
  const move = transition(scaFactorResetMachine, reset.status, event)
  if (Result.isFailure(move)) return undefined
  return {
    ...reset,
    status: move.success.to,
    updatedAt: isoOf(nowMs),
    ...(move.success.to === "COMPLETED" ? { completedAt: isoOf(nowMs) } : {})
  }
}

/** The customer's active factor of a kind (for SMS_OTP: the row of a number a reset set), or `undefined`. */
const activeFactor = (ports: ScaPorts, customerId: string, factor: ScaFactorRecord["factor"]) =>
  ports.store.scaFactors.findUnique("slot", factorSlot(customerId, factor))

/** How `GET /sca/factors/reset/{resetId}` and the sandbox settlement show a reset. */
const viewOf = Effect.fnUntraced(function* (ports: ScaPorts, reset: ScaFactorResetRecord, nowMs: number) {
  const status = statusAt(reset, nowMs)
  // A completed TOTP or PASSKEY reset waits for the customer to enrol that factor again.
  const enrolled =
    status === "COMPLETED" && reset.factor !== "SMS_OTP"
      ? (yield* activeFactor(ports, reset.customerId, reset.factor)) !== undefined
      : undefined
  const view: TwoFactorResetStatus = {
    status,
    factor: reset.factor,
    ...(enrolled === undefined ? {} : { enrollmentStatus: enrolled ? "COMPLETED" : "PENDING" }),
    expiresAt: reset.expiresAt,
    ...(reset.completedAt === undefined ? {} : { completedAt: reset.completedAt })
  }
  return view
})

/** The customer's reset, or 404 `REFERENCE_NOT_FOUND` (another customer's reset is not found either). */
const resetOf = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string | undefined,
  resetId: string,
  forUpdate: boolean
) {
  const { store } = ports
  const reset = forUpdate
    ? yield* store.scaFactorResets.getForUpdate(resetId)
    : yield* store.scaFactorResets.get(resetId)
  if (reset === undefined || (customerId !== undefined && reset.customerId !== customerId)) {
    return yield* factorResetNotFound(resetId)
  }
  return reset
})

/** A reset's start: a liveness session for a customer who lost an enrolled factor, at most 5 in a rolling 24 h. */
export const startFactorReset = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  req: TwoFactorResetStartRequest
) {
  const { store, ids, kyc, liveness } = ports
  return yield* store.transaction(
    Effect.gen(function* () {
      // The customer's row serializes its starts, so the 24 h count holds under concurrent calls.
      const customer = yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
      const nowMs = yield* Clock.currentTimeMillis
      const enrolled =
        req.factor === "SMS_OTP"
          ? smsNumberOf(kyc, customer, yield* activeFactor(ports, customerId, "SMS_OTP")) !== undefined
          : (yield* activeFactor(ports, customerId, req.factor)) !== undefined
      if (!enrolled) return yield* factorNotUsable(req.factor, "it is not enrolled, so there is nothing to reset")
      const recent = yield* store.scaFactorResets.list(
        { customerId, createdAfter: isoOf(nowMs - DAY_SECONDS * 1000) },
        { limit: FACTOR_RESETS_PER_DAY, sortOrder: "asc" }
      )
      if (recent.data.length >= FACTOR_RESETS_PER_DAY) {
        // Retry once the oldest start of the window falls out of it.
        const oldestMs = Math.min(...recent.data.map((reset) => Date.parse(reset.createdAt)))
        return yield* tooManyFactorResets(Math.max(1, Math.ceil((oldestMs + DAY_SECONDS * 1000 - nowMs) / 1000)))
      }
      const id = yield* ids.make("ScaFactorReset")
      const nonce = yield* ids.randomHex(16)
      const expiresAt = isoAfter(nowMs, FACTOR_RESET_SECONDS)
      // The sandbox provider is pure; a provider that calls out opens one session per attempt of a retried
      // transaction, and only the committed one is kept (as ownership verification does).
      const session = yield* liveness.startSession({ subjectId: id, customerId, nonce, expiresAt })
      const reset: ScaFactorResetRecord = {
        id,
        customerId,
        factor: req.factor,
        status: "INITIATED",
        livenessNonce: nonce,
        verificationLink: session.verificationLink,
        ...(session.token === undefined ? {} : { livenessToken: session.token }),
        createdAt: isoOf(nowMs),
        updatedAt: isoOf(nowMs),
        expiresAt
      }
      yield* Effect.orDie(store.scaFactorResets.insert(reset))
      const start: TwoFactorResetStart = {
        resetId: id,
        ...(session.token === undefined ? {} : { livenessAccessToken: session.token }),
        verificationLink: session.verificationLink,
        expiresAt
      }
      return start
    })
  )
})

/** A reset of the customer, as `GET /sca/factors/reset/{resetId}` shows it. */
export const getFactorReset = Effect.fnUntraced(function* (ports: ScaPorts, customerId: string, resetId: string) {
  const { store } = ports
  yield* subjectCustomer(yield* store.customers.get(customerId), customerId)
  const reset = yield* resetOf(ports, customerId, resetId, false)
  return yield* viewOf(ports, reset, yield* Clock.currentTimeMillis)
})

/** An SMS reset: the new number in the customer's `SMS_OTP` factor row; a code sent to the old one dies. */
const resetSms = Effect.fnUntraced(function* (ports: ScaPorts, customerId: string, phone: string, nowMs: number) {
  const { store, ids } = ports
  const previous = yield* activeFactor(ports, customerId, "SMS_OTP")
  if (previous !== undefined) yield* Effect.orDie(store.scaFactors.update(movedFactor(previous, "RESET", nowMs)))
  const pending: ScaFactorRecord = {
    id: yield* ids.make("ScaFactor"),
    customerId,
    factor: "SMS_OTP",
    status: "PENDING",
    phone,
    createdAt: isoOf(nowMs),
    updatedAt: isoOf(nowMs)
  }
  // Confirmed at once: the liveness check was the proof.
  yield* Effect.orDie(store.scaFactors.insert(movedFactor(pending, "CONFIRM", nowMs)))
  const open = yield* store.scaChallenges.findUnique("openSlot", loginSlot(customerId))
  if (open?.factor === "SMS_OTP") yield* Effect.orDie(store.scaChallenges.update(settled(open, "SUPERSEDE", nowMs)))
})

/** A reset's completion once liveness passed: the lost TOTP or PASSKEY removed, or the SMS number set. */
export const completeFactorReset = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  resetId: string,
  req: TwoFactorResetCompleteRequest
) {
  const { store } = ports
  // A lapsed reset is written EXPIRED before the 400 is answered, so the transaction answers it as a value.
  const refusal: InvalidInput | undefined = yield* store.transaction(
    Effect.gen(function* () {
      yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
      const reset = yield* resetOf(ports, customerId, resetId, true)
      const nowMs = yield* Clock.currentTimeMillis
      if (lapsed(reset, nowMs)) {
        yield* Effect.orDie(store.scaFactorResets.update(movedReset(reset, "EXPIRE", nowMs)!))
        return factorResetNotReady("EXPIRED")
      }
      const completed = movedReset(reset, "COMPLETE", nowMs)
      if (completed === undefined) return factorResetNotReady(reset.status)
      if (reset.factor === "SMS_OTP") {
        const mobile = req?.mobile
        if (mobile === undefined) return resetMobileRequired()
        const phone = `${mobile.countryCode}${mobile.number}`
        if (!E164.test(phone)) return resetMobileTooLong()
        yield* resetSms(ports, customerId, phone, nowMs)
      } else {
        // The lost factor goes; the customer enrols it again (enrollmentStatus PENDING until then).
        const found = yield* activeFactor(ports, customerId, reset.factor)
        const active = found === undefined ? undefined : yield* store.scaFactors.getForUpdate(found.id)
        if (active?.status === "ACTIVE") {
          yield* Effect.orDie(store.scaFactors.update(movedFactor(active, "RESET", nowMs)))
        }
      }
      yield* Effect.orDie(store.scaFactorResets.update(completed))
      return undefined
    })
  )
  if (refusal !== undefined) return yield* refusal
})

/** The liveness provider's verdict on a reset: `PENDING_REVIEW`, `PASSED` or `FAILED`. */
export const settleResetLiveness = Effect.fnUntraced(function* (
  ports: ScaPorts,
  resetId: string,
  req: SandboxResetLivenessRequest
) {
  const { store } = ports
  return yield* store.transaction(
    Effect.gen(function* () {
      const reset = yield* resetOf(ports, undefined, resetId, true)
      const nowMs = yield* Clock.currentTimeMillis
      const status = statusAt(reset, nowMs)
      // A lapsed session has no verdict to give: the customer starts a new reset.
      const event = req.result === "PASSED" ? "PASS" : req.result === "FAILED" ? "REJECT" : "SUBMIT"
      const next = status === "EXPIRED" ? undefined : movedReset(reset, event, nowMs)
      if (next === undefined) return yield* resetNotAwaitingLiveness(resetId, status)
      yield* Effect.orDie(store.scaFactorResets.update(next))
      return yield* viewOf(ports, next, nowMs)
    })
  )
})
