/**
 * The `Service-Wallet-Signature` header (FEATURES "Signed-retry stamp", W-37): base64url, without padding, of the
 * JSON `{"publicKey": <compressed P-256 key, hex>, "scheme": "SIGNATURE_SCHEME_TK_API_P256", "signature": <DER
 * ECDSA-SHA256 signature, hex>}` over the exact UTF-8 bytes of a `payloadToSign`. Pure: parsing never throws,
 * verification never fails; keys are read with `shared/p256.ts`.
 */
import { p256 } from "@noble/curves/nist.js"
import { hexToBytes } from "@noble/hashes/utils.js"
import { base64urlnopad } from "@scure/base"
import { Effect, Predicate } from "effect"

export const STAMP_SCHEME = "SIGNATURE_SCHEME_TK_API_P256"

/** A parsed stamp: who signed (`publicKey`, lowercase compressed hex) and the signature as 64 bytes `r ‖ s`. */
export interface Stamp {
  readonly publicKey: string
  readonly signature: Uint8Array
}

type VerifyKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>

/** Imported session keys, least recently used first (a `Map` keeps insertion order). */
const verifyKeys = new Map<string, VerifyKey>()
export const VERIFY_KEY_CACHE_SIZE = 10_000

// A stamp is about 400 characters; anything far longer is refused before decoding.
const MAX_HEADER_LENGTH = 1_024
// Lowercase only, in both hex fields: one signature has one spelling, so a changed byte is always a refusal.
const COMPRESSED_KEY = /^0[23][0-9a-f]{64}$/
// SEQUENCE of two INTEGERs of at most 33 bytes each: 8 to 72 bytes.
const DER_SIGNATURE = /^30(?:[0-9a-f]{2}){7,71}$/
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const STAMP_KEYS = ["publicKey", "scheme", "signature"]

const decodeStamp = (header: string): Stamp | undefined => {
  if (!Predicate.isString(header) || header.length === 0 || header.length > MAX_HEADER_LENGTH) return undefined
  const json: unknown = JSON.parse(strictUtf8.decode(base64urlnopad.decode(header)))
  if (!Predicate.isObject(json) || Array.isArray(json)) return undefined
  const keys = Object.keys(json)
  if (keys.length !== STAMP_KEYS.length || !STAMP_KEYS.every((key) => Object.hasOwn(json, key))) return undefined
  const { publicKey, scheme, signature } = json as Record<string, unknown>
  if (scheme !== STAMP_SCHEME || !Predicate.isString(publicKey) || !Predicate.isString(signature)) return undefined
  if (!COMPRESSED_KEY.test(publicKey) || !DER_SIGNATURE.test(signature)) return undefined
  // Off the curve, noble throws. A key already imported for verification is a point: its check (a square root,
  // about 55 µs) is skipped for the session keys that stamp again and again.
  if (!verifyKeys.has(publicKey)) p256.Point.fromHex(publicKey)
  // DER with r and s in [1, n-1] (noble refuses the rest), then the 64-byte r ‖ s form Web Crypto verifies.
  const compact = p256.Signature.fromBytes(hexToBytes(signature), "der").toBytes("compact")
  return { publicKey, signature: compact }
}

/**
 * Parses a `Service-Wallet-Signature` header; `undefined` when it is not padding-less base64url of UTF-8 JSON with
 * exactly the string keys `publicKey`, `scheme`, `signature`, when the scheme differs, when `publicKey` is not a
 * lowercase compressed point of P-256 or `signature` not lowercase hex DER with `r`, `s` in [1, n-1]. Never throws.
 */
export const parseStamp = (header: string): Stamp | undefined => {
  try {
    return decodeStamp(header)
  } catch {
    return undefined
  }
}

// ---- verification ----

const ECDSA_P256 = { name: "ECDSA", namedCurve: "P-256" } as const
const ECDSA_SHA256 = { name: "ECDSA", hash: "SHA-256" } as const
const utf8 = new TextEncoder()

const cachedVerifyKey = (publicKey: string): VerifyKey | undefined => {
  const key = verifyKeys.get(publicKey)
  if (key !== undefined) {
    verifyKeys.delete(publicKey)
    verifyKeys.set(publicKey, key)
  }
  return key
}

const importVerifyKey = async (publicKey: string): Promise<VerifyKey> => {
  // Web Crypto in Node 24 imports the 33-byte compressed SEC1 form directly.
  const key = await crypto.subtle.importKey("raw", hexToBytes(publicKey), ECDSA_P256, false, ["verify"])
  if (verifyKeys.size >= VERIFY_KEY_CACHE_SIZE) {
    const oldest = verifyKeys.keys().next()
    if (!oldest.done) verifyKeys.delete(oldest.value)
  }
  verifyKeys.set(publicKey, key)
  return key
}

const verifyAsync = async (stamp: Stamp, payload: string): Promise<boolean> => {
  const key = cachedVerifyKey(stamp.publicKey) ?? (await importVerifyKey(stamp.publicKey))
  const signature = new Uint8Array(stamp.signature)
  return crypto.subtle.verify(ECDSA_SHA256, key, signature, utf8.encode(payload))
}

/**
 * ECDSA P-256 / SHA-256 check of `stamp` over the exact UTF-8 bytes of `payload` (Web Crypto; the imported key is
 * kept per public key in a bounded LRU). Any failure is `false`, never an error or a defect.
 */
export const verifyStamp = (stamp: Stamp, payload: string): Effect.Effect<boolean> =>
  Effect.promise(() => verifyAsync(stamp, payload).catch(() => false))
