// The wallet-auth context: embedded-wallet credentials and sessions, and the signed retry every wallet-authorized
// action goes through. One file per use case: credentials.ts (add, list, revoke, the first credential of a wallet),
// sign-in.ts (challenges and verification by OTP, OAuth and passkey), sessions.ts (list, refresh, revoke),
// delegated-keys.ts (the keys cards sign with: create in three legs, list, get, revoke, sign),
// otp.ts (codes and their HPKE target), export.ts (the wallet's export and privacy), signed-retry.ts (the
// mechanism); the cryptography in stamp.ts, passkey.ts, oidc.ts and shared/hpke.ts.
import { Context, Effect, Layer } from "effect"
import type { InternalAccount } from "../accounts/model.ts"
import { PlatformConfigService } from "../platform/service.ts"
import type { NotFound, Refused, StoreError } from "../shared/errors.ts"
import { makeCredentials } from "./credentials.ts"
import { makeDelegatedKeys } from "./delegated-keys.ts"
import type { WalletAuthError } from "./errors.ts"
import { makeExport } from "./export.ts"
import type {
  AuthMethod,
  AuthSession,
  ChallengeCredentialRequest,
  CreateCredentialRequest,
  CreateDelegatedKeyRequest,
  DelegatedKey,
  InternalAccountExportRequest,
  InternalAccountExportResponse,
  InternalAccountUpdateRequest,
  ListDelegatedKeysQuery,
  PasskeyAuthChallenge,
  RefreshSessionRequest,
  SignedRetryChallenge,
  SignedRetryInput,
  VerifyCredentialRequest,
  WalletOperationProcessing
} from "./model.ts"
import { makeOtp } from "./otp.ts"
import { makeSessions } from "./sessions.ts"
import { makeSignIn } from "./sign-in.ts"

/** What a signed-retry action answers: its first leg's 202, a 200 `PROCESSING`, or its result. */
export type Signed<A> = SignedRetryChallenge | WalletOperationProcessing | A

export class WalletAuth extends Context.Service<
  WalletAuth,
  {
    /** `GET /auth/credentials?accountId=` (W-11): the active credentials; an unknown account has none. */
    readonly listCredentials: (accountId: string) => Effect.Effect<{ readonly data: Array<AuthMethod> }, StoreError>
    /** `POST /auth/credentials` (W-05 … W-10): 201, or a signed retry when the wallet has credentials. */
    readonly createCredential: (
      req: CreateCredentialRequest,
      input: SignedRetryInput
    ) => Effect.Effect<Signed<AuthMethod>, WalletAuthError>
    /** `POST /auth/credentials/{id}/challenge` (W-12 … W-16). */
    readonly challengeCredential: (
      id: string,
      req: ChallengeCredentialRequest
    ) => Effect.Effect<AuthMethod | PasskeyAuthChallenge, WalletAuthError>
    /** `POST /auth/credentials/{id}/verify` (W-17 … W-26): a session (OTP by signed retry). */
    readonly verifyCredential: (
      id: string,
      req: VerifyCredentialRequest,
      input: SignedRetryInput
    ) => Effect.Effect<Signed<AuthSession>, WalletAuthError>
    /** `DELETE /auth/credentials/{id}` (W-27 … W-29): signed retry, then 204. */
    readonly revokeCredential: (
      id: string,
      input: SignedRetryInput
    ) => Effect.Effect<Signed<undefined>, WalletAuthError>
    /** `GET /auth/sessions?accountId=` (W-30): the live sessions. */
    readonly listSessions: (accountId: string) => Effect.Effect<{ readonly data: Array<AuthSession> }, StoreError>
    /** `POST /auth/sessions/{id}/refresh` (W-31): signed retry by that session, then 201 the new session. */
    readonly refreshSession: (
      id: string,
      req: RefreshSessionRequest,
      input: SignedRetryInput
    ) => Effect.Effect<Signed<AuthSession>, WalletAuthError>
    /** `DELETE /auth/sessions/{id}` (W-32): signed retry, then 204. */
    readonly revokeSession: (id: string, input: SignedRetryInput) => Effect.Effect<Signed<undefined>, WalletAuthError>
    /**
     * `POST /auth/delegated-keys` (W-42 … W-45): the same body on three legs; 202, 202 (the key made, `PENDING`),
     * then 201 the key `ACTIVE`. 404 card, funding source or wallet; 409 an `ACTIVE` key holds the funding source.
     */
    readonly createDelegatedKey: (
      req: CreateDelegatedKeyRequest,
      input: SignedRetryInput
    ) => Effect.Effect<Signed<DelegatedKey>, WalletAuthError>
    /** `GET /auth/delegated-keys?accountId=&fundingSourceId=`: every status; 400 without a filter. */
    readonly listDelegatedKeys: (
      query: ListDelegatedKeysQuery
    ) => Effect.Effect<{ readonly data: Array<DelegatedKey> }, WalletAuthError>
    /** `GET /auth/delegated-keys/{id}`. */
    readonly getDelegatedKey: (id: string) => Effect.Effect<DelegatedKey, NotFound | StoreError>
    /** `DELETE /auth/delegated-keys/{id}` (W-46): no signed retry; 400 unless `ACTIVE`. */
    readonly revokeDelegatedKey: (id: string) => Effect.Effect<void, WalletAuthError>
    /**
     * W-47: a DER (hex) ECDSA P-256 / SHA-256 signature of `payload` by an `ACTIVE` delegated key; not an HTTP
     * route (the cards context calls it). 404 unknown key; refused unless `ACTIVE`.
     */
    readonly signWithDelegatedKey: (
      keyId: string,
      payload: string | Uint8Array
    ) => Effect.Effect<string, NotFound | Refused | StoreError>
    /**
     * `POST /internal-accounts/{id}/export` (W-33, W-39 … W-41): signed retry, then 200 the mnemonic sealed to the
     * request's key, or 200 `PROCESSING` while the vault is not done; never stored.
     */
    readonly exportWallet: (
      accountId: string,
      req: InternalAccountExportRequest,
      input: SignedRetryInput
    ) => Effect.Effect<Signed<InternalAccountExportResponse>, WalletAuthError>
    /** `PATCH /internal-accounts/{id}` (W-34, AC-01): the wallet's privacy, by signed retry; 200 the account. */
    readonly updateInternalAccount: (
      accountId: string,
      req: InternalAccountUpdateRequest,
      input: SignedRetryInput
    ) => Effect.Effect<Signed<InternalAccount>, WalletAuthError>
  }
>()("paycore/wallet-auth/WalletAuth") {
  static readonly layer = Layer.effect(
    WalletAuth,
    Effect.gen(function* () {
      const config = yield* PlatformConfigService
      const otp = yield* makeOtp()
      const credentials = yield* makeCredentials(otp)
      const signIn = yield* makeSignIn(otp)
      const sessions = yield* makeSessions()
      const delegatedKeys = yield* makeDelegatedKeys()
      const wallet = yield* makeExport()
      return WalletAuth.of({
        listCredentials: credentials.listCredentials,
        createCredential: (req, input) =>
          Effect.flatMap(config.get(), (platform) => credentials.createCredential(req, platform, input)),
        challengeCredential: (id, req) =>
          Effect.flatMap(config.get(), (platform) => signIn.challengeCredential(id, req, platform)),
        verifyCredential: (id, req, input) =>
          Effect.flatMap(config.get(), (platform) => signIn.verifyCredential(id, req, platform, input)),
        revokeCredential: credentials.revokeCredential,
        listSessions: sessions.listSessions,
        refreshSession: sessions.refreshSession,
        revokeSession: sessions.revokeSession,
        ...delegatedKeys,
        exportWallet: wallet.exportWallet,
        updateInternalAccount: wallet.updateInternalAccount
      })
    })
  )
}
