import { utf8ToBytes } from "@noble/hashes/utils.js"
import { base64urlnopad } from "@scure/base"
import { Effect } from "effect"
import type { PlatformConfig } from "../platform/model.ts"
import { isoOf } from "../shared/time.ts"
import { relyingParty } from "../wallet-auth/credentials.ts"
import { originAllowed, verifyPasskeyAssertion, verifyPasskeyRegistration } from "../wallet-auth/passkey.ts"
import type {
  PasskeyAssertionJson,
  PasskeyAssertionOptions,
  PasskeyCreationOptions,
  PasskeyRegistrationJson,
  ScaFactorRecord
} from "./model.ts"

// The PASSKEY factor over the wallet's WebAuthn checks (wallet-auth/passkey.ts; no crypto of its own): the options a
// device is handed, and the checks of a registration and of an assertion. Independent of the login: a quote's or a
// trust's challenge calls `passkeyProof` with its own dynamic-linking hash as the challenge.

/** How long a passkey enrolment can be confirmed (as a TOTP enrolment). */
export const PASSKEY_ENROLMENT_SECONDS = 600
/** The assertion options' `timeout`: the lifetime of an SCA challenge (300 s). */
export const PASSKEY_ASSERTION_TIMEOUT_MS = 300_000
/** ES256, the one algorithm the wallet's checks accept (EC2 P-256). */
const COSE_ALG_ES256 = -7

/** The relying party SCA passkeys are bound to: the platform's `relyingPartyId` and `passkeyAllowedOrigins`. */
export interface PasskeyRelyingParty {
  readonly rpId: string
  readonly origins: ReadonlyArray<string>
}

/** The platform's passkey relying party, as the wallet reads it (the sandbox's `localhost` by default). */
export const scaRelyingParty = (config: PlatformConfig): PasskeyRelyingParty =>
  relyingParty(config.embeddedWalletConfig)

/**
 * The options `navigator.credentials.get` takes for the customer's passkey, over a 64-hex challenge: WebAuthn signs
 * base64url(UTF-8(hex)), what `verifyPasskeyAssertion`'s `expectedHexChallenge` checks (W-23).
 */
export const passkeyAssertionOptions = (
  challengeHex: string,
  rpId: string,
  credentialId: string
): PasskeyAssertionOptions => ({
  challenge: base64urlnopad.encode(utf8ToBytes(challengeHex)),
  rpId,
  allowCredentials: [{ type: "public-key", id: credentialId }],
  userVerification: "preferred",
  timeout: PASSKEY_ASSERTION_TIMEOUT_MS
})

/** The options `navigator.credentials.create` takes to enrol an SCA passkey over the enrolment's challenge. */
export const passkeyCreationOptions = (
  challenge: string,
  rp: { readonly id: string; readonly name: string },
  user: { readonly customerId: string; readonly name: string }
): PasskeyCreationOptions => ({
  rp: { id: rp.id, name: rp.name },
  // The user handle is the customer id (an opaque id, no personal data), so a device keeps one passkey per customer.
  user: { id: base64urlnopad.encode(utf8ToBytes(user.customerId)), name: user.name, displayName: user.name },
  challenge,
  pubKeyCredParams: [{ type: "public-key", alg: COSE_ALG_ES256 }],
  timeout: PASSKEY_ENROLMENT_SECONDS * 1000,
  attestation: "none",
  excludeCredentials: [],
  authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" }
})

/** What a passkey registration yields to store on the factor, or `undefined` when it does not verify. */
export interface PasskeyEnrolled {
  readonly credentialId: string
  readonly publicKey: string
  readonly signCount: number
}

/**
 * Checks an enrolment's registration: `origin` one of the relying party's, the client data's origin equal to it,
 * over `expectedChallenge` (base64url), for the relying party's id, and an EC2 P-256 ES256 key.
 */
export const passkeyRegistration = Effect.fnUntraced(function* (
  credential: PasskeyRegistrationJson,
  origin: string,
  expectedChallenge: string,
  rp: PasskeyRelyingParty
) {
  if (credential.rawId !== credential.id || !originAllowed(origin, rp.origins)) return undefined
  const registered = yield* Effect.result(
    verifyPasskeyRegistration({
      credentialId: credential.id,
      clientDataJson: credential.response.clientDataJSON,
      attestationObject: credential.response.attestationObject,
      expectedChallenge,
      rpId: rp.rpId,
      // The body's origin is the one the client data must carry.
      origins: [origin]
    })
  )
  if (registered._tag === "Failure") return undefined
  const { credentialId, publicKey, signCount } = registered.success
  return { credentialId, publicKey, signCount } satisfies PasskeyEnrolled as PasskeyEnrolled
})

/** What a passkey proof comes to: the factor to store (its counter moved on), or a refusal. */
export type PasskeyOutcome = { readonly _tag: "Passed"; readonly factor: ScaFactorRecord } | { readonly _tag: "Wrong" }

const wrong: PasskeyOutcome = { _tag: "Wrong" }

/**
 * Checks an assertion of the customer's passkey `factor` over `expectedHexChallenge` (a login's random challenge, or
 * a transaction's dynamic-linking hash): `origin` one of the relying party's and the client data's origin, the
 * relying party's id, the signature under the stored key, and a counter above the stored one (it never goes back:
 * a replayed or cloned authenticator is refused). `Passed` carries the factor with its new counter, to store.
 */
export const passkeyProof = Effect.fnUntraced(function* (
  factor: ScaFactorRecord,
  assertion: PasskeyAssertionJson,
  origin: string,
  expectedHexChallenge: string,
  rp: PasskeyRelyingParty,
  nowMs: number
) {
  if (factor.credentialId === undefined || factor.publicKey === undefined) return wrong
  if (assertion.rawId !== assertion.id || !originAllowed(origin, rp.origins)) return wrong
  const verified = yield* Effect.result(
    verifyPasskeyAssertion({
      credentialId: assertion.id,
      clientDataJson: assertion.response.clientDataJSON,
      authenticatorData: assertion.response.authenticatorData,
      signature: assertion.response.signature,
      userHandle: assertion.response.userHandle,
      expectedHexChallenge,
      rpId: rp.rpId,
      origins: [origin],
      stored: { credentialId: factor.credentialId, publicKey: factor.publicKey, signCount: factor.signCount ?? 0 }
    })
  )
  if (verified._tag === "Failure") return wrong
  return {
    _tag: "Passed",
    factor: { ...factor, signCount: verified.success.signCount, updatedAt: isoOf(nowMs) }
  } satisfies PasskeyOutcome as PasskeyOutcome
})
