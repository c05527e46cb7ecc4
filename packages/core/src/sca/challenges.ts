import { Effect, Redacted } from "effect"
import type { Customer } from "../customers/model.ts"
import { PlatformConfigService } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { KycProvider } from "../ports/kyc.ts"
import { Notifier } from "../ports/notifier.ts"
import { Store } from "../ports/store.ts"
import { codeDigest, codeMatches, sha256Hex } from "../shared/digests.ts"
import type { InvalidInput, LimitExceeded, Refused, StoreError } from "../shared/errors.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import {
  factorNotUsable,
  passkeyChallengeExpired,
  proofMissing,
  proofOfAnotherFactor,
  scaCodeExpired,
  scaCodeTooSoon,
  scaProofTooSoon,
  scaResendsExhausted,
  totpCodeReused,
  wrongPasskeyAssertion,
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
import { type PasskeyRelyingParty, passkeyAssertionOptions, passkeyProof, scaRelyingParty } from "./passkey-factor.ts"
import type { ChallengePorts } from "./ports.ts"
import { countFailure, countSuccess, factorSlot, refuseWhileLocked, settled, totpProof } from "./proofs.ts"

// The one mechanism every SCA flow uses for its challenges (S-02, S-07, S-11, S-15, L-14): which factors a customer
// can use, issuing a challenge into its open slot (SMS code hashed, passkey challenge linked to the operation),
// resending its SMS code, and checking a proof against it with the lock ladder. Login, quote authorization and
// trust call these inside their own store transaction and send the SMS after the commit (`sendCode`).

/** How long a challenge can be satisfied (upstream examples: 5 min); a resend does not extend it (S-07). */
export const SCA_CHALLENGE_SECONDS = 300
/** L-14: the shortest wait between two codes of one challenge slot (429 `RATE_LIMITED` with `Retry-After`). */
export const SCA_CODE_RESEND_SECONDS = 60
/** L-14: codes sent per challenge, the first included. */
export const MAX_CODE_SENDS = 5
/** L-14: a proof this soon after a failed one on the same challenge is refused uncounted (a brute-force brake). */
export const PROOF_THROTTLE_SECONDS = 1

/** The `openSlot` of a customer's login challenge: one open at a time (a new start supersedes it). */
export const loginSlot = (customerId: string) => `LOGIN|${customerId}`

/**
 * The number SMS codes go to, when SMS_OTP is usable: the number a factor reset set (the customer's `SMS_OTP` factor
 * row; its liveness check stood for the verification), else the customer's phone, verified or not required to be by
 * the KYC provider (upstream: every subject customer verified it at creation).
 */
export const smsNumberOf = (
  kyc: Pick<KycProvider["Service"], "contactVerification">,
  customer: Customer,
  smsFactor: ScaFactorRecord | undefined
): string | undefined => {
  if (smsFactor?.status === "ACTIVE" && smsFactor.phone !== undefined) return smsFactor.phone
  if (customer.phoneNumber === undefined) return undefined
  const verified = customer.contactVerification.phone === "VERIFIED" || !kyc.contactVerification(customer).phone
  return verified ? customer.phoneNumber : undefined
}

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
 * The WebAuthn challenge of a `PASSKEY` challenge: the hex SHA-256 of a random nonce and of what it authorizes, so an
 * assertion is good for this challenge only and commits to the amount and payee of a transaction (dynamic linking).
 */
export const passkeyChallengeOf = (
  id: string,
  nonce: string,
  purpose: ScaPurpose | undefined,
  linked: LinkedOperation | undefined
) => sha256Hex(JSON.stringify({ challengeId: id, nonce, purpose: purpose ?? null, linked: linked ?? null }))

/**
 * A challenge as the API shows it (S-02). A `PASSKEY` challenge carries the assertion options over its challenge for
 * the customer's passkey; `allowedOrigins` only where the flow shows them (login, not a transaction: upstream).
 */
export const challengeView = (
  challenge: ScaChallengeRecord,
  passkey?: { readonly rp: PasskeyRelyingParty; readonly credentialId: string; readonly allowedOrigins: boolean }
): ScaChallenge => ({
  id: challenge.id,
  expiresAt: challenge.expiresAt,
  factor: challenge.factor,
  availableFactors: challenge.availableFactors,
  ...(challenge.purpose === undefined ? {} : { purpose: challenge.purpose }),
  ...(passkey === undefined || challenge.passkeyChallenge === undefined
    ? {}
    : {
        passkeyAssertionOptions: passkeyAssertionOptions(
          challenge.passkeyChallenge,
          passkey.rp.rpId,
          passkey.credentialId
        ),
        ...(passkey.allowedOrigins ? { passkeyAllowedOrigins: passkey.rp.origins } : {})
      })
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

/** The platform's passkey relying party, read per use: the platform config can change at any time. */
const relyingParty = (platform: ChallengePorts["platform"]) => Effect.map(platform.get(), scaRelyingParty)

const newCode = (ids: ChallengePorts["ids"]) =>
  Effect.map(ids.randomHex(4), (hex) => String(Number.parseInt(hex, 16) % 1_000_000).padStart(6, "0"))

/** The customer's active factor of a kind, when enrolled. */
export const activeFactor = Effect.fnUntraced(function* (
  ports: ChallengePorts,
  customerId: string,
  factor: ScaFactor,
  forUpdate: boolean
) {
  const { store } = ports
  const found = yield* store.scaFactors.findUnique("slot", factorSlot(customerId, factor))
  const current = found !== undefined && forUpdate ? yield* store.scaFactors.getForUpdate(found.id) : found
  return current?.status === "ACTIVE" ? current : undefined
})

export const usableFactors = Effect.fnUntraced(function* (ports: ChallengePorts, customer: Customer) {
  const { store, kyc } = ports
  const smsTo = smsNumberOf(
    kyc,
    customer,
    yield* store.scaFactors.findUnique("slot", factorSlot(customer.id, "SMS_OTP"))
  )
  const factors: Array<ScaFactor> = []
  if (smsTo !== undefined) factors.push("SMS_OTP")
  if ((yield* activeFactor(ports, customer.id, "PASSKEY", false)) !== undefined) factors.push("PASSKEY")
  if ((yield* activeFactor(ports, customer.id, "TOTP", false)) !== undefined) factors.push("TOTP")
  const usable: UsableFactors = { factors, smsTo }
  return usable
})

/**
 * Issues a challenge into its slot. An open one there is superseded (or expired); an SMS challenge is 429 (L-14)
 * while a code went out for the slot less than 60 s ago. Answers the challenge and the SMS to send after the commit.
 */
export const issueChallenge = Effect.fnUntraced(function* (
  ports: ChallengePorts,
  request: ChallengeRequest,
  nowMs: number
) {
  const { store, ids, notifier } = ports
  const open = yield* store.scaChallenges.findUnique("openSlot", request.openSlot)
  if (open !== undefined) {
    // The brake is on codes sent for the slot, whichever challenge sent the last one (see `lastSentAt` below).
    const waitMs =
      open.lastSentAt === undefined ? 0 : Date.parse(open.lastSentAt) + SCA_CODE_RESEND_SECONDS * 1000 - nowMs
    if (request.factor === "SMS_OTP" && waitMs > 0) return yield* scaCodeTooSoon(Math.ceil(waitMs / 1000))
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
    // A challenge that sends nothing keeps when the slot's last code went, so alternating factors cannot get
    // around the brake.
    lastSentAt: open?.lastSentAt,
    attempts: 0,
    sends: 0,
    createdAt: isoOf(nowMs),
    expiresAt: isoAfter(nowMs, SCA_CHALLENGE_SECONDS),
    openSlot: request.openSlot
  }
  if (request.factor === "PASSKEY") {
    const nonce = yield* ids.randomHex(16)
    const challenge = { ...base, passkeyChallenge: passkeyChallengeOf(id, nonce, request.purpose, request.linked) }
    yield* Effect.orDie(store.scaChallenges.insert(challenge))
    return { challenge, code: undefined as PendingCode | undefined }
  }
  if (request.factor === "TOTP") {
    yield* Effect.orDie(store.scaChallenges.insert(base))
    return { challenge: base, code: undefined as PendingCode | undefined }
  }
  if (request.smsTo === undefined) return yield* factorNotUsable("SMS_OTP", "the phone number is not verified")
  const code = notifier.fixedCode ?? (yield* newCode(ids))
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
 * send or after 5 sends (L-14); 423 while the customer is locked; 400 once expired. The caller refuses other
 * factors (nothing to resend).
 */
export const resendCode = Effect.fnUntraced(function* (
  ports: ChallengePorts,
  challenge: ScaChallengeRecord,
  smsTo: string,
  nowMs: number
) {
  const { store, ids, notifier } = ports
  // A locked customer is sent no new code (C-41): what it would prove is refused anyway.
  yield* refuseWhileLocked(yield* store.scaSecurity.get(challenge.customerId), nowMs)
  if (nowMs >= Date.parse(challenge.expiresAt)) return yield* scaCodeExpired(challenge.kind)
  if (challenge.sends >= MAX_CODE_SENDS) {
    return yield* scaResendsExhausted(Math.ceil((Date.parse(challenge.expiresAt) - nowMs) / 1000))
  }
  const waitMs = Date.parse(challenge.lastSentAt ?? challenge.createdAt) + SCA_CODE_RESEND_SECONDS * 1000 - nowMs
  if (waitMs > 0) return yield* scaCodeTooSoon(Math.ceil(waitMs / 1000))
  const code = notifier.fixedCode ?? (yield* newCode(ids))
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
  ports: ChallengePorts,
  challenge: ScaChallengeRecord,
  code: string,
  nowMs: number
): Effect.fn.Return<"Passed" | "Wrong" | InvalidInput, StoreError> {
  const { store, notifier, vault } = ports
  const factor: ScaFactorRecord | undefined = yield* activeFactor(ports, challenge.customerId, "TOTP", true)
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
 * A passkey proof of a challenge: an assertion of the customer's passkey over the challenge's own WebAuthn
 * challenge (its dynamic-linking hash), from one of the relying party's origins; the counter moves on.
 */
const provePasskey = Effect.fnUntraced(function* (
  ports: ChallengePorts,
  challenge: ScaChallengeRecord,
  proof: ScaProof,
  nowMs: number
): Effect.fn.Return<"Passed" | "Wrong" | InvalidInput, StoreError> {
  const { store, platform } = ports
  if (proof.passkeyAssertion === undefined) return proofMissing("passkeyAssertion", "PASSKEY")
  if (proof.origin === undefined) return proofMissing("origin", "PASSKEY")
  const factor = yield* activeFactor(ports, challenge.customerId, "PASSKEY", true)
  if (factor === undefined) return factorNotUsable("PASSKEY", "it is not enrolled")
  if (challenge.passkeyChallenge === undefined) return "Wrong"
  const rp = yield* relyingParty(platform)
  const verdict = yield* passkeyProof(
    factor,
    proof.passkeyAssertion,
    proof.origin,
    challenge.passkeyChallenge,
    rp,
    nowMs
  )
  if (verdict._tag === "Wrong") return "Wrong"
  yield* Effect.orDie(store.scaFactors.update(verdict.factor))
  return "Passed"
})

/**
 * The challenge as the API shows it: a `PASSKEY` one with the assertion options for the customer's passkey (and the
 * allowed origins on a login, upstream); the others as they are.
 */
export const viewChallenge = Effect.fnUntraced(function* (ports: ChallengePorts, challenge: ScaChallengeRecord) {
  if (challenge.factor !== "PASSKEY") return challengeView(challenge)
  const factor = yield* activeFactor(ports, challenge.customerId, "PASSKEY", false)
  if (factor?.credentialId === undefined) return challengeView(challenge)
  const rp = yield* relyingParty(ports.platform)
  return challengeView(challenge, {
    rp,
    credentialId: factor.credentialId,
    allowedOrigins: challenge.kind === "LOGIN"
  })
})

/**
 * Checks `proof` against an `OPEN` challenge the caller holds locked, in its transaction (S-15, C-41): an expired
 * challenge is settled `EXPIRED` and counted; a proof within 1 s of a failed one is 429, uncounted; a proof of the
 * wrong shape for the factor is 400, uncounted (AC-37: only the offered factor); a wrong code is counted on the
 * challenge and the ladder (423 once it locks); a right one passes the challenge and clears the count.
 */
export const proveChallenge = Effect.fnUntraced(function* (
  ports: ChallengePorts,
  challenge: ScaChallengeRecord,
  proof: ScaProof,
  security: ScaSecurityRecord | undefined,
  nowMs: number
) {
  const { store } = ports
  const passkey = challenge.factor === "PASSKEY"
  if (nowMs >= Date.parse(challenge.expiresAt)) {
    yield* Effect.orDie(store.scaChallenges.update(settled(challenge, "EXPIRE", nowMs)))
    const expired = passkey ? passkeyChallengeExpired : scaCodeExpired
    const error = yield* countFailure(store, challenge.customerId, security, nowMs, () => expired(challenge.kind))
    return { _tag: "Expired", error } as ProofOutcome
  }
  // Payments and trust throttle proofs (L-14: upstream throttles authorize); a login's ladder is its own brake.
  if (
    challenge.kind !== "LOGIN" &&
    challenge.lastFailedAt !== undefined &&
    nowMs < Date.parse(challenge.lastFailedAt) + PROOF_THROTTLE_SECONDS * 1000
  ) {
    return { _tag: "Refused", error: scaProofTooSoon(PROOF_THROTTLE_SECONDS) } as ProofOutcome
  }
  let verdict: "Passed" | "Wrong" | InvalidInput
  const misfit = proofMisfit(challenge.factor, proof)
  if (misfit !== undefined) {
    verdict = misfit
  } else if (passkey) {
    verdict = yield* provePasskey(ports, challenge, proof, nowMs)
  } else if (proof.code === undefined) {
    verdict = proofMissing("code", challenge.factor)
  } else if (challenge.factor === "TOTP") {
    verdict = yield* proveTotp(ports, challenge, proof.code, nowMs)
  } else {
    const stored = challenge.codeSha256
    verdict = stored !== undefined && codeMatches(challenge.id, proof.code, stored) ? "Passed" : "Wrong"
  }
  if (verdict === "Wrong") {
    yield* Effect.orDie(
      store.scaChallenges.update({ ...challenge, attempts: challenge.attempts + 1, lastFailedAt: isoOf(nowMs) })
    )
    const wrong = passkey ? wrongPasskeyAssertion : wrongScaCode
    const error = yield* countFailure(store, challenge.customerId, security, nowMs, wrong)
    return { _tag: "Refused", error } as ProofOutcome
  }
  if (verdict !== "Passed") return { _tag: "Refused", error: verdict } as ProofOutcome
  const passed = settled(challenge, "PASS", nowMs)
  yield* Effect.orDie(store.scaChallenges.update(passed))
  yield* countSuccess(store, security, nowMs)
  return { _tag: "Passed", challenge: passed } as ProofOutcome
})

/** Sends a committed challenge's code. */
export const sendCode = (ports: Pick<ChallengePorts, "notifier">, pending: PendingCode | undefined) =>
  pending === undefined ? Effect.void : ports.notifier.send("SMS", pending.to, pending.code, pending.context)

/** A challenge operation above with its ports bound: what `Challenges` holds. */
type OverPorts<F> = F extends (ports: never, ...args: infer A) => infer R ? (...args: A) => R : never

/** The challenge mechanism over ports bound once: what the quote flow carries (transactions' `ScaPaymentPorts`). */
export interface Challenges {
  readonly activeFactor: OverPorts<typeof activeFactor>
  readonly usableFactors: OverPorts<typeof usableFactors>
  readonly issue: OverPorts<typeof issueChallenge>
  readonly resend: OverPorts<typeof resendCode>
  readonly prove: OverPorts<typeof proveChallenge>
  readonly view: OverPorts<typeof viewChallenge>
  readonly sendCode: OverPorts<typeof sendCode>
}

/**
 * The challenge mechanism over the ports in context, bound once when the layer that asks for it is built: what the
 * quote flow builds on (transactions' `scaPaymentPorts`). The `Sca` use cases call the functions above directly.
 */
export const challengesInContext = Effect.gen(function* () {
  const ports: ChallengePorts = {
    store: yield* Store,
    ids: yield* Ids,
    notifier: yield* Notifier,
    kyc: yield* KycProvider,
    vault: yield* KeyVault,
    platform: yield* PlatformConfigService
  }
  const challenges: Challenges = {
    activeFactor: (customerId, factor, forUpdate) => activeFactor(ports, customerId, factor, forUpdate),
    usableFactors: (customer) => usableFactors(ports, customer),
    issue: (request, nowMs) => issueChallenge(ports, request, nowMs),
    resend: (challenge, smsTo, nowMs) => resendCode(ports, challenge, smsTo, nowMs),
    prove: (challenge, proof, security, nowMs) => proveChallenge(ports, challenge, proof, security, nowMs),
    view: (challenge) => viewChallenge(ports, challenge),
    sendCode: (pending) => sendCode(ports, pending)
  }
  return challenges
})
