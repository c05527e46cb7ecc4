import { Context, Effect, Layer } from "effect"
import { BeneficiaryVerification } from "../ports/beneficiary-verification.ts"
import { Directory } from "../ports/directory.ts"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import type { Conflict, InvalidInput, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { operation } from "../shared/tracing.ts"
import {
  createExternalAccount,
  createPlatformExternalAccount,
  deleteExternalAccount,
  getExternalAccount,
  listExternalAccounts,
  listPlatformExternalAccounts
} from "./external-accounts.ts"
import { getInternalAccount, listInternalAccounts, listPlatformInternalAccounts } from "./internal-accounts.ts"
import type {
  AccountOwner,
  CreateExternalAccountRequest,
  CreatePlatformExternalAccountRequest,
  ExternalAccount,
  InternalAccount,
  ListExternalAccountsQuery,
  ListInternalAccountsQuery,
  ListPlatformExternalAccountsQuery,
  ListPlatformInternalAccountsQuery,
  ListPostingsQuery,
  OwnershipChallenge,
  OwnershipChallengeRequest,
  OwnershipVerifyRequest,
  PostingsPage,
  SandboxLivenessRequest
} from "./model.ts"
import { challengeOwnership, settleLivenessVerdict, verifyOwnership } from "./ownership.ts"
import type { AccountsPorts, OwnershipPorts } from "./ports.ts"
import { listPostings } from "./postings.ts"

// The accounts context: internal accounts (internal-accounts.ts), external accounts of customers and of the platform
// (external-accounts.ts, variants.ts), account postings (postings.ts) and the ownership verification of self-custody
// wallets (ownership.ts, ownership-rules.ts, wallet-signatures.ts).

export class Accounts extends Context.Service<
  Accounts,
  {
    /** `GET /internal-account` and `GET /customers/internal-accounts`: filters customerId, currency, type; paged. */
    readonly listInternal: (
      query: ListInternalAccountsQuery
    ) => Effect.Effect<Page<InternalAccount>, InvalidInput | StoreError>
    /** One internal account with its balances; 404 `NOT_FOUND`. */
    readonly getInternal: (id: string) => Effect.Effect<InternalAccount, NotFound | StoreError>
    /**
     * `POST /customers/external-accounts` (201), with its beneficiary name checked by the `BeneficiaryVerification`
     * port (AC-12, SB-08): `beneficiaryVerificationStatus` stored with it; 400 `INVALID_BANK_ACCOUNT` (nothing stored)
     * when the check finds no such account.
     */
    readonly createExternal: (
      req: CreateExternalAccountRequest
    ) => Effect.Effect<ExternalAccount, InvalidInput | NotFound | Refused | Conflict | StoreError>
    /** `GET /customers/external-accounts`: filters customerId, currency; paged; deleted accounts hidden. */
    readonly listExternal: (
      query: ListExternalAccountsQuery
    ) => Effect.Effect<Page<ExternalAccount>, InvalidInput | StoreError>
    /** `GET /customers/external-accounts/{id}`: 404 `NOT_FOUND` (also once deleted). */
    readonly getExternal: (id: string) => Effect.Effect<ExternalAccount, NotFound | StoreError>
    /**
     * `DELETE /customers/external-accounts/{id}` (204): status `INACTIVE`, hidden from lists. 409
     * `BENEFICIARY_TRUSTED` while the account is a trusted beneficiary, and the trust stays (AC-22, AC-23).
     */
    readonly deleteExternal: (id: string) => Effect.Effect<void, NotFound | Conflict | StoreError>
    /**
     * `GET /platform/internal-accounts` (AC-01): the platform's own accounts, one per supported currency (created on
     * first list; a concurrent list's insert of the same currency is ignored), filters currency and type; unpaged.
     */
    readonly listPlatformInternal: (
      query: ListPlatformInternalAccountsQuery
    ) => Effect.Effect<{ readonly data: ReadonlyArray<InternalAccount> }, StoreError>
    /**
     * `POST /platform/external-accounts` (201): 409 `CONFLICT` when `platformAccountId` is taken; the beneficiary
     * name checked as `createExternal`'s.
     */
    readonly createPlatformExternal: (
      req: CreatePlatformExternalAccountRequest
    ) => Effect.Effect<ExternalAccount, InvalidInput | Refused | Conflict | StoreError>
    /** `GET /platform/external-accounts`: filter currency; paged; deleted accounts hidden. */
    readonly listPlatformExternal: (
      query: ListPlatformExternalAccountsQuery
    ) => Effect.Effect<Page<ExternalAccount>, InvalidInput | StoreError>
    /** `GET /platform/external-accounts/{id}`: 404 `NOT_FOUND` for a customer's account too. */
    readonly getPlatformExternal: (id: string) => Effect.Effect<ExternalAccount, NotFound | StoreError>
    /** `DELETE /platform/external-accounts/{id}` (204): 404 for a customer's account too. */
    readonly deletePlatformExternal: (id: string) => Effect.Effect<void, NotFound | Conflict | StoreError>
    /**
     * `GET /customers/internal-accounts/{id}/postings` (`CUSTOMER`) and `GET /platform/internal-accounts/{id}/postings`
     * (`PLATFORM`): the account's ledger postings newest first, with its balances (postings.ts); 404 for an account of
     * the other owner.
     */
    readonly listPostings: (
      owner: AccountOwner,
      id: string,
      query: ListPostingsQuery
    ) => Effect.Effect<PostingsPage, InvalidInput | NotFound | StoreError>
  }
>()("paycore/accounts/Accounts") {
  static readonly layer = Layer.effect(
    Accounts,
    Effect.gen(function* () {
      const ports: AccountsPorts = {
        store: yield* Store,
        ids: yield* Ids,
        directory: yield* Directory,
        beneficiaryVerification: yield* BeneficiaryVerification
      }
      return Accounts.of({
        listInternal: operation("Accounts.listInternal")(function* (query: ListInternalAccountsQuery) {
          return yield* listInternalAccounts(ports, query)
        }),
        getInternal: operation("Accounts.getInternal")(function* (id: string) {
          return yield* getInternalAccount(ports, id)
        }),
        createExternal: operation("Accounts.createExternal")(function* (req: CreateExternalAccountRequest) {
          return yield* createExternalAccount(ports, req)
        }),
        listExternal: operation("Accounts.listExternal")(function* (query: ListExternalAccountsQuery) {
          return yield* listExternalAccounts(ports, query)
        }),
        getExternal: operation("Accounts.getExternal")(function* (id: string) {
          return yield* getExternalAccount(ports, "CUSTOMER", id)
        }),
        deleteExternal: operation("Accounts.deleteExternal")(function* (id: string) {
          return yield* deleteExternalAccount(ports, "CUSTOMER", id)
        }),
        listPlatformInternal: operation("Accounts.listPlatformInternal")(function* (
          query: ListPlatformInternalAccountsQuery
        ) {
          return yield* listPlatformInternalAccounts(ports, query)
        }),
        createPlatformExternal: operation("Accounts.createPlatformExternal")(function* (
          req: CreatePlatformExternalAccountRequest
        ) {
          return yield* createPlatformExternalAccount(ports, req)
        }),
        listPlatformExternal: operation("Accounts.listPlatformExternal")(function* (
          query: ListPlatformExternalAccountsQuery
        ) {
          return yield* listPlatformExternalAccounts(ports, query)
        }),
        getPlatformExternal: operation("Accounts.getPlatformExternal")(function* (id: string) {
          return yield* getExternalAccount(ports, "PLATFORM", id)
        }),
        deletePlatformExternal: operation("Accounts.deletePlatformExternal")(function* (id: string) {
          return yield* deleteExternalAccount(ports, "PLATFORM", id)
        }),
        listPostings: operation("Accounts.listPostings")(function* (
          owner: AccountOwner,
          id: string,
          query: ListPostingsQuery
        ) {
          return yield* listPostings(ports.store, owner, id, query)
        })
      })
    })
  )
}

/**
 * Ownership verification of self-custody wallets (Travel Rule; AC-24 … AC-30, docs/ownership-verification.md;
 * ownership.ts): each operation moves the account by `externalAccountMachine` and writes the move's
 * `EXTERNAL_ACCOUNT.STATUS_UPDATED` in the same store transaction.
 */
export class OwnershipVerification extends Context.Service<
  OwnershipVerification,
  {
    /**
     * `POST /customers/external-accounts/{id}/challenge` (201; AC-25, AC-26), or with `owner` `PLATFORM`
     * `POST /platform/external-accounts/{id}/challenge`: each route 404s on the other side's accounts.
     */
    readonly challenge: (
      id: string,
      req: OwnershipChallengeRequest,
      owner?: AccountOwner
    ) => Effect.Effect<OwnershipChallenge, NotFound | Conflict | StoreError>
    /**
     * `POST /customers/external-accounts/{id}/verify` (200 `ACTIVE`; 400 and `UNVERIFIED`; AC-27, AC-29, AC-30), or
     * the platform's (`owner` `PLATFORM`), as `challenge`.
     */
    readonly verify: (
      id: string,
      req: OwnershipVerifyRequest,
      owner?: AccountOwner
    ) => Effect.Effect<ExternalAccount, NotFound | Conflict | InvalidInput | StoreError>
    /** The liveness provider's verdict on the open LIVENESS challenge (AC-28; the sandbox endpoint calls it). */
    readonly settleLiveness: (
      id: string,
      req: SandboxLivenessRequest
    ) => Effect.Effect<ExternalAccount, NotFound | Conflict | StoreError>
  }
>()("paycore/accounts/OwnershipVerification") {
  static readonly layer = Layer.effect(
    OwnershipVerification,
    Effect.gen(function* () {
      const ports: OwnershipPorts = { store: yield* Store, ids: yield* Ids }
      return OwnershipVerification.of({
        challenge: operation("OwnershipVerification.challenge")(function* (
          id: string,
          req: OwnershipChallengeRequest,
          owner?: AccountOwner
        ) {
          return yield* challengeOwnership(ports, id, req, owner)
        }),
        verify: operation("OwnershipVerification.verify")(function* (
          id: string,
          req: OwnershipVerifyRequest,
          owner?: AccountOwner
        ) {
          return yield* verifyOwnership(ports, id, req, owner)
        }),
        settleLiveness: operation("OwnershipVerification.settleLiveness")(function* (
          id: string,
          req: SandboxLivenessRequest
        ) {
          return yield* settleLivenessVerdict(ports, id, req)
        })
      })
    })
  )
}
