import {
  Accounts,
  AgentActions,
  type AgentPrincipal,
  AgentScope,
  Agents,
  BulkImports,
  CardSimulations,
  Cards,
  Customers,
  Discoveries,
  Documents,
  decodeAll,
  InvalidInput,
  Invitations,
  Onboarding,
  type OutboxRecord,
  OwnershipVerification,
  PlatformConfigService,
  type PlatformPrincipal,
  type Principal,
  pageRequest,
  Quotes,
  ReplaceDocumentFields,
  Sca,
  type SignedRetryInput,
  Stablecoins,
  Tokens,
  Transactions,
  UploadDocumentFields,
  WalletAuth,
  WebhookDispatcher,
  WebhookSecrets,
  WebhookSigner
} from "@paycore/core"
import { Cause, Deferred, Effect, Result, Scope } from "effect"
import type { HttpApi } from "effect/http-api"
import type { Api } from "./api.ts"
import type { Handlers } from "./listener-types.ts"
import { preparedCall } from "./prepared.ts"
import type { RequestLog } from "./request-log.ts"
import { readUploadForm } from "./uploads.ts"
import { eventStreamResponse, STREAM_POLL_MILLIS, type WriteSignal } from "./webhook-stream.ts"

type ApiGroups = typeof Api extends HttpApi.HttpApi<infer _Id, infer Groups> ? Groups : never

/** The operator view of an outbox row: no lease bookkeeping; the signed body is the event itself. */
const toDelivery = (r: OutboxRecord) => ({
  id: r.id,
  type: r.type,
  subject: r.subject,
  sequence: r.sequence,
  createdAt: r.createdAt,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.nextAttemptAt,
  event: JSON.parse(r.body) as unknown
})

const decodeUploadFields = decodeAll(UploadDocumentFields)
const decodeReplaceFields = decodeAll(ReplaceDocumentFields)
/** A CSV upload's other fields are not looked at. */
const ignoreFields = () => Result.succeed(undefined)

/** A signed retry's exact body and its two headers (W-37), for the core's one mechanism. */
const signedRetryInput = (
  headers: { readonly "service-wallet-signature"?: string; readonly "request-id"?: string },
  rawBody: string
): SignedRetryInput => ({
  rawBody,
  signature: headers["service-wallet-signature"],
  requestId: headers["request-id"]
})

/** The `agentMe` group authenticates Bearer tokens only (app.ts), so its principal is an agent's. */
const agentOf = (principal: Principal): AgentPrincipal => {
  if (principal.kind !== "AGENT") throw new Error("an /agents/me route was reached without an agent's token")
  return principal
}

/** Every group but `agentMe` authenticates Basic credentials only (app.ts), so its principal is a platform token. */
const platformOf = (principal: Principal): PlatformPrincipal => {
  if (principal.kind !== "PLATFORM") throw new Error("a platform route was reached without a platform token")
  return principal
}

/** What the HTTP layer itself knows that some handlers answer: its request log, and when it answered a write. */
export interface HttpObservations {
  readonly requestLog: RequestLog
  readonly writes: WriteSignal
}

/** Entries `GET /request-log` answers when no `limit` is given. */
const REQUEST_LOG_DEFAULT_LIMIT = 50

/**
 * Binds every endpoint of `Api` to the core. Services are resolved once here, so a request
 * pays only for its own work. Permissions are checked before a handler runs (auth.ts).
 */
export const makeHandlers = Effect.fnUntraced(function* (observations: HttpObservations) {
  const tokens = yield* Tokens
  const config = yield* PlatformConfigService
  const discoveries = yield* Discoveries
  const customers = yield* Customers
  const onboarding = yield* Onboarding
  const accounts = yield* Accounts
  const quotes = yield* Quotes
  const transactions = yield* Transactions
  const webhooks = yield* WebhookDispatcher
  const signer = yield* WebhookSigner
  const signingSecrets = yield* WebhookSecrets
  const documents = yield* Documents
  const bulkImports = yield* BulkImports
  const walletAuth = yield* WalletAuth
  const ownership = yield* OwnershipVerification
  const sca = yield* Sca
  const cards = yield* Cards
  const simulations = yield* CardSimulations
  const agents = yield* Agents
  const agentActions = yield* AgentActions
  const agentScope = yield* AgentScope
  const invitations = yield* Invitations
  const stablecoins = yield* Stablecoins
  // Q9: a link's environment is the calling token's.
  const environmentOf = (principal: Principal) => (principal.kind === "PLATFORM" ? principal.environment : "SANDBOX")
  // Bulk imports run after their request is answered, in the app's scope (closing the app stops them).
  const scope = yield* Scope.Scope
  const runInBackground = (jobId: string) =>
    Effect.forkIn(
      bulkImports
        .run(jobId)
        .pipe(Effect.catchCause((cause) => Effect.logError("bulk import failed", Cause.pretty(cause)))),
      scope
    )
  // Closing the app ends the event streams, so their connections end and the server can close.
  const closing = yield* Deferred.make<void>()
  yield* Scope.addFinalizer(scope, Deferred.succeed(closing, undefined))

  const handlers: Handlers<ApiGroups, Principal, never> = {
    platform: {
      createToken: ({ payload }) => tokens.create(payload),
      listTokens: ({ query }) => tokens.list(query),
      getCurrentToken: ({ principal }) => tokens.get(platformOf(principal).tokenId),
      getToken: ({ params }) => tokens.get(params.tokenId),
      deleteToken: ({ params }) => tokens.delete(params.tokenId),
      requestLog: ({ principal, query }) =>
        Effect.succeed({
          data: observations.requestLog.list(platformOf(principal).tokenId, query.limit ?? REQUEST_LOG_DEFAULT_LIMIT)
        }),
      getConfig: () => config.get(),
      updateConfig: ({ payload }) => config.update(payload),
      exchangeRates: ({ query }) => Effect.map(quotes.exchangeRates(query), (data) => ({ data })),
      discoveries: ({ query }) => Effect.map(discoveries.institutions(query), (data) => ({ data })),
      umaProviders: ({ query }) => discoveries.umaProviders(query),
      vasps: ({ query }) => discoveries.vasps(query)
    },
    customers: {
      create: ({ payload }) => customers.create(payload),
      list: ({ query }) => customers.list(query),
      endUserTerms: () => config.endUserTerms(),
      get: ({ params }) => customers.get(params.customerId),
      update: ({ params, payload, headers, rawBody }) =>
        customers.update(params.customerId, payload, signedRetryInput(headers, rawBody)),
      delete: ({ params }) => customers.delete(params.customerId),
      bulkImportCsv: ({ payload }) =>
        readUploadForm(payload, bulkImports, ignoreFields, "required").pipe(
          Effect.flatMap(({ file }) => bulkImports.accept(file)),
          Effect.tap((accepted) => runInBackground(accepted.jobId))
        ),
      getBulkImportJob: ({ params }) => bulkImports.get(params.jobId)
    },
    onboarding: {
      createKycLink: ({ params, payload }) => onboarding.createKycLink(params.customerId, payload),
      sendEmailCode: ({ params }) => onboarding.sendContactCode(params.customerId, "EMAIL"),
      confirmEmailCode: ({ params, payload }) =>
        onboarding.confirmContactCode(params.customerId, "EMAIL", payload.code),
      sendPhoneCode: ({ params }) => onboarding.sendContactCode(params.customerId, "PHONE"),
      confirmPhoneCode: ({ params, payload }) =>
        onboarding.confirmContactCode(params.customerId, "PHONE", payload.code),
      createVerification: ({ payload }) => onboarding.submitVerification(payload),
      listVerifications: ({ query }) => onboarding.listVerifications(query),
      getVerification: ({ params }) => onboarding.getVerification(params.verificationId),
      createBeneficialOwner: ({ payload }) => onboarding.createBeneficialOwner(payload),
      listBeneficialOwners: ({ query }) => onboarding.listBeneficialOwners(query),
      getBeneficialOwner: ({ params }) => onboarding.getBeneficialOwner(params.beneficialOwnerId),
      updateBeneficialOwner: ({ params, payload }) =>
        onboarding.updateBeneficialOwner(params.beneficialOwnerId, payload),
      uploadDocument: ({ payload }) =>
        Effect.flatMap(readUploadForm(payload, documents, decodeUploadFields, "required"), ({ fields, file }) =>
          documents.upload(fields, file)
        ),
      listDocuments: ({ query }) => documents.list(query),
      getDocument: ({ params }) => documents.get(params.documentId),
      replaceDocument: ({ params, payload }) =>
        Effect.flatMap(readUploadForm(payload, documents, decodeReplaceFields, "optional"), ({ fields, file }) =>
          documents.replace(params.documentId, fields, file)
        ),
      deleteDocument: ({ params }) => documents.delete(params.documentId)
    },
    accounts: {
      listInternal: ({ query }) => accounts.listInternal(query),
      listCustomerInternal: ({ query }) => accounts.listInternal(query),
      listCustomerInternalPostings: ({ params, query }) => accounts.listPostings("CUSTOMER", params.accountId, query),
      createExternal: ({ payload }) => accounts.createExternal(payload),
      listExternal: ({ query }) => accounts.listExternal(query),
      getExternal: ({ params }) => accounts.getExternal(params.externalAccountId),
      deleteExternal: ({ params }) => accounts.deleteExternal(params.externalAccountId),
      challengeOwnership: ({ params, payload }) => ownership.challenge(params.externalAccountId, payload),
      verifyOwnership: ({ params, payload }) => ownership.verify(params.externalAccountId, payload),
      listPlatformInternal: ({ query }) => accounts.listPlatformInternal(query),
      listPlatformInternalPostings: ({ params, query }) => accounts.listPostings("PLATFORM", params.accountId, query),
      listPlatformExternal: ({ query }) => accounts.listPlatformExternal(query),
      createPlatformExternal: ({ payload }) => accounts.createPlatformExternal(payload),
      getPlatformExternal: ({ params }) => accounts.getPlatformExternal(params.externalAccountId),
      deletePlatformExternal: ({ params }) => accounts.deletePlatformExternal(params.externalAccountId),
      challengePlatformOwnership: ({ params, payload }) =>
        ownership.challenge(params.externalAccountId, payload, "PLATFORM"),
      verifyPlatformOwnership: ({ params, payload }) => ownership.verify(params.externalAccountId, payload, "PLATFORM"),
      startBeneficiaryTrust: ({ params }) => sca.startBeneficiaryTrust(params.externalAccountId),
      confirmBeneficiaryTrust: ({ params, payload }) => sca.confirmBeneficiaryTrust(params.externalAccountId, payload),
      startBeneficiaryUntrust: ({ params }) => sca.startBeneficiaryUntrust(params.externalAccountId),
      confirmBeneficiaryUntrust: ({ params, payload }) =>
        sca.confirmBeneficiaryUntrust(params.externalAccountId, payload)
    },
    walletAuth: {
      listCredentials: ({ query }) => walletAuth.listCredentials(query.accountId),
      createCredential: ({ payload, headers, rawBody }) =>
        walletAuth.createCredential(payload, signedRetryInput(headers, rawBody)),
      challengeCredential: ({ params, payload }) => walletAuth.challengeCredential(params.credentialId, payload),
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
      exportWallet: ({ params, payload, headers, rawBody }) =>
        walletAuth.exportWallet(params.accountId, payload, signedRetryInput(headers, rawBody)),
      updateInternalAccount: ({ params, payload, headers, rawBody }) =>
        walletAuth.updateInternalAccount(params.accountId, payload, signedRetryInput(headers, rawBody))
    },
    sca: {
      listFactors: ({ query }) => sca.listFactors(query.customerId),
      startFactorEnrollment: ({ query, payload }) => sca.startFactorEnrollment(query.customerId, payload),
      confirmFactorEnrollment: ({ query, payload }) => sca.confirmFactorEnrollment(query.customerId, payload),
      deleteFactor: ({ params, query }) => sca.deleteFactor(query.customerId, params.credentialId),
      startLogin: ({ query, payload }) => sca.startLogin(query.customerId, payload),
      completeLogin: ({ query, payload }) => sca.completeLogin(query.customerId, payload),
      recordSecurityEvent: ({ query, payload }) => sca.recordSecurityEvent(query.customerId, payload),
      startFactorReset: ({ query, payload }) => sca.startFactorReset(query.customerId, payload),
      getFactorReset: ({ params, query }) => sca.getFactorReset(query.customerId, params.resetId),
      completeFactorReset: ({ params, query, payload }) =>
        sca.completeFactorReset(query.customerId, params.resetId, payload)
    },
    cards: {
      createCard: ({ payload }) => cards.create(payload),
      listCards: ({ query }) => cards.list(query),
      getCard: ({ params }) => cards.get(params.id),
      updateCard: ({ params, payload }) => cards.update(params.id, payload),
      // CD-33: the reveal is audited with the asking token (only platform tokens reach a platform route).
      revealCard: ({ params, principal }) =>
        cards.reveal(params.id, principal.kind === "PLATFORM" ? principal.tokenId : principal.agentId)
    },
    agents: {
      createAgent: ({ payload }) => agents.create(payload),
      listAgents: ({ query }) => agents.list(query),
      listApprovals: ({ query }) => agentActions.listApprovals(query),
      getDeviceCodeStatus: ({ params }) => agents.deviceCodeStatus(params.code),
      // AG-15: never stored by an Idempotency-Key, answered with Cache-Control: no-store (app.ts).
      redeemDeviceCode: ({ params }) => agents.redeem(params.code),
      getAgent: ({ params }) => agents.get(params.agentId),
      updateAgent: ({ params, payload }) => agents.update(params.agentId, payload),
      deleteAgent: ({ params }) => agents.delete(params.agentId),
      updateAgentPolicy: ({ params, payload }) => agents.updatePolicy(params.agentId, payload),
      createDeviceCode: ({ params }) => agents.createDeviceCode(params.agentId),
      approveAction: ({ params }) => agentActions.approve(params.agentId, params.actionId),
      rejectAction: ({ params, payload }) => agentActions.reject(params.agentId, params.actionId, payload ?? {})
    },
    invitations: {
      createInvitation: ({ payload }) => invitations.create(payload),
      getInvitation: ({ params }) => invitations.get(params.invitationCode),
      claimInvitation: ({ params, payload }) => invitations.claim(params.invitationCode, payload),
      // IN-05, design Q6: one engine serves one platform; any write token may cancel.
      cancelInvitation: ({ params }) => invitations.cancel(params.invitationCode)
    },
    // P-08 … P-18. The four POSTs are prepared commands (prepared.ts): the provider is called before the commit.
    stablecoins: {
      linkProviderAccount: ({ payload, principal }) =>
        preparedCall((request) => stablecoins.linkProviderAccount(payload, environmentOf(principal), request)),
      listProviderAccounts: ({ query }) => stablecoins.listProviderAccounts(query),
      getProviderAccount: ({ params }) => stablecoins.getProviderAccount(params.stablecoinProviderAccountId),
      registerStablecoin: ({ payload, principal }) =>
        preparedCall((request) => stablecoins.register(payload, environmentOf(principal), request)),
      listStablecoins: ({ query }) => stablecoins.list(query),
      getStablecoin: ({ params }) => stablecoins.get(params.stablecoinId),
      createMint: ({ params, payload, principal }) =>
        preparedCall((request) => stablecoins.mint(params.stablecoinId, payload, environmentOf(principal), request)),
      createBurn: ({ params, payload, principal }) =>
        preparedCall((request) => stablecoins.burn(params.stablecoinId, payload, environmentOf(principal), request)),
      listOperations: ({ params, query }) => stablecoins.listOperations(params.stablecoinId, query),
      getOperation: ({ params }) => stablecoins.getOperation(params.stablecoinOperationId)
    },
    // Bearer only (app.ts): the principal is always an agent's.
    agentMe: {
      getMe: ({ principal }) => agents.me(agentOf(principal)),
      listInternalAccounts: ({ principal, query }) => agentScope.listInternalAccounts(agentOf(principal), query),
      createExternalAccount: ({ principal, payload }) => agentScope.createExternalAccount(agentOf(principal), payload),
      listExternalAccounts: ({ principal, query }) => agentScope.listExternalAccounts(agentOf(principal), query),
      getExternalAccount: ({ principal, params }) =>
        agentScope.getExternalAccount(agentOf(principal), params.externalAccountId),
      deleteExternalAccount: ({ principal, params }) =>
        agentScope.deleteExternalAccount(agentOf(principal), params.externalAccountId),
      createQuote: ({ principal, payload }) => agentScope.createQuote(agentOf(principal), payload),
      getQuote: ({ principal, params }) => agentScope.getQuote(agentOf(principal), params.quoteId),
      executeQuote: ({ principal, params, headers }) =>
        agentActions.executeQuote(agentOf(principal), params.quoteId, headers["service-wallet-signature"]),
      transferOut: ({ principal, payload }) => agentActions.transferOut(agentOf(principal), payload),
      transferIn: ({ principal, payload }) => agentActions.transferIn(agentOf(principal), payload),
      listTransactions: ({ principal, query }) => agentScope.listTransactions(agentOf(principal), query),
      getTransaction: ({ principal, params }) => agentScope.getTransaction(agentOf(principal), params.transactionId),
      getTransactionTimeline: ({ principal, params }) =>
        agentScope.getTransactionTimeline(agentOf(principal), params.transactionId),
      listActions: ({ principal, query }) => agentScope.listActions(agentOf(principal), query),
      getAction: ({ principal, params }) => agentScope.getAction(agentOf(principal), params.actionId)
    },
    payments: {
      createQuote: ({ payload }) => quotes.create(payload),
      getQuote: ({ params }) => quotes.get(params.quoteId),
      executeQuote: ({ params, headers, payload }) =>
        quotes.execute(params.quoteId, {
          walletSignature: headers["service-wallet-signature"],
          scaFactor: payload?.scaFactor
        }),
      authorizeQuote: ({ params, payload }) => transactions.authorizeQuote(params.quoteId, payload),
      resendQuoteScaCode: ({ params }) => transactions.resendQuoteScaCode(params.quoteId),
      listTransactions: ({ query }) => transactions.list(query),
      getTransaction: ({ params }) => transactions.get(params.transactionId),
      getTransactionTimeline: ({ params }) => transactions.timeline(params.transactionId),
      confirmTransaction: ({ params, payload }) => transactions.confirm(params.transactionId, payload),
      cancelTransaction: ({ params, payload }) => transactions.cancel(params.transactionId, payload),
      approveTransaction: ({ params, payload }) => transactions.approve(params.transactionId, payload),
      rejectTransaction: ({ params, payload }) => transactions.reject(params.transactionId, payload),
      lookupExternalAccount: ({ params, query }) => quotes.lookupExternalAccount(params.accountId, query),
      lookupUma: ({ params, query }) => quotes.lookupUma(params.receiverUmaAddress, query),
      estimateWithdrawalFee: ({ payload }) => quotes.estimateWithdrawalFee(payload),
      transferOut: ({ payload }) => transactions.transferOut(payload),
      transferIn: ({ payload }) => transactions.transferIn(payload)
    },
    sandbox: {
      fund: ({ params, payload }) =>
        Effect.flatMap(transactions.fundSandbox(params.accountId, payload.amount), (id) => accounts.getInternal(id)),
      send: ({ payload }) => transactions.sandboxSend(payload),
      umaReceive: ({ payload }) => transactions.sandboxUmaReceive(payload),
      returnDeposit: ({ params }) => transactions.sandboxReturnDeposit(params.transactionId),
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
    },
    webhooks: {
      publicKey: () => Effect.succeed({ publicKey: signer.publicKeyPem }),
      listDeliveries: ({ query }) => {
        const page = pageRequest(query)
        if (page === undefined) {
          return Effect.fail(
            InvalidInput.one("cursor", { format: "cursor" }, "The cursor was not issued by this server")
          )
        }
        return Effect.map(
          webhooks.list({ status: query.status, subject: query.subject, type: query.type }, page),
          (p) => ({
            ...p,
            data: p.data.map(toDelivery)
          })
        )
      },
      replayDelivery: ({ params }) => Effect.map(webhooks.replay(params.webhookId), toDelivery),
      streamEvents: ({ query, headers }) =>
        Effect.map(
          webhooks.follow(headers["last-event-id"] ?? query.after, {
            wake: observations.writes.wake(),
            pollMillis: STREAM_POLL_MILLIS
          }),
          (events) => eventStreamResponse(events, Deferred.await(closing))
        ),
      listSigningSecrets: () => Effect.map(signingSecrets.list(), (data) => ({ data })),
      rotateSigningSecret: ({ payload }) => signingSecrets.rotate(payload.overlapSeconds)
    }
  }
  return handlers
})
