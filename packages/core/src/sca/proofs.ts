import { Effect, Result } from "effect"
import type { KeyVaultService } from "../ports/key-vault.ts"
import type { Repositories } from "../ports/store.ts"
import type { InvalidInput } from "../shared/errors.ts"
import { transition } from "../shared/machine.ts"
import { isoOf } from "../shared/time.ts"
import { accountLocked } from "./errors.ts"
import { scaChallengeMachine } from "./machine.ts"
import type { ScaChallengeRecord, ScaFactorRecord, ScaSecurityRecord } from "./model.ts"
import { afterFailure, afterSuccess, attemptsLeftBeforeLock, lockAt, openSecurity } from "./security.ts"
import { totpStepOf, totpVaultContext, useRecoveryCode } from "./totp.ts"

// What every proof-taking SCA call shares (login complete, factor confirm): 423 while locked, a failed proof counted
// into the customer's one ladder (C-41), a success setting it back to 0, and a challenge settled through its machine.

/** 423 while the customer's proofs are locked (C-41); nothing is counted. */
export const refuseWhileLocked = (security: ScaSecurityRecord | undefined, nowMs: number) => {
  const lock = lockAt(security, nowMs)
  return lock === undefined ? Effect.void : Effect.fail(accountLocked(lock))
}

/** A failed proof counted into the customer's ladder (C-41); the error to answer: 423 once it locks. */
export const countFailure = Effect.fnUntraced(function* (
  store: Pick<Repositories, "scaSecurity">,
  customerId: string,
  security: ScaSecurityRecord | undefined,
  nowMs: number,
  refusal: (left: number) => InvalidInput
) {
  const next = afterFailure(security ?? openSecurity(customerId, isoOf(nowMs)), nowMs)
  if (security === undefined) yield* Effect.orDie(store.scaSecurity.insert(next))
  else yield* Effect.orDie(store.scaSecurity.update(next))
  const lock = lockAt(next, nowMs)
  return lock === undefined ? refusal(attemptsLeftBeforeLock(next)) : accountLocked(lock)
})

/** A successful proof: the count back to 0 (no write when there was nothing to clear). */
export const countSuccess = (
  store: Pick<Repositories, "scaSecurity">,
  security: ScaSecurityRecord | undefined,
  nowMs: number
) =>
  security !== undefined && security.failedAttempts > 0
    ? Effect.orDie(store.scaSecurity.update(afterSuccess(security, nowMs)))
    : Effect.void

/** The challenge after a move of its machine, out of its open slot once it leaves `OPEN`. */
export const settled = (
  challenge: ScaChallengeRecord,
  event: "PASS" | "EXPIRE" | "SUPERSEDE",
  nowMs: number
): ScaChallengeRecord => {
  const move = transition(scaChallengeMachine, challenge.status, event)
  // Every caller settles an OPEN challenge it holds locked: another state here is a bug, not a client's doing.
  if (Result.isFailure(move)) throw move.failure
  return { ...challenge, status: move.success.to, settledAt: isoOf(nowMs), openSlot: undefined }
}

/** What a TOTP proof comes to: the factor to store (last step or recovery codes moved on), or why it failed. */
export type TotpOutcome =
  | { readonly _tag: "Passed"; readonly factor: ScaFactorRecord }
  | { readonly _tag: "Wrong" }
  | { readonly _tag: "Reused" }

/**
 * Checks `code` against a TOTP factor at `nowMs` (S-14, S-15): a code of the current step ±1 whose step is after the
 * last accepted one (an earlier or equal step is `Reused`: a code is good once); the sandbox code when the engine
 * has one (`Notifier.fixedCode`); with `recovery`, one of the factor's unused recovery codes (then spent). The secret
 * is opened from the KeyVault for this check only; a secret that no longer opens (another KEK) answers `Wrong`.
 */
export const totpProof = Effect.fnUntraced(function* (
  vault: KeyVaultService,
  factor: ScaFactorRecord,
  code: string,
  nowMs: number,
  options: { readonly sandboxCode: string | undefined; readonly recovery: boolean }
) {
  const passed = (next: ScaFactorRecord): TotpOutcome => ({
    _tag: "Passed",
    factor: { ...next, updatedAt: isoOf(nowMs) }
  })
  if (options.sandboxCode !== undefined && code === options.sandboxCode) return passed(factor)
  if (/^\d{6}$/.test(code)) {
    const opened =
      factor.totpSecretSealed === undefined
        ? undefined
        : yield* vault.open(factor.totpSecretSealed, totpVaultContext(factor.customerId))
    if (opened === undefined) return { _tag: "Wrong" } as TotpOutcome
    const step = totpStepOf(new TextDecoder().decode(opened), code, nowMs)
    if (step === undefined) return { _tag: "Wrong" } as TotpOutcome
    if (factor.totpLastStep !== undefined && step <= factor.totpLastStep) return { _tag: "Reused" } as TotpOutcome
    return passed({ ...factor, totpLastStep: step })
  }
  const spent = options.recovery ? useRecoveryCode(factor, code) : undefined
  return spent === undefined ? ({ _tag: "Wrong" } as TotpOutcome) : passed(spent)
})

/** The `slot` of a customer's active factor of a kind, and the `pendingSlot` of its enrolment. */
export const factorSlot = (customerId: string, factor: ScaFactorRecord["factor"]) => `${customerId}|${factor}`
