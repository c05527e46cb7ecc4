import {
  AccountQuery,
  AnyTransactionId,
  ApiToken,
  ApiTokenWithSecret,
  AuthMethod,
  AuthMethodId,
  AuthSession,
  BeneficialOwner,
  BeneficialOwnerId,
  BeneficiaryTrustConfirm,
  BeneficiaryTrustConfirmRequest,
  BeneficiaryTrustStart,
  BulkImportAccepted,
  BulkImportJob,
  Card,
  CardCreateRequest,
  CardId,
  CardRevealResponse,
  CardUpdateRequest,
  ChallengeCredentialRequest,
  ContactVerificationConfirmRequest,
  CreateBeneficialOwnerRequest,
  CreateCredentialRequest,
  CreateCustomerRequest,
  CreateDelegatedKeyRequest,
  CreateExternalAccountRequest,
  CreateQuoteRequest,
  CreateTokenRequest,
  CreateVerificationRequest,
  Customer,
  CustomerId,
  DelegatedKey,
  DelegatedKeyId,
  DiscoveriesQuery,
  Document,
  DocumentId,
  EndUserTerms,
  ExchangeRate,
  ExchangeRatesQuery,
  ExecuteQuoteRequest,
  ExternalAccount,
  ExternalAccountId,
  ExternalAccountLookup,
  IdempotencyKeyHeader,
  Institution,
  InternalAccount,
  InternalAccountExportRequest,
  InternalAccountExportResponse,
  InternalAccountId,
  InternalAccountUpdateRequest,
  JobId,
  KycLink,
  KycLinkRequest,
  ListBeneficialOwnersQuery,
  ListCardsQuery,
  ListCustomersQuery,
  ListDelegatedKeysQuery,
  ListDocumentsQuery,
  ListExternalAccountsQuery,
  ListInternalAccountsQuery,
  ListTokensQuery,
  ListTransactionsQuery,
  ListVerificationsQuery,
  MAX_SECRET_OVERLAP_SECONDS,
  OwnershipChallenge,
  OwnershipChallengeRequest,
  OwnershipVerifyRequest,
  PageOf,
  PageQueryFields,
  PasskeyAuthChallenge,
  PlatformConfig,
  Quote,
  QuoteAwaitingAuthorization,
  QuoteId,
  ReceiverLookupQuery,
  RecordSecurityEventRequest,
  RecordSecurityEventResponse,
  RefreshSessionRequest,
  ReplaceDocumentFields,
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
  ScaAuthorization,
  ScaCustomerQuery,
  ScaFactorConfirmRequest,
  ScaFactorConfirmResponse,
  ScaFactorCredentialParams,
  ScaFactorEnrollRequest,
  ScaFactorEnrollStart,
  ScaFactorList,
  ScaFactorResetParams,
  ScaLoginComplete,
  ScaLoginCompleteRequest,
  ScaLoginStart,
  ScaLoginStartRequest,
  SessionId,
  SignedRetryChallenge,
  SignedRetryHeaders,
  TokenId,
  Transaction,
  TransactionOneOf,
  TransferInRequest,
  TransferOutRequest,
  TwoFactorResetCompleteRequest,
  TwoFactorResetStart,
  TwoFactorResetStartRequest,
  TwoFactorResetStatus,
  UmaLookup,
  UmaProvider,
  UmaProvidersQuery,
  UpdateBeneficialOwnerRequest,
  UpdateConfigRequest,
  UpdateCustomerRequest,
  UploadDocumentFields,
  Verification,
  VerificationId,
  VerifyCredentialRequest,
  WalletOperationProcessing,
  WebhookId,
  WebhookSecretInfo
} from "@paycore/core"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"

/** The interface version: the last segment of the base URL. */
export const API_VERSION = "2025-10-13"

const created = HttpApiSchema.status(201)
const accepted = HttpApiSchema.status(202)
const Data = <S extends Schema.Top>(item: S) => Schema.Struct({ data: Schema.Array(item) })

export const PlatformGroup = HttpApiGroup.make("platform")
  .add(
    HttpApiEndpoint.post("createToken", "/tokens", {
      payload: CreateTokenRequest,
      success: ApiTokenWithSecret.pipe(created)
    })
  )
  .add(HttpApiEndpoint.get("listTokens", "/tokens", { query: ListTokensQuery, success: PageOf(ApiToken) }))
  .add(HttpApiEndpoint.get("getToken", "/tokens/:tokenId", { params: { tokenId: TokenId }, success: ApiToken }))
  .add(
    HttpApiEndpoint.delete("deleteToken", "/tokens/:tokenId", {
      params: { tokenId: TokenId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(HttpApiEndpoint.get("getConfig", "/config", { success: PlatformConfig }))
  .add(HttpApiEndpoint.patch("updateConfig", "/config", { payload: UpdateConfigRequest, success: PlatformConfig }))
  .add(
    HttpApiEndpoint.get("exchangeRates", "/exchange-rates", { query: ExchangeRatesQuery, success: Data(ExchangeRate) })
  )
  .add(HttpApiEndpoint.get("discoveries", "/discoveries", { query: DiscoveriesQuery, success: Data(Institution) }))
  .add(
    HttpApiEndpoint.get("umaProviders", "/uma-providers", { query: UmaProvidersQuery, success: PageOf(UmaProvider) })
  )
  .annotateMerge(
    OpenApi.annotations({ title: "Platform", description: "API tokens, configuration, exchange rates, directories" })
  )

/** The file part of a multipart form (its bytes; its Content-Type and file name come from the part's headers). */
const FilePart = Schema.String.annotate({ format: "binary" })

/** `POST /documents`: the file (PDF, JPEG or PNG by the part's Content-Type, at most 10 MB) and its metadata. */
export const DocumentUploadForm = Schema.Struct({ file: FilePart, ...UploadDocumentFields.fields }).pipe(
  HttpApiSchema.asMultipartStream()
)
/** `PUT /documents/{documentId}`: a new file, metadata to change, or both. */
export const DocumentReplaceForm = Schema.Struct({
  file: Schema.optionalKey(FilePart),
  ...ReplaceDocumentFields.fields
}).pipe(HttpApiSchema.asMultipartStream())
/** `POST /customers/bulk/csv`: the CSV file (the spec's columns). */
export const CustomersCsvForm = Schema.Struct({ file: FilePart }).pipe(HttpApiSchema.asMultipartStream())

export const CustomersGroup = HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.post("create", "/customers", { payload: CreateCustomerRequest, success: Customer.pipe(created) })
  )
  .add(HttpApiEndpoint.get("list", "/customers", { query: ListCustomersQuery, success: PageOf(Customer) }))
  .add(HttpApiEndpoint.get("endUserTerms", "/customers/end-user-terms", { success: EndUserTerms }))
  .add(
    HttpApiEndpoint.post("bulkImportCsv", "/customers/bulk/csv", {
      payload: CustomersCsvForm,
      success: BulkImportAccepted.pipe(accepted)
    })
  )
  .add(
    HttpApiEndpoint.get("getBulkImportJob", "/customers/bulk/jobs/:jobId", {
      params: { jobId: JobId },
      success: BulkImportJob
    })
  )
  .add(HttpApiEndpoint.get("get", "/customers/:customerId", { params: { customerId: CustomerId }, success: Customer }))
  .add(
    HttpApiEndpoint.patch("update", "/customers/:customerId", {
      params: { customerId: CustomerId },
      payload: UpdateCustomerRequest,
      // CU-14 … CU-18: a change of the email (phone) tied embedded-wallet OTP credentials send codes to is a
      // signed retry: 202 first, then the same body with Service-Wallet-Signature and Request-Id. Never PROCESSING.
      headers: SignedRetryHeaders,
      success: [Customer, SignedRetryChallenge.pipe(accepted)]
    })
  )
  .add(
    HttpApiEndpoint.delete("delete", "/customers/:customerId", {
      params: { customerId: CustomerId },
      success: Customer
    })
  )
  .annotateMerge(OpenApi.annotations({ title: "Customers", description: "Individuals and businesses" }))

export const OnboardingGroup = HttpApiGroup.make("onboarding")
  .add(
    HttpApiEndpoint.post("createKycLink", "/customers/:customerId/kyc-link", {
      params: { customerId: CustomerId },
      headers: { "idempotency-key": IdempotencyKeyHeader },
      payload: KycLinkRequest,
      success: KycLink.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.post("sendEmailCode", "/customers/:customerId/verify-email", {
      params: { customerId: CustomerId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.post("confirmEmailCode", "/customers/:customerId/verify-email/confirm", {
      params: { customerId: CustomerId },
      payload: ContactVerificationConfirmRequest,
      success: Customer
    })
  )
  .add(
    HttpApiEndpoint.post("sendPhoneCode", "/customers/:customerId/verify-phone", {
      params: { customerId: CustomerId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.post("confirmPhoneCode", "/customers/:customerId/verify-phone/confirm", {
      params: { customerId: CustomerId },
      payload: ContactVerificationConfirmRequest,
      success: Customer
    })
  )
  .add(
    HttpApiEndpoint.post("createVerification", "/verifications", {
      payload: CreateVerificationRequest,
      success: Verification
    })
  )
  .add(
    HttpApiEndpoint.get("listVerifications", "/verifications", {
      query: ListVerificationsQuery,
      success: PageOf(Verification)
    })
  )
  .add(
    HttpApiEndpoint.get("getVerification", "/verifications/:verificationId", {
      params: { verificationId: VerificationId },
      success: Verification
    })
  )
  .add(
    HttpApiEndpoint.post("createBeneficialOwner", "/beneficial-owners", {
      payload: CreateBeneficialOwnerRequest,
      success: BeneficialOwner.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.get("listBeneficialOwners", "/beneficial-owners", {
      query: ListBeneficialOwnersQuery,
      success: PageOf(BeneficialOwner)
    })
  )
  .add(
    HttpApiEndpoint.get("getBeneficialOwner", "/beneficial-owners/:beneficialOwnerId", {
      params: { beneficialOwnerId: BeneficialOwnerId },
      success: BeneficialOwner
    })
  )
  .add(
    HttpApiEndpoint.patch("updateBeneficialOwner", "/beneficial-owners/:beneficialOwnerId", {
      params: { beneficialOwnerId: BeneficialOwnerId },
      payload: UpdateBeneficialOwnerRequest,
      success: BeneficialOwner
    })
  )
  .add(
    HttpApiEndpoint.post("uploadDocument", "/documents", {
      payload: DocumentUploadForm,
      success: Document.pipe(created)
    })
  )
  .add(HttpApiEndpoint.get("listDocuments", "/documents", { query: ListDocumentsQuery, success: PageOf(Document) }))
  .add(
    HttpApiEndpoint.get("getDocument", "/documents/:documentId", {
      params: { documentId: DocumentId },
      success: Document
    })
  )
  .add(
    HttpApiEndpoint.put("replaceDocument", "/documents/:documentId", {
      params: { documentId: DocumentId },
      payload: DocumentReplaceForm,
      success: Document
    })
  )
  .add(
    HttpApiEndpoint.delete("deleteDocument", "/documents/:documentId", {
      params: { documentId: DocumentId },
      success: HttpApiSchema.NoContent
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Onboarding",
      description: "KYC/KYB: hosted links, verifications, beneficial owners, documents, contact verification"
    })
  )

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

/** A signed retry's first leg (202) and its still-settling answer (W-35, W-39), next to an action's own success. */
const signedRetry = [SignedRetryChallenge.pipe(accepted), WalletOperationProcessing] as const

export const WalletAuthGroup = HttpApiGroup.make("walletAuth")
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
    })
  )
  .add(
    HttpApiEndpoint.delete("revokeCredential", "/auth/credentials/:credentialId", {
      params: { credentialId: AuthMethodId },
      headers: SignedRetryHeaders,
      success: [HttpApiSchema.NoContent, ...signedRetry]
    })
  )
  .add(HttpApiEndpoint.get("listSessions", "/auth/sessions", { query: AccountQuery, success: Data(AuthSession) }))
  .add(
    HttpApiEndpoint.post("refreshSession", "/auth/sessions/:sessionId/refresh", {
      params: { sessionId: SessionId },
      payload: RefreshSessionRequest,
      headers: SignedRetryHeaders,
      success: [AuthSession.pipe(created), ...signedRetry]
    })
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
    })
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

export const ScaGroup = HttpApiGroup.make("sca")
  .add(HttpApiEndpoint.get("listFactors", "/sca/factors", { query: ScaCustomerQuery, success: ScaFactorList }))
  .add(
    HttpApiEndpoint.post("startFactorEnrollment", "/sca/factors", {
      query: ScaCustomerQuery,
      payload: ScaFactorEnrollRequest,
      success: ScaFactorEnrollStart
    })
  )
  .add(
    HttpApiEndpoint.post("confirmFactorEnrollment", "/sca/factors/confirm", {
      query: ScaCustomerQuery,
      payload: ScaFactorConfirmRequest,
      success: ScaFactorConfirmResponse
    })
  )
  .add(
    HttpApiEndpoint.delete("deleteFactor", "/sca/factors/:credentialId", {
      params: ScaFactorCredentialParams.fields,
      query: ScaCustomerQuery,
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.post("startLogin", "/sca/login/start", {
      query: ScaCustomerQuery,
      payload: ScaLoginStartRequest,
      success: ScaLoginStart
    })
  )
  .add(
    HttpApiEndpoint.post("completeLogin", "/sca/login/complete", {
      query: ScaCustomerQuery,
      payload: ScaLoginCompleteRequest,
      success: ScaLoginComplete
    })
  )
  .add(
    HttpApiEndpoint.post("recordSecurityEvent", "/sca/record-event", {
      query: ScaCustomerQuery,
      payload: RecordSecurityEventRequest,
      success: RecordSecurityEventResponse
    })
  )
  .add(
    HttpApiEndpoint.post("startFactorReset", "/sca/factors/reset", {
      query: ScaCustomerQuery,
      payload: TwoFactorResetStartRequest,
      success: TwoFactorResetStart.pipe(created)
    })
  )
  .add(
    HttpApiEndpoint.get("getFactorReset", "/sca/factors/reset/:resetId", {
      params: ScaFactorResetParams.fields,
      query: ScaCustomerQuery,
      success: TwoFactorResetStatus
    })
  )
  .add(
    HttpApiEndpoint.post("completeFactorReset", "/sca/factors/reset/:resetId/complete", {
      params: ScaFactorResetParams.fields,
      query: ScaCustomerQuery,
      payload: TwoFactorResetCompleteRequest,
      success: HttpApiSchema.NoContent
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Strong Customer Authentication",
      description:
        "SCA for customers of the SCA regions (default the EEA): the factors (SMS, TOTP, passkeys), their resets " +
        "behind a liveness check, and the login that opens the 180-day session money movement requires"
    })
  )

export const CardsGroup = HttpApiGroup.make("cards")
  .add(
    HttpApiEndpoint.post("createCard", "/cards", {
      // CD-01, CD-02: required; a retry carries the same key and gets the same card.
      headers: { "idempotency-key": IdempotencyKeyHeader },
      payload: CardCreateRequest,
      success: Card.pipe(created)
    })
  )
  .add(HttpApiEndpoint.get("listCards", "/cards", { query: ListCardsQuery, success: PageOf(Card) }))
  .add(HttpApiEndpoint.get("getCard", "/cards/:id", { params: { id: CardId }, success: Card }))
  .add(
    HttpApiEndpoint.patch("updateCard", "/cards/:id", {
      params: { id: CardId },
      // the platform credential alone; wallet signature headers are not read.
      payload: CardUpdateRequest,
      success: Card
    })
  )
  .add(
    HttpApiEndpoint.post("revealCard", "/cards/:id/reveal", {
      params: { id: CardId },
      // CD-33: answered once with Cache-Control: no-store, never stored by an Idempotency-Key (app.ts).
      success: CardRevealResponse
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Cards",
      description:
        "Virtual debit cards funded by internal accounts: issue, list, freeze, unfreeze, close, funding sources, " +
        "limits and PAN reveal (501 NOT_IMPLEMENTED where no card issuer is configured)"
    })
  )

export const PaymentsGroup = HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.post("createQuote", "/quotes", {
      payload: CreateQuoteRequest,
      // S-06: a real-time-funded quote of a customer subject to SCA waits for its challenge (202), the rest 201.
      success: [QuoteAwaitingAuthorization.pipe(accepted), Quote.pipe(created)]
    })
  )
  .add(HttpApiEndpoint.get("getQuote", "/quotes/:quoteId", { params: { quoteId: QuoteId }, success: Quote }))
  .add(
    HttpApiEndpoint.post("executeQuote", "/quotes/:quoteId/execute", {
      params: { quoteId: QuoteId },
      // required for a quote from an EMBEDDED_WALLET (the wallet's stamp over the quote's payloadToSign, no
      // Request-Id); ignored for other sources.
      headers: {
        "service-wallet-signature": Schema.optionalKey(
          Schema.String.annotate({
            description:
              "Required when the quote's source is an EMBEDDED_WALLET internal account: the stamp over paymentInstructions[].accountOrWalletInfo.payloadToSign by the key of an active session of a verified credential of that wallet. Ignored for other sources."
          })
        )
      },
      payload: ExecuteQuoteRequest,
      success: Quote
    })
  )
  .add(
    HttpApiEndpoint.post("authorizeQuote", "/quotes/:quoteId/authorize", {
      params: { quoteId: QuoteId },
      payload: ScaAuthorization,
      success: Quote
    })
  )
  .add(
    HttpApiEndpoint.post("resendQuoteScaCode", "/quotes/:quoteId/authorize/resend", {
      params: { quoteId: QuoteId },
      success: HttpApiSchema.NoContent
    })
  )
  .add(
    HttpApiEndpoint.get("listTransactions", "/transactions", {
      query: ListTransactionsQuery,
      success: PageOf(TransactionOneOf)
    })
  )
  .add(
    HttpApiEndpoint.get("getTransaction", "/transactions/:transactionId", {
      params: { transactionId: AnyTransactionId },
      success: TransactionOneOf
    })
  )
  .add(
    HttpApiEndpoint.get("lookupExternalAccount", "/receiver/external-account/:accountId", {
      params: { accountId: ExternalAccountId },
      query: ReceiverLookupQuery,
      success: ExternalAccountLookup
    })
  )
  .add(
    HttpApiEndpoint.get("lookupUma", "/receiver/uma/:receiverUmaAddress", {
      params: { receiverUmaAddress: Schema.String },
      query: ReceiverLookupQuery,
      success: UmaLookup
    })
  )
  .add(
    HttpApiEndpoint.post("transferOut", "/transfer-out", {
      payload: TransferOutRequest,
      success: Transaction.pipe(created)
    }).annotateMerge(
      OpenApi.annotations({ deprecated: true, description: "Superseded by POST /quotes with immediatelyExecute" })
    )
  )
  .add(
    HttpApiEndpoint.post("transferIn", "/transfer-in", {
      payload: TransferInRequest,
      success: Transaction.pipe(created)
    }).annotateMerge(OpenApi.annotations({ deprecated: true, description: "Superseded by POST /quotes" }))
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Payments",
      description: "Quotes, execution and its SCA authorization, transactions, receivers"
    })
  )

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

export const WebhookDelivery = Schema.Struct({
  id: WebhookId,
  type: Schema.String,
  subject: Schema.String,
  sequence: Schema.Int,
  createdAt: Schema.String,
  status: Schema.Literals(["PENDING", "DELIVERED", "DEAD"]),
  attempts: Schema.Array(
    Schema.Struct({
      at: Schema.String,
      url: Schema.String,
      responseStatus: Schema.optionalKey(Schema.Int),
      error: Schema.optionalKey(Schema.String),
      durationMs: Schema.Int
    })
  ),
  nextAttemptAt: Schema.String,
  /** The envelope as signed and sent. */
  event: Schema.Unknown
})

export const ListDeliveriesQuery = Schema.Struct({
  status: Schema.optionalKey(Schema.Literals(["PENDING", "DELIVERED", "DEAD"])),
  subject: Schema.optionalKey(Schema.String),
  type: Schema.optionalKey(Schema.String),
  ...PageQueryFields
})

export const RotateSigningSecretRequest = Schema.Struct({
  /** How long the secrets being replaced keep signing beside the new one (default one day; 0: stop at once). */
  overlapSeconds: Schema.optionalKey(
    Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: MAX_SECRET_OVERLAP_SECONDS })))
  )
})

export const NewSigningSecret = Schema.Struct({
  ...WebhookSecretInfo.fields,
  /** `whsec_…`: shown this once; the HMAC-SHA256 key of the `v1` entries of `webhook-signature`. */
  secret: Schema.String
})

export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("publicKey", "/webhooks/public-key", { success: Schema.Struct({ publicKey: Schema.String }) })
  )
  .add(
    HttpApiEndpoint.get("listDeliveries", "/webhooks/deliveries", {
      query: ListDeliveriesQuery,
      success: PageOf(WebhookDelivery)
    })
  )
  .add(
    HttpApiEndpoint.post("replayDelivery", "/webhooks/deliveries/:webhookId/replay", {
      params: { webhookId: WebhookId },
      success: WebhookDelivery
    })
  )
  .add(
    HttpApiEndpoint.get("listSigningSecrets", "/webhooks/signing-secrets", {
      success: Schema.Struct({ data: Schema.Array(WebhookSecretInfo) })
    })
  )
  .add(
    HttpApiEndpoint.post("rotateSigningSecret", "/webhooks/signing-secrets/rotate", {
      payload: RotateSigningSecretRequest,
      success: NewSigningSecret.pipe(created)
    })
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Webhooks",
      description:
        "The signing public key, the Standard Webhooks signing secrets, and every delivery with its attempts " +
        "(an extension of the spec)"
    })
  )

/** The whole REST surface; served under `/2025-10-13` (the listener's prefix). */
export const Api = HttpApi.make("paycore")
  .add(PlatformGroup)
  .add(CustomersGroup)
  .add(OnboardingGroup)
  .add(AccountsGroup)
  .add(WalletAuthGroup)
  .add(ScaGroup)
  .add(CardsGroup)
  .add(PaymentsGroup)
  .add(SandboxGroup)
  .add(WebhooksGroup)
  .annotateMerge(
    OpenApi.annotations({ title: "paycore", version: API_VERSION, description: "The payments service API" })
  )
