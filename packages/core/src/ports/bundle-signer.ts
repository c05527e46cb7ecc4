import { p256 } from "@noble/curves/nist.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Context, Effect } from "effect"
import type { Environment } from "../platform/model.ts"
import type { EnvelopeSigner } from "../shared/hpke.ts"

/** The key that signs the wallet's bundles outside the sandbox; `EnvelopeSigner` says what it does. */
export type BundleSignerService = EnvelopeSigner

/**
 * The in-process signer over a P-256 private key (32 bytes): low-S DER signatures (what every verifier accepts),
 * its public key uncompressed. The key is copied; the caller may clear its own.
 */
export const bundleSignerFromKey = (secretKey: Uint8Array): BundleSignerService => {
  if (!p256.utils.isValidSecretKey(secretKey)) throw new Error("BundleSigner: the key must be a P-256 private key")
  const key = Uint8Array.from(secretKey)
  return {
    publicKey: bytesToHex(p256.getPublicKey(key, false)),
    sign: (data) => bytesToHex(p256.sign(data, key, { format: "der", lowS: true }))
  }
}

/**
 * Signs the `data` of the bundles the service hands a client outside the sandbox (a request with a `PRODUCTION`
 * token): the OTP target (`otpEncryptionTargetBundle`, W-13) and the wallet export (`encryptedWalletCredentials`,
 * W-33) carry `dataSignature` and `enclaveQuorumPublic` (this key), which the platform fetches once
 * (`GET /auth/bundle-signing-key`) and its clients pin. In the sandbox both stay empty, as upstream sends them.
 * Production embedders provide their key (the example server derives it from `PAYCORE_WALLET_KEK`); without one, a
 * random key per process, so clients would have to fetch it again after every restart.
 */
export const BundleSigner = Context.Reference<BundleSignerService>("paycore/ports/BundleSigner", {
  defaultValue: () => bundleSignerFromKey(p256.utils.randomSecretKey())
})

/** The signer of the bundles a request of `environment` gets: none in the sandbox (both fields empty). */
export const bundleSignerOf = (environment: Environment): Effect.Effect<BundleSignerService | undefined> =>
  environment === "SANDBOX" ? Effect.undefined : Effect.service(BundleSigner)
