/**
 * Passkey (WebAuthn) checks of the wallet (W-05, W-10, W-22, W-23), on `@simplewebauthn/server`: it decodes the CBOR
 * attestation object, checks the RP id hash, the user-presence flag, the attestation statement (`none`, `packed` and
 * the other registered formats), the assertion signature over `authenticatorData ‖ SHA-256(clientDataJSON)` and the
 * counter. This module adds what the library leaves to the caller: the origin rule of the sandbox (`localhost` on
 * any port), the credential id of the request against the authenticator's or the stored one, and the key type
 * (EC2 P-256, ES256 only).
 */
import { p256 } from "@noble/curves/nist.js"
import { concatBytes } from "@noble/hashes/utils.js"
import { base64urlnopad } from "@scure/base"
import { verifyAuthenticationResponse, verifyRegistrationResponse } from "@simplewebauthn/server"
import { cose, decodeClientDataJSON, decodeCredentialPublicKey } from "@simplewebauthn/server/helpers"
import { Effect, Predicate, Schema } from "effect"
import { constantTimeEqual } from "../shared/constant-time.ts"

/** A WebAuthn response the wallet does not accept; `reason` is for people and logs (no secret in it). */
export class PasskeyRefused extends Schema.TaggedError<PasskeyRefused>()("PasskeyRefused", {
  reason: Schema.String
}) {}

/** What a registration yields, to store on the credential: the COSE key (base64url) and the authenticator's count. */
export interface PasskeyRegistration {
  readonly credentialId: string
  readonly publicKey: string
  readonly signCount: number
  readonly transports: ReadonlyArray<string>
}

export interface PasskeyRegistrationInput {
  readonly credentialId: string
  readonly clientDataJson: string
  readonly attestationObject: string
  readonly transports?: ReadonlyArray<string> | undefined
  /** The body's top-level `challenge` (base64url) the client passed to `navigator.credentials.create`. */
  readonly expectedChallenge: string
  readonly rpId: string
  /** Allowed origins (see `originAllowed`). */
  readonly origins: ReadonlyArray<string>
}

export interface StoredPasskey {
  readonly credentialId: string
  /** The COSE public key, base64url, as `verifyPasskeyRegistration` returned it. */
  readonly publicKey: string
  readonly signCount: number
}

export interface PasskeyAssertionInput {
  readonly credentialId: string
  readonly clientDataJson: string
  readonly authenticatorData: string
  readonly signature: string
  /** `null` (as `toJSON()` gives it for a credential named in `allowCredentials`) is no handle. */
  readonly userHandle?: string | null | undefined
  /** The challenge step's `challenge`: 64 lowercase hex; the client data carries base64url of its UTF-8 (W-23). */
  readonly expectedHexChallenge: string
  readonly rpId: string
  readonly origins: ReadonlyArray<string>
  readonly stored: StoredPasskey
}

// ---- origins ----

const LOCALHOST_ORIGIN = /^(https?):\/\/localhost(?::(\d{1,5}))?$/

/**
 * Whether a client-data `origin` is allowed: equal to an entry, or, for an entry `http://localhost` or
 * `https://localhost` (no port), that scheme on `localhost` with any port (FEATURES: the sandbox relying party,
 * browsers treat localhost as a secure context).
 */
export const originAllowed = (origin: string, allowed: ReadonlyArray<string>): boolean => {
  if (allowed.includes(origin)) return true
  const local = LOCALHOST_ORIGIN.exec(origin)
  if (local === null) return false
  const port = local[2]
  if (port !== undefined && (port.startsWith("0") || Number(port) > 65_535)) return false
  return allowed.includes(`${local[1]}://localhost`)
}

// ---- shared steps ----

/** A refusal raised inside the async checks; `toRefused` turns it (or a library error) into `PasskeyRefused`. */
class Refusal extends Error {}

const MAX_REASON_LENGTH = 200

const toRefused = (cause: unknown): PasskeyRefused => {
  const reason = cause instanceof Error && cause.message !== "" ? cause.message : "the WebAuthn response is invalid"
  return new PasskeyRefused({ reason: reason.slice(0, MAX_REASON_LENGTH) })
}

const refuse = (reason: string): never => {
  throw new Refusal(reason)
}

/** base64url (padding tolerated) to its canonical, padding-less spelling; refuses anything else. */
const canonicalBase64url = (value: unknown, field: string): string => {
  if (!Predicate.isString(value)) return refuse(`${field} is not a string`)
  const bare = value.replace(/={1,2}$/, "")
  try {
    base64urlnopad.decode(bare)
  } catch {
    return refuse(`${field} is not base64url`)
  }
  return bare
}

interface ClientData {
  readonly type: string
  readonly challenge: string
  readonly origin: string
}

/** Decodes the client data and checks its `type`, `challenge` and `origin` before the library sees them. */
const checkClientData = (
  clientDataJson: string,
  expected: { type: string; challenge: string; origins: ReadonlyArray<string> }
): ClientData => {
  let decoded: unknown
  try {
    decoded = decodeClientDataJSON(clientDataJson)
  } catch {
    return refuse("clientDataJson is not base64url JSON")
  }
  if (!Predicate.isObject(decoded)) return refuse("clientDataJson is not a JSON object")
  const { type, challenge, origin } = decoded as Record<string, unknown>
  if (!Predicate.isString(type) || !Predicate.isString(challenge) || !Predicate.isString(origin))
    return refuse("clientDataJson lacks type, challenge or origin")
  if (type !== expected.type) return refuse(`clientDataJson type is not ${expected.type}`)
  if (challenge !== expected.challenge) return refuse("clientDataJson challenge is not the expected challenge")
  if (!originAllowed(origin, expected.origins)) return refuse("clientDataJson origin is not an allowed origin")
  return { type, challenge, origin }
}

const COSE_KTY_EC2 = 2
const COSE_CRV_P256 = 1
const COSE_ALG_ES256 = -7

/** Refuses a credential key that is not EC2 / P-256 / ES256 with a point of the curve. */
const checkP256CoseKey = (coseKey: Uint8Array<ArrayBuffer>): void => {
  const key = decodeCredentialPublicKey(coseKey)
  if (
    !cose.isCOSEPublicKeyEC2(key) ||
    key.get(cose.COSEKEYS.kty) !== COSE_KTY_EC2 ||
    key.get(cose.COSEKEYS.alg) !== COSE_ALG_ES256 ||
    key.get(cose.COSEKEYS.crv) !== COSE_CRV_P256
  )
    throw new Refusal("the credential key is not an EC2 P-256 ES256 key")
  const x = key.get(cose.COSEKEYS.x)
  const y = key.get(cose.COSEKEYS.y)
  try {
    if (x?.length !== 32 || y?.length !== 32) throw new Error("coordinates of 32 bytes expected")
    p256.Point.fromBytes(concatBytes(Uint8Array.of(4), x, y))
  } catch {
    throw new Refusal("the credential key is not a point of P-256")
  }
}

/**
 * An ES256 assertion signature must be strict DER. The library's ASN.1 reader also takes other tags around the same
 * integers, so one signature would have many spellings; noble's reader takes exactly one.
 */
const checkDerSignature = (signature: string): void => {
  try {
    const der = base64urlnopad.decode(signature)
    if (!constantTimeEqual(p256.Signature.fromBytes(der, "der").toBytes("der"), der)) throw new Error("not canonical")
  } catch {
    throw new Refusal("signature is not a DER ECDSA signature")
  }
}

// ---- registration ----

const register = async (input: PasskeyRegistrationInput): Promise<PasskeyRegistration> => {
  const credentialId = canonicalBase64url(input.credentialId, "credentialId")
  const clientDataJson = canonicalBase64url(input.clientDataJson, "clientDataJson")
  const attestationObject = canonicalBase64url(input.attestationObject, "attestationObject")
  const expectedChallenge = canonicalBase64url(input.expectedChallenge, "challenge")
  const clientData = checkClientData(clientDataJson, {
    type: "webauthn.create",
    challenge: expectedChallenge,
    origins: input.origins
  })
  const verification = await verifyRegistrationResponse({
    response: {
      id: credentialId,
      rawId: credentialId,
      type: "public-key",
      response: { clientDataJSON: clientDataJson, attestationObject },
      clientExtensionResults: {}
    },
    expectedChallenge: clientData.challenge,
    expectedOrigin: clientData.origin,
    expectedRPID: input.rpId,
    requireUserPresence: true,
    requireUserVerification: false,
    supportedAlgorithmIDs: [COSE_ALG_ES256]
  })
  const info = verification.registrationInfo
  if (!verification.verified || info === undefined) return refuse("the attestation statement does not verify")
  if (info.credential.id !== credentialId) return refuse("credentialId is not the authenticator's credential id")
  checkP256CoseKey(info.credential.publicKey)
  return {
    credentialId,
    publicKey: base64urlnopad.encode(info.credential.publicKey),
    signCount: info.credential.counter,
    transports: input.transports ?? []
  }
}

/**
 * Checks a passkey registration (W-05): client data of type `webauthn.create` with the expected challenge and an
 * allowed origin, RP id hash of `rpId`, user presence (user verification not required), an attestation statement
 * that verifies, the authenticator's credential id equal to `credentialId`, and an EC2 P-256 ES256 key.
 */
export const verifyPasskeyRegistration = (
  input: PasskeyRegistrationInput
): Effect.Effect<PasskeyRegistration, PasskeyRefused> =>
  Effect.tryPromise({ try: () => register(input), catch: toRefused })

// ---- assertion ----

const utf8 = new TextEncoder()

const checkAssertion = async (input: PasskeyAssertionInput): Promise<{ signCount: number }> => {
  const credentialId = canonicalBase64url(input.credentialId, "credentialId")
  if (credentialId !== input.stored.credentialId) return refuse("credentialId is not the credential's")
  const clientDataJson = canonicalBase64url(input.clientDataJson, "clientDataJson")
  const authenticatorData = canonicalBase64url(input.authenticatorData, "authenticatorData")
  const signature = canonicalBase64url(input.signature, "signature")
  checkDerSignature(signature)
  const userHandle = input.userHandle == null ? undefined : canonicalBase64url(input.userHandle, "userHandle")
  const clientData = checkClientData(clientDataJson, {
    type: "webauthn.get",
    challenge: base64urlnopad.encode(utf8.encode(input.expectedHexChallenge)),
    origins: input.origins
  })
  const verification = await verifyAuthenticationResponse({
    response: {
      id: credentialId,
      rawId: credentialId,
      type: "public-key",
      response: {
        clientDataJSON: clientDataJson,
        authenticatorData,
        signature,
        ...(userHandle === undefined ? {} : { userHandle })
      },
      clientExtensionResults: {}
    },
    expectedChallenge: clientData.challenge,
    expectedOrigin: clientData.origin,
    expectedRPID: input.rpId,
    credential: {
      id: input.stored.credentialId,
      publicKey: new Uint8Array(base64urlnopad.decode(input.stored.publicKey)),
      counter: input.stored.signCount
    },
    requireUserVerification: false
  })
  if (!verification.verified) return refuse("the assertion signature does not verify")
  return { signCount: verification.authenticationInfo.newCounter }
}

/**
 * Checks a passkey assertion (W-22, W-23): the stored credential's id, client data of type `webauthn.get` whose
 * challenge is base64url(UTF-8(`expectedHexChallenge`)) from an allowed origin, RP id hash of `rpId`, user presence,
 * the signature under the stored key, and a counter above the stored one (unless both are 0). Yields the new count.
 */
export const verifyPasskeyAssertion = (
  input: PasskeyAssertionInput
): Effect.Effect<{ signCount: number }, PasskeyRefused> =>
  Effect.tryPromise({ try: () => checkAssertion(input), catch: toRefused })
