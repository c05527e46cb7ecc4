import { Clock, Effect } from "effect"
import type { Customer } from "../customers/model.ts"
import { liveCustomer } from "../customers/rules.ts"
import { Store } from "../ports/store.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { InvalidInput, LimitExceeded, Refused } from "../shared/errors.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import {
  activeFactor,
  issueChallenge,
  loginSlot,
  proveChallenge,
  sendCode,
  usableFactors,
  viewChallenge
} from "./challenges.ts"
import {
  factorMismatch,
  factorNotUsable,
  noOpenChallenge,
  noOpenPasskeyLogin,
  proofMissing,
  scaNotRequired,
  scaSessionRequired,
  totpCodeReused,
  wrongScaCode
} from "./errors.ts"
import type {
  ScaChallengeRecord,
  ScaLoginComplete,
  ScaLoginCompleteRequest,
  ScaLoginStart,
  ScaLoginStartRequest,
  ScaSecurityRecord,
  ScaSessionRecord
} from "./model.ts"
import type { ScaPorts } from "./ports.ts"
import { countFailure, countSuccess, refuseWhileLocked, settled, totpProof } from "./proofs.ts"
import { isScaSubject } from "./regions.ts"

// The SCA login (S-12 … S-15): an SMS code to the customer's verified phone (or the number a factor reset set), a
// code of its enrolled TOTP factor (or one of its recovery codes), or an assertion of its enrolled passkey over a
// random challenge; then a 180-day session that money movement checks (`requireScaSession`, S-09).

/** S-13, L-09: the SCA session lasts 180 days from the login, not sliding. */
export const SCA_SESSION_SECONDS = 180 * 86_400

type Outcome<A> = { readonly ok: A } | { readonly error: InvalidInput | Refused | LimitExceeded }

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

const smsUnusable = (customer: Customer) =>
  factorNotUsable(
    "SMS_OTP",
    customer.phoneNumber === undefined ? "the customer has no phone number" : "the phone number is not verified"
  )

/** The customer's active factor of a kind, or 400 on `factor`. */
const enrolled = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  factor: "TOTP" | "PASSKEY",
  forUpdate: boolean
) {
  const found = yield* activeFactor(ports, customerId, factor, forUpdate)
  if (found === undefined) return yield* factorNotUsable(factor, "it is not enrolled")
  return found
})

/**
 * A login's challenge in the customer's login slot (superseding an open one): an SMS code to the customer's number
 * (429 within 60 s of the last one, L-14), or a passkey challenge (32 random bytes behind the hash). TOTP issues
 * nothing: the code comes from the customer's app (upstream: no challengeId, no expiresAt).
 */
export const startLogin = Effect.fnUntraced(function* (ports: ScaPorts, customerId: string, req: ScaLoginStartRequest) {
  const { store } = ports
  const started = yield* store.transaction(
    Effect.gen(function* () {
      const customer = yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
      const nowMs = yield* Clock.currentTimeMillis
      yield* refuseWhileLocked(yield* store.scaSecurity.get(customerId), nowMs)
      if (req.factor === "TOTP") return { totp: yield* enrolled(ports, customerId, "TOTP", false) }
      const usable = yield* usableFactors(ports, customer)
      if (req.factor === "PASSKEY") yield* enrolled(ports, customerId, "PASSKEY", false)
      else if (usable.smsTo === undefined) return yield* smsUnusable(customer)
      return yield* issueChallenge(
        ports,
        {
          customerId,
          kind: "LOGIN",
          step: 1,
          factor: req.factor,
          availableFactors: [req.factor],
          openSlot: loginSlot(customerId),
          smsTo: usable.smsTo
        },
        nowMs
      )
    })
  )
  if ("totp" in started) return { factor: "TOTP" } satisfies ScaLoginStart as ScaLoginStart
  yield* sendCode(ports, started.code)
  const { challenge } = started
  if (challenge.factor === "SMS_OTP") {
    const answer: ScaLoginStart = { factor: "SMS_OTP", challengeId: challenge.id, expiresAt: challenge.expiresAt }
    return answer
  }
  const view = yield* viewChallenge(ports, challenge)
  const answer: ScaLoginStart = {
    factor: "PASSKEY",
    ...(view.passkeyAssertionOptions === undefined ? {} : { passkeyOptions: view.passkeyAssertionOptions }),
    allowedOrigins: view.passkeyAllowedOrigins ?? [],
    relyingPartyId: view.passkeyAssertionOptions?.rpId ?? ""
  }
  return answer
})

/** A 180-day session opened by a passed login challenge (S-13). */
const openSession = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  challenge: ScaChallengeRecord,
  endUserIp: string,
  nowMs: number
) {
  const { store, ids } = ports
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
  ports: ScaPorts,
  customerId: string,
  req: ScaLoginCompleteRequest,
  security: ScaSecurityRecord | undefined,
  nowMs: number
) {
  const { store, ids, notifier, vault } = ports
  type Result = Outcome<ScaLoginComplete>
  if (req.code === undefined) return { error: proofMissing("code", req.factor) } as Result
  const factor = yield* Effect.result(enrolled(ports, customerId, "TOTP", true))
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
  return { ok: yield* openSession(ports, customerId, challenge, req.endUserIpAddress, nowMs) } as Result
})

/**
 * The open login challenge a complete names: an SMS login by its `challengeId`, a passkey login by the customer's
 * login slot (the body carries no id). A challenge of another factor is 400, uncounted.
 */
const openLogin = Effect.fnUntraced(function* (ports: ScaPorts, customerId: string, req: ScaLoginCompleteRequest) {
  const { store } = ports
  type Found = { readonly challenge: ScaChallengeRecord } | { readonly error: InvalidInput }
  // What the factor's proof needs comes first: a body without it says nothing about any challenge.
  const missing =
    req.factor === "PASSKEY"
      ? (["passkeyAssertion", "origin"] as const).find((field) => req[field] === undefined)
      : (["challengeId", "code"] as const).find((field) => req[field] === undefined)
  if (missing !== undefined) return { error: proofMissing(missing, req.factor) } as Found
  if (req.factor === "PASSKEY" && (yield* activeFactor(ports, customerId, "PASSKEY", false)) === undefined) {
    return { error: factorNotUsable("PASSKEY", "it is not enrolled") } as Found
  }
  const id =
    req.factor === "SMS_OTP"
      ? req.challengeId
      : (yield* store.scaChallenges.findUnique("openSlot", loginSlot(customerId)))?.id
  const challenge = id === undefined ? undefined : yield* store.scaChallenges.getForUpdate(id)
  const open =
    challenge !== undefined &&
    challenge.customerId === customerId &&
    challenge.kind === "LOGIN" &&
    challenge.status === "OPEN"
  if (!open) return { error: req.factor === "PASSKEY" ? noOpenPasskeyLogin() : noOpenChallenge() } as Found
  if (challenge.factor !== req.factor) return { error: factorMismatch(challenge.factor) } as Found
  return { challenge } as Found
})

/**
 * The login's proof (S-12, S-13, S-15): the code, the TOTP code or the passkey assertion of the started login opens a
 * 180-day session.
 */
export const completeLogin = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  req: ScaLoginCompleteRequest
) {
  const { store } = ports
  // A wrong or late proof is a failure the caller sees, but it must be counted: the transaction commits the count
  // and answers the failure as a value.
  const outcome: Outcome<ScaLoginComplete> = yield* store.transaction(
    Effect.gen(function* () {
      // The customer's row is the lock of its proofs: concurrent completes count their failures one after the
      // other (the security row may not exist yet, so it cannot be the lock).
      yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
      const nowMs = yield* Clock.currentTimeMillis
      const security = yield* store.scaSecurity.get(customerId)
      yield* refuseWhileLocked(security, nowMs)
      if (req.factor === "TOTP") return yield* completeTotp(ports, customerId, req, security, nowMs)
      const found = yield* openLogin(ports, customerId, req)
      if ("error" in found) return found
      const proved = yield* proveChallenge(ports, found.challenge, req, security, nowMs)
      if (proved._tag !== "Passed") return { error: proved.error }
      return { ok: yield* openSession(ports, customerId, proved.challenge, req.endUserIpAddress, nowMs) }
    })
  )
  if ("error" in outcome) return yield* outcome.error
  return outcome.ok
})

/** The live session of a subject customer (S-09): `requireScaSession` after the subject checks. */
export const requireSession = Effect.fnUntraced(function* (ports: ScaPorts, customerId: string) {
  const { store } = ports
  yield* subjectCustomer(yield* store.customers.get(customerId), customerId)
  return yield* Effect.provideService(requireScaSession(customerId), Store, store)
})
