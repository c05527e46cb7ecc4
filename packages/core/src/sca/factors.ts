import { utf8ToBytes } from "@noble/hashes/utils.js"
import { Clock, Effect, Result } from "effect"
import { PlatformConfigService } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { KycProvider } from "../ports/kyc.ts"
import { Notifier } from "../ports/notifier.ts"
import { Store } from "../ports/store.ts"
import { constantTimeEqual } from "../shared/constant-time.ts"
import type { InvalidInput, Refused } from "../shared/errors.ts"
import { transition } from "../shared/machine.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import { enrolmentExpired, noPendingEnrolment, scaFactorNotFound, totpCodeReused, wrongScaCode } from "./errors.ts"
import { scaFactorMachine } from "./machine.ts"
import type {
  ScaFactorEnrollRequest,
  ScaFactorList,
  ScaFactorRecord,
  ScaFactorView,
  TotpEnrollmentConfirmRequest,
  TotpEnrollmentConfirmResponse,
  TotpEnrollmentStart
} from "./model.ts"
import { countFailure, countSuccess, factorSlot, refuseWhileLocked, totpProof } from "./proofs.ts"
import { requireScaSession, smsNumberOf, subjectCustomer } from "./sessions.ts"
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

// The SCA factors (S-02): the list, and TOTP enrolment (start → confirm with a first code → ten recovery codes) and
// removal. Enrolment and removal need a live SCA session (S-09): the customer proved itself with a factor it
// already has. PASSKEY enrolment comes with its slice.

type Outcome<A> = { readonly ok: A } | { readonly error: InvalidInput | Refused }

/** The factor after a move of its machine; leaving a state frees the slot it held. */
const moved = (
  factor: ScaFactorRecord,
  event: "CONFIRM" | "EXPIRE" | "RESTART" | "DELETE" | "REPLACE",
  nowMs: number
): ScaFactorRecord => {
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

/** How `GET /sca/factors` shows an enrolled factor: its id is the `credentialId` that deletes it. */
const viewOf = (factor: ScaFactorRecord): ScaFactorView => ({
  factor: factor.factor,
  credentialId: factor.credentialId ?? factor.id,
  ...(factor.name === undefined ? {} : { name: factor.name })
})

/** The factor use cases of `Sca`, over the ports of the layer that builds them. */
export const makeFactors = Effect.fnUntraced(function* () {
  const store = yield* Store
  const ids = yield* Ids
  const notifier = yield* Notifier
  const kyc = yield* KycProvider
  const platform = yield* PlatformConfigService
  const vault = yield* KeyVault

  /** 409 `SCA_SESSION_REQUIRED` unless the customer has a live SCA session (S-09), in the caller's transaction. */
  const liveSession = (customerId: string) => Effect.provideService(requireScaSession(customerId), Store, store)

  const listFactors = Effect.fn("Sca.listFactors")(function* (customerId: string) {
    const customer = yield* subjectCustomer(yield* store.customers.get(customerId), customerId)
    const active = yield* store.scaFactors.list({ customerId, status: "ACTIVE" }, { limit: 100, sortOrder: "asc" })
    const list: ScaFactorList = {
      factors: [
        ...(smsNumberOf(kyc, customer) === undefined ? [] : [{ factor: "SMS_OTP" as const }]),
        ...active.data.map(viewOf)
      ]
    }
    return list
  })

  const startFactorEnrollment = Effect.fn("Sca.startFactorEnrollment")(function* (
    customerId: string,
    _req: ScaFactorEnrollRequest
  ) {
    const issuer = (yield* platform.get()).embeddedWalletConfig?.appName ?? "paycore"
    return yield* store.transaction(
      Effect.gen(function* () {
        const customer = yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
        const nowMs = yield* Clock.currentTimeMillis
        yield* refuseWhileLocked(yield* store.scaSecurity.get(customerId), nowMs)
        yield* liveSession(customerId)
        // A new start replaces a pending enrolment: its secret is never good again.
        const slot = factorSlot(customerId, "TOTP")
        const pending = yield* store.scaFactors.findUnique("pendingSlot", slot)
        if (pending !== undefined) yield* Effect.orDie(store.scaFactors.update(moved(pending, "RESTART", nowMs)))
        const secret = yield* ids.randomHex(TOTP_SECRET_BYTES)
        const factor: ScaFactorRecord = {
          id: yield* ids.make("ScaFactor"),
          customerId,
          factor: "TOTP",
          status: "PENDING",
          totpSecretSealed: yield* vault.seal(utf8ToBytes(secret), totpVaultContext(customerId)),
          enrolExpiresAt: isoAfter(nowMs, TOTP_ENROLMENT_SECONDS),
          createdAt: isoOf(nowMs),
          updatedAt: isoOf(nowMs),
          pendingSlot: slot
        }
        yield* Effect.orDie(store.scaFactors.insert(factor))
        const start: TotpEnrollmentStart = {
          type: "TOTP",
          secret,
          secretBase32Encoded: base32Of(secret),
          totpUri: totpUri(secret, issuer, customer.email ?? customer.id)
        }
        return start
      })
    )
  })

  const confirmFactorEnrollment = Effect.fn("Sca.confirmFactorEnrollment")(function* (
    customerId: string,
    req: TotpEnrollmentConfirmRequest
  ) {
    // A wrong or late code is counted, so the transaction commits and answers the failure as a value.
    const outcome: Outcome<TotpEnrollmentConfirmResponse> = yield* store.transaction(
      Effect.gen(function* () {
        // The customer's row is the lock of its proofs (see completeLogin).
        yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
        const nowMs = yield* Clock.currentTimeMillis
        const security = yield* store.scaSecurity.get(customerId)
        yield* refuseWhileLocked(security, nowMs)
        yield* liveSession(customerId)
        const slot = factorSlot(customerId, "TOTP")
        const found = yield* store.scaFactors.findUnique("pendingSlot", slot)
        const pending = found === undefined ? undefined : yield* store.scaFactors.getForUpdate(found.id)
        const opened =
          pending?.totpSecretSealed === undefined
            ? undefined
            : yield* vault.open(pending.totpSecretSealed, totpVaultContext(customerId))
        // The secret threads the confirm to its start (upstream): another one is no pending enrolment (not counted).
        if (pending === undefined || opened === undefined || !constantTimeEqual(opened, utf8ToBytes(req.secret))) {
          return { error: noPendingEnrolment() }
        }
        if (pending.enrolExpiresAt !== undefined && nowMs >= Date.parse(pending.enrolExpiresAt)) {
          yield* Effect.orDie(store.scaFactors.update(moved(pending, "EXPIRE", nowMs)))
          return { error: yield* countFailure(store, customerId, security, nowMs, enrolmentExpired) }
        }
        const proof = yield* totpProof(vault, pending, req.code, nowMs, {
          sandboxCode: notifier.fixedCode,
          recovery: false
        })
        if (proof._tag === "Reused") return { error: totpCodeReused() }
        if (proof._tag === "Wrong") {
          return { error: yield* countFailure(store, customerId, security, nowMs, wrongScaCode) }
        }
        // A confirmed TOTP replaces the one enrolled before (one per customer).
        const active = yield* store.scaFactors.findUnique("slot", slot)
        if (active !== undefined) yield* Effect.orDie(store.scaFactors.update(moved(active, "REPLACE", nowMs)))
        const recoveryCodes: Array<string> = []
        for (let i = 0; i < RECOVERY_CODE_COUNT; i++) recoveryCodes.push(recoveryCodeOf(yield* ids.randomHex(12)))
        const { enrolExpiresAt: _, ...confirmed } = moved(proof.factor, "CONFIRM", nowMs)
        yield* Effect.orDie(
          store.scaFactors.update({
            ...confirmed,
            recoveryCodeHashes: recoveryCodes.map((code) => recoveryCodeHash(pending.id, code))
          })
        )
        yield* countSuccess(store, security, nowMs)
        return { ok: { type: "TOTP" as const, recoveryCodes } }
      })
    )
    if ("error" in outcome) return yield* outcome.error
    return outcome.ok
  })

  const deleteFactor = Effect.fn("Sca.deleteFactor")(function* (customerId: string, credentialId: string) {
    yield* store.transaction(
      Effect.gen(function* () {
        yield* subjectCustomer(yield* store.customers.getForUpdate(customerId), customerId)
        yield* liveSession(customerId)
        const nowMs = yield* Clock.currentTimeMillis
        // A TOTP factor's credential id is its own id (passkeys, a later slice, have their WebAuthn id).
        const factor = credentialId.startsWith("ScaFactor:")
          ? yield* store.scaFactors.getForUpdate(credentialId)
          : undefined
        if (factor === undefined || factor.customerId !== customerId || factor.status !== "ACTIVE") {
          return yield* scaFactorNotFound(credentialId)
        }
        yield* Effect.orDie(store.scaFactors.update(moved(factor, "DELETE", nowMs)))
      })
    )
  })

  return { listFactors, startFactorEnrollment, confirmFactorEnrollment, deleteFactor }
})
