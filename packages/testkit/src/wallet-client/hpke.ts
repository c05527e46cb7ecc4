/**
 * The client side of the wallet's HPKE messages (FEATURES "HPKE parameters and passkey relying party"): seal an OTP
 * attempt to an `otpEncryptionTargetBundle`, open a legacy `encryptedSessionSigningKey` and an export's
 * `encryptedWalletCredentials`. Suite DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM, base mode, `info`
 * `turnkey_hpke`, AAD = encapsulated key ‖ recipient key (65-byte uncompressed each). Written from the wire formats,
 * apart from the core's code, so the two check each other.
 */
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from "@hpke/core"
import { p256 } from "@noble/curves/nist.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, concatBytes, hexToBytes } from "@noble/hashes/utils.js"
import { createBase58check } from "@scure/base"

export const HPKE_INFO = "turnkey_hpke"

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() })
const info = new TextEncoder().encode(HPKE_INFO)
const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder("utf-8", { fatal: true })
const base58check = createBase58check(sha256)

const uncompressed = (publicKeyHex: string): Uint8Array => p256.Point.fromHex(publicKeyHex).toBytes(false)

const seal = async (recipient: Uint8Array, plaintext: Uint8Array): Promise<{ enc: Uint8Array; ct: Uint8Array }> => {
  const sender = await suite.createSenderContext({
    recipientPublicKey: await suite.kem.deserializePublicKey(recipient),
    info
  })
  const enc = new Uint8Array(sender.enc)
  return { enc, ct: new Uint8Array(await sender.seal(plaintext, concatBytes(enc, recipient))) }
}

const open = async (enc: Uint8Array, ct: Uint8Array, recipientPrivateKey: Uint8Array): Promise<Uint8Array> => {
  const context = await suite.createRecipientContext({
    recipientKey: await suite.kem.deserializePrivateKey(recipientPrivateKey),
    enc,
    info
  })
  const aad = concatBytes(enc, p256.getPublicKey(recipientPrivateKey, false))
  return new Uint8Array(await context.open(ct, aad))
}

/** `data` of a `{version?, data, dataSignature, enclaveQuorumPublic}` envelope, hex-decoded and parsed. */
const envelopeData = (envelope: string): Record<string, unknown> => {
  const { data } = JSON.parse(envelope) as { data: string }
  return JSON.parse(fromUtf8.decode(hexToBytes(data))) as Record<string, unknown>
}

/**
 * The `encryptedOtpBundle` of a login (W-18): `{otp_code, public_key}` sealed to the bundle's `targetPublic`, as the
 * JSON string `{"encappedPublic": hex, "ciphertext": hex}`. `clientPublicKey` is the key that will stamp the retry.
 */
export const sealOtpBundle = async (
  otpEncryptionTargetBundle: string,
  otpCode: string,
  clientPublicKey: string
): Promise<string> => {
  const { targetPublic } = envelopeData(otpEncryptionTargetBundle) as { targetPublic: string }
  const plaintext = utf8.encode(JSON.stringify({ otp_code: otpCode, public_key: clientPublicKey }))
  const { enc, ct } = await seal(uncompressed(targetPublic), plaintext)
  return JSON.stringify({ encappedPublic: bytesToHex(enc), ciphertext: bytesToHex(ct) })
}

/** The 32-byte session scalar of a legacy `encryptedSessionSigningKey` (base58check(compressed enc ‖ ciphertext)). */
export const openSessionSigningKey = async (
  encryptedSessionSigningKey: string,
  recipientPrivateKey: Uint8Array
): Promise<Uint8Array> => {
  const payload = base58check.decode(encryptedSessionSigningKey)
  const enc = p256.Point.fromBytes(payload.subarray(0, 33)).toBytes(false)
  return open(enc, payload.subarray(33), recipientPrivateKey)
}

/** The secret (the wallet mnemonic) of an export's `encryptedWalletCredentials` envelope (W-33). */
export const openWalletCredentials = async (
  encryptedWalletCredentials: string,
  recipientPrivateKey: Uint8Array
): Promise<string> => {
  const { encappedPublic, ciphertext } = envelopeData(encryptedWalletCredentials) as {
    encappedPublic: string
    ciphertext: string
  }
  const plaintext = await open(hexToBytes(encappedPublic), hexToBytes(ciphertext), recipientPrivateKey)
  return fromUtf8.decode(plaintext)
}
