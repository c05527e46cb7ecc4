import {
  CardId,
  ExternalAccount,
  ExternalAccountId,
  InternalAccount,
  InternalAccountId,
  SandboxCardAuthorizationAdviceRequest,
  SandboxCardAuthorizationRequest,
  SandboxCardBalanceInquiryRequest,
  SandboxCardClearingRequest,
  SandboxCardReturnRequest,
  SandboxCardSimulationResponse,
  SandboxCardTransactionRefRequest,
  SandboxFundRequest,
  SandboxLivenessRequest,
  SandboxResetLivenessRequest,
  SandboxSendRequest,
  SandboxUmaReceiveRequest,
  ScaFactorResetParams,
  Transaction,
  TransactionId,
  TransactionReasonRequest,
  TwoFactorResetStatus
} from "@paycore/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { accepted } from "./shared.ts"

export const TestDelivery = Schema.Struct({
  url: Schema.String,
  response_status: Schema.Int,
  response_body: Schema.String
})

/** `POST /sandbox/cards/{id}/simulate/<event>` (CD-45 … CD-52): 202 with the issuer's transaction token. */
const cardSimulation = <const Name extends string, const Path extends string, P extends Schema.Top>(
  name: Name,
  path: Path,
  payload: P
) =>
  HttpApiEndpoint.post(name, `/sandbox/cards/:id/simulate/${path}`, {
    params: { id: CardId },
    payload,
    success: SandboxCardSimulationResponse.pipe(accepted)
  })

export const SandboxGroup = HttpApiGroup.make("sandbox")
  .add(
    HttpApiEndpoint.post("fund", "/sandbox/internal-accounts/:accountId/fund", {
      params: { accountId: InternalAccountId },
      payload: SandboxFundRequest,
      success: InternalAccount
    })
  )
  .add(HttpApiEndpoint.post("send", "/sandbox/send", { payload: SandboxSendRequest, success: Transaction }))
  .add(
    HttpApiEndpoint.post("umaReceive", "/sandbox/uma/receive", {
      payload: SandboxUmaReceiveRequest,
      success: Transaction
    })
  )
  .add(
    // WH-08 (ours, design Q13): the sending bank takes a completed deposit back.
    HttpApiEndpoint.post("returnDeposit", "/sandbox/transactions/:transactionId/return", {
      params: { transactionId: TransactionId },
      success: Transaction
    })
  )
  .add(
    // Q-38 (ours): the compliance review's decision on a payout the sandbox screening held (docs/transactions.md).
    HttpApiEndpoint.post("releaseComplianceHold", "/sandbox/transactions/:transactionId/compliance/release", {
      params: { transactionId: TransactionId },
      success: Transaction
    })
  )
  .add(
    HttpApiEndpoint.post("rejectComplianceHold", "/sandbox/transactions/:transactionId/compliance/reject", {
      params: { transactionId: TransactionId },
      payload: TransactionReasonRequest,
      success: Transaction
    })
  )
  .add(HttpApiEndpoint.post("testWebhook", "/sandbox/webhooks/test", { success: TestDelivery }))
  .add(
    HttpApiEndpoint.post("settleLiveness", "/sandbox/external-accounts/:externalAccountId/liveness", {
      params: { externalAccountId: ExternalAccountId },
      payload: SandboxLivenessRequest,
      success: ExternalAccount
    })
  )
  .add(
    HttpApiEndpoint.post("settleScaResetLiveness", "/sandbox/sca/factors/reset/:resetId/liveness", {
      params: ScaFactorResetParams.fields,
      payload: SandboxResetLivenessRequest,
      success: TwoFactorResetStatus
    })
  )
  .add(cardSimulation("simulateCardAuthorization", "authorization", SandboxCardAuthorizationRequest))
  .add(cardSimulation("simulateCardClearing", "clearing", SandboxCardClearingRequest))
  .add(cardSimulation("simulateCardReturn", "return", SandboxCardReturnRequest))
  .add(cardSimulation("simulateCardBalanceInquiry", "balance_inquiry", SandboxCardBalanceInquiryRequest))
  .add(cardSimulation("simulateCardCreditAuthorization", "credit_authorization", SandboxCardAuthorizationRequest))
  .add(cardSimulation("simulateCardFinancialAuthorization", "financial_authorization", SandboxCardAuthorizationRequest))
  .add(
    cardSimulation(
      "simulateCardFinancialCreditAuthorization",
      "financial_credit_authorization",
      SandboxCardAuthorizationRequest
    )
  )
  .add(cardSimulation("simulateCardAuthorizationAdvice", "authorization_advice", SandboxCardAuthorizationAdviceRequest))
  .add(
    cardSimulation(
      "simulateCardCreditAuthorizationAdvice",
      "credit_authorization_advice",
      SandboxCardAuthorizationRequest
    )
  )
  .add(cardSimulation("simulateCardReturnReversal", "return_reversal", SandboxCardTransactionRefRequest))
  .annotateMerge(OpenApi.annotations({ title: "Sandbox", description: "Test helpers; refuse production tokens" }))
