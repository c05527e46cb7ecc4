/**
 * Every HPKE use of the wallet (FEATURES "HPKE parameters and passkey relying party"): one suite, DHKEM(P-256,
 * HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM in base mode, `info` = UTF-8 `turnkey_hpke`, AAD = the encapsulated key
 * ‖ the recipient key (both 65-byte uncompressed SEC1). Used to open OTP bundles (W-18), to seal the legacy
 * `encryptedSessionSigningKey` (W-16) and wallet exports (W-33). The wire shapes follow the upstream OpenAPI and
 * client-keys guide; `docs/wallet-auth.md` documents them.
 */
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from "@hpke/core"
import { p256 } from "@noble/curves/nist.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, concatBytes, hexToBytes } from "@noble/hashes/utils.js"
import { createBase58check } from "@scure/base"
import { Effect, Predicate } from "effect"
import { parseP256PublicKey } from "./p256.ts"

/** The HPKE `info` of every wallet use, as a string (immutable); its UTF-8 bytes go to the suite. */
export const HPKE_INFO = "turnkey_hpke"
/** `version` of the JSON envelopes (`otpEncryptionTargetBundle`, `encryptedWalletCredentials`), as upstream. */
export const BUNDLE_VERSION = "v1.0.0"

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() })
const info = new TextEncoder().encode(HPKE_INFO)
const utf8 = new TextEncoder()
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const base58check = createBase58check(sha256)

/** A P-256 key pair an HPKE message is sealed to: the 32-byte scalar and the uncompressed public key (130 hex). */
export interface TargetKeyPair {
  readonly privateKey: Uint8Array
  readonly publicKey: string
}

/** One HPKE message: the encapsulated key (uncompressed SEC1 hex) and the AEAD ciphertext with its tag (hex). */
export interface HpkeSealed {
  readonly encappedPublic: string
  readonly ciphertext: string
}

/** A fresh recipient key pair (the OTP target key of one issuance). */
export const generateTargetKeyPair = (): Effect.Effect<TargetKeyPair> =>
  Effect.sync(() => {
    const privateKey = p256.utils.randomSecretKey()
    return { privateKey, publicKey: bytesToHex(p256.getPublicKey(privateKey, false)) }
  })

// ---- seal and open ----

const uncompressedRecipient = (publicKey: string): Uint8Array => {
  const key = parseP256PublicKey(publicKey)
  if (key === undefined) throw new Error("HPKE recipient is not a P-256 public key")
  return hexToBytes(key.uncompressed)
}

const sealBytes = async (
  recipient: Uint8Array,
  plaintext: Uint8Array
): Promise<{ enc: Uint8Array; ct: Uint8Array }> => {
  const recipientPublicKey = await suite.kem.deserializePublicKey(recipient)
  const sender = await suite.createSenderContext({ recipientPublicKey, info })
  const enc = new Uint8Array(sender.enc)
  const ct = new Uint8Array(await sender.seal(plaintext, concatBytes(enc, recipient)))
  return { enc, ct }
}

/** Opens one message; rejects on any failure (callers turn that into `undefined`). */
const openBytes = async (enc: Uint8Array, ct: Uint8Array, privateKey: Uint8Array): Promise<Uint8Array> => {
  const recipient = p256.getPublicKey(privateKey, false)
  const recipientKey = await suite.kem.deserializePrivateKey(privateKey)
  const context = await suite.createRecipientContext({ recipientKey, enc, info })
  return new Uint8Array(await context.open(ct, concatBytes(enc, recipient)))
}

/**
 * Seals `plaintext` to a P-256 public key (compressed or uncompressed hex). The key must be a point of the curve:
 * check it with `parseP256PublicKey` where it comes from a request; an invalid one here is a defect.
 */
export const sealTo = (recipientPublicKey: string, plaintext: Uint8Array): Effect.Effect<HpkeSealed> =>
  Effect.promise(async () => {
    const { enc, ct } = await sealBytes(uncompressedRecipient(recipientPublicKey), plaintext)
    return { encappedPublic: bytesToHex(enc), ciphertext: bytesToHex(ct) }
  })

const HEX = /^(?:[0-9a-fA-F]{2})+$/
const UNCOMPRESSED_HEX = /^04[0-9a-fA-F]{128}$/

const openSealed = async (sealed: unknown, privateKey: Uint8Array): Promise<Uint8Array | undefined> => {
  if (!Predicate.isObject(sealed)) return undefined
  const { encappedPublic, ciphertext } = sealed as Record<string, unknown>
  if (!Predicate.isString(encappedPublic) || !UNCOMPRESSED_HEX.test(encappedPublic)) return undefined
  if (!Predicate.isString(ciphertext) || !HEX.test(ciphertext)) return undefined
  return openBytes(hexToBytes(encappedPublic), hexToBytes(ciphertext), privateKey)
}

/** Opens a message sealed by `sealTo` with the recipient's 32-byte scalar; `undefined` on any failure. */
export const openFrom = (sealed: HpkeSealed, recipientPrivateKey: Uint8Array): Effect.Effect<Uint8Array | undefined> =>
  Effect.promise(() => openSealed(sealed, recipientPrivateKey).catch(() => undefined))

// ---- OTP bundles (W-13, W-18) ----

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const hexJson = (hex: unknown): unknown => {
  if (!Predicate.isString(hex) || !HEX.test(hex)) return undefined
  try {
    return parseJson(strictUtf8.decode(hexToBytes(hex)))
  } catch {
    return undefined
  }
}

const toHexJson = (value: object): string => bytesToHex(utf8.encode(JSON.stringify(value)))

// ---- envelopes and their signature ----

/**
 * The key that signs a bundle's `data` outside the sandbox (the `BundleSigner` port), so a client verifies it came
 * from the service before it seals a code to it or opens it (`@turnkey/crypto`'s `encryptOtpCodeToBundle` and
 * `decryptExportBundle` with the key pinned).
 */
export interface EnvelopeSigner {
  /** The uncompressed P-256 public key, lowercase hex (130): the envelope's `enclaveQuorumPublic`. */
  readonly publicKey: string
  /** ECDSA P-256 over SHA-256 of `data` (the bytes the hex stands for), DER, lowercase hex: `dataSignature`. */
  readonly sign: (data: Uint8Array) => string
}

/**
 * The upstream envelope `{"version":"v1.0.0","data":<hex>,"dataSignature":…,"enclaveQuorumPublic":…}` of `data`:
 * signed by `signer`, or with both fields empty (the sandbox, as upstream sends them there).
 */
const envelope = (data: string, signer: EnvelopeSigner | undefined): string =>
  JSON.stringify({
    version: BUNDLE_VERSION,
    data,
    dataSignature: signer === undefined ? "" : signer.sign(hexToBytes(data)),
    enclaveQuorumPublic: signer === undefined ? "" : signer.publicKey
  })

/**
 * An unsigned envelope (a `WalletVault`'s export) with its `data` signed by `signer`; an envelope already signed
 * (a vault over an enclave signs its own) or a string that is no envelope, as it is.
 */
export const signEnvelope = (bundle: string, signer: EnvelopeSigner): string => {
  const parsed = parseJson(bundle)
  if (!Predicate.isObject(parsed)) return bundle
  const { data, dataSignature } = parsed as Record<string, unknown>
  if (!Predicate.isString(data) || !HEX.test(data) || (dataSignature !== undefined && dataSignature !== "")) {
    return bundle
  }
  return envelope(data.toLowerCase(), signer)
}

/**
 * The `otpEncryptionTargetBundle` for a target public key (uncompressed hex): the JSON string
 * `{"version":"v1.0.0","data":<hex of {"targetPublic":…}>,"dataSignature":…,"enclaveQuorumPublic":…}`. The field
 * names and `version` are the upstream's (its examples: `data` hex-decodes to `{"targetPublic":…`). Signed by
 * `signer` outside the sandbox; in the sandbox both fields are empty, as upstream sends them there.
 */
export const otpEncryptionTargetBundle = (targetPublic: string, signer?: EnvelopeSigner): string =>
  envelope(toHexJson({ targetPublic }), signer)

/** The `targetPublic` (uncompressed hex, a point of P-256) of a target bundle; `undefined` when malformed. */
export const readTargetBundle = (bundle: string): string | undefined => {
  if (!Predicate.isString(bundle)) return undefined
  const envelope = parseJson(bundle)
  if (!Predicate.isObject(envelope)) return undefined
  const data = hexJson((envelope as Record<string, unknown>).data)
  if (!Predicate.isObject(data)) return undefined
  const { targetPublic } = data as Record<string, unknown>
  if (!Predicate.isString(targetPublic) || !UNCOMPRESSED_HEX.test(targetPublic)) return undefined
  return parseP256PublicKey(targetPublic) === undefined ? undefined : targetPublic
}

/** What an opened `encryptedOtpBundle` says: the code typed and the client's key (as sent, a point of P-256). */
export interface OtpAttempt {
  readonly otpCode: string
  readonly publicKey: string
}

// An OTP bundle is a few hundred characters; far longer ones are refused before any work.
const MAX_OTP_BUNDLE_LENGTH = 4_096

const openOtpAttempt = async (encryptedOtpBundle: string, target: TargetKeyPair): Promise<OtpAttempt | undefined> => {
  if (!Predicate.isString(encryptedOtpBundle) || encryptedOtpBundle.length > MAX_OTP_BUNDLE_LENGTH) return undefined
  const plaintext = await openSealed(parseJson(encryptedOtpBundle), target.privateKey)
  if (plaintext === undefined) return undefined
  const attempt = parseJson(strictUtf8.decode(plaintext))
  if (!Predicate.isObject(attempt)) return undefined
  const { otp_code, public_key } = attempt as Record<string, unknown>
  if (!Predicate.isString(otp_code) || !Predicate.isString(public_key)) return undefined
  if (parseP256PublicKey(public_key) === undefined) return undefined
  return { otpCode: otp_code, publicKey: public_key }
}

/**
 * Opens an `encryptedOtpBundle` (JSON string `{"encappedPublic": hex, "ciphertext": hex}`) with the issuance's
 * target key; the plaintext is JSON `{"otp_code": string, "public_key": hex}` (W-18). `undefined` on any failure:
 * not JSON, not hex, AEAD refusal, a plaintext of another shape or a `public_key` off the curve.
 */
export const openOtpBundle = (
  encryptedOtpBundle: string,
  target: TargetKeyPair
): Effect.Effect<OtpAttempt | undefined> =>
  Effect.promise(() => openOtpAttempt(encryptedOtpBundle, target).catch(() => undefined))

// ---- what the service seals to a client ----

/**
 * The legacy `encryptedSessionSigningKey` (W-16): the 32-byte session scalar sealed to the client's key, as upstream
 * sends it: base58check(compressed encapsulated key (33 bytes) ‖ ciphertext). `info` is `HPKE_INFO`, as for every
 * other use (FEATURES; upstream documents a separate session-bundle value).
 */
export const encryptedSessionSigningKey = (
  recipientPublicKey: string,
  sessionPrivateKey: Uint8Array
): Effect.Effect<string> =>
  Effect.promise(async () => {
    const { enc, ct } = await sealBytes(uncompressedRecipient(recipientPublicKey), sessionPrivateKey)
    const compressedEnc = p256.Point.fromBytes(enc).toBytes(true)
    return base58check.encode(concatBytes(compressedEnc, ct))
  })

/**
 * `encryptedWalletCredentials` of an export (W-33): `secret` (the mnemonic) sealed to the client's key, in the
 * upstream envelope `{"version":"v1.0.0","data":<hex of {"encappedPublic","ciphertext","organizationId"}>,
 * "dataSignature":"","enclaveQuorumPublic":""}`, unsigned (`signEnvelope` signs it outside the sandbox).
 * `organizationId` is the upstream's name for what the export belongs to: here the wallet's account id, which a
 * client passes to `decryptExportBundle` as its expected `organizationId`.
 */
export const encryptedWalletCredentials = (
  recipientPublicKey: string,
  secret: string,
  organizationId: string
): Effect.Effect<string> =>
  Effect.map(sealTo(recipientPublicKey, utf8.encode(secret)), (sealed) =>
    envelope(
      toHexJson({ encappedPublic: sealed.encappedPublic, ciphertext: sealed.ciphertext, organizationId }),
      undefined
    )
  )
