import { Effect, Redacted } from "effect"
import type { Customer } from "../customers/model.ts"
import type { Ids } from "../ports/ids.ts"
import type { KeyVaultService } from "../ports/key-vault.ts"
import type { KycProvider } from "../ports/kyc.ts"
import type { Notifier } from "../ports/notifier.ts"
import type { Repositories } from "../ports/store.ts"
import { codeDigest, codeMatches, sha256Hex } from "../shared/digests.ts"
import type { InvalidInput, LimitExceeded, Refused, StoreError } from "../shared/errors.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import {
  factorNotUsable,
  proofMissing,
  proofOfAnotherFactor,
  scaCodeExpired,
  scaCodeTooSoon,
  scaProofTooSoon,
  scaResendsExhausted,
  totpCodeReused,
  wrongScaCode
} from "./errors.ts"
import type {
  LinkedOperation,
  ScaChallenge,
  ScaChallengeKind,
  ScaChallengeRecord,
  ScaFactor,
  ScaFactorRecord,
  ScaProof,
  ScaPurpose,
  ScaSecurityRecord
} from "./model.ts"
import { countFailure, countSuccess, factorSlot, settled, totpProof } from "./proofs.ts"
import { smsNumberOf } from "./sessions.ts"

// The one mechanism every SCA flow uses for its challenges (S-02, S-07, S-11, S-15, L-14): which factors a customer
// can use, issuing a challenge into its open slot (SMS code hashed, passkey challenge linked to the operation),
// resending its SMS code, and checking a proof against it with the lock ladder. Login, quote authorization and
// trust call these inside their own store transaction and send the SMS after the commit (`sendCode`).

/** How long a challenge can be satisfied (upstream examples: 5 min); a resend does not extend it (S-07). */
export const CHALLENGE_SECONDS = 300
/** L-14: the shortest wait between two codes of one challenge slot (429 `RATE_LIMITED` with `Retry-After`). */
export const CODE_RESEND_SECONDS = 60
/** L-14: codes sent per challenge, the first included. */
export const MAX_CODE_SENDS = 5
/** L-14: a proof this soon after a failed one on the same challenge is refused uncounted (a brute-force brake). */
export const PROOF_THROTTLE_SECONDS = 1

/** The factors that can carry PSD2 dynamic linking: the only ones a per-transaction challenge offers (S-08). */
export const LINKABLE_FACTORS: ReadonlyArray<ScaFactor> = ["SMS_OTP", "PASSKEY"]

/** What the customer can prove with right now, and where an SMS code would go. */
export interface UsableFactors {
  /** In the preference order of a default challenge: SMS_OTP, PASSKEY, TOTP (upstream: defaults to SMS_OTP). */
  readonly factors: ReadonlyArray<ScaFactor>
  readonly smsTo?: string | undefined
}

/** What issuing a challenge needs; `openSlot` is the one open challenge of its operation. */
export interface ChallengeRequest {
  readonly customerId: string
  readonly kind: ScaChallengeKind
  readonly subjectId?: string | undefined
  readonly step: number
  readonly purpose?: ScaPurpose | undefined
  readonly factor: ScaFactor
  readonly availableFactors: ReadonlyArray<ScaFactor>
  readonly linked?: LinkedOperation | undefined
  readonly openSlot: string
  /** Where the SMS code goes (required for `SMS_OTP`). */
  readonly smsTo?: string | undefined
}

/** An SMS to send once the challenge is committed (a store transaction may run again; a message must go once). */
export interface PendingCode {
  readonly to: string
  readonly code: Redacted.Redacted<string>
  readonly context?: string | undefined
}

/** What a proof came to. `Expired` settled the challenge (the caller may fail what it guarded). */
export type ProofOutcome =
  | { readonly _tag: "Passed"; readonly challenge: ScaChallengeRecord }
  | { readonly _tag: "Expired"; readonly error: InvalidInput | Refused }
  | { readonly _tag: "Refused"; readonly error: InvalidInput | Refused | LimitExceeded }

/** The text a linked code is sent with, so the customer sees what it authorizes: "EUR 12.50 to …9f3a". */
export const linkingText = (linked: LinkedOperation, decimals: number): string =>
  `${linked.currency} ${(linked.amount / 10 ** decimals).toFixed(decimals)} to …${linked.payee.slice(-4)}`

/**
 * The WebAuthn challenge of a `PASSKEY` challenge: the hex SHA-256 of what it authorizes, so an assertion made for
 * one operation cannot authorize another (dynamic linking).
 */
export const passkeyChallengeOf = (id: string, purpose: ScaPurpose | undefined, linked: LinkedOperation | undefined) =>
  sha256Hex(JSON.stringify({ challengeId: id, purpose: purpose ?? null, linked: linked ?? null }))

/** A challenge as the API shows it (S-02). */
export const challengeView = (challenge: ScaChallengeRecord): ScaChallenge => ({
  id: challenge.id,
  expiresAt: challenge.expiresAt,
  factor: challenge.factor,
  availableFactors: challenge.availableFactors,
  ...(challenge.purpose === undefined ? {} : { purpose: challenge.purpose })
})

/**
 * AC-37: a proof made for another factor than the challenge's (a code sent to a passkey challenge, an assertion to a
 * code challenge) is refused, whatever it holds: only the offered factor is accepted.
 */
const proofMisfit = (factor: ScaFactor, proof: ScaProof): InvalidInput | undefined => {
  if (factor === "PASSKEY") return proof.code === undefined ? undefined : proofOfAnotherFactor("code", factor)
  return proof.passkeyAssertion === undefined && proof.origin === undefined
    ? undefined
    : proofOfAnotherFactor("passkeyAssertion", factor)
}

interface ChallengePorts {
  readonly store: Repositories
  readonly ids: Ids["Service"]
  readonly notifier: Notifier["Service"]
  readonly kyc: Pick<KycProvider["Service"], "contactVerification">
  readonly vault: KeyVaultService
}

/** The challenge use cases over the ports of the layer that builds them (sca/service.ts). */
export const makeChallenges = ({ store, ids, notifier, kyc, vault }: ChallengePorts) => {
  const newCode = Effect.map(ids.randomHex(4), (hex) => String(Number.parseInt(hex, 16) % 1_000_000).padStart(6, "0"))

  /** The customer's active factor of a kind, when enrolled. */
  const activeFactor = Effect.fnUntraced(function* (customerId: string, factor: ScaFactor, forUpdate: boolean) {
    const found = yield* store.scaFactors.findUnique("slot", factorSlot(customerId, factor))
    const current = found !== undefined && forUpdate ? yield* store.scaFactors.getForUpdate(found.id) : found
    return current?.status === "ACTIVE" ? current : undefined
  })

  const usableFactors = Effect.fnUntraced(function* (customer: Customer) {
    const smsTo = smsNumberOf(
      kyc,
      customer,
      yield* store.scaFactors.findUnique("slot", factorSlot(customer.id, "SMS_OTP"))
    )
    const factors: Array<ScaFactor> = []
    if (smsTo !== undefined) factors.push("SMS_OTP")
    if ((yield* activeFactor(customer.id, "PASSKEY", false)) !== undefined) factors.push("PASSKEY")
    if ((yield* activeFactor(customer.id, "TOTP", false)) !== undefined) factors.push("TOTP")
    const usable: UsableFactors = { factors, smsTo }
    return usable
  })

  /**
   * Issues a challenge into its slot. An open one there is superseded (or expired), unless a code went out for it
   * less than 60 s ago: 429 (L-14). Answers the challenge and the SMS to send after the commit.
   */
  const issue = Effect.fnUntraced(function* (request: ChallengeRequest, nowMs: number) {
    const open = yield* store.scaChallenges.findUnique("openSlot", request.openSlot)
    if (open !== undefined) {
      const waitMs = Date.parse(open.lastSentAt ?? open.createdAt) + CODE_RESEND_SECONDS * 1000 - nowMs
      if (open.factor === "SMS_OTP" && waitMs > 0) return yield* scaCodeTooSoon(Math.ceil(waitMs / 1000))
      const event = nowMs >= Date.parse(open.expiresAt) ? "EXPIRE" : "SUPERSEDE"
      yield* Effect.orDie(store.scaChallenges.update(settled(open, event, nowMs)))
    }
    const id = yield* ids.make("ScaChallenge")
    const base: ScaChallengeRecord = {
      id,
      customerId: request.customerId,
      kind: request.kind,
      subjectId: request.subjectId,
      step: request.step,
      purpose: request.purpose,
      factor: request.factor,
      availableFactors: request.availableFactors,
      status: "OPEN",
      linked: request.linked,
      attempts: 0,
      sends: 0,
      createdAt: isoOf(nowMs),
      expiresAt: isoAfter(nowMs, CHALLENGE_SECONDS),
      openSlot: request.openSlot
    }
    if (request.factor === "PASSKEY") {
      const challenge = { ...base, passkeyChallenge: passkeyChallengeOf(id, request.purpose, request.linked) }
      yield* Effect.orDie(store.scaChallenges.insert(challenge))
      return { challenge, code: undefined as PendingCode | undefined }
    }
    if (request.factor === "TOTP") {
      yield* Effect.orDie(store.scaChallenges.insert(base))
      return { challenge: base, code: undefined as PendingCode | undefined }
    }
    if (request.smsTo === undefined) return yield* factorNotUsable("SMS_OTP", "the phone number is not verified")
    const code = notifier.fixedCode ?? (yield* newCode)
    const challenge: ScaChallengeRecord = {
      ...base,
      codeSha256: codeDigest(id, code),
      sends: 1,
      lastSentAt: isoOf(nowMs)
    }
    yield* Effect.orDie(store.scaChallenges.insert(challenge))
    const pending: PendingCode = { to: request.smsTo, code: Redacted.make(code) }
    return { challenge, code: pending }
  })

  /**
   * A new code for an open SMS challenge (S-07): the old code dies, `expiresAt` stays. 429 within 60 s of the last
   * send or after 5 sends (L-14); 400 once expired. The caller refuses other factors (nothing to resend).
   */
  const resend = Effect.fnUntraced(function* (challenge: ScaChallengeRecord, smsTo: string, nowMs: number) {
    if (nowMs >= Date.parse(challenge.expiresAt)) return yield* scaCodeExpired()
    if (challenge.sends >= MAX_CODE_SENDS) {
      return yield* scaResendsExhausted(Math.ceil((Date.parse(challenge.expiresAt) - nowMs) / 1000))
    }
    const waitMs = Date.parse(challenge.lastSentAt ?? challenge.createdAt) + CODE_RESEND_SECONDS * 1000 - nowMs
    if (waitMs > 0) return yield* scaCodeTooSoon(Math.ceil(waitMs / 1000))
    const code = notifier.fixedCode ?? (yield* newCode)
    const next: ScaChallengeRecord = {
      ...challenge,
      codeSha256: codeDigest(challenge.id, code),
      sends: challenge.sends + 1,
      lastSentAt: isoOf(nowMs)
    }
    yield* Effect.orDie(store.scaChallenges.update(next))
    const pending: PendingCode = { to: smsTo, code: Redacted.make(code) }
    return pending
  })

  /** A TOTP proof of a challenge: a current code or the sandbox code; recovery codes only outside payments. */
  const proveTotp = Effect.fnUntraced(function* (
    challenge: ScaChallengeRecord,
    code: string,
    nowMs: number
  ): Effect.fn.Return<"Passed" | "Wrong" | InvalidInput, StoreError> {
    const factor: ScaFactorRecord | undefined = yield* activeFactor(challenge.customerId, "TOTP", true)
    if (factor === undefined) return factorNotUsable("TOTP", "it is not enrolled")
    const proof = yield* totpProof(vault, factor, code, nowMs, {
      sandboxCode: notifier.fixedCode,
      recovery: challenge.kind !== "QUOTE"
    })
    if (proof._tag === "Reused") return totpCodeReused()
    if (proof._tag === "Wrong") return "Wrong"
    yield* Effect.orDie(store.scaFactors.update(proof.factor))
    return "Passed"
  })

  /**
   * Checks `proof` against an `OPEN` challenge the caller holds locked, in its transaction (S-15, C-41): an expired
   * challenge is settled `EXPIRED` and counted; a proof within 1 s of a failed one is 429, uncounted; a proof of the
   * wrong shape for the factor is 400, uncounted (AC-37: only the offered factor); a wrong code is counted on the
   * challenge and the ladder (423 once it locks); a right one passes the challenge and clears the count.
   */
  const prove = Effect.fnUntraced(function* (
    challenge: ScaChallengeRecord,
    proof: ScaProof,
    security: ScaSecurityRecord | undefined,
    nowMs: number
  ) {
    if (nowMs >= Date.parse(challenge.expiresAt)) {
      yield* Effect.orDie(store.scaChallenges.update(settled(challenge, "EXPIRE", nowMs)))
      const error = yield* countFailure(store, challenge.customerId, security, nowMs, scaCodeExpired)
      return { _tag: "Expired", error } as ProofOutcome
    }
    if (
      challenge.lastFailedAt !== undefined &&
      nowMs < Date.parse(challenge.lastFailedAt) + PROOF_THROTTLE_SECONDS * 1000
    ) {
      return { _tag: "Refused", error: scaProofTooSoon(PROOF_THROTTLE_SECONDS) } as ProofOutcome
    }
    let verdict: "Passed" | "Wrong" | InvalidInput
    const misfit = proofMisfit(challenge.factor, proof)
    if (misfit !== undefined) {
      verdict = misfit
    } else if (challenge.factor === "PASSKEY") {
      verdict = factorNotUsable("PASSKEY", "passkey proofs are not accepted yet")
    } else if (proof.code === undefined) {
      verdict = proofMissing("code", challenge.factor)
    } else if (challenge.factor === "TOTP") {
      verdict = yield* proveTotp(challenge, proof.code, nowMs)
    } else {
      const stored = challenge.codeSha256
      verdict = stored !== undefined && codeMatches(challenge.id, proof.code, stored) ? "Passed" : "Wrong"
    }
    if (verdict === "Wrong") {
      yield* Effect.orDie(
        store.scaChallenges.update({ ...challenge, attempts: challenge.attempts + 1, lastFailedAt: isoOf(nowMs) })
      )
      const error = yield* countFailure(store, challenge.customerId, security, nowMs, wrongScaCode)
      return { _tag: "Refused", error } as ProofOutcome
    }
    if (verdict !== "Passed") return { _tag: "Refused", error: verdict } as ProofOutcome
    const passed = settled(challenge, "PASS", nowMs)
    yield* Effect.orDie(store.scaChallenges.update(passed))
    yield* countSuccess(store, security, nowMs)
    return { _tag: "Passed", challenge: passed } as ProofOutcome
  })

  /** Sends a committed challenge's code. */
  const sendCode = (pending: PendingCode | undefined) =>
    pending === undefined ? Effect.void : notifier.send("SMS", pending.to, pending.code, pending.context)

  return { activeFactor, usableFactors, issue, resend, prove, sendCode }
}

export type Challenges = ReturnType<typeof makeChallenges>
