import { Context, Effect, Layer } from "effect"
import { PlatformConfigService } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { KycProvider } from "../ports/kyc.ts"
import { LivenessProvider } from "../ports/liveness.ts"
import { Notifier } from "../ports/notifier.ts"
import { Store } from "../ports/store.ts"
import { operation } from "../shared/tracing.ts"
import { confirmFactorEnrollment, deleteFactor, listFactors, startFactorEnrollment } from "./factors.ts"
import type {
  BeneficiaryTrustConfirm,
  BeneficiaryTrustConfirmRequest,
  BeneficiaryTrustStart,
  RecordSecurityEventRequest,
  RecordSecurityEventResponse,
  SandboxResetLivenessRequest,
  ScaFactorConfirmRequest,
  ScaFactorConfirmResponse,
  ScaFactorEnrollRequest,
  ScaFactorEnrollStart,
  ScaFactorList,
  ScaLoginComplete,
  ScaLoginCompleteRequest,
  ScaLoginStart,
  ScaLoginStartRequest,
  ScaSessionRecord,
  TwoFactorResetCompleteRequest,
  TwoFactorResetStart,
  TwoFactorResetStartRequest,
  TwoFactorResetStatus
} from "./model.ts"
import type { ScaError, ScaPorts } from "./ports.ts"
import { completeFactorReset, getFactorReset, settleResetLiveness, startFactorReset } from "./resets.ts"
import { recordSecurityEvent } from "./security-events.ts"
import { completeLogin, requireSession, startLogin } from "./sessions.ts"
import { confirmTrustMove, startTrustMove } from "./trust.ts"

// The `Sca` service: Strong Customer Authentication for customers of the SCA regions (S-01 … S-15), one use case
// per file: the login and its session (sessions.ts), the factors and their enrolment (factors.ts; TOTP in totp.ts,
// passkeys in passkey-factor.ts), factor resets behind a liveness check (resets.ts), the one challenge mechanism
// (challenges.ts), what proof-taking calls share (proofs.ts), the lock ladder (security.ts, pure), who is subject
// (regions.ts), the security events the integrator records (security-events.ts), trusted beneficiaries (trust.ts).
// Each use case is a top-level function over `ScaPorts` (ports.ts), resolved once when the layer is built; this file
// only binds them, each operation under its span.

/** An operation on a customer's SCA with the request's body (the customer is the `customerId` query parameter). */
export type ScaCustomerOperation<Request, A> = (customerId: string, req: Request) => Effect.Effect<A, ScaError>
/** The first step of trusting or untrusting an external account: the challenge of a factor of its owner. */
export type ScaTrustStartOperation = (externalAccountId: string) => Effect.Effect<BeneficiaryTrustStart, ScaError>
/** The second step: the proof of the open trust or untrust challenge. */
export type ScaTrustConfirmOperation = (
  externalAccountId: string,
  req: BeneficiaryTrustConfirmRequest
) => Effect.Effect<BeneficiaryTrustConfirm, ScaError>

export class Sca extends Context.Service<
  Sca,
  {
    /**
     * `GET /sca/factors`: the factors the customer can use; `SMS_OTP` when its phone is verified (or need not be),
     * then its enrolled factors with the `credentialId` that deletes them. 404, 410, 409 `CONFLICT` when not subject.
     */
    readonly listFactors: (customerId: string) => Effect.Effect<ScaFactorList, ScaError>
    /**
     * `POST /sca/factors` (S-02): a new TOTP secret, sealed at rest and shown once, or a passkey's WebAuthn
     * registration options; pending for 600 s (a new start replaces it). 404; 409 not subject; 423
     * `ACCOUNT_LOCKED`; 409 `SCA_SESSION_REQUIRED`; 409 `PASSKEY_ALREADY_ENROLLED` (one passkey per customer).
     */
    readonly startFactorEnrollment: ScaCustomerOperation<ScaFactorEnrollRequest, ScaFactorEnrollStart>
    /**
     * `POST /sca/factors/confirm`: TOTP: the start's secret and a current code enrol the factor (replacing an older
     * TOTP) and answer ten single-use recovery codes. PASSKEY: the device's registration over the start's challenge
     * enrols the passkey. A wrong or late proof is 400 and counted (423 once it locks).
     */
    readonly confirmFactorEnrollment: ScaCustomerOperation<ScaFactorConfirmRequest, ScaFactorConfirmResponse>
    /** `DELETE /sca/factors/{credentialId}`: 404 `REFERENCE_NOT_FOUND` unless it is an enrolled factor of the customer. */
    readonly deleteFactor: (customerId: string, credentialId: string) => Effect.Effect<void, ScaError>
    /**
     * `POST /sca/login/start` (S-14): an SMS code to the customer's phone, sent after the commit, or a passkey's
     * assertion options; 300 s to use either. TOTP issues nothing. 400 factor not usable; 404; 409 not subject; 423
     * `ACCOUNT_LOCKED`; 429 `RATE_LIMITED` for an SMS within 60 s of the last login start (L-14).
     */
    readonly startLogin: ScaCustomerOperation<ScaLoginStartRequest, ScaLoginStart>
    /**
     * `POST /sca/login/complete` (S-12, S-13, S-15): the code or passkey assertion of the started login opens a
     * 180-day session. A wrong or late proof is 400 and counted into the lock ladder (423 once it locks, C-41).
     */
    readonly completeLogin: ScaCustomerOperation<ScaLoginCompleteRequest, ScaLoginComplete>
    /**
     * `POST /sca/record-event` (S-10, C-41): `FAILED_LOGIN_ATTEMPT` counts a failure into the lock ladder (200 with
     * the resulting lock; while already locked it is counted and answers 423 `ACCOUNT_LOCKED`);
     * `RESET_PASSWORD_COMPLETED` lifts a lock or suspension, sets the count to 0 and revokes every SCA session.
     * 404, 410, 409 `CONFLICT` when not subject (S-01).
     */
    readonly recordSecurityEvent: ScaCustomerOperation<RecordSecurityEventRequest, RecordSecurityEventResponse>
    /**
     * `POST /customers/external-accounts/{id}/trust` (AC-31, AC-35, AC-39): a challenge of the customer's first usable
     * factor (SMS_OTP, PASSKEY, TOTP), every usable one available. 400 not a USDC wallet address; 404; 409 `CONFLICT`
     * not subject, not `ACTIVE`, already trusted; 423; 409 `SCA_SESSION_REQUIRED`; 429 within 60 s of its SMS code.
     */
    readonly startBeneficiaryTrust: ScaTrustStartOperation
    /**
     * `.../trust/confirm` (AC-32, AC-36, AC-37): the proof of the open trust challenge, of its factor only, trusts the
     * account. 400 wrong or late proof (counted), another factor's proof, a `challengeId` that is not the open one.
     */
    readonly confirmBeneficiaryTrust: ScaTrustConfirmOperation
    /** `.../untrust` (AC-33): as the trust start; 409 `CONFLICT` when the account is not trusted. */
    readonly startBeneficiaryUntrust: ScaTrustStartOperation
    /** `.../untrust/confirm` (AC-34, AC-38): as the trust confirm; answers `{trusted: false}`. */
    readonly confirmBeneficiaryUntrust: ScaTrustConfirmOperation
    /** The live session of a subject customer, or 409 `SCA_SESSION_REQUIRED` (S-09). */
    readonly requireSession: (customerId: string) => Effect.Effect<ScaSessionRecord, ScaError>
    /**
     * `POST /sca/factors/reset` (201): a liveness session for a customer who lost an enrolled factor (SMS_OTP:
     * usable), 30 min to settle and complete. 400 not enrolled; 404; 409 not subject; 429 `RATE_LIMITED` after 5
     * starts in a rolling 24 h, `Retry-After` until the oldest leaves the window.
     */
    readonly startFactorReset: ScaCustomerOperation<TwoFactorResetStartRequest, TwoFactorResetStart>
    /** `GET /sca/factors/reset/{resetId}`: its status; 404 `REFERENCE_NOT_FOUND` unless it is the customer's. */
    readonly getFactorReset: (customerId: string, resetId: string) => Effect.Effect<TwoFactorResetStatus, ScaError>
    /**
     * `POST /sca/factors/reset/{resetId}/complete` (204) once liveness passed: a TOTP or PASSKEY factor is removed
     * (enrol it again); an SMS reset sets `mobile` as the number SMS codes go to. 400 not `LIVENESS_PASSED` (or
     * lapsed: written `EXPIRED`), or `mobile` missing on an SMS reset.
     */
    readonly completeFactorReset: (
      customerId: string,
      resetId: string,
      req: TwoFactorResetCompleteRequest
    ) => Effect.Effect<void, ScaError>
    /**
     * The liveness provider's verdict on a reset (the sandbox's `POST /sandbox/sca/factors/reset/{resetId}/liveness`
     * calls it): `PENDING_REVIEW`, `PASSED` or `FAILED`. 404; 409 `CONFLICT` when the reset awaits no verdict.
     */
    readonly settleResetLiveness: (
      resetId: string,
      req: SandboxResetLivenessRequest
    ) => Effect.Effect<TwoFactorResetStatus, ScaError>
  }
>()("paycore/sca/Sca") {
  static readonly layer = Layer.effect(
    Sca,
    Effect.gen(function* () {
      const ports: ScaPorts = {
        store: yield* Store,
        ids: yield* Ids,
        notifier: yield* Notifier,
        kyc: yield* KycProvider,
        vault: yield* KeyVault,
        platform: yield* PlatformConfigService,
        liveness: yield* LivenessProvider
      }
      return Sca.of({
        listFactors: operation("Sca.listFactors")(function* (customerId: string) {
          return yield* listFactors(ports, customerId)
        }),
        startFactorEnrollment: operation("Sca.startFactorEnrollment")(function* (
          customerId: string,
          req: ScaFactorEnrollRequest
        ) {
          return yield* startFactorEnrollment(ports, customerId, req)
        }),
        confirmFactorEnrollment: operation("Sca.confirmFactorEnrollment")(function* (
          customerId: string,
          req: ScaFactorConfirmRequest
        ) {
          return yield* confirmFactorEnrollment(ports, customerId, req)
        }),
        deleteFactor: operation("Sca.deleteFactor")(function* (customerId: string, credentialId: string) {
          return yield* deleteFactor(ports, customerId, credentialId)
        }),
        startLogin: operation("Sca.startLogin")(function* (customerId: string, req: ScaLoginStartRequest) {
          return yield* startLogin(ports, customerId, req)
        }),
        completeLogin: operation("Sca.completeLogin")(function* (customerId: string, req: ScaLoginCompleteRequest) {
          return yield* completeLogin(ports, customerId, req)
        }),
        recordSecurityEvent: operation("Sca.recordSecurityEvent")(function* (
          customerId: string,
          req: RecordSecurityEventRequest
        ) {
          return yield* recordSecurityEvent(ports, customerId, req)
        }),
        startBeneficiaryTrust: operation("Sca.startBeneficiaryTrust")(function* (externalAccountId: string) {
          return yield* startTrustMove(ports, "TRUST", externalAccountId)
        }),
        confirmBeneficiaryTrust: operation("Sca.confirmBeneficiaryTrust")(function* (
          externalAccountId: string,
          req: BeneficiaryTrustConfirmRequest
        ) {
          return yield* confirmTrustMove(ports, "TRUST", externalAccountId, req)
        }),
        startBeneficiaryUntrust: operation("Sca.startBeneficiaryUntrust")(function* (externalAccountId: string) {
          return yield* startTrustMove(ports, "UNTRUST", externalAccountId)
        }),
        confirmBeneficiaryUntrust: operation("Sca.confirmBeneficiaryUntrust")(function* (
          externalAccountId: string,
          req: BeneficiaryTrustConfirmRequest
        ) {
          return yield* confirmTrustMove(ports, "UNTRUST", externalAccountId, req)
        }),
        requireSession: operation("Sca.requireSession")(function* (customerId: string) {
          return yield* requireSession(ports, customerId)
        }),
        startFactorReset: operation("Sca.startFactorReset")(function* (
          customerId: string,
          req: TwoFactorResetStartRequest
        ) {
          return yield* startFactorReset(ports, customerId, req)
        }),
        getFactorReset: operation("Sca.getFactorReset")(function* (customerId: string, resetId: string) {
          return yield* getFactorReset(ports, customerId, resetId)
        }),
        completeFactorReset: operation("Sca.completeFactorReset")(function* (
          customerId: string,
          resetId: string,
          req: TwoFactorResetCompleteRequest
        ) {
          return yield* completeFactorReset(ports, customerId, resetId, req)
        }),
        settleResetLiveness: operation("Sca.settleResetLiveness")(function* (
          resetId: string,
          req: SandboxResetLivenessRequest
        ) {
          return yield* settleResetLiveness(ports, resetId, req)
        })
      })
    })
  )
}
