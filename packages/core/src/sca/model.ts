import { Schema } from "effect"
import { CustomerId, ScaChallengeId, type ScaFactorId, ScaFactorResetId, type ScaSessionId } from "../shared/ids.ts"
import { boundedString, DateTimeString } from "../shared/schemas.ts"
import { Base64Url, PasskeyUserHandle } from "../wallet-auth/model.ts"

// ---- vocabulary ----

/** The SCA factors (S-02): `SMS_OTP` needs no enrolment (the customer's verified phone), the others do. */
export const ScaFactor = Schema.Literals(["SMS_OTP", "TOTP", "PASSKEY"])
export type ScaFactor = typeof ScaFactor.Type

/** What a challenge proves: a login, a quote's step, or a trust / untrust of a beneficiary. */
export const ScaChallengeKind = Schema.Literals(["LOGIN", "QUOTE", "TRUST", "UNTRUST"])
export type ScaChallengeKind = typeof ScaChallengeKind.Type

/** The step a quote's challenge authorizes (omitted for login, trust and single-step flows). */
export const ScaPurpose = Schema.Literals(["CURRENCY_CONVERSION", "PAYOUT", "TRANSFER"])
export type ScaPurpose = typeof ScaPurpose.Type

/** sca/machine.ts's `ScaChallenge`. */
export const ScaChallengeStatus = Schema.Literals(["OPEN", "PASSED", "EXPIRED", "SUPERSEDED", "CANCELLED"])
export type ScaChallengeStatus = typeof ScaChallengeStatus.Type

/** sca/machine.ts's `ScaSession`; `EXPIRED` is read from `expiresAt`, never written. */
export const ScaSessionStatus = Schema.Literals(["ACTIVE", "EXPIRED", "REVOKED"])
export type ScaSessionStatus = typeof ScaSessionStatus.Type

/** sca/machine.ts's `ScaFactor`. */
export const ScaFactorStatus = Schema.Literals(["PENDING", "ACTIVE", "REMOVED"])
export type ScaFactorStatus = typeof ScaFactorStatus.Type

/** sca/machine.ts's `ScaFactorReset` (upstream `TwoFactorResetStatus.status`). */
export const ScaFactorResetStatus = Schema.Literals([
  "INITIATED",
  "PENDING_REVIEW",
  "LIVENESS_PASSED",
  "COMPLETED",
  "REJECTED",
  "EXPIRED"
])
export type ScaFactorResetStatus = typeof ScaFactorResetStatus.Type

// ---- WebAuthn as browsers' `toJSON()` gives it ----

/** An `authenticatorAttachment` or a transport as a browser names it (free text in WebAuthn Level 3). */
const WebAuthnWord = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(32))
/** `clientExtensionResults`: passed through, never read (no extension is requested). */
const ExtensionResults = Schema.Record(Schema.String, Schema.Unknown)

/**
 * A passkey registration as `PublicKeyCredential.toJSON()` returns it after `navigator.credentials.create` (W3C
 * `RegistrationResponseJSON`): `id` and `rawId` are the credential id, base64url.
 */
export const PasskeyRegistrationJson = Schema.Struct({
  id: Base64Url,
  rawId: Base64Url,
  type: Schema.Literal("public-key"),
  response: Schema.Struct({
    clientDataJSON: Base64Url,
    attestationObject: Base64Url,
    transports: Schema.optionalKey(Schema.Array(WebAuthnWord).check(Schema.isMaxLength(10))),
    authenticatorData: Schema.optionalKey(Base64Url),
    publicKey: Schema.optionalKey(Base64Url),
    publicKeyAlgorithm: Schema.optionalKey(Schema.Int)
  }),
  authenticatorAttachment: Schema.optionalKey(WebAuthnWord),
  clientExtensionResults: Schema.optionalKey(ExtensionResults)
})
export type PasskeyRegistrationJson = typeof PasskeyRegistrationJson.Type

/**
 * A passkey assertion as `PublicKeyCredential.toJSON()` returns it after `navigator.credentials.get` (W3C
 * `AuthenticationResponseJSON`).
 */
export const PasskeyAssertionJson = Schema.Struct({
  id: Base64Url,
  rawId: Base64Url,
  type: Schema.Literal("public-key"),
  response: Schema.Struct({
    clientDataJSON: Base64Url,
    authenticatorData: Base64Url,
    signature: Base64Url,
    userHandle: Schema.optionalKey(PasskeyUserHandle)
  }),
  authenticatorAttachment: Schema.optionalKey(WebAuthnWord),
  clientExtensionResults: Schema.optionalKey(ExtensionResults)
})
export type PasskeyAssertionJson = typeof PasskeyAssertionJson.Type

/** A `PublicKeyCredentialDescriptorJSON`: the one passkey an assertion may use. */
const CredentialDescriptor = Schema.Struct({ type: Schema.Literal("public-key"), id: Schema.String })

/**
 * WebAuthn assertion options (`PublicKeyCredentialRequestOptionsJSON`) for the customer's SCA passkey; `challenge`
 * is base64url of the UTF-8 of a 64-hex challenge (the login's random one, or a transaction's dynamic-linking hash).
 */
export const PasskeyAssertionOptions = Schema.Struct({
  challenge: Schema.String,
  rpId: Schema.String,
  allowCredentials: Schema.Array(CredentialDescriptor),
  userVerification: Schema.Literal("preferred"),
  timeout: Schema.Int
})
export type PasskeyAssertionOptions = typeof PasskeyAssertionOptions.Type

/** WebAuthn registration options (`PublicKeyCredentialCreationOptionsJSON`) of an SCA passkey enrolment. */
export const PasskeyCreationOptions = Schema.Struct({
  rp: Schema.Struct({ id: Schema.String, name: Schema.String }),
  user: Schema.Struct({ id: Schema.String, name: Schema.String, displayName: Schema.String }),
  challenge: Schema.String,
  pubKeyCredParams: Schema.Array(Schema.Struct({ type: Schema.Literal("public-key"), alg: Schema.Int })),
  timeout: Schema.Int,
  attestation: Schema.Literal("none"),
  excludeCredentials: Schema.Array(CredentialDescriptor),
  authenticatorSelection: Schema.Struct({
    residentKey: Schema.Literal("preferred"),
    userVerification: Schema.Literal("preferred")
  })
})
export type PasskeyCreationOptions = typeof PasskeyCreationOptions.Type

/** A WebAuthn origin as the client reports it (`clientDataJSON.origin`). */
const WebAuthnOrigin = boundedString(2048)

// ---- requests and responses ----

/** Every `/sca/*` route names its customer in the query (upstream: `customerId*`). */
export const ScaCustomerQuery = Schema.Struct({ customerId: CustomerId })
export type ScaCustomerQuery = typeof ScaCustomerQuery.Type

/** `POST /sca/login/start` (S-14). */
export const ScaLoginStartRequest = Schema.Struct({ factor: ScaFactor })
export type ScaLoginStartRequest = typeof ScaLoginStartRequest.Type

/**
 * The factor-specific material of a started login: `challengeId` and `expiresAt` for `SMS_OTP`; the assertion
 * options, the allowed origins and the relying party for `PASSKEY`; nothing more for `TOTP`.
 */
export const ScaLoginStart = Schema.Struct({
  factor: ScaFactor,
  challengeId: Schema.optionalKey(ScaChallengeId),
  expiresAt: Schema.optionalKey(DateTimeString),
  passkeyOptions: Schema.optionalKey(PasskeyAssertionOptions),
  allowedOrigins: Schema.optionalKey(Schema.Array(Schema.String)),
  relyingPartyId: Schema.optionalKey(Schema.String)
})
export type ScaLoginStart = typeof ScaLoginStart.Type

/** A one-time code as a customer types it (the sandbox's is `123456`), or a TOTP recovery code. */
const ScaCode = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64))

/**
 * `POST /sca/login/complete` (S-12): the proof of the started factor. `code` (and the start's `challengeId`) for
 * `SMS_OTP`; `code` for `TOTP`; `passkeyAssertion` + `origin` for `PASSKEY`.
 */
export const ScaLoginCompleteRequest = Schema.Struct({
  factor: ScaFactor,
  endUserIpAddress: Schema.String.check(Schema.isMinLength(3), Schema.isMaxLength(45)),
  challengeId: Schema.optionalKey(ScaChallengeId),
  code: Schema.optionalKey(ScaCode),
  passkeyAssertion: Schema.optionalKey(PasskeyAssertionJson),
  origin: Schema.optionalKey(WebAuthnOrigin)
})
export type ScaLoginCompleteRequest = typeof ScaLoginCompleteRequest.Type

/** S-13, L-09: the session lasts 180 days from the login. */
export const ScaLoginComplete = Schema.Struct({
  status: Schema.Literal("SUCCESS"),
  sessionExpiresAt: DateTimeString
})
export type ScaLoginComplete = typeof ScaLoginComplete.Type

/** One usable factor; `credentialId` only for a `PASSKEY`. */
export const ScaFactorView = Schema.Struct({
  factor: ScaFactor,
  credentialId: Schema.optionalKey(Schema.String),
  name: Schema.optionalKey(Schema.String)
})
export type ScaFactorView = typeof ScaFactorView.Type

/** `GET /sca/factors`. */
export const ScaFactorList = Schema.Struct({ factors: Schema.Array(ScaFactorView) })
export type ScaFactorList = typeof ScaFactorList.Type

/**
 * A client-side security event (upstream `RecordSecurityEventRequest`): `FAILED_LOGIN_ATTEMPT` counts a failure of
 * the integrator's own login into the customer's lock ladder; `RESET_PASSWORD_COMPLETED` lifts the lock and any
 * suspension, sets the count to 0 and revokes the customer's SCA sessions.
 */
export const ScaSecurityEventType = Schema.Literals(["RESET_PASSWORD_COMPLETED", "FAILED_LOGIN_ATTEMPT"])
export type ScaSecurityEventType = typeof ScaSecurityEventType.Type

/** `POST /sca/record-event` (S-10). */
export const RecordSecurityEventRequest = Schema.Struct({ eventType: ScaSecurityEventType })
export type RecordSecurityEventRequest = typeof RecordSecurityEventRequest.Type

/**
 * The customer's lock after the event (upstream `RecordSecurityEventResponse`): `lockedUntil` is null when not
 * locked or when suspended (no automatic end).
 */
export const RecordSecurityEventResponse = Schema.Struct({
  eventType: ScaSecurityEventType,
  suspended: Schema.Boolean,
  lockedUntil: Schema.NullOr(DateTimeString),
  failedAttempts: Schema.Int
})
export type RecordSecurityEventResponse = typeof RecordSecurityEventResponse.Type

/**
 * `POST /sca/factors` (upstream `ScaFactorEnrollRequestOneOf`): the factor to enrol, `TOTP` or `PASSKEY`; `SMS_OTP`
 * is never enrolled (the customer's verified phone).
 */
export const ScaFactorEnrollRequest = Schema.Struct({ type: Schema.Literals(["TOTP", "PASSKEY"]) })
export type ScaFactorEnrollRequest = typeof ScaFactorEnrollRequest.Type

/**
 * The TOTP shared secret (upstream `TotpEnrollmentStart`), shown once: `secret` is the raw key as text (its UTF-8
 * bytes are the HMAC key), `secretBase32Encoded` the same bytes in base32 for manual entry, `totpUri` the
 * `otpauth://` provisioning URI (SHA-1, 6 digits, 30 s).
 */
export const TotpEnrollmentStart = Schema.Struct({
  type: Schema.Literal("TOTP"),
  secret: Schema.String,
  secretBase32Encoded: Schema.String,
  totpUri: Schema.String
})
export type TotpEnrollmentStart = typeof TotpEnrollmentStart.Type

/** `POST /sca/factors/confirm` (upstream `TotpEnrollmentConfirmRequest`): the start's secret and a current code. */
export const TotpEnrollmentConfirmRequest = Schema.Struct({
  type: Schema.Literal("TOTP"),
  secret: boundedString(256),
  code: ScaCode
})
export type TotpEnrollmentConfirmRequest = typeof TotpEnrollmentConfirmRequest.Type

/** The TOTP factor is enrolled: ten single-use recovery codes, shown once (upstream `TotpEnrollmentConfirmResponse`). */
export const TotpEnrollmentConfirmResponse = Schema.Struct({
  type: Schema.Literal("TOTP"),
  recoveryCodes: Schema.Array(Schema.String)
})
export type TotpEnrollmentConfirmResponse = typeof TotpEnrollmentConfirmResponse.Type

/**
 * The registration options of a passkey enrolment (upstream `PasskeyEnrollmentStart`), good for 600 s: pass
 * `options` to `navigator.credentials.create`, then confirm with the credential and the origin it ran on (one of
 * `allowedOrigins`).
 */
export const PasskeyEnrollmentStart = Schema.Struct({
  type: Schema.Literal("PASSKEY"),
  options: PasskeyCreationOptions,
  allowedOrigins: Schema.Array(Schema.String),
  relyingPartyId: Schema.String
})
export type PasskeyEnrollmentStart = typeof PasskeyEnrollmentStart.Type

/** What `POST /sca/factors` answers (upstream `ScaFactorEnrollStartOneOf`), by `type`. */
export const ScaFactorEnrollStart = Schema.Union([TotpEnrollmentStart, PasskeyEnrollmentStart])
export type ScaFactorEnrollStart = typeof ScaFactorEnrollStart.Type

/** `POST /sca/factors/confirm` for a passkey (upstream `PasskeyEnrollmentConfirmRequest`). */
export const PasskeyEnrollmentConfirmRequest = Schema.Struct({
  type: Schema.Literal("PASSKEY"),
  origin: WebAuthnOrigin,
  credential: PasskeyRegistrationJson
})
export type PasskeyEnrollmentConfirmRequest = typeof PasskeyEnrollmentConfirmRequest.Type

/** The passkey is enrolled (upstream `PasskeyEnrollmentConfirmResponse`). */
export const PasskeyEnrollmentConfirmResponse = Schema.Struct({
  type: Schema.Literal("PASSKEY"),
  factor: ScaFactorView
})
export type PasskeyEnrollmentConfirmResponse = typeof PasskeyEnrollmentConfirmResponse.Type

/** `POST /sca/factors/confirm` (upstream `ScaFactorConfirmRequestOneOf`), by `type`. */
export const ScaFactorConfirmRequest = Schema.Union([TotpEnrollmentConfirmRequest, PasskeyEnrollmentConfirmRequest])
export type ScaFactorConfirmRequest = typeof ScaFactorConfirmRequest.Type

/** What the confirm answers (upstream `ScaFactorConfirmResponseOneOf`), by `type`. */
export const ScaFactorConfirmResponse = Schema.Union([TotpEnrollmentConfirmResponse, PasskeyEnrollmentConfirmResponse])
export type ScaFactorConfirmResponse = typeof ScaFactorConfirmResponse.Type

/** `DELETE /sca/factors/{credentialId}`: a factor's `credentialId` as `GET /sca/factors` lists it. */
export const ScaFactorCredentialParams = Schema.Struct({ credentialId: boundedString(1024) })
export type ScaFactorCredentialParams = typeof ScaFactorCredentialParams.Type

/**
 * The challenge to satisfy now (S-02, upstream `ScaChallenge`): on a quote `PENDING_AUTHORIZATION`, a trust or untrust
 * start. A client loops on status: a quote that needs another step carries the next challenge (a new `id`).
 * `passkeyAssertionOptions` only when `factor` is `PASSKEY`.
 */
export const ScaChallenge = Schema.Struct({
  id: ScaChallengeId,
  expiresAt: DateTimeString,
  factor: ScaFactor,
  availableFactors: Schema.Array(ScaFactor),
  purpose: Schema.optionalKey(ScaPurpose),
  passkeyAssertionOptions: Schema.optionalKey(PasskeyAssertionOptions),
  passkeyAllowedOrigins: Schema.optionalKey(Schema.Array(Schema.String))
})
export type ScaChallenge = typeof ScaChallenge.Type

/**
 * A proof of a challenge (upstream `ScaAuthorization`, and the proof fields of the trust confirm): `code` for
 * `SMS_OTP` / `TOTP`, or `passkeyAssertion` + `origin` for `PASSKEY`. Which one fits is checked against the
 * challenge's factor (AC-37), not here: the body alone cannot say.
 */
export const ScaProof = Schema.Struct({
  code: Schema.optionalKey(ScaCode),
  passkeyAssertion: Schema.optionalKey(PasskeyAssertionJson),
  origin: Schema.optionalKey(boundedString(2048))
})
export type ScaProof = typeof ScaProof.Type

/**
 * `POST /customers/external-accounts/{id}/trust` and `/untrust` (upstream `BeneficiaryTrustStart`): the challenge
 * the confirm must satisfy. Upstream may omit it (exemptions); this engine always issues one (no exemption engine).
 */
export const BeneficiaryTrustStart = Schema.Struct({ scaChallenge: Schema.optionalKey(ScaChallenge) })
export type BeneficiaryTrustStart = typeof BeneficiaryTrustStart.Type

/**
 * `.../trust/confirm` and `.../untrust/confirm` (upstream `BeneficiaryTrustConfirmRequest`, AC-32, AC-34): the proof
 * of the start's challenge, and its `challengeId` (optional; when given, it must be the open challenge).
 */
export const BeneficiaryTrustConfirmRequest = Schema.Struct({
  challengeId: Schema.optionalKey(ScaChallengeId),
  ...ScaProof.fields
})
export type BeneficiaryTrustConfirmRequest = typeof BeneficiaryTrustConfirmRequest.Type

/** Whether the account is trusted now (upstream `BeneficiaryTrustConfirm`): `true` after a trust, `false` after an untrust. */
export const BeneficiaryTrustConfirm = Schema.Struct({ trusted: Schema.Boolean })
export type BeneficiaryTrustConfirm = typeof BeneficiaryTrustConfirm.Type

/**
 * `POST /quotes/{quoteId}/authorize` (upstream `ScaAuthorization`, S-04): the proof of the quote's open challenge and
 * the end user's IP address (kept for the provider's risk assessment; optional).
 */
export const ScaAuthorization = Schema.Struct({
  ...ScaProof.fields,
  endUserIpAddress: Schema.optionalKey(Schema.String.check(Schema.isMinLength(3), Schema.isMaxLength(45)))
})
export type ScaAuthorization = typeof ScaAuthorization.Type

/** What a per-transaction challenge is dynamically linked to (PSD2 RTS Art. 5): the amount and the payee. */
export interface LinkedOperation {
  readonly amount: number
  readonly currency: string
  readonly payee: string
}
/** `POST /sca/factors/reset` (upstream `TwoFactorResetStartRequest`): the enrolled factor the customer lost. */
export const TwoFactorResetStartRequest = Schema.Struct({ factor: ScaFactor })
export type TwoFactorResetStartRequest = typeof TwoFactorResetStartRequest.Type

/**
 * A started reset (upstream `TwoFactorResetStart`): its id, and the liveness session's hosted link (and SDK token,
 * for providers that have one) for the end user; the reset lapses at `expiresAt` (30 min).
 */
export const TwoFactorResetStart = Schema.Struct({
  resetId: ScaFactorResetId,
  livenessAccessToken: Schema.optionalKey(Schema.String),
  verificationLink: Schema.optionalKey(Schema.String),
  expiresAt: DateTimeString
})
export type TwoFactorResetStart = typeof TwoFactorResetStart.Type

/**
 * `GET /sca/factors/reset/{resetId}` (upstream `TwoFactorResetStatus`). `enrollmentStatus`, for a completed TOTP or
 * PASSKEY reset: `PENDING` until the customer has that factor enrolled again, then `COMPLETED`; absent for SMS_OTP
 * (the new number is enrolled by the completion itself).
 */
export const TwoFactorResetStatus = Schema.Struct({
  status: ScaFactorResetStatus,
  factor: ScaFactor,
  enrollmentStatus: Schema.optionalKey(Schema.Literals(["PENDING", "COMPLETED"])),
  expiresAt: DateTimeString,
  completedAt: Schema.optionalKey(DateTimeString)
})
export type TwoFactorResetStatus = typeof TwoFactorResetStatus.Type

/** The new SMS number of an `SMS_OTP` reset: the dialling code with its `+`, and the national number. */
export const ResetMobile = Schema.Struct({
  countryCode: Schema.String.check(Schema.isPattern(/^\+[1-9]\d{0,3}$/, { expected: "a dialling code such as +49" })),
  number: Schema.String.check(Schema.isPattern(/^\d{4,14}$/, { expected: "4 to 14 digits" }))
})
export type ResetMobile = typeof ResetMobile.Type

/**
 * `POST /sca/factors/reset/{resetId}/complete` (upstream `TwoFactorResetCompleteRequest`): `mobile` for an
 * `SMS_OTP` reset; no body (`null`) for the others.
 */
export const TwoFactorResetCompleteRequest = Schema.NullOr(Schema.Struct({ mobile: Schema.optionalKey(ResetMobile) }))
export type TwoFactorResetCompleteRequest = typeof TwoFactorResetCompleteRequest.Type

/** The reset routes' path parameter. */
export const ScaFactorResetParams = Schema.Struct({ resetId: ScaFactorResetId })
export type ScaFactorResetParams = typeof ScaFactorResetParams.Type

/**
 * The sandbox liveness verdict on a reset (`POST /sandbox/sca/factors/reset/{resetId}/liveness`): the ownership
 * verification's `PASSED` / `FAILED`, and `PENDING_REVIEW` (the end user submitted, the provider reviews).
 */
export const SandboxResetLivenessRequest = Schema.Struct({
  result: Schema.Literals(["PENDING_REVIEW", "PASSED", "FAILED"])
})
export type SandboxResetLivenessRequest = typeof SandboxResetLivenessRequest.Type

// ---- stored records ----

/**
 * One SCA challenge (S-02): a login, a quote's step, a trust or an untrust. The code is stored only as
 * SHA-256(id ‖ code). `openSlot` (`<kind>|<subject or customer>`) is held only while `OPEN`: the store keeps one open
 * challenge per login, quote step or trust operation.
 */
export interface ScaChallengeRecord {
  readonly id: ScaChallengeId
  readonly customerId: string
  readonly kind: ScaChallengeKind
  /** The quote or external account the challenge is about (none for a login). */
  readonly subjectId?: string | undefined
  /** 1..n: the step of a quote that needs several challenges. */
  readonly step: number
  readonly purpose?: ScaPurpose | undefined
  readonly factor: ScaFactor
  readonly availableFactors: ReadonlyArray<ScaFactor>
  readonly status: ScaChallengeStatus
  readonly codeSha256?: string | undefined
  /** A passkey challenge's dynamic-linking hash (64 hex). */
  readonly passkeyChallenge?: string | undefined
  /** What a per-transaction code is linked to (`{amount, currency, payee}`). */
  readonly linked?: LinkedOperation | undefined
  /** Wrong proofs against this challenge. */
  readonly attempts: number
  /** Codes sent for it (the first and every resend). */
  readonly sends: number
  readonly lastSentAt?: string | undefined
  readonly lastFailedAt?: string | undefined
  readonly createdAt: string
  readonly expiresAt: string
  /** When it left `OPEN`. */
  readonly settledAt?: string | undefined
  readonly openSlot?: string | undefined
}

export interface ScaChallengeFilter {
  readonly customerId?: string | undefined
}

/** An SCA login session (S-12, S-13): live while not revoked and `expiresAt` is ahead. */
export interface ScaSessionRecord {
  readonly id: ScaSessionId
  readonly customerId: string
  readonly factor: ScaFactor
  readonly endUserIp: string
  readonly challengeId: string
  readonly createdAt: string
  readonly expiresAt: string
  readonly revokedAt?: string | undefined
}

export interface ScaSessionFilter {
  readonly customerId?: string | undefined
  /** Sessions whose `expiresAt` is strictly after this instant. */
  readonly expiresAfter?: string | undefined
  /** false leaves out revoked sessions. */
  readonly includeRevoked?: boolean | undefined
}

/**
 * An enrolled (or pending) SCA factor of a customer. A TOTP factor keeps its secret only sealed by the `KeyVault`
 * (context `sca-totp:<customerId>`), the last time step a code was accepted for (a code is good once), and its
 * recovery codes as SHA-256(id ‖ code), each removed once used. `slot` (`<customer>|<factor>`) is held while
 * `ACTIVE`, `pendingSlot` while `PENDING`: one of each per customer and factor. A passkey keeps its WebAuthn
 * credential id, COSE public key and signature counter; its pending enrolment the registration challenge. An
 * `SMS_OTP` row exists only after a factor reset gave the customer a new SMS number (`phone`).
 */
export interface ScaFactorRecord {
  readonly id: ScaFactorId
  readonly customerId: string
  readonly factor: ScaFactor
  readonly status: ScaFactorStatus
  readonly name?: string | undefined
  /** A passkey's WebAuthn credential id (base64url). */
  readonly credentialId?: string | undefined
  /** A passkey's COSE public key (base64url). */
  readonly publicKey?: string | undefined
  readonly signCount?: number | undefined
  readonly totpSecretSealed?: string | undefined
  /** The RFC 6238 time step of the last accepted code: a code of this step or an earlier one is refused. */
  readonly totpLastStep?: number | undefined
  readonly recoveryCodeHashes?: ReadonlyArray<string> | undefined
  /** The SMS number set by a factor reset (the customer record is untouched). */
  readonly phone?: string | undefined
  /** A passkey enrolment's WebAuthn challenge. */
  readonly enrolChallenge?: string | undefined
  /** When a `PENDING` enrolment lapses. */
  readonly enrolExpiresAt?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
  readonly slot?: string | undefined
  readonly pendingSlot?: string | undefined
}

export interface ScaFactorFilter {
  readonly customerId?: string | undefined
  readonly status?: ScaFactorStatus | undefined
}

/**
 * A customer's failed-proof count and lock (C-41, sca/security.ts); `id` is the customer's id. No row means no
 * failure yet.
 */
export interface ScaSecurityRecord {
  readonly id: string
  readonly failedAttempts: number
  readonly lockedUntil?: string | undefined
  readonly suspended: boolean
  readonly updatedAt: string
}

/** What a 423 `ACCOUNT_LOCKED` says (upstream `Error423.details`). */
export interface LockDetails {
  readonly suspended: boolean
  /** When the customer may try again; absent while suspended. */
  readonly lockedUntil?: string | undefined
  readonly failedAttempts: number
}

/** No list filters: the row is read by its customer id. */
export type ScaSecurityFilter = {}

/**
 * A factor reset (upstream 2FA reset): a liveness session opened for the customer (`livenessNonce` is the
 * provider's reference), settled by the provider's verdict, then completed by the platform: a TOTP or PASSKEY factor
 * is removed, an SMS number replaced. Lapses 30 min after the start.
 */
export interface ScaFactorResetRecord {
  readonly id: ScaFactorResetId
  readonly customerId: string
  readonly factor: ScaFactor
  readonly status: ScaFactorResetStatus
  readonly livenessNonce: string
  readonly verificationLink?: string | undefined
  readonly livenessToken?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
  readonly expiresAt: string
  readonly completedAt?: string | undefined
}

export interface ScaFactorResetFilter {
  readonly customerId?: string | undefined
  /** Resets started strictly after this instant (the rolling 24 h of the start limit). */
  readonly createdAfter?: string | undefined
}
