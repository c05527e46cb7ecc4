import { hexToBytes } from "@noble/hashes/utils.js"
// The slim build: the same RFC 6238 code over @noble/hashes (no node:crypto, so the core stays runtime-neutral).
import { Secret, TOTP } from "otpauth/slim"
import { constantTimeEqual } from "../shared/constant-time.ts"
import { codeDigest } from "../shared/digests.ts"
import type { ScaFactorRecord } from "./model.ts"

// TOTP (RFC 6238) as an SCA factor (S-02, S-14, S-15): SHA-1, 6 digits, 30 s steps, a code of the step before or
// after accepted (clock drift), each step's code good once. `otpauth` computes the codes from an explicit timestamp,
// so the engine's Clock (a TestClock in tests) decides what "now" is. Pure: the callers open and seal the secret.

export const TOTP_ALGORITHM = "SHA1"
export const TOTP_DIGITS = 6
export const TOTP_PERIOD_SECONDS = 30
/** Steps of drift accepted either side of the current one. */
export const TOTP_WINDOW = 1
/** How long a started enrolment waits for its confirm. */
export const TOTP_ENROLMENT_SECONDS = 600
export const RECOVERY_CODE_COUNT = 10
/** Random bytes behind a secret (RFC 4226 recommends 160 bits); the secret is their hex. */
export const TOTP_SECRET_BYTES = 20

/** The KeyVault context a customer's TOTP secret is sealed under: a sealed secret moved to another customer fails. */
export const totpVaultContext = (customerId: string) => `sca-totp:${customerId}`

/** The HMAC key of a secret as `POST /sca/factors` shows it: the secret's bytes as text. */
const keyOf = (secret: string) => Secret.fromLatin1(secret)

/** `secretBase32Encoded`: the secret's bytes in base32 (RFC 4648, no padding), as authenticator apps take it. */
export const base32Of = (secret: string): string => keyOf(secret).base32

/** The `otpauth://totp/…` provisioning URI (the QR code's payload). */
export const totpUri = (secret: string, issuer: string, label: string): string =>
  new TOTP({
    issuer,
    label,
    secret: keyOf(secret),
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS
  }).toString()

/** The RFC 6238 time step of an instant. */
export const totpStepAt = (nowMs: number): number => TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: nowMs })

/** The code of a secret at an instant (tests and the sandbox; the service only validates). */
export const totpCodeAt = (secret: string, atMs: number): string =>
  TOTP.generate({
    secret: keyOf(secret),
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    timestamp: atMs
  })

/** The time step `code` belongs to, within the window around `nowMs`; `undefined` when it is no code of the secret. */
export const totpStepOf = (secret: string, code: string, nowMs: number): number | undefined => {
  if (!/^\d{6}$/.test(code)) return undefined
  const delta = TOTP.validate({
    token: code,
    secret: keyOf(secret),
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    timestamp: nowMs,
    window: TOTP_WINDOW
  })
  return delta === null ? undefined : totpStepAt(nowMs) + delta
}

// ---- recovery codes ----

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/** A recovery code `XXXX-XXXX-XXXX` (base32 letters, 60 bits) from 12 random bytes (each byte mod 32: unbiased). */
export const recoveryCodeOf = (randomHex: string): string => {
  const chars = Array.from(hexToBytes(randomHex).subarray(0, 12), (byte) => BASE32[byte % 32]).join("")
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`
}

/** A typed recovery code in its canonical form (case and separators forgiven), or `undefined` when it is none. */
export const normalRecoveryCode = (typed: string): string | undefined => {
  const chars = typed.toUpperCase().replace(/[\s-]/g, "")
  if (!/^[A-Z2-7]{12}$/.test(chars)) return undefined
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`
}

/** What the store keeps of a recovery code: SHA-256(factor id ‖ code), hex. */
export const recoveryCodeHash = (factorId: string, code: string): string => codeDigest(factorId, code)

/**
 * The factor once the recovery code `typed` is used (its hash removed), or `undefined` when it is none of the
 * factor's unused codes. Every stored hash is compared, in constant time.
 */
export const useRecoveryCode = (factor: ScaFactorRecord, typed: string): ScaFactorRecord | undefined => {
  const code = normalRecoveryCode(typed)
  if (code === undefined) return undefined
  const hash = hexToBytes(recoveryCodeHash(factor.id, code))
  const hashes = factor.recoveryCodeHashes ?? []
  let found = -1
  hashes.forEach((stored, i) => {
    if (constantTimeEqual(hash, hexToBytes(stored)) && found === -1) found = i
  })
  if (found === -1) return undefined
  return { ...factor, recoveryCodeHashes: hashes.filter((_, i) => i !== found) }
}
