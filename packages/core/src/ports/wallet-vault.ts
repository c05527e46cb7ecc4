import { hmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"
import { utf8ToBytes } from "@noble/hashes/utils.js"
import { entropyToMnemonic } from "@scure/bip39"
import { wordlist } from "@scure/bip39/wordlists/english.js"
import { Context, Effect } from "effect"
import { encryptedWalletCredentials } from "../shared/hpke.ts"

/**
 * The vault has not finished (a vault over a remote key enclave answers "not yet"): the signed retry answers 200
 * `{status: "PROCESSING", message}` and the identical resend asks again (W-39).
 */
export interface VaultPending {
  readonly _tag: "Pending"
  /** Shown to the client as the `PROCESSING` answer's `message`. */
  readonly message: string
}

export interface WalletVaultService {
  /**
   * `encryptedWalletCredentials` of an export (W-33): the embedded wallet's secret, its BIP-39 mnemonic, sealed with
   * HPKE to `recipientPublicKey` (uncompressed P-256 hex, checked to be a point of the curve by the caller) in the
   * upstream envelope; or `Pending`. The answer is never stored (W-41): each call seals afresh.
   */
  readonly exportWallet: (accountId: string, recipientPublicKey: string) => Effect.Effect<string | VaultPending>
}

/** Domain separation of the seed derivation: the KEK keyed HMAC of this label and the account id. */
const SEED_LABEL = "paycore-wallet-seed:"

/**
 * The in-process vault: nothing secret is stored. A wallet's mnemonic is derived when it is asked for: 16 bytes of
 * entropy (12 English words) = the first half of HMAC-SHA256(kek, "paycore-wallet-seed:" + accountId), so the same
 * `kek` (32 bytes) always gives a wallet the same mnemonic, and another key other mnemonics.
 */
export const walletVaultFromKey = (kek: Uint8Array): WalletVaultService => {
  if (kek.length !== 32) throw new Error("WalletVault: the key-encryption key must be 32 bytes")
  const key = Uint8Array.from(kek)
  return {
    exportWallet: (accountId, recipientPublicKey) =>
      Effect.suspend(() => {
        const digest = hmac(sha256, key, utf8ToBytes(SEED_LABEL + accountId))
        const mnemonic = entropyToMnemonic(digest.subarray(0, 16), wordlist)
        digest.fill(0)
        return encryptedWalletCredentials(recipientPublicKey, mnemonic, accountId)
      })
  }
}

/**
 * Keeps the embedded wallets' secrets (W-33): only sealed exports leave it. Production embedders provide a vault
 * over a key enclave (which may answer `Pending`) or `walletVaultFromKey` with a key of their own (the example
 * server reads `PAYCORE_WALLET_KEK`). Without one: a random key per process, so a wallet's mnemonic changes with
 * every restart, which only suits tests and throw-away sandboxes. A production server must set one.
 */
export const WalletVault = Context.Reference<WalletVaultService>("paycore/ports/WalletVault", {
  defaultValue: () => walletVaultFromKey(crypto.getRandomValues(new Uint8Array(32)))
})
