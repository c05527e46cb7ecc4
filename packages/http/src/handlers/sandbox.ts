import { Accounts, CardSimulations, OwnershipVerification, Sca, Transactions, WebhookDispatcher } from "@paycore/core"
import { Effect } from "effect"
import type { GroupHandlers } from "./shared.ts"

/**
 * The `sandbox` group: funding, simulated payments, deposits, compliance decisions, liveness and card network
 * messages.
 */
export const sandboxHandlers = Effect.fnUntraced(function* () {
  const transactions = yield* Transactions
  const accounts = yield* Accounts
  const webhooks = yield* WebhookDispatcher
  const ownership = yield* OwnershipVerification
  const sca = yield* Sca
  const simulations = yield* CardSimulations
  const handlers: GroupHandlers<"sandbox"> = {
    fund: ({ params, payload }) =>
      Effect.flatMap(transactions.fundSandbox(params.accountId, payload.amount), (id) => accounts.getInternal(id)),
    send: ({ payload }) => transactions.sandboxSend(payload),
    umaReceive: ({ payload }) => transactions.sandboxUmaReceive(payload),
    returnDeposit: ({ params }) => transactions.sandboxReturnDeposit(params.transactionId),
    releaseComplianceHold: ({ params }) => transactions.releaseComplianceHold(params.transactionId),
    rejectComplianceHold: ({ params, payload }) => transactions.rejectComplianceHold(params.transactionId, payload),
    testWebhook: () => webhooks.sendTest(),
    settleLiveness: ({ params, payload }) => ownership.settleLiveness(params.externalAccountId, payload),
    settleScaResetLiveness: ({ params, payload }) => sca.settleResetLiveness(params.resetId, payload),
    simulateCardAuthorization: ({ params, payload }) => simulations.simulate(params.id, "AUTHORIZATION", payload),
    simulateCardClearing: ({ params, payload }) => simulations.simulate(params.id, "CLEARING", payload),
    simulateCardReturn: ({ params, payload }) => simulations.simulate(params.id, "RETURN", payload),
    simulateCardBalanceInquiry: ({ params, payload }) => simulations.simulate(params.id, "BALANCE_INQUIRY", payload),
    simulateCardCreditAuthorization: ({ params, payload }) =>
      simulations.simulate(params.id, "CREDIT_AUTHORIZATION", payload),
    simulateCardFinancialAuthorization: ({ params, payload }) =>
      simulations.simulate(params.id, "FINANCIAL_AUTHORIZATION", payload),
    simulateCardFinancialCreditAuthorization: ({ params, payload }) =>
      simulations.simulate(params.id, "FINANCIAL_CREDIT_AUTHORIZATION", payload),
    simulateCardAuthorizationAdvice: ({ params, payload }) =>
      simulations.simulate(params.id, "AUTHORIZATION_ADVICE", payload),
    simulateCardCreditAuthorizationAdvice: ({ params, payload }) =>
      simulations.simulate(params.id, "CREDIT_AUTHORIZATION_ADVICE", payload),
    simulateCardReturnReversal: ({ params, payload }) => simulations.simulate(params.id, "RETURN_REVERSAL", payload)
  }
  return handlers
})
