import {
  BeneficiaryTrustConfirm,
  BeneficiaryTrustConfirmRequest,
  BeneficiaryTrustStart,
  CreateExternalAccountRequest,
  ExternalAccount,
  ExternalAccountId,
  InternalAccount,
  ListExternalAccountsQuery,
  ListInternalAccountsQuery,
  OwnershipChallenge,
  OwnershipChallengeRequest,
  OwnershipVerifyRequest,
  PageOf
} from "@paycore/core"
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
  .annotateMerge(
    OpenApi.annotations({
      title: "Accounts",
      description:
        "Internal balances and external payee accounts; trusted beneficiaries (an SCA challenge to trust or " +
        "untrust a USDC wallet)"
    })
  )
