/**
 * Checks that a self-custody wallet signed an ownership message (AC-27; FEATURES "Ownership-verification
 * signatures"), with the message formats wallets use, over the exact UTF-8 `messageToSign`:
 *
 * - EVM wallets (`ETHEREUM_WALLET`, `BASE_WALLET`, `POLYGON_WALLET`): EIP-191 `personal_sign`, a 65-byte hex
 *   `r ‖ s ‖ v`; the address recovered with secp256k1 over keccak-256 equals the account's (case-insensitive).
 * - `TRON_WALLET`: the same with TronWeb's `signMessageV2` prefix `\x19TRON Signed Message:\n`, the address
 *   recovered as base58check (`0x41` + the key's 20 bytes).
 * - `SOLANA_WALLET`: a base58 Ed25519 signature by the key the base58 address is.
 *
 * Pure and total: any malformed signature or address is `false`, never a throw.
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { base58, createBase58check } from "@scure/base"
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

/** Whether `signature` is the wallet's signature of `message` (see the module comment for each variant's format). */
export const verifyWalletSignature = (wallet: SignableWallet, message: string, signature: string): boolean => {
  switch (wallet.accountType) {
    case "ETHEREUM_WALLET":
    case "BASE_WALLET":
    case "POLYGON_WALLET":
      return verifyEvm(wallet.address, message, signature)
    case "TRON_WALLET":
      return verifyTron(wallet.address, message, signature)
    case "SOLANA_WALLET":
      return verifySolana(wallet.address, message, signature)
  }
}
