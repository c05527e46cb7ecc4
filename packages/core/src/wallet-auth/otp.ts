import { hexToBytes } from "@noble/hashes/utils.js"
import { Clock, Effect, Redacted } from "effect"
import type { EmbeddedWalletConfig } from "../platform/model.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { codeDigest, codeMatches } from "../shared/digests.ts"
import { type EnvelopeSigner, generateTargetKeyPair, openOtpBundle, otpEncryptionTargetBundle } from "../shared/hpke.ts"
import { isoAfter, isoOf } from "../shared/time.ts"
import { challengeTooSoon, walletUnauthorized } from "./errors.ts"
import type { OtpChallengeRecord, WalletCredentialRecord } from "./model.ts"
import type { WalletAuthPorts } from "./ports.ts"
import { compressedKey } from "./sessions.ts"

/** W-15, L-14: a new code for one credential at most this often. */
export const OTP_RESEND_SECONDS = 60
/** Wrong codes one challenge takes before it is spent (then a new challenge is needed). */
export const OTP_MAX_ATTEMPTS = 5
const DEFAULT_OTP_LENGTH = 6
const DEFAULT_OTP_SECONDS = 300

const DIGITS = "0123456789"
const ALPHANUMERIC = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"

/** What an OTP challenge answers the client, and what is sent after the commit. */
export interface IssuedOtp {
  readonly otpEncryptionTargetBundle: string
  readonly send: Effect.Effect<void>
}

// The OTP use cases of `WalletAuth` (W-13, W-15, W-17, W-18, W-24 … W-26), over its ports.

/** A random code of the platform's length and alphabet (rejection sampling keeps every character equally likely). */
const newCode = Effect.fnUntraced(function* (ports: WalletAuthPorts, config: EmbeddedWalletConfig | undefined) {
  const { ids, notifier } = ports
  if (notifier.fixedWalletCode !== undefined) return notifier.fixedWalletCode
  const alphabet = config?.alphanumeric === true ? ALPHANUMERIC : DIGITS
  const length = config?.otpLength ?? DEFAULT_OTP_LENGTH
  let code = ""
  while (code.length < length) {
    const bytes = hexToBytes(yield* ids.randomHex(length))
    for (const b of bytes) {
      if (b < 256 - (256 % alphabet.length) && code.length < length) code += alphabet[b % alphabet.length]
    }
  }
  return code
})

/**
 * A fresh challenge for an OTP credential (W-13): a new HPKE target key (sealed at rest), a new code (hashed),
 * written in the caller's transaction; `send` delivers the code and must run after the commit. 429 when the
 * last one is younger than `OTP_RESEND_SECONDS` (W-15). The target bundle is signed by `signer` (outside the
 * sandbox: `bundleSignerOf`), else its signature fields are empty.
 */
export const issueOtp = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  credential: WalletCredentialRecord,
  config: EmbeddedWalletConfig | undefined,
  target: { readonly privateKey: Uint8Array; readonly publicKey: string },
  signer: EnvelopeSigner | undefined
) {
  const { store, notifier } = ports
  const vault = yield* KeyVault
  const nowMs = yield* Clock.currentTimeMillis
  const open = yield* store.otpChallenges.getForUpdate(credential.id)
  if (open !== undefined) {
    const waitMs = Date.parse(open.issuedAt) + OTP_RESEND_SECONDS * 1000 - nowMs
    if (waitMs > 0) return yield* challengeTooSoon(Math.ceil(waitMs / 1000))
  }
  const code = yield* newCode(ports, config)
  const challenge: OtpChallengeRecord = {
    id: credential.id,
    accountId: credential.accountId,
    codeSha256: codeDigest(credential.id, code),
    targetPublicKey: target.publicKey,
    targetPrivateKeySealed: yield* vault.seal(target.privateKey, credential.id),
    attempts: 0,
    issuedAt: isoOf(nowMs),
    expiresAt: isoAfter(nowMs, config?.expirationSeconds ?? DEFAULT_OTP_SECONDS)
  }
  if (open === undefined) yield* Effect.orDie(store.otpChallenges.insert(challenge))
  else yield* Effect.orDie(store.otpChallenges.update(challenge))
  const channel = credential.type === "SMS_OTP" ? "SMS" : "EMAIL"
  const to = credential.contact ?? ""
  const issued: IssuedOtp = {
    otpEncryptionTargetBundle: otpEncryptionTargetBundle(target.publicKey, signer),
    send: to === "" ? Effect.void : notifier.send(channel, to, Redacted.make(code))
  }
  return issued
})

/** A target key pair, made before a transaction (it is slow next to a row write). */
export const otpTargetKey = generateTargetKeyPair()

/**
 * Checks an `encryptedOtpBundle` against the credential's open challenge (W-17, W-18, W-24): the code, once. A
 * wrong code counts an attempt (committed, then answered 401); the last allowed attempt spends the challenge.
 * Returns the client's public key sealed with the code (compressed): the key the signed retry must be stamped with.
 */
export const checkOtp = Effect.fnUntraced(function* (
  ports: WalletAuthPorts,
  credential: WalletCredentialRecord,
  encryptedOtpBundle: string
) {
  const { store } = ports
  const vault = yield* KeyVault
  const refused = walletUnauthorized("The one-time code is wrong, expired or already used")
  const open = yield* store.otpChallenges.get(credential.id)
  const privateKey = open === undefined ? undefined : yield* vault.open(open.targetPrivateKeySealed, credential.id)
  const opened =
    open === undefined || privateKey === undefined
      ? undefined
      : yield* openOtpBundle(encryptedOtpBundle, { privateKey, publicKey: open.targetPublicKey })
  privateKey?.fill(0)
  const outcome = yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.otpChallenges.getForUpdate(credential.id)
      // Another challenge replaced the one the bundle was opened with: it does not count against the new one.
      if (current === undefined || open === undefined || current.issuedAt !== open.issuedAt) return undefined
      const nowMs = yield* Clock.currentTimeMillis
      const spend = store.otpChallenges.update({ ...current, attempts: OTP_MAX_ATTEMPTS, expiresAt: isoOf(nowMs) })
      if (nowMs >= Date.parse(current.expiresAt) || current.attempts >= OTP_MAX_ATTEMPTS) return undefined
      const good = opened !== undefined && codeMatches(credential.id, opened.otpCode, current.codeSha256)
      if (!good) {
        const attempts = current.attempts + 1
        yield* Effect.orDie(store.otpChallenges.update({ ...current, attempts }))
        return undefined
      }
      // Used once: spent, kept until replaced (so the resend limit still reads its issue time).
      yield* Effect.orDie(spend)
      return opened.publicKey
    })
  )
  if (outcome === undefined) return yield* refused
  return compressedKey(outcome)
})
