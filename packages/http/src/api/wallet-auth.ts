import {
  AccountQuery,
  AuthMethod,
  AuthMethodId,
  AuthSession,
  ChallengeCredentialRequest,
  CreateCredentialRequest,
  CreateDelegatedKeyRequest,
  DelegatedKey,
  DelegatedKeyId,
  InternalAccount,
  InternalAccountExportRequest,
  InternalAccountExportResponse,
  InternalAccountId,
  InternalAccountUpdateRequest,
  ListDelegatedKeysQuery,
  PasskeyAuthChallenge,
  RefreshSessionRequest,
  SessionId,
  SignedRetryChallenge,
  SignedRetryHeaders,
  VerifyCredentialRequest,
  WalletOperationProcessing
} from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { CarriesSecret } from "../annotations.ts"
import { accepted, created, Data } from "./shared.ts"

/** A signed retry's first leg (202) and its still-settling answer (W-35, W-39), next to an action's own success. */
const signedRetry = [SignedRetryChallenge.pipe(accepted), WalletOperationProcessing] as const

/** The key the wallet's bundles are signed with outside the sandbox (`BundleSigner`). */
const BundleSigningKey = Schema.Struct({
  publicKey: Schema.String.annotate({
    description:
      "Uncompressed P-256 public key, lowercase hex: the `enclaveQuorumPublic` of every `otpEncryptionTargetBundle` " +
      "and `encryptedWalletCredentials` a production token receives, whose `dataSignature` (DER ECDSA-SHA256 over " +
      "the bytes of `data`) it verifies. Pin it in the client (`@turnkey/crypto`: `dangerouslyOverrideSignerPublicKey`). " +
      "Sandbox bundles are not signed (both fields empty)."
  })
})

export const WalletAuthGroup = HttpApiGroup.make("walletAuth")
  .add(HttpApiEndpoint.get("bundleSigningKey", "/auth/bundle-signing-key", { success: BundleSigningKey }))
  .add(HttpApiEndpoint.get("listCredentials", "/auth/credentials", { query: AccountQuery, success: Data(AuthMethod) }))
  .add(
    HttpApiEndpoint.post("createCredential", "/auth/credentials", {
      payload: CreateCredentialRequest,
      headers: SignedRetryHeaders,
      success: [AuthMethod.pipe(created), ...signedRetry]
    })
  )
  .add(
    HttpApiEndpoint.post("challengeCredential", "/auth/credentials/:credentialId/challenge", {
      params: { credentialId: AuthMethodId },
      payload: ChallengeCredentialRequest,
      success: Schema.Union([PasskeyAuthChallenge, AuthMethod])
    })
  )
  .add(
    HttpApiEndpoint.post("verifyCredential", "/auth/credentials/:credentialId/verify", {
      params: { credentialId: AuthMethodId },
      payload: VerifyCredentialRequest,
      headers: SignedRetryHeaders,
      // A signed retry's 200 is a session or PROCESSING (W-40): the body's `status` tells them apart.
      success: [Schema.Union([AuthSession, WalletOperationProcessing]), SignedRetryChallenge.pipe(accepted)]
    }).annotate(CarriesSecret, true)
  )
  .add(
    HttpApiEndpoint.delete("revokeCredential", "/auth/credentials/:credentialId", {
      params: { credentialId: AuthMethodId },
      headers: SignedRetryHeaders,
      success: [HttpApiSchema.NoContent, ...signedRetry]
    })
  )
  .add(
    HttpApiEndpoint.get("listSessions", "/auth/sessions", { query: AccountQuery, success: Data(AuthSession) }).annotate(
      CarriesSecret,
      true
    )
  )
  .add(
    HttpApiEndpoint.post("refreshSession", "/auth/sessions/:sessionId/refresh", {
      params: { sessionId: SessionId },
      payload: RefreshSessionRequest,
      headers: SignedRetryHeaders,
      success: [AuthSession.pipe(created), ...signedRetry]
    }).annotate(CarriesSecret, true)
  )
  .add(
    HttpApiEndpoint.delete("revokeSession", "/auth/sessions/:sessionId", {
      params: { sessionId: SessionId },
      headers: SignedRetryHeaders,
      success: [HttpApiSchema.NoContent, ...signedRetry]
    })
  )
  .add(
    HttpApiEndpoint.post("createDelegatedKey", "/auth/delegated-keys", {
      payload: CreateDelegatedKeyRequest,
      headers: SignedRetryHeaders,
      // Three legs, one body (W-42): 202, 202, then 201 the ACTIVE key.
      success: [DelegatedKey.pipe(created), ...signedRetry]
    })
  )
  .add(
    HttpApiEndpoint.get("listDelegatedKeys", "/auth/delegated-keys", {
      query: ListDelegatedKeysQuery,
      success: Data(DelegatedKey)
    })
  )
  .add(
    HttpApiEndpoint.get("getDelegatedKey", "/auth/delegated-keys/:id", {
      params: { id: DelegatedKeyId },
      success: DelegatedKey
    })
  )
  .add(
    HttpApiEndpoint.delete("revokeDelegatedKey", "/auth/delegated-keys/:id", {
      params: { id: DelegatedKeyId },
      // W-46: Basic auth only, no signed retry.
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.post("exportWallet", "/internal-accounts/:accountId/export", {
      params: { accountId: InternalAccountId },
      payload: InternalAccountExportRequest,
      headers: SignedRetryHeaders,
      // 200 is the sealed mnemonic or PROCESSING (W-40): the body's `status` tells them apart.
      success: [
        Schema.Union([InternalAccountExportResponse, WalletOperationProcessing]),
        SignedRetryChallenge.pipe(accepted)
      ]
    }).annotate(CarriesSecret, true)
  )
  .add(
    HttpApiEndpoint.patch("updateInternalAccount", "/internal-accounts/:accountId", {
      params: { accountId: InternalAccountId },
      payload: InternalAccountUpdateRequest,
      headers: SignedRetryHeaders,
      success: [Schema.Union([InternalAccount, WalletOperationProcessing]), SignedRetryChallenge.pipe(accepted)]
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Embedded wallet auth",
      description:
        "Credentials, sessions, delegated keys, the embedded wallet's export and privacy, and the signed retry of " +
        "wallet actions"
    })
  )
