import { Store, StoreError } from "@paycore/core"
import { Effect, Layer } from "effect"

/** Turns a fault of a wrapped store on and off from a test. */
export interface StoreFault {
  /** While true, the wrapped method fails. */
  on: boolean
}

/**
 * `inner`'s Store with `walletCredentials.update` failing with a `StoreError` (not retryable) while `fault.on`,
 * before it reaches the store: a credential that cannot be written (CU-17). Every other method is `inner`'s, so the
 * memory, PGlite and PostgreSQL stores can each be wrapped; a failed command must leave them as they were.
 */
export const failingCredentialUpdates = <E, R>(
  inner: Layer.Layer<Store, E, R>
): { readonly layer: Layer.Layer<Store, E, R>; readonly fault: StoreFault } => {
  const fault: StoreFault = { on: false }
  const layer = Layer.effect(
    Store,
    Effect.gen(function* () {
      const store = yield* Store
      return Store.of({
        ...store,
        walletCredentials: {
          ...store.walletCredentials,
          update: (row) =>
            fault.on
              ? Effect.fail(new StoreError({ message: "injected: wallet credential update failed", retryable: false }))
              : store.walletCredentials.update(row)
        }
      })
    })
  ).pipe(Layer.provide(inner))
  return { layer, fault }
}
