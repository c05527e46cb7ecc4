import { Clock, Effect, Result } from "effect"
import { Ids } from "../ports/ids.ts"
import { KycProvider } from "../ports/kyc.ts"
import { LivenessProvider } from "../ports/liveness.ts"
import { Store } from "../ports/store.ts"
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

/** The factor-reset use cases of `Sca`, over the ports of the layer that builds them. */
export const makeResets = Effect.fnUntraced(function* () {
  const store = yield* Store
  const ids = yield* Ids
  const kyc = yield* KycProvider
  const liveness = yield* LivenessProvider

  /** The customer's active factor of a kind (for SMS_OTP: the row of a number a reset set), or `undefined`. */
  const activeFactor = (customerId: string, factor: ScaFactorRecord["factor"]) =>
    store.scaFactors.findUnique("slot", factorSlot(customerId, factor))

  /** How `GET /sca/factors/reset/{resetId}` and the sandbox settlement show a reset. */
  const viewOf = Effect.fnUntraced(function* (reset: ScaFactorResetRecord, nowMs: number) {
    const status = statusAt(reset, nowMs)
    // A completed TOTP or PASSKEY reset waits for the customer to enrol that factor again.
    const enrolled =
      status === "COMPLETED" && reset.factor !== "SMS_OTP"
        ? (yield* activeFactor(reset.customerId, reset.factor)) !== undefined
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
  const resetOf = Effect.fnUntraced(function* (customerId: string | undefined, resetId: string, forUpdate: boolean) {
    const reset = forUpdate
      ? yield* store.scaFactorResets.getForUpdate(resetId)
      : yield* store.scaFactorResets.get(resetId)
    if (reset === undefined || (customerId !== undefined && reset.customerId !== customerId)) {
      return yield* factorResetNotFound(resetId)
    }
    return reset
  })

  const startFactorReset = Effect.fn("Sca.startFactorReset")(function* (
    customerId: string,
    req: TwoFactorResetStartRequest
  ) {
    return yield* store.transaction(
      Effect.gen(function* () {
        // The customer's row serializes its starts, so the 24 h count holds under concurrent calls.
        const customer = yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
        const nowMs = yield* Clock.currentTimeMillis
        const enrolled =
          req.factor === "SMS_OTP"
            ? smsNumberOf(kyc, customer, yield* activeFactor(customerId, "SMS_OTP")) !== undefined
            : (yield* activeFactor(customerId, req.factor)) !== undefined
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

  const getFactorReset = Effect.fn("Sca.getFactorReset")(function* (customerId: string, resetId: string) {
    yield* subjectCustomer(yield* store.customers.get(customerId), customerId)
    const reset = yield* resetOf(customerId, resetId, false)
    return yield* viewOf(reset, yield* Clock.currentTimeMillis)
  })

  /** An SMS reset: the new number in the customer's `SMS_OTP` factor row; a code sent to the old one dies. */
  const resetSms = Effect.fnUntraced(function* (customerId: string, phone: string, nowMs: number) {
    const previous = yield* activeFactor(customerId, "SMS_OTP")
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

  const completeFactorReset = Effect.fn("Sca.completeFactorReset")(function* (
    customerId: string,
    resetId: string,
    req: TwoFactorResetCompleteRequest
  ) {
    // A lapsed reset is written EXPIRED before the 400 is answered, so the transaction answers it as a value.
    const refusal: InvalidInput | undefined = yield* store.transaction(
      Effect.gen(function* () {
        yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
        const reset = yield* resetOf(customerId, resetId, true)
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
          yield* resetSms(customerId, phone, nowMs)
        } else {
          // The lost factor goes; the customer enrols it again (enrollmentStatus PENDING until then).
          const found = yield* activeFactor(customerId, reset.factor)
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

  const settleResetLiveness = Effect.fn("Sca.settleResetLiveness")(function* (
    resetId: string,
    req: SandboxResetLivenessRequest
  ) {
    return yield* store.transaction(
      Effect.gen(function* () {
        const reset = yield* resetOf(undefined, resetId, true)
        const nowMs = yield* Clock.currentTimeMillis
        const status = statusAt(reset, nowMs)
        // A lapsed session has no verdict to give: the customer starts a new reset.
        const event = req.result === "PASSED" ? "PASS" : req.result === "FAILED" ? "REJECT" : "SUBMIT"
        const next = status === "EXPIRED" ? undefined : movedReset(reset, event, nowMs)
        if (next === undefined) return yield* resetNotAwaitingLiveness(resetId, status)
        yield* Effect.orDie(store.scaFactorResets.update(next))
        return yield* viewOf(next, nowMs)
      })
    )
  })

  return { startFactorReset, getFactorReset, completeFactorReset, settleResetLiveness }
})
