import { hexToBytes } from "@noble/hashes/utils.js"
import { Context, Effect } from "effect"
import { Lru } from "../shared/lru.ts"
import type { Stamp } from "../wallet-auth/model.ts"

/**
 * Checks the ECDSA P-256 / SHA-256 signature of a parsed wallet stamp (W-37; its key is a point of the curve and its
 * signature strict DER: `parseStamp` checked them) over the UTF-8 bytes of `payload`. Any failure is `false`. The default is Web Crypto (every runtime); on Node, `@paycore/http` provides `node:crypto`'s
 * synchronous verify, which skips the thread-pool round trip of `crypto.subtle` (about twice as fast in a signed retry).
 */
export interface StampVerifierService {
  readonly verify: (stamp: Stamp, payload: string) => Effect.Effect<boolean>
}

type VerifyKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>

const ECDSA_P256 = { name: "ECDSA", namedCurve: "P-256" } as const
const ECDSA_SHA256 = { name: "ECDSA", hash: "SHA-256" } as const
export const VERIFY_KEY_CACHE_SIZE = 10_000

/** Web Crypto verification, the imported keys kept in a bounded LRU (session keys stamp again and again). */
export const webCryptoStampVerifier = (): StampVerifierService => {
  const keys = new Lru<string, VerifyKey>(VERIFY_KEY_CACHE_SIZE)
  const utf8 = new TextEncoder()
  const keyOf = async (publicKey: string): Promise<VerifyKey> => {
    const cached = keys.get(publicKey)
    if (cached !== undefined) return cached
    // Web Crypto in Node 24 imports the 33-byte compressed SEC1 form directly.
    const key = await crypto.subtle.importKey("raw", hexToBytes(publicKey), ECDSA_P256, false, ["verify"])
    keys.set(publicKey, key)
    return key
  }
  return {
    verify: (stamp, payload) =>
      Effect.promise(async () => {
        try {
          return await crypto.subtle.verify(
            ECDSA_SHA256,
            await keyOf(stamp.publicKey),
            new Uint8Array(stamp.signature),
            utf8.encode(payload)
          )
        } catch {
          return false
        }
      })
  }
}

export const StampVerifier = Context.Reference<StampVerifierService>("paycore/ports/StampVerifier", {
  defaultValue: webCryptoStampVerifier
})
