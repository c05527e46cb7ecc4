/**
 * Spark addresses (`SPARK_WALLET`): bech32m over a protobuf `SparkAddress` whose field 1 is the wallet's 33-byte
 * compressed secp256k1 identity key (`0x0a 0x21 ‖ key`). The human-readable part names the network: `spark`,
 * `sparkt`, `sparkrt`, `sparks`, `sparkl`, and the older `sp`, `spt`, `sprt`, `sps`, `spl`. The identity key is what
 * signs the wallet's Bitcoin messages, so an ownership signature is checked against it (accounts/wallet-signatures.ts).
 */
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { bech32m } from "@scure/base"

const SPARK_PREFIXES = new Set(["spark", "sparkt", "sparkrt", "sparks", "sparkl", "sp", "spt", "sprt", "sps", "spl"])
/** Protobuf field 1, length-delimited (`1 << 3 | 2`), and the length of a compressed key. */
const IDENTITY_KEY_TAG = 0x0a
const COMPRESSED_KEY_BYTES = 33
/** Longer than bech32's 90: a Spark address may carry more fields after the key. */
const MAX_ADDRESS_LENGTH = 1023

/** The identity key a Spark address encodes (33 bytes, a point on the curve), or `undefined` when it is not one. */
export const sparkIdentityKey = (address: string): Uint8Array | undefined => {
  try {
    const decoded = bech32m.decode(address as `${string}1${string}`, MAX_ADDRESS_LENGTH)
    if (!SPARK_PREFIXES.has(decoded.prefix)) return undefined
    const payload = bech32m.fromWords(decoded.words)
    if (payload[0] !== IDENTITY_KEY_TAG || payload[1] !== COMPRESSED_KEY_BYTES) return undefined
    const key = payload.subarray(2, 2 + COMPRESSED_KEY_BYTES)
    if (key.length !== COMPRESSED_KEY_BYTES) return undefined
    secp256k1.Point.fromBytes(key).assertValidity()
    return key
  } catch {
    return undefined
  }
}

/** The mainnet Spark address of an identity key (tests and the sandbox make wallets with it). */
export const sparkAddressOf = (identityKey: Uint8Array, prefix = "spark"): string =>
  bech32m.encode(
    prefix,
    bech32m.toWords(Uint8Array.of(IDENTITY_KEY_TAG, COMPRESSED_KEY_BYTES, ...identityKey)),
    MAX_ADDRESS_LENGTH
  )
