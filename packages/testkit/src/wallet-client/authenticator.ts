/**
 * A software WebAuthn authenticator for tests: a real P-256 credential whose registrations and assertions are what
 * a browser hands to `navigator.credentials.create` / `get` callers, base64url-encoded as the API takes them
 * (`PasskeyAttestation`, `PasskeyAssertion`). CBOR through `@levischuck/tiny-cbor`, the codec the verifier decodes
 * with. `overrides` break one thing at a time for negative tests.
 */
import { encodeCBOR } from "@levischuck/tiny-cbor"
import { p256 } from "@noble/curves/nist.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { concatBytes } from "@noble/hashes/utils.js"
import { base64urlnopad } from "@scure/base"

const utf8 = new TextEncoder()

const FLAG_UP = 0x01
const FLAG_UV = 0x04
const FLAG_AT = 0x40

export interface AuthenticatorOptions {
  readonly rpId: string
  readonly origin: string
  /** Attestation statement format of registrations: `none` (default) or `packed` self attestation (ES256). */
  readonly format?: "none" | "packed"
}

/** One thing to break in a ceremony. */
export interface CeremonyOverrides {
  /** Clear the user-presence flag. */
  readonly userPresent?: boolean
  /** Clear the user-verification flag (set by default). */
  readonly userVerified?: boolean
  /** Client data `origin` instead of the authenticator's. */
  readonly origin?: string
  /** RP id hashed into the authenticator data instead of the authenticator's. */
  readonly rpId?: string
  /** Client data `type` instead of `webauthn.create` / `webauthn.get`. */
  readonly type?: string
  /** The count to report (assertions otherwise count up from 1; the internal count does not move). */
  readonly signCount?: number
  /** Client data `challenge` as is, instead of the one derived from the argument. */
  readonly challenge?: string
}

export interface RegistrationOverrides extends CeremonyOverrides {
  /** CBOR bytes of another COSE key to put in the attested credential data (a key of another type or curve). */
  readonly cosePublicKey?: Uint8Array
}

/** A `PasskeyAttestation` of the API. */
export interface PasskeyAttestation {
  readonly credentialId: string
  readonly clientDataJson: string
  readonly attestationObject: string
  readonly transports: ReadonlyArray<string>
}

/** A `PasskeyAssertion` of the API. */
export interface PasskeyAssertion {
  readonly credentialId: string
  readonly clientDataJson: string
  readonly authenticatorData: string
  readonly signature: string
  readonly userHandle?: string
}

export interface SoftwareAuthenticator {
  /** The credential id, base64url. */
  readonly credentialId: string
  /** `navigator.credentials.create` with `challenge` (base64url, as the registration body's `challenge`). */
  register(challenge: string, overrides?: RegistrationOverrides): Promise<PasskeyAttestation>
  /** `navigator.credentials.get` with the challenge step's hex `challenge` (UTF-8 encoded as the WebAuthn challenge, W-23). */
  assert(hexChallenge: string, overrides?: CeremonyOverrides): Promise<PasskeyAssertion>
}

const u32 = (value: number): Uint8Array => {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setUint32(0, value)
  return out
}

const u16 = (value: number): Uint8Array => {
  const out = new Uint8Array(2)
  new DataView(out.buffer).setUint16(0, value)
  return out
}

const b64u = (bytes: Uint8Array): string => base64urlnopad.encode(bytes)

export const softwareAuthenticator = (options: AuthenticatorOptions): SoftwareAuthenticator => {
  const privateKey = p256.utils.randomSecretKey()
  const point = p256.getPublicKey(privateKey, false)
  const coseKey = encodeCBOR(
    new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, point.slice(1, 33)],
      [-3, point.slice(33, 65)]
    ])
  )
  const rawId = crypto.getRandomValues(new Uint8Array(32))
  const userHandle = crypto.getRandomValues(new Uint8Array(16))
  let counter = 0

  const clientData = (type: string, challenge: string, overrides: CeremonyOverrides): Uint8Array =>
    utf8.encode(
      JSON.stringify({
        type: overrides.type ?? type,
        challenge: overrides.challenge ?? challenge,
        origin: overrides.origin ?? options.origin,
        crossOrigin: false
      })
    )

  const authenticatorData = (flags: number, signCount: number, overrides: CeremonyOverrides, attested?: Uint8Array) => {
    const up = overrides.userPresent === false ? 0 : FLAG_UP
    const uv = overrides.userVerified === false ? 0 : FLAG_UV
    return concatBytes(
      sha256(utf8.encode(overrides.rpId ?? options.rpId)),
      Uint8Array.of(flags | up | uv),
      u32(signCount),
      attested ?? new Uint8Array(0)
    )
  }

  const sign = (authData: Uint8Array, clientDataJson: Uint8Array): Uint8Array =>
    p256.sign(concatBytes(authData, sha256(clientDataJson)), privateKey, { format: "der" })

  return {
    credentialId: b64u(rawId),

    register: async (challenge, overrides = {}) => {
      const clientDataJson = clientData("webauthn.create", challenge, overrides)
      const attested = concatBytes(new Uint8Array(16), u16(rawId.length), rawId, overrides.cosePublicKey ?? coseKey)
      const authData = authenticatorData(FLAG_AT, overrides.signCount ?? 0, overrides, attested)
      const attStmt =
        options.format === "packed"
          ? new Map<string, number | Uint8Array>([
              ["alg", -7],
              ["sig", sign(authData, clientDataJson)]
            ])
          : new Map<string, never>()
      const attestationObject = encodeCBOR(
        new Map<string, string | Uint8Array | Map<string, number | Uint8Array>>([
          ["fmt", options.format ?? "none"],
          ["attStmt", attStmt],
          ["authData", authData]
        ])
      )
      return {
        credentialId: b64u(rawId),
        clientDataJson: b64u(clientDataJson),
        attestationObject: b64u(attestationObject),
        transports: ["internal", "hybrid"]
      }
    },

    assert: async (hexChallenge, overrides = {}) => {
      const clientDataJson = clientData("webauthn.get", b64u(utf8.encode(hexChallenge)), overrides)
      const signCount = overrides.signCount ?? ++counter
      const authData = authenticatorData(0, signCount, overrides)
      return {
        credentialId: b64u(rawId),
        clientDataJson: b64u(clientDataJson),
        authenticatorData: b64u(authData),
        signature: b64u(sign(authData, clientDataJson)),
        userHandle: b64u(userHandle)
      }
    }
  }
}

/** A registration as browsers' `PublicKeyCredential.toJSON()` gives it (W3C `RegistrationResponseJSON`). */
export interface RegistrationResponseJson {
  readonly id: string
  readonly rawId: string
  readonly type: "public-key"
  readonly response: {
    readonly clientDataJSON: string
    readonly attestationObject: string
    readonly transports: ReadonlyArray<string>
  }
  readonly authenticatorAttachment: "platform"
  readonly clientExtensionResults: Record<string, never>
}

/** An assertion as browsers' `PublicKeyCredential.toJSON()` gives it (W3C `AuthenticationResponseJSON`). */
export interface AuthenticationResponseJson {
  readonly id: string
  readonly rawId: string
  readonly type: "public-key"
  readonly response: {
    readonly clientDataJSON: string
    readonly authenticatorData: string
    readonly signature: string
    readonly userHandle?: string
  }
  readonly authenticatorAttachment: "platform"
  readonly clientExtensionResults: Record<string, never>
}

/**
 * The W3C JSON of a ceremony (what SCA bodies carry as `credential` and `passkeyAssertion`): the same base64url
 * fields as the wallet's `PasskeyAttestation` / `PasskeyAssertion`, under the names of `toJSON()`.
 */
export function toWebAuthnJson(attestation: PasskeyAttestation): RegistrationResponseJson
export function toWebAuthnJson(assertion: PasskeyAssertion): AuthenticationResponseJson
export function toWebAuthnJson(
  ceremony: PasskeyAttestation | PasskeyAssertion
): RegistrationResponseJson | AuthenticationResponseJson {
  const common = {
    id: ceremony.credentialId,
    rawId: ceremony.credentialId,
    type: "public-key",
    authenticatorAttachment: "platform",
    clientExtensionResults: {}
  } as const
  if ("attestationObject" in ceremony) {
    return {
      ...common,
      response: {
        clientDataJSON: ceremony.clientDataJson,
        attestationObject: ceremony.attestationObject,
        transports: ceremony.transports
      }
    }
  }
  return {
    ...common,
    response: {
      clientDataJSON: ceremony.clientDataJson,
      authenticatorData: ceremony.authenticatorData,
      signature: ceremony.signature,
      ...(ceremony.userHandle === undefined ? {} : { userHandle: ceremony.userHandle })
    }
  }
}
