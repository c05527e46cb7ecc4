import { isoAfter, isoOf } from "../shared/time.ts"
import type { LockDetails, ScaSecurityRecord } from "./model.ts"

// The lock ladder (C-41, S-10): one count of consecutive failed SCA proofs per customer, fed by every proof-taking
// call. A success sets it back to 0 (PSD2 RTS Art. 4(3)(b) counts consecutive failures). Pure: the caller reads and
// writes the `sca_security` row in its transaction.

const MINUTE = 60

/** Failures → how long the customer is locked (seconds); from `SUSPEND_AFTER` on, suspended with no end. */
export const LOCK_LADDER: ReadonlyArray<readonly [failures: number, seconds: number]> = [
  [5, 15 * MINUTE],
  [6, 30 * MINUTE],
  [7, 60 * MINUTE],
  [8, 24 * 60 * MINUTE]
]
/** The failure count that suspends: only a completed password reset lifts it. */
export const SUSPEND_AFTER = 9

/** A customer with no failure yet. */
export const openSecurity = (customerId: string, now: string): ScaSecurityRecord => ({
  id: customerId,
  failedAttempts: 0,
  suspended: false,
  updatedAt: now
})

/** The lock in force at `nowMs`, or `undefined` when proofs are accepted (a lapsed lock keeps its count). */
export const lockAt = (security: ScaSecurityRecord | undefined, nowMs: number): LockDetails | undefined => {
  if (security === undefined) return undefined
  if (security.suspended) return { suspended: true, failedAttempts: security.failedAttempts }
  if (security.lockedUntil !== undefined && nowMs < Date.parse(security.lockedUntil)) {
    return { suspended: false, lockedUntil: security.lockedUntil, failedAttempts: security.failedAttempts }
  }
  return undefined
}

/** The row after one more failed proof at `nowMs`: the ladder's lock from the 5th, suspended from the 9th. */
export const afterFailure = (security: ScaSecurityRecord, nowMs: number): ScaSecurityRecord => {
  const failedAttempts = security.failedAttempts + 1
  const updatedAt = isoOf(nowMs)
  if (failedAttempts >= SUSPEND_AFTER) {
    const { lockedUntil: _, ...rest } = security
    return { ...rest, failedAttempts, suspended: true, updatedAt }
  }
  const step = LOCK_LADDER.find(([failures]) => failures === failedAttempts)
  if (step === undefined) return { ...security, failedAttempts, updatedAt }
  return { ...security, failedAttempts, lockedUntil: isoAfter(nowMs, step[1]), updatedAt }
}

/** The row after a successful proof: count 0, no lock. A suspension is not lifted by a proof (none is accepted). */
export const afterSuccess = (security: ScaSecurityRecord, nowMs: number): ScaSecurityRecord => {
  const { lockedUntil: _, ...rest } = security
  return { ...rest, failedAttempts: 0, suspended: false, updatedAt: isoOf(nowMs) }
}

/**
 * The row after a completed password reset (`RESET_PASSWORD_COMPLETED`): count 0, no lock, and the suspension
 * lifted; the only way out of a suspension.
 */
export const afterPasswordReset = (security: ScaSecurityRecord, nowMs: number): ScaSecurityRecord => {
  const { lockedUntil: _, ...rest } = security
  return { ...rest, failedAttempts: 0, suspended: false, updatedAt: isoOf(nowMs) }
}

/** Proofs left before the next failure locks (0 when the next one does). */
export const attemptsLeftBeforeLock = (security: ScaSecurityRecord): number => {
  const next = LOCK_LADDER.find(([failures]) => failures > security.failedAttempts)?.[0] ?? SUSPEND_AFTER
  return Math.max(0, next - security.failedAttempts - 1)
}
