import {
  BeneficiaryTrustConfirm,
  BeneficiaryTrustConfirmRequest,
  BeneficiaryTrustStart,
  CreateExternalAccountRequest,
  CreatePlatformExternalAccountRequest,
  ExternalAccount,
  ExternalAccountId,
  InternalAccount,
  InternalAccountId,
  ListExternalAccountsQuery,
  ListInternalAccountsQuery,
  ListPlatformExternalAccountsQuery,
  ListPlatformInternalAccountsQuery,
  ListPostingsQuery,
  OwnershipChallenge,
  OwnershipChallengeRequest,
  OwnershipVerifyRequest,
  PageOf,
  PostingsPage
} from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { created } from "./shared.ts"

export const AccountsGroup = HttpApiGroup.make("accounts")
  .add(
    HttpApiEndpoint.get("listInternal", "/internal-account", {
      query: ListInternalAccountsQuery,
      success: PageOf(InternalAccount)
    })
  )
  .add(
    HttpApiEndpoint.get("listCustomerInternal", "/customers/internal-accounts", {
      query: ListInternalAccountsQuery,
      success: PageOf(InternalAccount)
    })
  )
  // Issue 18: the account's ledger postings, newest first, with its balances (architecture.md).
  .add(
    HttpApiEndpoint.get("listCustomerInternalPostings", "/customers/internal-accounts/:accountId/postings", {
      params: { accountId: InternalAccountId },
      query: ListPostingsQuery,
      success: PostingsPage
    })
  )
  .add(
    HttpApiEndpoint.post("createExternal", "/customers/external-accounts", {
      payload: CreateExternalAccountRequest,
      success: ExternalAccount.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.get("listExternal", "/customers/external-accounts", {
      query: ListExternalAccountsQuery,
      success: PageOf(ExternalAccount)
    })
  )
  .add(
    HttpApiEndpoint.get("getExternal", "/customers/external-accounts/:externalAccountId", {
      params: { externalAccountId: ExternalAccountId },
      success: ExternalAccount
    })
  )
  .add(
    HttpApiEndpoint.delete("deleteExternal", "/customers/external-accounts/:externalAccountId", {
      params: { externalAccountId: ExternalAccountId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.post("challengeOwnership", "/customers/external-accounts/:externalAccountId/challenge", {
      params: { externalAccountId: ExternalAccountId },
      payload: OwnershipChallengeRequest,
      success: OwnershipChallenge.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.post("verifyOwnership", "/customers/external-accounts/:externalAccountId/verify", {
      params: { externalAccountId: ExternalAccountId },
      payload: OwnershipVerifyRequest,
      success: ExternalAccount
    })
  )
  .add(
    HttpApiEndpoint.post("startBeneficiaryTrust", "/customers/external-accounts/:externalAccountId/trust", {
      params: { externalAccountId: ExternalAccountId },
      success: BeneficiaryTrustStart
    })
  )
  .add(
    HttpApiEndpoint.post("confirmBeneficiaryTrust", "/customers/external-accounts/:externalAccountId/trust/confirm", {
      params: { externalAccountId: ExternalAccountId },
      payload: BeneficiaryTrustConfirmRequest,
      success: BeneficiaryTrustConfirm
    })
  )
  .add(
    HttpApiEndpoint.post("startBeneficiaryUntrust", "/customers/external-accounts/:externalAccountId/untrust", {
      params: { externalAccountId: ExternalAccountId },
      success: BeneficiaryTrustStart
    })
  )
  .add(
    HttpApiEndpoint.post(
      "confirmBeneficiaryUntrust",
      "/customers/external-accounts/:externalAccountId/untrust/confirm",
      {
        params: { externalAccountId: ExternalAccountId },
        payload: BeneficiaryTrustConfirmRequest,
        success: BeneficiaryTrustConfirm
      }
    )
  )
  // The platform's own accounts (no customer; upstream `/platform/*`): customer routes 404 on them and vice versa.
  .add(
    HttpApiEndpoint.get("listPlatformInternal", "/platform/internal-accounts", {
      query: ListPlatformInternalAccountsQuery,
      success: Schema.Struct({ data: Schema.Array(InternalAccount) })
    })
  )
  .add(
    HttpApiEndpoint.get("listPlatformInternalPostings", "/platform/internal-accounts/:accountId/postings", {
      params: { accountId: InternalAccountId },
      query: ListPostingsQuery,
      success: PostingsPage
    })
  )
  .add(
    HttpApiEndpoint.get("listPlatformExternal", "/platform/external-accounts", {
      query: ListPlatformExternalAccountsQuery,
      success: PageOf(ExternalAccount)
    })
  )
  .add(
    HttpApiEndpoint.post("createPlatformExternal", "/platform/external-accounts", {
      payload: CreatePlatformExternalAccountRequest,
      success: ExternalAccount.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.get("getPlatformExternal", "/platform/external-accounts/:externalAccountId", {
      params: { externalAccountId: ExternalAccountId },
      success: ExternalAccount
    })
  )
  .add(
    HttpApiEndpoint.delete("deletePlatformExternal", "/platform/external-accounts/:externalAccountId", {
      params: { externalAccountId: ExternalAccountId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.post("challengePlatformOwnership", "/platform/external-accounts/:externalAccountId/challenge", {
      params: { externalAccountId: ExternalAccountId },
      payload: OwnershipChallengeRequest,
      success: OwnershipChallenge.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.post("verifyPlatformOwnership", "/platform/external-accounts/:externalAccountId/verify", {
      params: { externalAccountId: ExternalAccountId },
      payload: OwnershipVerifyRequest,
      success: ExternalAccount
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Accounts",
      description:
        "Internal balances and external payee accounts; trusted beneficiaries (an SCA challenge to trust or " +
        "untrust a USDC wallet); the platform's own internal and external accounts"
    })
  )
