/**
 * Self-custody wallets as a test's user holds them: a fresh key, the address the chain derives from it, and
 * `signMessage` as the wallet software does it (MetaMask's `personal_sign` for EVM chains, TronWeb's
 * `signMessageV2`, Phantom's `signMessage` for Solana, Bitcoin Core's `signmessage` for a Spark identity key). The
 * server checks these signatures for real.
 */
import { ed25519 } from "@noble/curves/ed25519.js"
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { keccak_256 } from "@noble/hashes/sha3.js"
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { bitcoinMessageDigest, sparkAddressOf } from "@paycore/core"
import { base58, createBase58check } from "@scure/base"

export type WalletType =
  | "ETHEREUM_WALLET"
  | "BASE_WALLET"
  | "POLYGON_WALLET"
  | "TRON_WALLET"
  | "SOLANA_WALLET"
  | "SPARK_WALLET"

export interface SelfCustodyWallet {
  readonly accountType: WalletType
  readonly address: string
  /** The wallet's signature of `message`, in the encoding the wallet hands the app. */
  readonly signMessage: (message: string) => string
}

/** keccak-256 over `prefix ‖ byte length ‖ message`, signed `r ‖ s ‖ v` with v = 27 + recovery bit. */
const prefixedSign = (prefix: string, secretKey: Uint8Array, message: string): string => {
  const bytes = utf8ToBytes(message)
  const digest = keccak_256(concatBytes(utf8ToBytes(`${prefix}${bytes.length}`), bytes))
  const recovered = secp256k1.sign(digest, secretKey, { prehash: false, format: "recovered" })
  return `0x${bytesToHex(concatBytes(recovered.subarray(1), Uint8Array.of(27 + recovered[0]!)))}`
}

const keccakAccount = (secretKey: Uint8Array): Uint8Array =>
  keccak_256(secp256k1.getPublicKey(secretKey, false).subarray(1)).subarray(12)

/** A new wallet of `accountType` with a random key. */
export const selfCustodyWallet = (accountType: WalletType): SelfCustodyWallet => {
  if (accountType === "SOLANA_WALLET") {
    const { secretKey, publicKey } = ed25519.keygen()
    return {
      accountType,
      address: base58.encode(publicKey),
      signMessage: (message) => base58.encode(ed25519.sign(utf8ToBytes(message), secretKey))
    }
  }
  const { secretKey } = secp256k1.keygen()
  if (accountType === "SPARK_WALLET") {
    // Bitcoin Core's `signmessage` format (BIP-137, compressed P2PKH header 31 + recovery bit), base64.
    return {
      accountType,
      address: sparkAddressOf(secp256k1.getPublicKey(secretKey, true)),
      signMessage: (message) => {
        const recovered = secp256k1.sign(bitcoinMessageDigest(message), secretKey, {
          prehash: false,
          format: "recovered"
        })
        return btoa(String.fromCharCode(31 + recovered[0]!, ...recovered.subarray(1)))
      }
    }
  }
  if (accountType === "TRON_WALLET") {
    return {
      accountType,
      address: createBase58check(sha256).encode(concatBytes(Uint8Array.of(0x41), keccakAccount(secretKey))),
      signMessage: (message) => prefixedSign("\x19TRON Signed Message:\n", secretKey, message)
    }
  }
  // EIP-55 mixed case is what wallets show; the server compares case-insensitively.
  const hex = bytesToHex(keccakAccount(secretKey))
  const hash = bytesToHex(keccak_256(utf8ToBytes(hex)))
  const checksummed = [...hex].map((c, i) => (Number.parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join("")
  return {
    accountType,
    address: `0x${checksummed}`,
    signMessage: (message) => prefixedSign("\x19Ethereum Signed Message:\n", secretKey, message)
  }
}
