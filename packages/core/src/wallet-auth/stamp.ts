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
import { StampVerifier } from "../ports/stamp-verifier.ts"
import { Lru } from "../shared/lru.ts"
import type { Stamp } from "./model.ts"

export const STAMP_SCHEME = "SIGNATURE_SCHEME_TK_API_P256"

export type { Stamp } from "./model.ts"

/** Keys already checked to be points of P-256, least recently used first (a `Map` keeps insertion order). */
const checkedKeys = new Lru<string, true>(10_000)

/** Throws unless `publicKey` (lowercase compressed hex) is a point of P-256; a key seen before is not checked again. */
const checkCurvePoint = (publicKey: string): void => {
  if (checkedKeys.get(publicKey)) return
  // Off the curve, noble throws (the caller turns it into a refusal). The check is a square root (about 55 µs):
  // session keys stamp again and again, so it is done once per key.
  p256.Point.fromHex(publicKey)
  checkedKeys.set(publicKey, true)
}

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
  checkCurvePoint(publicKey)
  // DER with r and s in [1, n-1] (noble refuses the rest), then the 64-byte r ‖ s form Web Crypto verifies.
  const der = hexToBytes(signature)
  const compact = p256.Signature.fromBytes(der, "der").toBytes("compact")
  return { publicKey, signature: compact, der }
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

/**
 * ECDSA P-256 / SHA-256 check of `stamp` over the exact UTF-8 bytes of `payload`, by the `StampVerifier` port (Web
 * Crypto unless a faster one is provided). Any failure is `false`, never an error or a defect.
 */
export const verifyStamp = (stamp: Stamp, payload: string): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const verifier = yield* StampVerifier
    return yield* verifier.verify(stamp, payload)
  })
