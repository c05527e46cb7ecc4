import { type VaultPending, WalletVault, type WalletVaultService, walletVaultFromKey } from "@paycore/core"
import { Effect, Layer } from "effect"

/** A `WalletVault` that is not done yet a given number of times (W-39), then answers as `inner` does. */
export interface DeferredVault extends WalletVaultService {
  /** How many more `exportWallet` calls answer `Pending`. */
  readonly remaining: () => number
  /** Makes the next `times` calls answer `Pending` (on top of those left). */
  readonly defer: (times: number) => void
  /** This vault as the `WalletVault` port, e.g. for a test server's ports. */
  readonly layer: Layer.Layer<never>
}

export const DEFERRED_VAULT_MESSAGE = "The wallet export is being prepared: resend the identical request"

/**
 * A vault over a slow key enclave, as tests need it for the 200 `PROCESSING` path of the signed retry (W-39 …
 * W-41): the first `times` exports (counted over every account) answer `Pending`, later ones go to `inner` (by
 * default an in-process vault with a random key). `defer` arms it again.
 */
export const deferredVault = (
  times: number,
  inner: WalletVaultService = walletVaultFromKey(crypto.getRandomValues(new Uint8Array(32)))
): DeferredVault => {
  let left = times
  const pending: VaultPending = { _tag: "Pending", message: DEFERRED_VAULT_MESSAGE }
  const service: WalletVaultService = {
    exportWallet: (accountId, recipientPublicKey) =>
      Effect.suspend(() => {
        if (left <= 0) return inner.exportWallet(accountId, recipientPublicKey)
        left--
        return Effect.succeed(pending)
      })
  }
  return {
    ...service,
    remaining: () => left,
    defer: (more) => {
      left += more
    },
    layer: Layer.succeed(WalletVault, service)
  }
}
