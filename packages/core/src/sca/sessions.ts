import { Clock, Effect, Redacted } from "effect"
import type { Customer } from "../customers/model.ts"
import { liveCustomer } from "../customers/service.ts"
import { PlatformConfigService } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { KycProvider } from "../ports/kyc.ts"
import { Notifier } from "../ports/notifier.ts"
import { Store } from "../ports/store.ts"
import { codeDigest, codeMatches } from "../shared/digests.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { InvalidInput, Refused } from "../shared/errors.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import {
  factorMismatch,
  factorNotUsable,
  noOpenChallenge,
  noOpenPasskeyLogin,
  passkeyChallengeExpired,
  proofMissing,
  scaCodeExpired,
  scaCodeTooSoon,
  scaNotRequired,
  scaSessionRequired,
  totpCodeReused,
  wrongPasskeyAssertion,
  wrongScaCode
} from "./errors.ts"
import type {
  ScaChallengeRecord,
  ScaFactorRecord,
  ScaLoginComplete,
  ScaLoginCompleteRequest,
  ScaLoginStart,
  ScaLoginStartRequest,
  ScaSecurityRecord,
  ScaSessionRecord
} from "./model.ts"
import { type PasskeyRelyingParty, passkeyAssertionOptions, passkeyProof, scaRelyingParty } from "./passkey-factor.ts"
import { countFailure, countSuccess, factorSlot, refuseWhileLocked, settled, totpProof } from "./proofs.ts"
import { isScaSubject } from "./regions.ts"

// The SCA login (S-12 … S-15): an SMS code to the customer's verified phone (or the number a factor reset set), a
// code of its enrolled TOTP factor (or one of its recovery codes), or an assertion of its enrolled passkey over a
// random challenge; then a 180-day session that money movement checks (`requireScaSession`, S-09).

/** How long a login code can be used (upstream examples: 5 min). */
export const SCA_CHALLENGE_SECONDS = 300
/** S-13, L-09: the SCA session lasts 180 days from the login, not sliding. */
export const SCA_SESSION_SECONDS = 180 * 86_400
/** L-14: the shortest wait between two login codes of one customer (429 `RATE_LIMITED` with `Retry-After`). */
export const SCA_CODE_RESEND_SECONDS = 60

/** The `openSlot` of a customer's login challenge: one open at a time (a new start supersedes it). */
export const loginSlot = (customerId: string) => `LOGIN|${customerId}`

type Outcome<A> = { readonly ok: A } | { readonly error: InvalidInput | Refused }

/**
 * The customer, when it is subject to SCA: 404 `USER_NOT_FOUND`, 410 `CUSTOMER_DELETED`, then 409 `CONFLICT` for a
 * customer outside the SCA regions (S-01). The first checks of every SCA route, in the plan's order.
 */
export const subjectCustomer = Effect.fnUntraced(function* (customer: Customer | undefined, customerId: string) {
  const live = yield* liveCustomer(customer, customerId)
  const settings = yield* EngineConfig
  if (!isScaSubject(live, settings)) return yield* scaNotRequired(customerId)
  return live
})

/**
 * The customer's live SCA session (not revoked, `expiresAt` ahead), or 409 `SCA_SESSION_REQUIRED` (S-09, C-38).
 * Money movement and factor changes of a subject customer call it first (later slices); inside the caller's
 * transaction when it has one.
 */
export const requireScaSession = Effect.fnUntraced(function* (customerId: string) {
  const store = yield* Store
  const nowMs = yield* Clock.currentTimeMillis
  const page = yield* store.scaSessions.list(
    { customerId, expiresAfter: isoOf(nowMs), includeRevoked: false },
    { limit: 1, sortOrder: "desc" }
  )
  const session = page.data[0]
  if (session === undefined) return yield* scaSessionRequired(customerId)
  return session
})

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

/** The login use cases of `Sca`, over the ports of the layer that builds them. */
export const makeSessions = Effect.fnUntraced(function* () {
  const store = yield* Store
  const ids = yield* Ids
  const notifier = yield* Notifier
  const kyc = yield* KycProvider
  const vault = yield* KeyVault
  const platform = yield* PlatformConfigService
  const smsNumber = (customer: Customer) =>
    Effect.map(store.scaFactors.findUnique("slot", factorSlot(customer.id, "SMS_OTP")), (sms) =>
      smsNumberOf(kyc, customer, sms)
    )

  const smsUnusable = (customer: Customer) =>
    factorNotUsable(
      "SMS_OTP",
      customer.phoneNumber === undefined ? "the customer has no phone number" : "the phone number is not verified"
    )

  const newCode = Effect.map(ids.randomHex(4), (hex) => String(Number.parseInt(hex, 16) % 1_000_000).padStart(6, "0"))

  /** The customer's active TOTP factor, or 400 on `factor`. */
  const activeTotp = Effect.fnUntraced(function* (customerId: string, forUpdate: boolean) {
    const found = yield* store.scaFactors.findUnique("slot", factorSlot(customerId, "TOTP"))
    const factor = found !== undefined && forUpdate ? yield* store.scaFactors.getForUpdate(found.id) : found
    if (factor === undefined || factor.status !== "ACTIVE") return yield* factorNotUsable("TOTP", "it is not enrolled")
    return factor
  })

  /** The customer's active passkey, or 400 on `factor`. */
  const activePasskey = Effect.fnUntraced(function* (customerId: string, forUpdate: boolean) {
    const found = yield* store.scaFactors.findUnique("slot", factorSlot(customerId, "PASSKEY"))
    const factor = found !== undefined && forUpdate ? yield* store.scaFactors.getForUpdate(found.id) : found
    if (factor?.status !== "ACTIVE" || factor.credentialId === undefined) {
      return yield* factorNotUsable("PASSKEY", "it is not enrolled")
    }
    return { ...factor, credentialId: factor.credentialId }
  })

  /** Settles the customer's open login challenge before a new one takes the slot. */
  const closeOpenLogin = Effect.fnUntraced(function* (open: ScaChallengeRecord, nowMs: number) {
    const event = nowMs >= Date.parse(open.expiresAt) ? "EXPIRE" : "SUPERSEDE"
    yield* Effect.orDie(store.scaChallenges.update(settled(open, event, nowMs)))
  })

  /**
   * A passkey login's challenge: 32 random bytes as 64 hex, open 300 s in the login slot (superseding an open
   * login). No SMS goes, so no wait applies to it; an SMS start after it waits 60 s as after any login start.
   */
  const startPasskey = Effect.fnUntraced(function* (customerId: string, rp: PasskeyRelyingParty, nowMs: number) {
    const passkey = yield* activePasskey(customerId, false)
    const open = yield* store.scaChallenges.findUnique("openSlot", loginSlot(customerId))
    if (open !== undefined) yield* closeOpenLogin(open, nowMs)
    const challengeHex = yield* ids.randomHex(32)
    const challenge: ScaChallengeRecord = {
      id: yield* ids.make("ScaChallenge"),
      customerId,
      kind: "LOGIN",
      step: 1,
      factor: "PASSKEY",
      availableFactors: ["PASSKEY"],
      status: "OPEN",
      passkeyChallenge: challengeHex,
      attempts: 0,
      sends: 0,
      createdAt: isoOf(nowMs),
      expiresAt: isoAfter(nowMs, SCA_CHALLENGE_SECONDS),
      openSlot: loginSlot(customerId)
    }
    yield* Effect.orDie(store.scaChallenges.insert(challenge))
    const answer: ScaLoginStart = {
      factor: "PASSKEY",
      passkeyOptions: passkeyAssertionOptions(challengeHex, rp.rpId, passkey.credentialId),
      allowedOrigins: rp.origins,
      relyingPartyId: rp.rpId
    }
    return answer
  })

  const startLogin = Effect.fn("Sca.startLogin")(function* (customerId: string, req: ScaLoginStartRequest) {
    const rp = req.factor === "PASSKEY" ? scaRelyingParty(yield* platform.get()) : undefined
    const started = yield* store.transaction(
      Effect.gen(function* () {
        const customer = yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
        const nowMs = yield* Clock.currentTimeMillis
        yield* refuseWhileLocked(yield* store.scaSecurity.get(customerId), nowMs)
        // TOTP issues nothing: the code comes from the customer's app (upstream: no challengeId, no expiresAt).
        if (req.factor === "TOTP") return { totp: yield* activeTotp(customerId, false) }
        if (req.factor === "PASSKEY") return { passkey: yield* startPasskey(customerId, rp!, nowMs) }
        const to = yield* smsNumber(customer)
        if (to === undefined) return yield* smsUnusable(customer)
        const open = yield* store.scaChallenges.findUnique("openSlot", loginSlot(customerId))
        if (open !== undefined) {
          const waitMs = Date.parse(open.lastSentAt ?? open.createdAt) + SCA_CODE_RESEND_SECONDS * 1000 - nowMs
          if (waitMs > 0) return yield* scaCodeTooSoon(Math.ceil(waitMs / 1000))
          yield* closeOpenLogin(open, nowMs)
        }
        const id = yield* ids.make("ScaChallenge")
        const code = notifier.fixedCode ?? (yield* newCode)
        const challenge: ScaChallengeRecord = {
          id,
          customerId,
          kind: "LOGIN",
          step: 1,
          factor: "SMS_OTP",
          availableFactors: ["SMS_OTP"],
          status: "OPEN",
          codeSha256: codeDigest(id, code),
          attempts: 0,
          sends: 1,
          lastSentAt: isoOf(nowMs),
          createdAt: isoOf(nowMs),
          expiresAt: isoAfter(nowMs, SCA_CHALLENGE_SECONDS),
          openSlot: loginSlot(customerId)
        }
        yield* Effect.orDie(store.scaChallenges.insert(challenge))
        return { challenge, to, code: Redacted.make(code) }
      })
    )
    if ("totp" in started) return { factor: "TOTP" } satisfies ScaLoginStart as ScaLoginStart
    if ("passkey" in started) return started.passkey
    // Sent once the challenge is stored (a store transaction may run again; a message must go once).
    yield* notifier.send("SMS", started.to, started.code)
    const answer: ScaLoginStart = {
      factor: started.challenge.factor,
      challengeId: started.challenge.id,
      expiresAt: started.challenge.expiresAt
    }
    return answer
  })

  /** A 180-day session opened by a passed login challenge (S-13). */
  const openSession = Effect.fnUntraced(function* (
    customerId: string,
    challenge: ScaChallengeRecord,
    endUserIp: string,
    nowMs: number
  ) {
    const session: ScaSessionRecord = {
      id: yield* ids.make("ScaSession"),
      customerId,
      factor: challenge.factor,
      endUserIp,
      challengeId: challenge.id,
      createdAt: isoOf(nowMs),
      expiresAt: isoAfter(nowMs, SCA_SESSION_SECONDS)
    }
    yield* Effect.orDie(store.scaSessions.insert(session))
    const complete: ScaLoginComplete = { status: "SUCCESS", sessionExpiresAt: session.expiresAt }
    return complete
  })

  /**
   * A TOTP login (S-14, S-15): a current code of the enrolled factor (its step after the last one used), the sandbox
   * code, or an unused recovery code (then spent). A wrong code is counted; a reused one is refused uncounted (a
   * client's double submit must not feed the lock). The proof is kept as a `LOGIN` challenge passed at once: the
   * session's `challengeId`.
   */
  const completeTotp = Effect.fnUntraced(function* (
    customerId: string,
    req: ScaLoginCompleteRequest,
    security: ScaSecurityRecord | undefined,
    nowMs: number
  ) {
    type Result = Outcome<ScaLoginComplete>
    if (req.code === undefined) return { error: proofMissing("code", req.factor) } as Result
    const factor = yield* Effect.result(activeTotp(customerId, true))
    if (factor._tag === "Failure") return { error: factor.failure } as Result
    const proof = yield* totpProof(vault, factor.success, req.code, nowMs, {
      sandboxCode: notifier.fixedCode,
      recovery: true
    })
    if (proof._tag === "Reused") return { error: totpCodeReused() } as Result
    if (proof._tag === "Wrong") {
      return { error: yield* countFailure(store, customerId, security, nowMs, wrongScaCode) } as Result
    }
    yield* Effect.orDie(store.scaFactors.update(proof.factor))
    const open: ScaChallengeRecord = {
      id: yield* ids.make("ScaChallenge"),
      customerId,
      kind: "LOGIN",
      step: 1,
      factor: "TOTP",
      availableFactors: ["TOTP"],
      status: "OPEN",
      attempts: 0,
      sends: 0,
      createdAt: isoOf(nowMs),
      expiresAt: isoOf(nowMs)
    }
    const challenge = settled(open, "PASS", nowMs)
    yield* Effect.orDie(store.scaChallenges.insert(challenge))
    yield* countSuccess(store, security, nowMs)
    return { ok: yield* openSession(customerId, challenge, req.endUserIpAddress, nowMs) } as Result
  })

  /**
   * A passkey login (S-12): an assertion of the enrolled passkey over the open login's challenge, from one of the
   * relying party's origins (the body's `origin` is the one the client data must carry). A wrong or late assertion
   * is counted; the challenge stays open after a wrong one, as an SMS code's does.
   */
  const completePasskey = Effect.fnUntraced(function* (
    customerId: string,
    req: ScaLoginCompleteRequest,
    rp: PasskeyRelyingParty,
    security: ScaSecurityRecord | undefined,
    nowMs: number
  ) {
    type Result = Outcome<ScaLoginComplete>
    if (req.passkeyAssertion === undefined) return { error: proofMissing("passkeyAssertion", req.factor) } as Result
    if (req.origin === undefined) return { error: proofMissing("origin", req.factor) } as Result
    const passkey = yield* Effect.result(activePasskey(customerId, true))
    if (passkey._tag === "Failure") return { error: passkey.failure } as Result
    const found = yield* store.scaChallenges.findUnique("openSlot", loginSlot(customerId))
    const challenge = found === undefined ? undefined : yield* store.scaChallenges.getForUpdate(found.id)
    if (challenge === undefined || challenge.status !== "OPEN") return { error: noOpenPasskeyLogin() } as Result
    if (challenge.factor !== "PASSKEY" || challenge.passkeyChallenge === undefined) {
      return { error: factorMismatch(challenge.factor) } as Result
    }
    if (nowMs >= Date.parse(challenge.expiresAt)) {
      yield* Effect.orDie(store.scaChallenges.update(settled(challenge, "EXPIRE", nowMs)))
      return { error: yield* countFailure(store, customerId, security, nowMs, passkeyChallengeExpired) } as Result
    }
    const proof = yield* passkeyProof(
      passkey.success,
      req.passkeyAssertion,
      req.origin,
      challenge.passkeyChallenge,
      rp,
      nowMs
    )
    if (proof._tag === "Wrong") {
      yield* Effect.orDie(
        store.scaChallenges.update({ ...challenge, attempts: challenge.attempts + 1, lastFailedAt: isoOf(nowMs) })
      )
      return { error: yield* countFailure(store, customerId, security, nowMs, wrongPasskeyAssertion) } as Result
    }
    yield* Effect.orDie(store.scaFactors.update(proof.factor))
    yield* Effect.orDie(store.scaChallenges.update(settled(challenge, "PASS", nowMs)))
    yield* countSuccess(store, security, nowMs)
    return { ok: yield* openSession(customerId, challenge, req.endUserIpAddress, nowMs) } as Result
  })

  const completeLogin = Effect.fn("Sca.completeLogin")(function* (customerId: string, req: ScaLoginCompleteRequest) {
    const rp = req.factor === "PASSKEY" ? scaRelyingParty(yield* platform.get()) : undefined
    // A wrong or late code is a failure the caller sees, but it must be counted: the transaction commits the count
    // and answers the failure as a value.
    const outcome: Outcome<ScaLoginComplete> = yield* store.transaction(
      Effect.gen(function* () {
        // The customer's row is the lock of its proofs: concurrent completes count their failures one after the
        // other (the security row may not exist yet, so it cannot be the lock).
        yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
        const nowMs = yield* Clock.currentTimeMillis
        const security = yield* store.scaSecurity.get(customerId)
        yield* refuseWhileLocked(security, nowMs)
        if (req.factor === "TOTP") return yield* completeTotp(customerId, req, security, nowMs)
        if (req.factor === "PASSKEY") return yield* completePasskey(customerId, req, rp!, security, nowMs)
        if (req.challengeId === undefined) return { error: proofMissing("challengeId", req.factor) }
        if (req.code === undefined) return { error: proofMissing("code", req.factor) }
        const challenge = yield* store.scaChallenges.getForUpdate(req.challengeId)
        if (
          challenge === undefined ||
          challenge.customerId !== customerId ||
          challenge.kind !== "LOGIN" ||
          challenge.status !== "OPEN"
        ) {
          return { error: noOpenChallenge() }
        }
        if (challenge.factor !== req.factor) return { error: factorMismatch(challenge.factor) }
        if (nowMs >= Date.parse(challenge.expiresAt)) {
          yield* Effect.orDie(store.scaChallenges.update(settled(challenge, "EXPIRE", nowMs)))
          return { error: yield* countFailure(store, customerId, security, nowMs, scaCodeExpired) }
        }
        const good = challenge.codeSha256 !== undefined && codeMatches(challenge.id, req.code, challenge.codeSha256)
        if (!good) {
          yield* Effect.orDie(
            store.scaChallenges.update({ ...challenge, attempts: challenge.attempts + 1, lastFailedAt: isoOf(nowMs) })
          )
          return { error: yield* countFailure(store, customerId, security, nowMs, wrongScaCode) }
        }
        yield* Effect.orDie(store.scaChallenges.update(settled(challenge, "PASS", nowMs)))
        yield* countSuccess(store, security, nowMs)
        return { ok: yield* openSession(customerId, challenge, req.endUserIpAddress, nowMs) }
      })
    )
    if ("error" in outcome) return yield* outcome.error
    return outcome.ok
  })

  const requireSession = Effect.fn("Sca.requireSession")(function* (customerId: string) {
    yield* subjectCustomer(yield* store.customers.get(customerId), customerId)
    return yield* Effect.provideService(requireScaSession(customerId), Store, store)
  })

  return { startLogin, completeLogin, requireSession }
})
