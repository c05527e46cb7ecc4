import { base64urlnopad } from "@scure/base"
import { Context, Effect } from "effect"

export interface KeyVaultService {
  readonly seal: (secret: Uint8Array, context: string) => Effect.Effect<string>
  /** `undefined` when `sealed` was not sealed under this KEK for this `context` (or is not a sealed value). */
  readonly open: (sealed: string, context: string) => Effect.Effect<Uint8Array | undefined>
}

/** AES-256-GCM under `kek` (32 bytes): `v1.<iv base64url>.<ciphertext base64url>`. */
export const keyVaultFromKey = (kek: Uint8Array): KeyVaultService => {
  if (kek.length !== 32) throw new Error("KeyVault: the key-encryption key must be 32 bytes")
  const key = crypto.subtle.importKey("raw", new Uint8Array(kek), "AES-GCM", false, ["encrypt", "decrypt"])
  const utf8 = new TextEncoder()
  return {
    seal: (secret, context) =>
      Effect.promise(async () => {
        const iv = crypto.getRandomValues(new Uint8Array(12))
        const sealed = await crypto.subtle.encrypt(
          { name: "AES-GCM", iv, additionalData: utf8.encode(context) },
          await key,
          new Uint8Array(secret)
        )
        return `v1.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`
      }),
    open: (sealed, context) =>
      Effect.promise(async () => {
        const [version, iv, data] = sealed.split(".")
        if (version !== "v1" || iv === undefined || data === undefined) return undefined
        try {
          // A malformed part throws in the decoder: the same answer as a wrong key.
          const opened = await crypto.subtle.decrypt(
            { name: "AES-GCM", iv: fromBase64Url(iv), additionalData: utf8.encode(context) },
            await key,
            fromBase64Url(data)
          )
          return new Uint8Array(opened)
        } catch {
          return undefined
        }
      })
  }
}

/**
 * Keeps secrets the service must hold at rest (an OTP challenge's HPKE key, delegated keys' private keys, wallet
 * seeds): `seal` encrypts under a key-encryption key (KEK) the store never sees, `open` undoes it. `context` is
 * bound into the ciphertext (AES-GCM additional data: the record's id), so a sealed value copied into another
 * record does not open. Production embedders provide a KMS- or HSM-backed service; `keyVaultFromKey` is the
 * in-process one (Web Crypto). Without one: a random KEK per process, so sealed values do not survive a restart,
 * which suits the sandbox (OTP challenges live minutes); a server keeping delegated keys sets its own.
 */
export const KeyVault = Context.Reference<KeyVaultService>("paycore/ports/KeyVault", {
  defaultValue: () => keyVaultFromKey(crypto.getRandomValues(new Uint8Array(32)))
})

const toBase64Url = (bytes: Uint8Array): string => base64urlnopad.encode(bytes)
const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> => new Uint8Array(base64urlnopad.decode(text))
