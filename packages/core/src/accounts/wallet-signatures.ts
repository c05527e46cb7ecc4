/**
 * Checks that a self-custody wallet signed an ownership message (AC-27; FEATURES "Ownership-verification
 * signatures"), with the message formats wallets use, over the exact UTF-8 `messageToSign`:
 *
 * - EVM wallets (`ETHEREUM_WALLET`, `BASE_WALLET`, `POLYGON_WALLET`, `PLASMA_WALLET`): EIP-191 `personal_sign`, a 65-byte hex
 *   `r ‖ s ‖ v`; the address recovered with secp256k1 over keccak-256 equals the account's (case-insensitive).
 * - `TRON_WALLET`: the same with TronWeb's `signMessageV2` prefix `\x19TRON Signed Message:\n`, the address
 *   recovered as base58check (`0x41` + the key's 20 bytes).
 * - `SOLANA_WALLET`: a base58 Ed25519 signature by the key the base58 address is.
 * - `SPARK_WALLET`: a Bitcoin message signature (base64, 65 bytes: header ‖ r ‖ s) over the double SHA-256 of
 *   `\x18Bitcoin Signed Message:\n ‖ varint length ‖ message`, whose recovered key is the identity key of the Spark
 *   address. `bip137` (the default) takes headers 27–42 (P2PKH uncompressed / compressed, P2SH-P2WPKH, P2WPKH);
 *   `electrum` takes 27–34 only, as Electrum and Sparrow sign every address type with those.
 *
 * Pure and total: any malformed signature or address is `false`, never a throw.
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { base58, createBase58check } from "@scure/base"
import { sparkIdentityKey } from "../shared/spark-address.ts"
import type { AccountInfo } from "./model.ts"

/** The wallet variants whose ownership can be proven by a signature (every self-custody wallet of the model). */
export type SignableWallet = Extract<AccountInfo, { readonly address: string }>

const base58check = createBase58check(sha256)

const EIP191_PREFIX = "\x19Ethereum Signed Message:\n"
const TRON_PREFIX = "\x19TRON Signed Message:\n"

/** keccak-256 of `prefix ‖ decimal byte length ‖ message`: the digest `personal_sign` (and TRON's v2) signs. */
const prefixedDigest = (prefix: string, message: string): Uint8Array => {
  const bytes = utf8ToBytes(message)
  return keccak_256(concatBytes(utf8ToBytes(`${prefix}${bytes.length}`), bytes))
}

/** The 20-byte account of the secp256k1 key that made `signature` (`r ‖ s ‖ v`, v 27/28 or 0/1) over `digest`. */
const recoverAccount = (digest: Uint8Array, signature: string): Uint8Array | undefined => {
  const hex = signature.startsWith("0x") || signature.startsWith("0X") ? signature.slice(2) : signature
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) return undefined
  const bytes = hexToBytes(hex)
  const v = bytes[64]!
  const recovery = v >= 27 ? v - 27 : v
  if (recovery !== 0 && recovery !== 1) return undefined
  try {
    // noble's "recovered" format puts the recovery bit first.
    const recovered = concatBytes(Uint8Array.of(recovery), bytes.subarray(0, 64))
    const publicKey = secp256k1.recoverPublicKey(recovered, digest, { prehash: false })
    const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false)
    return keccak_256(uncompressed.subarray(1)).subarray(12)
  } catch {
    return undefined
  }
}

const verifyEvm = (address: string, message: string, signature: string): boolean => {
  const account = recoverAccount(prefixedDigest(EIP191_PREFIX, message), signature)
  return account !== undefined && `0x${bytesToHex(account)}` === address.toLowerCase()
}

const verifyTron = (address: string, message: string, signature: string): boolean => {
  const account = recoverAccount(prefixedDigest(TRON_PREFIX, message), signature)
  return account !== undefined && base58check.encode(concatBytes(Uint8Array.of(0x41), account)) === address
}

const verifySolana = (address: string, message: string, signature: string): boolean => {
  try {
    const publicKey = base58.decode(address)
    const sig = base58.decode(signature)
    if (publicKey.length !== 32 || sig.length !== 64) return false
    return ed25519.verify(sig, utf8ToBytes(message), publicKey)
  } catch {
    return false
  }
}

/** The Bitcoin message-signing schemes of `POST …/verify` (AC-27); ignored for the other chains. */
export type BitcoinSignatureScheme = "bip137" | "electrum"

const BITCOIN_PREFIX = "\x18Bitcoin Signed Message:\n"

/** Bitcoin's CompactSize length prefix. */
const compactSize = (n: number): Uint8Array =>
  n < 0xfd
    ? Uint8Array.of(n)
    : n <= 0xffff
      ? Uint8Array.of(0xfd, n & 0xff, n >>> 8)
      : Uint8Array.of(0xfe, n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24)

/** The digest a Bitcoin wallet signs for a message: SHA-256d of the prefixed, length-prefixed UTF-8 bytes. */
export const bitcoinMessageDigest = (message: string): Uint8Array => {
  const bytes = utf8ToBytes(message)
  return sha256(sha256(concatBytes(utf8ToBytes(BITCOIN_PREFIX), compactSize(bytes.length), bytes)))
}

/** The header byte's highest value per scheme (the lowest is 27 for both). */
const HIGHEST_HEADER: Readonly<Record<BitcoinSignatureScheme, number>> = { bip137: 42, electrum: 34 }

/** The key (compressed) that made a base64 Bitcoin message signature over `message`, or `undefined`. */
const recoverBitcoinKey = (message: string, signature: string, scheme: BitcoinSignatureScheme) => {
  try {
    if (!/^[A-Za-z0-9+/]{86}[A-Za-z0-9+/=]{2}$/.test(signature)) return undefined
    const bytes = Uint8Array.from(atob(signature), (c) => c.charCodeAt(0))
    const header = bytes[0]!
    if (bytes.length !== 65 || header < 27 || header > HIGHEST_HEADER[scheme]) return undefined
    const recovered = concatBytes(Uint8Array.of((header - 27) & 3), bytes.subarray(1))
    const publicKey = secp256k1.recoverPublicKey(recovered, bitcoinMessageDigest(message), { prehash: false })
    return secp256k1.Point.fromBytes(publicKey).toBytes(true)
  } catch {
    return undefined
  }
}

const verifySpark = (address: string, message: string, signature: string, scheme: BitcoinSignatureScheme) => {
  const identity = sparkIdentityKey(address)
  const signer = recoverBitcoinKey(message, signature, scheme)
  return identity !== undefined && signer !== undefined && bytesToHex(identity) === bytesToHex(signer)
}

/** Whether `signature` is the wallet's signature of `message` (see the module comment for each variant's format). */
export const verifyWalletSignature = (
  wallet: SignableWallet,
  message: string,
  signature: string,
  scheme: BitcoinSignatureScheme = "bip137"
): boolean => {
  switch (wallet.accountType) {
    case "ETHEREUM_WALLET":
    case "BASE_WALLET":
    case "POLYGON_WALLET":
    case "PLASMA_WALLET":
      return verifyEvm(wallet.address, message, signature)
    case "TRON_WALLET":
      return verifyTron(wallet.address, message, signature)
    case "SOLANA_WALLET":
      return verifySolana(wallet.address, message, signature)
    case "SPARK_WALLET":
      return verifySpark(wallet.address, message, signature, scheme)
  }
}
