import { p256 } from "@noble/curves/nist.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Schema } from "effect"
import { AuthMethodId, DelegatedKeyId, InternalAccountId, SessionId } from "../shared/ids.ts"
import { parseP256PublicKey } from "../shared/p256.ts"
import { boundedString, DateTimeString } from "../shared/schemas.ts"

// ---- vocabulary ----

/** W-03. */
export const CredentialType = Schema.Literals(["PASSKEY", "OAUTH", "EMAIL_OTP", "SMS_OTP"])
export type CredentialType = typeof CredentialType.Type

/** The one-time-code credentials (the code goes to the customer's email or phone). */
export const OTP_TYPES: ReadonlyArray<CredentialType> = ["EMAIL_OTP", "SMS_OTP"]

/**
 * The actions a wallet's session must sign (W-36): each is bound into the `payloadToSign` of its signed retry,
 * so a stamp for one never authorizes another.
 */
export const WalletOperation = Schema.Literals([
  "ADD_CREDENTIAL",
  "REVOKE_CREDENTIAL",
  "VERIFY_OTP",
  "REFRESH_SESSION",
  "REVOKE_SESSION",
  "EXPORT_WALLET",
  "UPDATE_PRIVACY",
  "UPDATE_CUSTOMER_CONTACT",
  "CREATE_DELEGATED_KEY",
  "PASSKEY_LOGIN"
])
export type WalletOperation = typeof WalletOperation.Type

const P256_HEX = /^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/

/**
 * Points of the curve (1·G, 2·G, 3·G) in both encodings. Random hex is almost never a point (an uncompressed one
 * practically never), so values drawn from these Schemas (the HTTP fuzzer's) also take one of these.
 */
const samplePoints = [1n, 2n, 3n].map((k) => p256.Point.BASE.multiply(k))
const compressedSamples = samplePoints.map((point) => bytesToHex(point.toBytes(true)))
const uncompressedSamples = samplePoints.map((point) => bytesToHex(point.toBytes(false)))

/**
 * Generated values are drawn from `samples` only: the pattern's own constraint (random hex) is replaced too, else
 * most draws would be thrown away by `onCurve` (an uncompressed random key is practically never a point).
 */
const drawnFrom = (samples: ReadonlyArray<string>) => ({
  patterns: [{ source: `^(${samples.join("|")})$`, flags: "" }] as const
})

/**
 * The key is a point of P-256 (a key the service seals to or binds must be one). Only a key written as one is
 * looked at: another string is the pattern's error alone, so a field gets one error.
 */
const onCurve = (samples: ReadonlyArray<string>) =>
  Schema.makeFilter((hex: string) => !P256_HEX.test(hex) || parseP256PublicKey(hex) !== undefined, {
    expected: "a point of the P-256 curve",
    arbitraryConstraint: drawnFrom(samples)
  })

/** A P-256 public key in hex: compressed (`02`/`03` + 64 hex) or the legacy uncompressed form (`04` + 128 hex). W-16. */
export const ClientPublicKey = Schema.String.check(
  Schema.isPattern(P256_HEX, {
    expected: "a P-256 public key in hex: 02/03 + 64 hex digits (compressed) or 04 + 128 (uncompressed)",
    arbitraryConstraint: drawnFrom([...compressedSamples, ...uncompressedSamples])
  }),
  onCurve([...compressedSamples, ...uncompressedSamples])
)
/** An uncompressed P-256 public key in hex (`04` + 128 hex): the keys the service encrypts to (W-33). */
export const UncompressedPublicKey = Schema.String.check(
  Schema.isPattern(/^04[0-9a-fA-F]{128}$/, {
    expected: "an uncompressed P-256 public key in hex (04 + 128 digits)",
    arbitraryConstraint: drawnFrom(uncompressedSamples)
  }),
  onCurve(uncompressedSamples)
)

/**
 * A parsed `Service-Wallet-Signature` (wallet-auth/stamp.ts): who signed (`publicKey`, lowercase compressed hex) and
 * the signature, as 64 bytes `r ‖ s` (Web Crypto's form) and as the strict DER it was sent in (`node:crypto`'s).
 */
export interface Stamp {
  readonly publicKey: string
  readonly signature: Uint8Array
  readonly der: Uint8Array
}

// ---- resources ----

/** W-01: a way to sign in to one embedded wallet. */
export const AuthMethod = Schema.Struct({
  id: AuthMethodId,
  accountId: InternalAccountId,
  type: CredentialType,
  /** Passkeys: the WebAuthn credential id (base64url). */
  credentialId: Schema.optionalKey(Schema.String),
  nickname: Schema.String,
  /** OTP challenge answers (W-13): the HPKE target the client encrypts the code to. */
  otpEncryptionTargetBundle: Schema.optionalKey(Schema.String),
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type AuthMethod = typeof AuthMethod.Type

/** W-02: a signed-in session; its key stamps the wallet's signed retries until `expiresAt`. */
export const AuthSession = Schema.Struct({
  id: SessionId,
  accountId: InternalAccountId,
  type: CredentialType,
  credentialId: AuthMethodId,
  nickname: Schema.String,
  createdAt: DateTimeString,
  updatedAt: DateTimeString,
  expiresAt: DateTimeString,
  /** Only for a legacy uncompressed `clientPublicKey` (W-16): the session's private key, HPKE-sealed to it. */
  encryptedSessionSigningKey: Schema.optionalKey(Schema.String)
})
export type AuthSession = typeof AuthSession.Type

/** W-35: the first leg of a signed retry (202). */
export const SignedRetryChallenge = Schema.Struct({
  /** The credential type, on the `/auth/credentials` routes. */
  type: Schema.optionalKey(CredentialType),
  payloadToSign: Schema.String,
  requestId: Schema.String,
  expiresAt: DateTimeString
})
export type SignedRetryChallenge = typeof SignedRetryChallenge.Type

/** W-39: a signed retry whose effect is not settled yet; resend the identical request. */
export const WalletOperationProcessing = Schema.Struct({
  status: Schema.Literal("PROCESSING"),
  message: Schema.String
})
export type WalletOperationProcessing = typeof WalletOperationProcessing.Type

/** W-12: a passkey login challenge; the AuthMethod's fields and what to sign. */
export const PasskeyAuthChallenge = Schema.Struct({
  ...AuthMethod.fields,
  credentialId: Schema.String,
  /** Lowercase hex SHA-256 of the session-creation body; UTF-8 encoded for `navigator.credentials.get` (W-23). */
  challenge: Schema.String,
  requestId: Schema.String,
  expiresAt: DateTimeString
})
export type PasskeyAuthChallenge = typeof PasskeyAuthChallenge.Type

/** W-43, W-44, W-46. */
export const DelegatedKeyStatus = Schema.Literals(["PENDING", "ACTIVE", "REVOKED"])
export type DelegatedKeyStatus = typeof DelegatedKeyStatus.Type

/**
 * W-43: a key the service holds to sign for a card's embedded-wallet funding source (W-47). Its private key is
 * never shown; `publicKey` identifies it.
 */
export const DelegatedKey = Schema.Struct({
  id: DelegatedKeyId,
  cardId: Schema.String,
  fundingSourceId: Schema.String,
  accountId: InternalAccountId,
  /** Compressed P-256 public key (hex). */
  publicKey: Schema.String,
  nickname: Schema.String,
  status: DelegatedKeyStatus,
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type DelegatedKey = typeof DelegatedKey.Type

// ---- requests ----

export const AccountQuery = Schema.Struct({ accountId: InternalAccountId })
export type AccountQuery = typeof AccountQuery.Type

export const Base64Url = Schema.String.check(
  Schema.isMinLength(1),
  Schema.isMaxLength(16_384),
  Schema.isPattern(/^[A-Za-z0-9_-]+={0,2}$/, { expected: "base64url" })
)
const Transport = Schema.Literals(["usb", "nfc", "ble", "internal", "hybrid"])

/** W-05: a WebAuthn registration result, as `navigator.credentials.create()` returns it (base64url fields). */
export const PasskeyAttestation = Schema.Struct({
  credentialId: Base64Url,
  clientDataJson: Base64Url,
  attestationObject: Base64Url,
  transports: Schema.optionalKey(Schema.Array(Transport))
})

/**
 * An assertion's `userHandle` (W-22): `AuthenticatorAssertionResponse.userHandle` is `null` for a credential
 * named in `allowCredentials`, and `PublicKeyCredential.toJSON()` keeps that `null`: read as absent, as no handle
 * (the wallet's and the SCA factor's assertions alike).
 */
export const PasskeyUserHandle = Schema.NullOr(Schema.String.check(Schema.isMaxLength(1024)))

/** W-22: a WebAuthn assertion, as `navigator.credentials.get()` returns it (base64url fields). */
export const PasskeyAssertion = Schema.Struct({
  credentialId: Base64Url,
  clientDataJson: Base64Url,
  authenticatorData: Base64Url,
  signature: Base64Url,
  userHandle: Schema.optionalKey(PasskeyUserHandle)
})

const OidcToken = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(16_384))

/** W-05, W-06, W-07. */
export const CreateCredentialRequest = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("PASSKEY"),
    accountId: InternalAccountId,
    nickname: boundedString(100),
    challenge: Base64Url,
    attestation: PasskeyAttestation
  }),
  Schema.Struct({ type: Schema.Literal("OAUTH"), accountId: InternalAccountId, oidcToken: OidcToken }),
  Schema.Struct({ type: Schema.Literals(["EMAIL_OTP", "SMS_OTP"]), accountId: InternalAccountId })
])
export type CreateCredentialRequest = typeof CreateCredentialRequest.Type

/** W-12 (passkeys send the session's public key); OTP challenges have no body (W-13): `null`. */
export const ChallengeCredentialRequest = Schema.NullOr(
  Schema.Struct({ clientPublicKey: Schema.optionalKey(ClientPublicKey) })
)
export type ChallengeCredentialRequest = typeof ChallengeCredentialRequest.Type

/** W-17, W-19, W-22. */
export const VerifyCredentialRequest = Schema.Union([
  Schema.Struct({
    type: Schema.Literals(["EMAIL_OTP", "SMS_OTP"]),
    encryptedOtpBundle: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(4096))
  }),
  Schema.Struct({ type: Schema.Literal("OAUTH"), oidcToken: OidcToken, clientPublicKey: ClientPublicKey }),
  Schema.Struct({ type: Schema.Literal("PASSKEY"), assertion: PasskeyAssertion })
])
export type VerifyCredentialRequest = typeof VerifyCredentialRequest.Type

/** W-31: the same key on both legs. */
export const RefreshSessionRequest = Schema.Struct({ clientPublicKey: ClientPublicKey })
export type RefreshSessionRequest = typeof RefreshSessionRequest.Type

/** W-42: the same body on all three legs; L-20: `nickname` 1-256. */
export const CreateDelegatedKeyRequest = Schema.Struct({
  cardId: boundedString(255),
  internalAccountId: InternalAccountId,
  nickname: boundedString(256)
})
export type CreateDelegatedKeyRequest = typeof CreateDelegatedKeyRequest.Type

/** `GET /auth/delegated-keys`: at least one of the two (the service says so with a 400). */
export const ListDelegatedKeysQuery = Schema.Struct({
  accountId: Schema.optionalKey(InternalAccountId),
  fundingSourceId: Schema.optionalKey(boundedString(255))
})
export type ListDelegatedKeysQuery = typeof ListDelegatedKeysQuery.Type

/** W-33: the key the export is sealed to, the same on both legs (upstream `InternalAccountExportRequest`). */
export const InternalAccountExportRequest = Schema.Struct({
  /** A fresh uncompressed P-256 key per export; the client discards its private key once it has opened the answer. */
  clientPublicKey: UncompressedPublicKey
})
export type InternalAccountExportRequest = typeof InternalAccountExportRequest.Type

/** W-33: the wallet's mnemonic, HPKE-sealed to the request's key; never stored (W-41). */
export const InternalAccountExportResponse = Schema.Struct({
  id: InternalAccountId,
  /** JSON string `{version, data, dataSignature, enclaveQuorumPublic}`; `data` is hex of `{encappedPublic, ciphertext}`. */
  encryptedWalletCredentials: Schema.String
})
export type InternalAccountExportResponse = typeof InternalAccountExportResponse.Type

/** W-34, AC-01: `PATCH /internal-accounts/{id}`, the same body on both legs (its one field, so it is required). */
export const InternalAccountUpdateRequest = Schema.Struct({
  /** Whether the embedded wallet's privacy is on. */
  privateEnabled: Schema.Boolean
})
export type InternalAccountUpdateRequest = typeof InternalAccountUpdateRequest.Type

/** The two headers of a signed retry's second leg (W-37); absent on the first. */
export const SignedRetryHeaders = {
  "service-wallet-signature": Schema.optionalKey(Schema.String),
  "request-id": Schema.optionalKey(Schema.String)
}

/** What the HTTP binding hands a signed-retry action: the exact body and the two headers. */
export interface SignedRetryInput {
  readonly rawBody: string
  readonly signature?: string | undefined
  readonly requestId?: string | undefined
}

// ---- records ----

export type CredentialStatus = "ACTIVE" | "REVOKED"

/** A stored credential. Secrets never live here: passkeys keep a public key, OTPs keep only where the code goes. */
export interface WalletCredentialRecord {
  readonly id: AuthMethodId
  readonly accountId: InternalAccountId
  readonly customerId: string
  readonly type: CredentialType
  readonly status: CredentialStatus
  /**
   * Whether the credential has signed in once. A re-added OTP credential starts unverified (W-07): its sessions
   * may not sign, and it does not count as the account's remaining credential (W-29) until it is verified.
   */
  readonly verified: boolean
  readonly nickname: string
  /** Email or E.164 phone an OTP credential sends codes to; tied to the customer's field (CU-14). */
  readonly contact?: string | undefined
  /** Passkeys: the WebAuthn credential id, the COSE public key (base64url) and the signature counter. */
  readonly passkeyCredentialId?: string | undefined
  readonly passkeyPublicKey?: string | undefined
  readonly signCount?: number | undefined
  readonly transports?: ReadonlyArray<string> | undefined
  /** OAuth: the provider identity (W-20). */
  readonly oidcIssuer?: string | undefined
  readonly oidcAudience?: string | undefined
  readonly oidcSubject?: string | undefined
  /**
   * The uniqueness slot of an `ACTIVE` credential (W-09, W-10): `<account>|EMAIL_OTP`, `<account>|SMS_OTP`,
   * `<account>|OAUTH|<iss>|<sub>`, `<account>|PASSKEY|<credentialId>`; absent once revoked.
   */
  readonly slot?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
  /** Set when revoked (W-27): the row stays, out of lists. */
  readonly revokedAt?: string | undefined
}

export type SessionStatus = "ACTIVE" | "REVOKED" | "REFRESHED" | "EXPIRED"

export interface WalletSessionRecord {
  readonly id: SessionId
  readonly accountId: InternalAccountId
  readonly credentialId: AuthMethodId
  readonly type: CredentialType
  readonly nickname: string
  /** The compressed P-256 key (hex) whose stamps this session accepts. */
  readonly publicKey: string
  /**
   * `publicKey` while the session is `ACTIVE`, absent once it ends: a unique key, so a stamp's key finds its one
   * live session in one lookup (a key stamps for one live session at a time).
   */
  readonly liveKey?: string | undefined
  readonly status: SessionStatus
  readonly createdAt: string
  readonly updatedAt: string
  readonly expiresAt: string
}

export type SignedRequestStatus = "PENDING" | "PROCESSING" | "CONSUMED" | "FAILED"

/**
 * The first leg of a signed retry (W-35): what the retry must match. `EXPIRED` is not stored: a row past
 * `expiresAt` reads as expired.
 */
export interface SignedRequestRecord {
  readonly id: string
  readonly accountId: string
  readonly operation: WalletOperation
  /** The resource the action is on (credential, session, customer, card): a retry on another is foreign. */
  readonly subjectId: string
  readonly status: SignedRequestStatus
  /** The exact string the client signs; returned and verified byte for byte, never re-serialized. */
  readonly payloadToSign: string
  /** Lowercase hex SHA-256 of the exact request body. */
  readonly bodySha256: string
  /** Lowercase hex SHA-256 of the sorted ids of the credentials the action changes. */
  readonly credentialSetSha256: string
  /** Who may stamp the retry (see `SignerRule`). */
  readonly signer: string
  /** Operation data bound at the first leg (e.g. the passkey login's session-creation body). */
  readonly bound?: Readonly<Record<string, string>> | undefined
  /** SHA-256 of the stamp of a retry answered `PROCESSING`: only the identical resend reconciles it (W-39). */
  readonly stampSha256?: string | undefined
  readonly expiresAt: string
  readonly createdAt: string
  readonly updatedAt: string
}

/**
 * An OTP challenge of one credential (its id is the credential's: one open challenge per credential). The code is
 * kept as a hash; the HPKE target key the client encrypts to is kept sealed under the key-encryption key.
 */
export interface OtpChallengeRecord {
  readonly id: AuthMethodId
  readonly accountId: string
  readonly codeSha256: string
  readonly targetPublicKey: string
  readonly targetPrivateKeySealed: string
  readonly attempts: number
  readonly issuedAt: string
  readonly expiresAt: string
}

/**
 * A delegated key (W-42 … W-47). The private key is kept only sealed by the `KeyVault` (its context: the key's
 * id); it is in no API shape and never logged.
 */
export interface DelegatedKeyRecord {
  readonly id: DelegatedKeyId
  readonly cardId: string
  readonly fundingSourceId: string
  readonly accountId: InternalAccountId
  /** Compressed P-256 public key (hex). */
  readonly publicKey: string
  readonly privateKeySealed: string
  readonly nickname: string
  readonly status: DelegatedKeyStatus
  /** The funding source while `ACTIVE`, absent otherwise: unique, so one `ACTIVE` key per funding source (L-11). */
  readonly activeSlot?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

export interface DelegatedKeyFilter {
  readonly accountId?: string | undefined
  readonly fundingSourceId?: string | undefined
}

export interface WalletCredentialFilter {
  readonly accountId?: string | undefined
  /** Credentials sending codes to this email or phone (CU-18). */
  readonly contact?: string | undefined
  /** `ACTIVE` credentials only unless true. */
  readonly includeRevoked: boolean
}

export interface WalletSessionFilter {
  readonly accountId?: string | undefined
  readonly credentialId?: string | undefined
  /** Sessions in this status (`ACTIVE`: the live ones; expiry is read from `expiresAt`). */
  readonly status?: string | undefined
}

export interface SignedRequestFilter {
  readonly accountId?: string | undefined
}

export interface OtpChallengeFilter {
  readonly accountId?: string | undefined
}
