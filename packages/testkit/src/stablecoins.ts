import { StablecoinProvider, type StablecoinProviderError, type StablecoinProviderService } from "@paycore/core"
import { Effect, Layer } from "effect"

/** A provider call as the scripted provider saw it (never the secret). */
export interface ProviderCall {
  readonly method: "verify" | "token" | "tokenIdentifiers" | "create" | "fund" | "status" | "cancel"
  readonly apiClientId: string
  /** `create`'s client reference; the operation id of `fund`, `status`, `cancel`. */
  readonly reference?: string | undefined
}

export interface ScriptedStablecoinProvider {
  readonly service: StablecoinProviderService
  /** Provides it as the `StablecoinProvider` reference. */
  readonly layer: Layer.Layer<never>
  /** While on, every call fails `Unavailable` (a provider outage). */
  readonly outage: (on: boolean) => void
  /** Whether the outage is on. */
  readonly isDown: () => boolean
  /** Every call made, in order. */
  readonly calls: ReadonlyArray<ProviderCall>
}

const unavailable: StablecoinProviderError = { _tag: "Unavailable", message: "the provider is down (scripted outage)" }

/**
 * Wraps a stablecoin provider (the sandbox one in tests) with an outage switch and a call log: what a test needs to see
 * a 503 with nothing stored, and how many provider operations a burst of requests opened.
 */
export const scriptedStablecoinProvider = (inner: StablecoinProviderService): ScriptedStablecoinProvider => {
  let down = false
  const calls: Array<ProviderCall> = []
  const wrap =
    <A extends ReadonlyArray<unknown>, B>(
      method: ProviderCall["method"],
      call: (...args: A) => Effect.Effect<B, StablecoinProviderError>,
      referenceOf: (...args: A) => string | undefined
    ) =>
    (...args: A): Effect.Effect<B, StablecoinProviderError> =>
      Effect.suspend(() => {
        const credentials = args[0] as { readonly apiClientId: string }
        calls.push({ method, apiClientId: credentials.apiClientId, reference: referenceOf(...args) })
        return down ? Effect.fail(unavailable) : call(...args)
      })
  const service: StablecoinProviderService = {
    provider: inner.provider,
    verify: wrap("verify", inner.verify, () => undefined),
    token: wrap("token", inner.token, (_, r) => r.providerTokenIdentifier),
    ...(inner.tokenIdentifiers === undefined
      ? {}
      : { tokenIdentifiers: wrap("tokenIdentifiers", inner.tokenIdentifiers, () => undefined) }),
    create: wrap("create", inner.create, (_, r) => r.clientReference),
    fund: wrap("fund", inner.fund, (_, id) => id),
    status: wrap("status", inner.status, (_, id) => id),
    cancel: wrap("cancel", inner.cancel, (_, id) => id)
  }
  return {
    service,
    layer: Layer.succeed(StablecoinProvider, service),
    outage: (on) => {
      down = on
    },
    isDown: () => down,
    calls
  }
}
