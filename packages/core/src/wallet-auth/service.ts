// The wallet-auth context: embedded-wallet credentials and sessions, and the signed retry every wallet-authorized
// action goes through. The ports its use cases run on in ports.ts (`WalletAuthPorts`, resolved once by the layer
// below); one file per use case, of top-level functions over them: credentials.ts (add, list, revoke, the first
// credential of a wallet), sign-in.ts (challenges and verification by OTP, OAuth and passkey), sessions.ts (list,
// refresh, revoke), delegated-keys.ts (the keys cards sign with: create in three legs, list, get, revoke, sign),
// otp.ts (codes and their HPKE target), export.ts (the wallet's export and privacy), signed-retry.ts (the
// mechanism); the cryptography in stamp.ts, passkey.ts, oidc.ts and shared/hpke.ts.
import { Context, Effect, Layer } from "effect"
import type { InternalAccount } from "../accounts/model.ts"
import { Accounts } from "../accounts/service.ts"
import type { Environment } from "../platform/model.ts"
import { PlatformConfigService } from "../platform/service.ts"
import { CardFundingSources } from "../ports/card-funding-sources.ts"
import { Ids } from "../ports/ids.ts"
import { KeyVault } from "../ports/key-vault.ts"
import { Notifier } from "../ports/notifier.ts"
import { Store } from "../ports/store.ts"
import type { NotFound, Refused, StoreError } from "../shared/errors.ts"
import { operation } from "../shared/tracing.ts"
import { createCredential, listCredentials, revokeCredential } from "./credentials.ts"
import {
  createDelegatedKey,
  getDelegatedKey,
  listDelegatedKeys,
  revokeDelegatedKey,
  signWithKey
} from "./delegated-keys.ts"
import { exportWallet, updateInternalAccount } from "./export.ts"
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
  SignedRetryInput,
  VerifyCredentialRequest
} from "./model.ts"
import type { WalletAuthError, WalletAuthPorts } from "./ports.ts"
import { listSessions, refreshSession, revokeSession } from "./sessions.ts"
import { challengeCredential, verifyCredential } from "./sign-in.ts"
import { providing, type Signed } from "./signed-retry.ts"

export class WalletAuth extends Context.Service<
  WalletAuth,
  {
    /** `GET /auth/credentials?accountId=` (W-11): the active credentials; an unknown account has none. */
    readonly listCredentials: (accountId: string) => Effect.Effect<{ readonly data: Array<AuthMethod> }, StoreError>
    /**
     * `POST /auth/credentials` (W-05 … W-10): 201, or a signed retry when the wallet has credentials. `environment`
     * is the caller's (its token's): outside the sandbox an OTP credential's `otpEncryptionTargetBundle` is signed
     * (`BundleSigner`).
     */
    readonly createCredential: (
      req: CreateCredentialRequest,
      input: SignedRetryInput,
      environment: Environment
    ) => Effect.Effect<Signed<AuthMethod>, WalletAuthError>
    /**
     * `POST /auth/credentials/{id}/challenge` (W-12 … W-16); outside the sandbox (`environment`, the caller's) the
     * `otpEncryptionTargetBundle` is signed (`BundleSigner`).
     */
    readonly challengeCredential: (
      id: string,
      req: ChallengeCredentialRequest,
      environment: Environment
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
     * request's key, or 200 `PROCESSING` while the vault is not done; never stored. Outside the sandbox
     * (`environment`, the caller's) the credentials' envelope is signed (`BundleSigner`).
     */
    readonly exportWallet: (
      accountId: string,
      req: InternalAccountExportRequest,
      input: SignedRetryInput,
      environment: Environment
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
      const store = yield* Store
      const ids = yield* Ids
      const ports: WalletAuthPorts = {
        store,
        ids,
        notifier: yield* Notifier,
        vault: yield* KeyVault,
        fundingSources: yield* CardFundingSources,
        accounts: yield* Accounts,
        platformConfig: yield* PlatformConfigService,
        provide: providing(store, ids)
      }
      return WalletAuth.of({
        listCredentials: operation("WalletAuth.listCredentials")(function* (accountId: string) {
          return yield* listCredentials(ports, accountId)
        }),
        createCredential: operation("WalletAuth.createCredential")(function* (
          req: CreateCredentialRequest,
          input: SignedRetryInput,
          environment: Environment
        ) {
          return yield* createCredential(ports, req, input, environment)
        }),
        challengeCredential: operation("WalletAuth.challengeCredential")(function* (
          id: string,
          req: ChallengeCredentialRequest,
          environment: Environment
        ) {
          return yield* challengeCredential(ports, id, req, environment)
        }),
        verifyCredential: operation("WalletAuth.verifyCredential")(function* (
          id: string,
          req: VerifyCredentialRequest,
          input: SignedRetryInput
        ) {
          return yield* verifyCredential(ports, id, req, input)
        }),
        revokeCredential: operation("WalletAuth.revokeCredential")(function* (id: string, input: SignedRetryInput) {
          return yield* revokeCredential(ports, id, input)
        }),
        listSessions: operation("WalletAuth.listSessions")(function* (accountId: string) {
          return yield* listSessions(ports, accountId)
        }),
        refreshSession: operation("WalletAuth.refreshSession")(function* (
          id: string,
          req: RefreshSessionRequest,
          input: SignedRetryInput
        ) {
          return yield* refreshSession(ports, id, req, input)
        }),
        revokeSession: operation("WalletAuth.revokeSession")(function* (id: string, input: SignedRetryInput) {
          return yield* revokeSession(ports, id, input)
        }),
        createDelegatedKey: operation("WalletAuth.createDelegatedKey")(function* (
          req: CreateDelegatedKeyRequest,
          input: SignedRetryInput
        ) {
          return yield* createDelegatedKey(ports, req, input)
        }),
        listDelegatedKeys: operation("WalletAuth.listDelegatedKeys")(function* (query: ListDelegatedKeysQuery) {
          return yield* listDelegatedKeys(ports, query)
        }),
        getDelegatedKey: operation("WalletAuth.getDelegatedKey")(function* (id: string) {
          return yield* getDelegatedKey(ports, id)
        }),
        revokeDelegatedKey: operation("WalletAuth.revokeDelegatedKey")(function* (id: string) {
          return yield* revokeDelegatedKey(ports, id)
        }),
        signWithDelegatedKey: operation("WalletAuth.signWithDelegatedKey")(function* (
          keyId: string,
          payload: string | Uint8Array
        ) {
          return yield* signWithKey(ports, keyId, payload)
        }),
        exportWallet: operation("WalletAuth.exportWallet")(function* (
          accountId: string,
          req: InternalAccountExportRequest,
          input: SignedRetryInput,
          environment: Environment
        ) {
          return yield* exportWallet(ports, accountId, req, input, environment)
        }),
        updateInternalAccount: operation("WalletAuth.updateInternalAccount")(function* (
          accountId: string,
          req: InternalAccountUpdateRequest,
          input: SignedRetryInput
        ) {
          return yield* updateInternalAccount(ports, accountId, req, input)
        })
      })
    })
  )
}
