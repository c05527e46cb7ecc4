import { BundleSigner, WalletAuth } from "@paycore/core"
import { Effect } from "effect"
import { environmentOf, type GroupHandlers, signedRetryInput } from "./shared.ts"

/** The `walletAuth` group: a self-custody wallet's credentials, sessions, delegated keys and export. */
export const walletAuthHandlers = Effect.fnUntraced(function* () {
  const walletAuth = yield* WalletAuth
  const handlers: GroupHandlers<"walletAuth"> = {
    listCredentials: ({ query }) => walletAuth.listCredentials(query.accountId),
    createCredential: ({ payload, headers, rawBody, principal }) =>
      walletAuth.createCredential(payload, signedRetryInput(headers, rawBody), environmentOf(principal)),
    challengeCredential: ({ params, payload, principal }) =>
      walletAuth.challengeCredential(params.credentialId, payload, environmentOf(principal)),
    // The reference where the request runs (makeApp passes its own on).
    bundleSigningKey: () => Effect.map(Effect.service(BundleSigner), (signer) => ({ publicKey: signer.publicKey })),
    verifyCredential: ({ params, payload, headers, rawBody }) =>
      walletAuth.verifyCredential(params.credentialId, payload, signedRetryInput(headers, rawBody)),
    revokeCredential: ({ params, headers, rawBody }) =>
      walletAuth.revokeCredential(params.credentialId, signedRetryInput(headers, rawBody)),
    listSessions: ({ query }) => walletAuth.listSessions(query.accountId),
    refreshSession: ({ params, payload, headers, rawBody }) =>
      walletAuth.refreshSession(params.sessionId, payload, signedRetryInput(headers, rawBody)),
    revokeSession: ({ params, headers, rawBody }) =>
      walletAuth.revokeSession(params.sessionId, signedRetryInput(headers, rawBody)),
    createDelegatedKey: ({ payload, headers, rawBody }) =>
      walletAuth.createDelegatedKey(payload, signedRetryInput(headers, rawBody)),
    listDelegatedKeys: ({ query }) => walletAuth.listDelegatedKeys(query),
    getDelegatedKey: ({ params }) => walletAuth.getDelegatedKey(params.id),
    revokeDelegatedKey: ({ params }) => walletAuth.revokeDelegatedKey(params.id),
    exportWallet: ({ params, payload, headers, rawBody, principal }) =>
      walletAuth.exportWallet(params.accountId, payload, signedRetryInput(headers, rawBody), environmentOf(principal)),
    updateInternalAccount: ({ params, payload, headers, rawBody }) =>
      walletAuth.updateInternalAccount(params.accountId, payload, signedRetryInput(headers, rawBody))
  }
  return handlers
})
