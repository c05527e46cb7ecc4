import { hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { base64urlnopad } from "@scure/base"
import { Clock, Effect, Result } from "effect"
import type { Customer } from "../customers/model.ts"
import { Store } from "../ports/store.ts"
import { constantTimeEqual } from "../shared/constant-time.ts"
import type { Conflict, InvalidInput, Refused } from "../shared/errors.ts"
import { transition } from "../shared/machine.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import { smsNumberOf } from "./challenges.ts"
import {
  enrolmentExpired,
  noPendingEnrolment,
  noPendingPasskeyEnrolment,
  passkeyAlreadyEnrolled,
  passkeyEnrolmentExpired,
  scaFactorNotFound,
  totpCodeReused,
  wrongPasskeyCredential,
  wrongScaCode
} from "./errors.ts"
import { type ScaFactorEvent, scaFactorMachine } from "./machine.ts"
import type {
  PasskeyEnrollmentConfirmRequest,
  PasskeyEnrollmentStart,
  ScaFactorConfirmRequest,
  ScaFactorConfirmResponse,
  ScaFactorEnrollRequest,
  ScaFactorEnrollStart,
  ScaFactorList,
  ScaFactorRecord,
  ScaFactorView,
  ScaSecurityRecord,
  TotpEnrollmentConfirmRequest,
  TotpEnrollmentStart
} from "./model.ts"
import {
  PASSKEY_ENROLMENT_SECONDS,
  type PasskeyRelyingParty,
  passkeyCreationOptions,
  passkeyRegistration,
  scaRelyingParty
} from "./passkey-factor.ts"
import type { ScaPorts } from "./ports.ts"
import { countFailure, countSuccess, factorSlot, refuseWhileLocked, totpProof } from "./proofs.ts"
import { requireScaSession, subjectCustomer } from "./sessions.ts"
import {
  base32Of,
  RECOVERY_CODE_COUNT,
  recoveryCodeHash,
  recoveryCodeOf,
  TOTP_ENROLMENT_SECONDS,
  TOTP_SECRET_BYTES,
  totpUri,
  totpVaultContext
} from "./totp.ts"

// The SCA factors (S-02): the list; TOTP enrolment (start → confirm with a first code → ten recovery codes); PASSKEY
// enrolment (start → WebAuthn registration options → confirm with the device's credential; one passkey per
// customer); removal. Enrolment and removal need a live SCA session (S-09): the customer proved itself with a
// factor it already has.

type Outcome<A> = { readonly ok: A } | { readonly error: InvalidInput | Refused | Conflict }

/** The factor after a move of its machine; leaving a state frees the slot it held. */
export const movedFactor = (factor: ScaFactorRecord, event: ScaFactorEvent, nowMs: number): ScaFactorRecord => {
  const move = transition(scaFactorMachine, factor.status, event)
  // Every caller moves a factor it read in the state the event leaves: another state here is a bug.
  if (Result.isFailure(move)) throw move.failure
  const to = move.success.to
  const slot = factorSlot(factor.customerId, factor.factor)
  return {
    ...factor,
    status: to,
    slot: to === "ACTIVE" ? slot : undefined,
    pendingSlot: to === "PENDING" ? slot : undefined,
    updatedAt: isoOf(nowMs)
  }
}

/**
 * How `GET /sca/factors` shows an enrolled factor: a passkey's `credentialId` is its WebAuthn credential id, a TOTP
 * factor's its own id; either deletes it.
 */
const viewOf = (factor: ScaFactorRecord): ScaFactorView => ({
  factor: factor.factor,
  credentialId: factor.credentialId ?? factor.id,
  ...(factor.name === undefined ? {} : { name: factor.name })
})

/** 409 `SCA_SESSION_REQUIRED` unless the customer has a live SCA session (S-09), in the caller's transaction. */
const liveSession = (ports: ScaPorts, customerId: string) =>
  Effect.provideService(requireScaSession(customerId), Store, ports.store)

/** The factors the customer can use: SMS when usable, then its enrolled factors. */
export const listFactors = Effect.fnUntraced(function* (ports: ScaPorts, customerId: string) {
  const { store, kyc } = ports
  const customer = yield* subjectCustomer(yield* store.customers.get(customerId), customerId)
  const active = yield* store.scaFactors.list({ customerId, status: "ACTIVE" }, { limit: 100, sortOrder: "asc" })
  // An SMS_OTP row only holds the number a reset set: SMS is listed when usable, as for every customer.
  const sms = active.data.find((factor) => factor.factor === "SMS_OTP")
  const list: ScaFactorList = {
    factors: [
      ...(smsNumberOf(kyc, customer, sms) === undefined ? [] : [{ factor: "SMS_OTP" as const }]),
      ...active.data.filter((factor) => factor.factor !== "SMS_OTP").map(viewOf)
    ]
  }
  return list
})

/**
 * A new PENDING enrolment of `factor` in its pending slot, holding what its confirm must match (`proof`: the TOTP
 * secret, sealed, or the passkey's WebAuthn challenge) for `seconds`.
 */
const insertPendingFactor = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  factor: "TOTP" | "PASSKEY",
  proof: Pick<ScaFactorRecord, "totpSecretSealed" | "enrolChallenge">,
  seconds: number,
  nowMs: number
) {
  const { store, ids } = ports
  const pending: ScaFactorRecord = {
    id: yield* ids.make("ScaFactor"),
    customerId,
    factor,
    status: "PENDING",
    ...proof,
    enrolExpiresAt: isoAfter(nowMs, seconds),
    createdAt: isoOf(nowMs),
    updatedAt: isoOf(nowMs),
    pendingSlot: factorSlot(customerId, factor)
  }
  yield* Effect.orDie(store.scaFactors.insert(pending))
})

/** A new TOTP secret, sealed at rest, pending for 600 s. */
const startTotp = Effect.fnUntraced(function* (ports: ScaPorts, customer: Customer, issuer: string, nowMs: number) {
  const { ids, vault } = ports
  const secret = yield* ids.randomHex(TOTP_SECRET_BYTES)
  const totpSecretSealed = yield* vault.seal(utf8ToBytes(secret), totpVaultContext(customer.id))
  yield* insertPendingFactor(ports, customer.id, "TOTP", { totpSecretSealed }, TOTP_ENROLMENT_SECONDS, nowMs)
  const start: TotpEnrollmentStart = {
    type: "TOTP",
    secret,
    secretBase32Encoded: base32Of(secret),
    totpUri: totpUri(secret, issuer, customer.email ?? customer.id)
  }
  return start
})

/** A new passkey enrolment: a random WebAuthn challenge, pending for 600 s, and the registration options. */
const startPasskey = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customer: Customer,
  issuer: string,
  rp: PasskeyRelyingParty,
  nowMs: number
) {
  const { ids } = ports
  const challenge = base64urlnopad.encode(hexToBytes(yield* ids.randomHex(32)))
  yield* insertPendingFactor(
    ports,
    customer.id,
    "PASSKEY",
    { enrolChallenge: challenge },
    PASSKEY_ENROLMENT_SECONDS,
    nowMs
  )
  const start: PasskeyEnrollmentStart = {
    type: "PASSKEY",
    options: passkeyCreationOptions(
      challenge,
      { id: rp.rpId, name: issuer },
      { customerId: customer.id, name: customer.email ?? customer.id }
    ),
    allowedOrigins: rp.origins,
    relyingPartyId: rp.rpId
  }
  return start
})

/** An enrolment's start (S-02): a TOTP secret or a passkey's registration options, replacing a pending one. */
export const startFactorEnrollment = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  req: ScaFactorEnrollRequest
) {
  const { store, platform } = ports
  const config = yield* platform.get()
  const issuer = config.embeddedWalletConfig?.appName ?? "paycore"
  return yield* store.transaction(
    Effect.gen(function* () {
      const customer = yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
      const nowMs = yield* Clock.currentTimeMillis
      yield* refuseWhileLocked(yield* store.scaSecurity.get(customerId), nowMs)
      yield* liveSession(ports, customerId)
      const slot = factorSlot(customerId, req.type)
      // One passkey per customer (upstream): a new one after the old one is deleted. A TOTP is replaced on confirm.
      if (req.type === "PASSKEY" && (yield* store.scaFactors.findUnique("slot", slot)) !== undefined) {
        return yield* passkeyAlreadyEnrolled(customerId)
      }
      // A new start replaces a pending enrolment: its secret or challenge is never good again.
      const pending = yield* store.scaFactors.findUnique("pendingSlot", slot)
      if (pending !== undefined) yield* Effect.orDie(store.scaFactors.update(movedFactor(pending, "RESTART", nowMs)))
      const start: ScaFactorEnrollStart =
        req.type === "TOTP"
          ? yield* startTotp(ports, customer, issuer, nowMs)
          : yield* startPasskey(ports, customer, issuer, scaRelyingParty(config), nowMs)
      return start
    })
  )
})

/** The customer's pending enrolment of `factor`, locked, or `undefined`. */
const pendingEnrolment = Effect.fnUntraced(function* (ports: ScaPorts, customerId: string, factor: "TOTP" | "PASSKEY") {
  const { store } = ports
  const found = yield* store.scaFactors.findUnique("pendingSlot", factorSlot(customerId, factor))
  return found === undefined ? undefined : yield* store.scaFactors.getForUpdate(found.id)
})

/** The TOTP confirm: the start's secret threads it to its enrolment, a current code proves the app has it. */
const confirmTotp = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  req: TotpEnrollmentConfirmRequest,
  security: ScaSecurityRecord | undefined,
  nowMs: number
) {
  const { store, ids, notifier, vault } = ports
  type Result = Outcome<ScaFactorConfirmResponse>
  const pending = yield* pendingEnrolment(ports, customerId, "TOTP")
  const opened =
    pending?.totpSecretSealed === undefined
      ? undefined
      : yield* vault.open(pending.totpSecretSealed, totpVaultContext(customerId))
  // The secret threads the confirm to its start (upstream): another one is no pending enrolment (not counted).
  if (pending === undefined || opened === undefined || !constantTimeEqual(opened, utf8ToBytes(req.secret))) {
    return { error: noPendingEnrolment() } as Result
  }
  if (pending.enrolExpiresAt !== undefined && nowMs >= Date.parse(pending.enrolExpiresAt)) {
    yield* Effect.orDie(store.scaFactors.update(movedFactor(pending, "EXPIRE", nowMs)))
    return { error: yield* countFailure(store, customerId, security, nowMs, enrolmentExpired) } as Result
  }
  const proof = yield* totpProof(vault, pending, req.code, nowMs, {
    sandboxCode: notifier.fixedCode,
    recovery: false
  })
  if (proof._tag === "Reused") return { error: totpCodeReused() } as Result
  if (proof._tag === "Wrong") {
    return { error: yield* countFailure(store, customerId, security, nowMs, wrongScaCode) } as Result
  }
  // A confirmed TOTP replaces the one enrolled before (one per customer).
  const active = yield* store.scaFactors.findUnique("slot", factorSlot(customerId, "TOTP"))
  if (active !== undefined) yield* Effect.orDie(store.scaFactors.update(movedFactor(active, "REPLACE", nowMs)))
  const recoveryCodes: Array<string> = []
  for (let i = 0; i < RECOVERY_CODE_COUNT; i++) recoveryCodes.push(recoveryCodeOf(yield* ids.randomHex(12)))
  const { enrolExpiresAt: _, ...confirmed } = movedFactor(proof.factor, "CONFIRM", nowMs)
  yield* Effect.orDie(
    store.scaFactors.update({
      ...confirmed,
      recoveryCodeHashes: recoveryCodes.map((code) => recoveryCodeHash(pending.id, code))
    })
  )
  yield* countSuccess(store, security, nowMs)
  return { ok: { type: "TOTP" as const, recoveryCodes } } as Result
})

/**
 * The passkey confirm: the device's registration over the pending enrolment's challenge, from one of the relying
 * party's origins, for its id. A registration that does not verify, or a late one, is counted (C-41).
 */
const confirmPasskey = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  req: PasskeyEnrollmentConfirmRequest,
  rp: PasskeyRelyingParty,
  security: ScaSecurityRecord | undefined,
  nowMs: number
) {
  const { store } = ports
  type Result = Outcome<ScaFactorConfirmResponse>
  const pending = yield* pendingEnrolment(ports, customerId, "PASSKEY")
  if (pending === undefined || pending.enrolChallenge === undefined) {
    return { error: noPendingPasskeyEnrolment() } as Result
  }
  if (pending.enrolExpiresAt !== undefined && nowMs >= Date.parse(pending.enrolExpiresAt)) {
    yield* Effect.orDie(store.scaFactors.update(movedFactor(pending, "EXPIRE", nowMs)))
    return { error: yield* countFailure(store, customerId, security, nowMs, passkeyEnrolmentExpired) } as Result
  }
  const registered = yield* passkeyRegistration(req.credential, req.origin, pending.enrolChallenge, rp)
  if (registered === undefined) {
    return { error: yield* countFailure(store, customerId, security, nowMs, wrongPasskeyCredential) } as Result
  }
  if ((yield* store.scaFactors.findUnique("slot", factorSlot(customerId, "PASSKEY"))) !== undefined) {
    return { error: passkeyAlreadyEnrolled(customerId) } as Result
  }
  const { enrolChallenge: _c, enrolExpiresAt: _e, ...confirmed } = movedFactor(pending, "CONFIRM", nowMs)
  const factor: ScaFactorRecord = { ...confirmed, ...registered }
  yield* Effect.orDie(store.scaFactors.update(factor))
  yield* countSuccess(store, security, nowMs)
  return { ok: { type: "PASSKEY" as const, factor: viewOf(factor) } } as Result
})

/** An enrolment's confirm: a TOTP's first code, or a passkey's registration; a wrong or late proof is counted. */
export const confirmFactorEnrollment = Effect.fnUntraced(function* (
  ports: ScaPorts,
  customerId: string,
  req: ScaFactorConfirmRequest
) {
  const { store, platform } = ports
  const rp = req.type === "PASSKEY" ? scaRelyingParty(yield* platform.get()) : undefined
  // A wrong or late proof is counted, so the transaction commits and answers the failure as a value.
  const outcome: Outcome<ScaFactorConfirmResponse> = yield* store.transaction(
    Effect.gen(function* () {
      // The customer's row is the lock of its proofs (see completeLogin).
      yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
      const nowMs = yield* Clock.currentTimeMillis
      const security = yield* store.scaSecurity.get(customerId)
      yield* refuseWhileLocked(security, nowMs)
      yield* liveSession(ports, customerId)
      return req.type === "TOTP"
        ? yield* confirmTotp(ports, customerId, req, security, nowMs)
        : yield* confirmPasskey(ports, customerId, req, rp!, security, nowMs)
    })
  )
  if ("error" in outcome) return yield* outcome.error
  return outcome.ok
})

/** The customer's active factor `GET /sca/factors` lists with `credentialId`, locked, or `undefined`. */
const factorByCredential = Effect.fnUntraced(function* (ports: ScaPorts, customerId: string, credentialId: string) {
  const { store } = ports
  // A TOTP factor's credential id is its own id; a passkey's is its WebAuthn id (one passkey per customer).
  const ownId = credentialId.startsWith("ScaFactor:")
  const passkey = ownId ? undefined : yield* store.scaFactors.findUnique("slot", factorSlot(customerId, "PASSKEY"))
  const id = ownId ? credentialId : passkey?.id
  const factor = id === undefined ? undefined : yield* store.scaFactors.getForUpdate(id)
  // SMS is not deleted (it is the customer's verified phone): its row is not a listed factor.
  const listed =
    factor !== undefined &&
    factor.customerId === customerId &&
    factor.status === "ACTIVE" &&
    factor.factor !== "SMS_OTP" &&
    (factor.credentialId ?? factor.id) === credentialId
  return listed ? factor : undefined
})

/** Removes an enrolled TOTP or PASSKEY factor of the customer, named by its `credentialId`. */
export const deleteFactor = Effect.fnUntraced(function* (ports: ScaPorts, customerId: string, credentialId: string) {
  const { store } = ports
  yield* store.transaction(
    Effect.gen(function* () {
      yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
      yield* liveSession(ports, customerId)
      const nowMs = yield* Clock.currentTimeMillis
      const factor = yield* factorByCredential(ports, customerId, credentialId)
      if (factor === undefined) return yield* scaFactorNotFound(credentialId)
      yield* Effect.orDie(store.scaFactors.update(movedFactor(factor, "DELETE", nowMs)))
    })
  )
})
