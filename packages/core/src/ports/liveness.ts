import { Context, Effect } from "effect"

/**
 * What the provider is asked to check: the customer behind one wallet (ownership verification) or behind one SCA
 * factor reset, until `expiresAt`.
 */
export interface LivenessSessionRequest {
  /** The external account or the SCA factor reset the session is for. */
  readonly subjectId: string
  readonly customerId: string
  /** The challenge's nonce: the provider's session reference, echoed in its verdict. */
  readonly nonce: string
  readonly expiresAt: string
}

/** A hosted biometric session: the link for the user, and an SDK token for providers that offer one. */
export interface LivenessSession {
  readonly verificationLink: string
  readonly token?: string | undefined
}

/**
 * The liveness provider of ownership verification (AC-26, AC-28) and of SCA factor resets: it opens a hosted
 * session; its verdict arrives later (a provider callback; in the sandbox `POST /sandbox/external-accounts/{id}/liveness`
 * or `POST /sandbox/sca/factors/reset/{resetId}/liveness`) and the engine settles the challenge or the reset with it
 * (`OwnershipVerification.settleLiveness`, `Sca.settleResetLiveness`). The default is the sandbox provider: a
 * link that names the nonce, no SDK token. A deployment provides its provider's adapter.
 */
export interface LivenessProviderService {
  readonly startSession: (request: LivenessSessionRequest) => Effect.Effect<LivenessSession>
}

export const sandboxLivenessProvider: LivenessProviderService = {
  startSession: (request) =>
    Effect.succeed({ verificationLink: `https://sandbox.paycore.dev/liveness/${encodeURIComponent(request.nonce)}` })
}

export const LivenessProvider = Context.Reference<LivenessProviderService>("paycore/ports/LivenessProvider", {
  defaultValue: () => sandboxLivenessProvider
})
