import { p256 } from "@noble/curves/nist.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Predicate } from "effect"

/** A P-256 public key checked to be a point of the curve, in both SEC1 encodings (lowercase hex). */
export interface P256PublicKey {
  readonly compressed: string
  readonly uncompressed: string
}

const ANY_CASE_KEY = /^(?:0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/

/**
 * Reads a P-256 public key given as compressed (`02`/`03` + 64 hex) or uncompressed (`04` + 128 hex) SEC1 hex, in
 * either case; `undefined` when it is not a point of the curve. Services check a `clientPublicKey` with it before
 * they bind the key into a challenge (an invalid key passed on to `hpke.ts` is a defect).
 */
export const parseP256PublicKey = (hex: string): P256PublicKey | undefined => {
  if (!Predicate.isString(hex) || !ANY_CASE_KEY.test(hex)) return undefined
  try {
    const point = p256.Point.fromHex(hex.toLowerCase())
    return { compressed: bytesToHex(point.toBytes(true)), uncompressed: bytesToHex(point.toBytes(false)) }
  } catch {
    return undefined
  }
}
