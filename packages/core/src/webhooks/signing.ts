import { p256 } from "@noble/curves/nist.js"
import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { Redacted } from "effect"
import { constantTimeEqual } from "../shared/constant-time.ts"

// Signing deliveries (pure; no node modules, so it runs anywhere): the upstream ECDSA P-256 / SHA-256 signature
// with the engine's key pair (`WebhookSigner`), and Standard Webhooks `v1` HMAC-SHA256 signatures with the
// endpoint's `whsec_` secrets (`WebhookSecrets`); and the receivers' checks of both.

// =============================================================================
// Signing: ECDSA P-256 / SHA-256
// =============================================================================

/** The upstream-style signature header: base64 DER ECDSA P-256/SHA-256 over the exact raw body. */
export const SIGNATURE_HEADER = "X-Service-Signature"

/** DER SubjectPublicKeyInfo header of an uncompressed P-256 key (id-ecPublicKey, prime256v1, BIT STRING of 66 bytes). */
const SPKI_P256_PREFIX = hexToBytes("3059301306072a8648ce3d020106082a8648ce3d030107034200")

export const toBase64 = (bytes: Uint8Array): string => {
  let binary = ""
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!)
  return btoa(binary)
}

const fromBase64 = (text: string): Uint8Array | undefined => {
  try {
    const binary = atob(text.trim())
    const out = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
    return out
  } catch {
    return undefined
  }
}

/** PEM (SPKI, `-----BEGIN PUBLIC KEY-----`) of an uncompressed 65-byte P-256 point. */
export const publicKeyToPem = (uncompressedPoint: Uint8Array): string => {
  const der = new Uint8Array(SPKI_P256_PREFIX.length + uncompressedPoint.length)
  der.set(SPKI_P256_PREFIX, 0)
  der.set(uncompressedPoint, SPKI_P256_PREFIX.length)
  const lines = toBase64(der).match(/.{1,64}/g) ?? []
  return `-----BEGIN PUBLIC KEY-----\n${lines.join("\n")}\n-----END PUBLIC KEY-----\n`
}

/** The 65-byte uncompressed point of a P-256 SPKI PEM, or `undefined` when it is not one. */
export const publicKeyFromPem = (pem: string): Uint8Array | undefined => {
  const der = fromBase64(pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, ""))
  if (der === undefined || der.length !== SPKI_P256_PREFIX.length + 65) return undefined
  for (let i = 0; i < SPKI_P256_PREFIX.length; i++) if (der[i] !== SPKI_P256_PREFIX[i]) return undefined
  const point = der.slice(SPKI_P256_PREFIX.length)
  return p256.utils.isValidPublicKey(point, false) ? point : undefined
}

/** The engine's webhook signing key pair. */
export interface WebhookKeys {
  /** SPKI PEM of the public key: publish it to the platform, which verifies deliveries with it. */
  readonly publicKeyPem: string
  /** The private key as 64 hex chars, to persist a generated key (`PAYCORE_WEBHOOK_PRIVATE_KEY`). */
  readonly privateKeyHex: Redacted.Redacted<string>
  /** Base64 of the DER ECDSA P-256 signature over SHA-256 of `message` (UTF-8). */
  readonly sign: (message: string) => string
}

const PRIVATE_KEY_HEX = /^[0-9a-fA-F]{64}$/

export const makeWebhookKeys = (secretKey: Uint8Array): WebhookKeys => {
  if (!p256.utils.isValidSecretKey(secretKey)) throw new Error("Not a valid P-256 private key")
  const key = Uint8Array.from(secretKey)
  const hex = Array.from(key, (b) => b.toString(16).padStart(2, "0")).join("")
  return {
    publicKeyPem: publicKeyToPem(p256.getPublicKey(key, false)),
    privateKeyHex: Redacted.make(hex, { label: "PAYCORE_WEBHOOK_PRIVATE_KEY" }),
    sign: (message) => toBase64(p256.sign(utf8ToBytes(message), key, { format: "der" }))
  }
}

/** A fresh random key pair (`crypto.getRandomValues`). */
export const generateWebhookKeys = (): WebhookKeys => makeWebhookKeys(p256.utils.randomSecretKey())

/** Loads a key pair from a 32-byte private key in hex; throws on anything else (a startup configuration error). */
export const webhookKeysFromHex = (privateKeyHex: string): WebhookKeys => {
  const hex = privateKeyHex.trim()
  if (!PRIVATE_KEY_HEX.test(hex)) {
    throw new Error("PAYCORE_WEBHOOK_PRIVATE_KEY must be 64 hex characters (a 32-byte P-256 private key)")
  }
  return makeWebhookKeys(hexToBytes(hex.toLowerCase()))
}

// =============================================================================
// Standard Webhooks: `v1` HMAC-SHA256 signatures with the endpoint's `whsec_` secrets
// =============================================================================

export const SECRET_PREFIX = "whsec_"

/** The HMAC key of a `whsec_<base64>` secret (a bare base64 one too, as the reference libraries take it). */
const secretKey = (secret: string): Uint8Array | undefined =>
  fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret)

const standardMac = (key: Uint8Array, id: string, timestamp: string, body: string): Uint8Array =>
  hmac(sha256, key, utf8ToBytes(`${id}.${timestamp}.${body}`))

/**
 * The `webhook-signature` value for `secrets`: `v1,<base64 HMAC-SHA256 over "<id>.<timestamp>.<body>">` for
 * each, space-separated (several during a rotation's overlap). A secret that is not base64 is a defect.
 */
export const standardSignature = (
  secrets: ReadonlyArray<string>,
  id: string,
  timestampSeconds: number,
  body: string
): string =>
  secrets
    .map((secret) => {
      const key = secretKey(secret)
      if (key === undefined) throw new Error("A webhook signing secret is not base64")
      return `v1,${toBase64(standardMac(key, id, String(timestampSeconds), body))}`
    })
    .join(" ")

/**
 * Every header of a signed delivery: `X-Service-Signature` (base64 DER P-256 signature over the raw body, the
 * upstream scheme) and the Standard Webhooks headers `webhook-id`, `webhook-timestamp` (unix seconds) and, when
 * the endpoint has signing secrets, `webhook-signature` (see `standardSignature`).
 */
export const signedHeaders = (
  keys: WebhookKeys,
  secrets: ReadonlyArray<string>,
  id: string,
  timestampSeconds: number,
  body: string
): Readonly<Record<string, string>> => ({
  "Content-Type": "application/json",
  "User-Agent": "paycore-webhooks/0.1",
  [SIGNATURE_HEADER]: keys.sign(body),
  "webhook-id": id,
  "webhook-timestamp": String(timestampSeconds),
  ...(secrets.length === 0 ? {} : { "webhook-signature": standardSignature(secrets, id, timestampSeconds, body) })
})

const verifyBytes = (publicKeyPem: string, message: string, signature: Uint8Array): boolean => {
  const publicKey = publicKeyFromPem(publicKeyPem)
  if (publicKey === undefined) return false
  const msg = utf8ToBytes(message)
  const format = signature.length === 64 ? "compact" : "der"
  try {
    return p256.verify(signature, msg, publicKey, { format, lowS: false })
  } catch {
    return false
  }
}

/**
 * Checks an `X-Service-Signature` value against the raw body: base64 DER (or 64-byte compact) signature,
 * or the JSON wrapper `{"v":"1","s":"<base64>"}` receivers should also accept.
 */
export const verifyWebhookSignature = (publicKeyPem: string, body: string, signatureHeader: string): boolean => {
  let encoded = signatureHeader.trim()
  if (encoded.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(encoded)
      const s = typeof parsed === "object" && parsed !== null ? (parsed as { s?: unknown }).s : undefined
      if (typeof s !== "string") return false
      encoded = s
    } catch {
      return false
    }
  }
  const signature = fromBase64(encoded)
  return signature !== undefined && verifyBytes(publicKeyPem, body, signature)
}

/**
 * Checks the Standard Webhooks headers as a receiver does: one of the space-separated `v1,<base64>` entries of
 * `webhook-signature` must be the HMAC of `"<webhook-id>.<webhook-timestamp>.<body>"` under `secret` (compared
 * in constant time); with `nowSeconds`, the timestamp must also lie within `toleranceSeconds` (default 300) of
 * it, so an old delivery cannot be replayed.
 */
export const verifyStandardWebhook = (
  secret: string,
  headers: { readonly id: string; readonly timestamp: string; readonly signature: string },
  body: string,
  options?: { readonly nowSeconds?: number; readonly toleranceSeconds?: number }
): boolean => {
  const key = secretKey(secret)
  if (key === undefined || !/^\d+$/.test(headers.timestamp)) return false
  if (options?.nowSeconds !== undefined) {
    const skew = Math.abs(options.nowSeconds - Number(headers.timestamp))
    if (skew > (options.toleranceSeconds ?? 300)) return false
  }
  const expected = standardMac(key, headers.id, headers.timestamp, body)
  return headers.signature.split(" ").some((entry) => {
    const [version, encoded] = entry.split(",", 2)
    if (version !== "v1" || encoded === undefined) return false
    const given = fromBase64(encoded)
    return given !== undefined && constantTimeEqual(given, expected)
  })
}
