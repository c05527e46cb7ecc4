export * from "./accounts/machine.ts"
export * from "./accounts/model.ts"
export { Accounts, OwnershipVerification } from "./accounts/service.ts"
export { bitcoinMessageDigest } from "./accounts/wallet-signatures.ts"
export {
  ACCESS_TOKEN_RANDOM_BYTES,
  type AccessTokenParts,
  deviceCodeDigest,
  newAccessToken,
  normalizeDeviceCode,
  redeemMinute
} from "./agents/codes.ts"
export type { RefusalDetails } from "./agents/errors.ts"
export * from "./agents/machine.ts"
export * from "./agents/model.ts"
export type {
  AgentOperation,
  AgentOperationType,
  EvaluateOptions,
  MarketRates,
  PolicyDecision,
  PolicyHold,
  PolicyRefusal,
  PolicyRun,
  Rounding,
  UsageTotals
} from "./agents/policy.ts"
export { AgentActions, AgentScope, Agents, type AgentsError, type AgentsRequirements } from "./agents/service.ts"
export { readUsageSteps, usageKeys } from "./agents/usage.ts"
export * from "./cards/machine.ts"
export { cardAuthorizations } from "./cards/metrics.ts"
export * from "./cards/model.ts"
export {
  CardNetwork,
  type CardNetworkError,
  type CardSimulationError,
  CardSimulations,
  Cards,
  type CardsError,
  CardsWorker
} from "./cards/service.ts"
export { cardTransactionStatus } from "./cards/views.ts"
export type { CardsWorkerReport } from "./cards/worker.ts"
export * from "./customers/model.ts"
export { Customers } from "./customers/service.ts"
export * from "./engine.ts"
export * from "./idempotency/model.ts"
export { type IdempotentRequest, requestFingerprint } from "./idempotency/run.ts"
export * from "./idempotency/service.ts"
export { utcHour, utcMinute } from "./invitations/codes.ts"
export type { UmaAddressProblem } from "./invitations/errors.ts"
export * from "./invitations/machine.ts"
export * from "./invitations/model.ts"
export { Invitations, type InvitationsError } from "./invitations/service.ts"
export type { LedgerError } from "./ledger/errors.ts"
export * from "./ledger/model.ts"
export type { AccountBalance } from "./ledger/reads.ts"
export { Ledger } from "./ledger/service.ts"
export { isSystemAccount, type Leg, reversed as reversedLegs } from "./ledger/transfers.ts"
export { BULK_IMPORT_BATCH_ROWS, BULK_IMPORT_CONCURRENCY, MAX_BULK_IMPORT_ERRORS } from "./onboarding/bulk-import.ts"
export {
  type BulkImportError,
  type CustomerCsvRow,
  checkCustomerCsvHeader,
  customerFromCsv
} from "./onboarding/customer-csv.ts"
export type { OnboardingError } from "./onboarding/errors.ts"
export * from "./onboarding/machine.ts"
export * from "./onboarding/model.ts"
export {
  ACCEPTED_DOCUMENT_TYPES,
  businessPacketErrors,
  identityDocumentOf,
  individualPacketErrors,
  type PacketOptions
} from "./onboarding/packet.ts"
export * from "./onboarding/service.ts"
export type { IncomingFile, ReceivedFile } from "./onboarding/uploads.ts"
export * from "./platform/model.ts"
export { Discoveries, PlatformConfigService, Tokens } from "./platform/service.ts"
export type { GivenCredentials } from "./platform/tokens.ts"
export * from "./ports/beneficiary-verification.ts"
export * from "./ports/bundle-signer.ts"
export * from "./ports/card-funding-sources.ts"
export * from "./ports/card-issuer.ts"
export * from "./ports/card-network-simulator.ts"
export * from "./ports/directory.ts"
export * from "./ports/document-store.ts"
export * from "./ports/fx.ts"
export * from "./ports/ids.ts"
export * from "./ports/key-vault.ts"
export * from "./ports/kyc.ts"
export * from "./ports/liveness.ts"
export * from "./ports/network-fees.ts"
export * from "./ports/notifier.ts"
export * from "./ports/oidc-keys.ts"
export * from "./ports/rail.ts"
export * from "./ports/screening.ts"
export * from "./ports/stablecoin-provider.ts"
export * from "./ports/stamp-verifier.ts"
export * from "./ports/store.ts"
export * from "./ports/wallet-vault.ts"
export * from "./ports/webhook-transport.ts"
export type { CreateOptions } from "./quotes/create.ts"
export type { QuoteError } from "./quotes/errors.ts"
export { expirableQuoteStates } from "./quotes/expiry.ts"
export { type QuoteEvent, type QuoteState, quoteMachine } from "./quotes/machine.ts"
export * from "./quotes/model.ts"
export { type ExecuteError, type ExecuteRequest, type PaymentTerms, QuotePayments } from "./quotes/ports.ts"
export type { FeeSchedule, Pricing, PricingInput } from "./quotes/pricing.ts"
export { Quotes, type QuotesError } from "./quotes/service.ts"
export * from "./sca/machine.ts"
export * from "./sca/model.ts"
export {
  type PasskeyEnrolled,
  type PasskeyOutcome,
  type PasskeyRelyingParty,
  passkeyAssertionOptions,
  passkeyProof
} from "./sca/passkey-factor.ts"
export type { ScaError } from "./sca/ports.ts"
export {
  Sca,
  type ScaCustomerOperation,
  type ScaTrustConfirmOperation,
  type ScaTrustStartOperation
} from "./sca/service.ts"
export { requireScaSession } from "./sca/sessions.ts"
export { isTrustedBeneficiary } from "./sca/trust.ts"
export {
  type CsvHeader,
  type CsvItem,
  type CsvOptions,
  type CsvRecord,
  type CsvRowError,
  csvLine,
  type RawCsvRecord
} from "./shared/csv.ts"
export { Currency, CurrencyCode, type CurrencyKind, currency } from "./shared/currency.ts"
export {
  type CommandEnv,
  defaultEngineSettings,
  EngineConfig,
  type EngineSettings,
  type IncomingApprovalSettings,
  sandboxIncomingApproval,
  type TravelRuleSettings
} from "./shared/engine-config.ts"
export * from "./shared/errors.ts"
export type { EnvelopeSigner } from "./shared/hpke.ts"
export {
  AgentActionId,
  AgentDeviceCodeId,
  AgentId,
  AuthMethodId,
  BeneficialOwnerId,
  CardFundingSourceId,
  CardId,
  CardNetworkEventId,
  CardRevealId,
  CardTransactionId,
  CustomerId,
  DelegatedKeyId,
  DocumentId,
  ExternalAccountId,
  type IdOf,
  type IdType,
  InternalAccountId,
  InvitationId,
  idTypes,
  JobId,
  LookupId,
  makeUuidV7,
  QuoteId,
  RequestId,
  ScaChallengeId,
  ScaFactorId,
  ScaFactorResetId,
  ScaSessionId,
  SessionId,
  StablecoinId,
  StablecoinOperationId,
  StablecoinProviderAccountId,
  TokenId,
  TransactionId,
  TransitionId,
  VerificationId,
  WebhookId,
  WebhookSecretId
} from "./shared/ids.ts"
export { Lru } from "./shared/lru.ts"
export * from "./shared/machine.ts"
export * from "./shared/money.ts"
export {
  type DueCursor,
  type DuePage,
  decodeCursor,
  encodeCursor,
  type Page,
  PageOf,
  PageQueryFields,
  type PageRequest,
  pageRequest,
  SortOrder,
  toPage
} from "./shared/paging.ts"
export * from "./shared/regions.ts"
export {
  Address,
  BooleanQueryParam,
  CountryCode,
  DateString,
  DateTimeString,
  Email,
  IdentificationType,
  NonEmptyString,
  PhoneNumber,
  UmaAddress
} from "./shared/schemas.ts"
export { sparkAddressOf } from "./shared/spark-address.ts"
export {
  CommittedUpdates,
  observeTransactions,
  type PendingUpdate,
  secondsBoundaries,
  type TransactionObserver,
  type TransactionRunner,
  timedPass,
  updateOnCommit,
  workerPassSeconds
} from "./shared/telemetry.ts"
export { isoAfter, isoOf, nowIso, utcDay } from "./shared/time.ts"
export type { Steps } from "./shared/tracing.ts"
export {
  collectTextErrors,
  decodeAll,
  decodeAllOptions,
  decodeBodyOptions,
  fieldErrorsFromIssue,
  invalidInput,
  issueFromCause,
  type TextFault,
  textFault,
  textFieldError
} from "./shared/validation.ts"
export type { ParsedAmount } from "./stablecoins/amounts.ts"
export { reserveAccount, supplyAccount } from "./stablecoins/legs.ts"
export * from "./stablecoins/machine.ts"
export * from "./stablecoins/model.ts"
export {
  Stablecoins,
  type StablecoinsError,
  StablecoinsWorker,
  type StablecoinsWorkerReport
} from "./stablecoins/service.ts"
export * from "./timelines/model.ts"
export {
  type IncomingEvent,
  type IncomingState,
  incomingPaymentMachine,
  incomingStatus,
  type OutgoingEvent,
  type OutgoingState,
  outgoingPaymentMachine,
  outgoingStatus
} from "./transactions/machine.ts"
export { paymentTransitions } from "./transactions/metrics.ts"
export * from "./transactions/model.ts"
export { isOnChainNetwork, sandboxTransactionHash } from "./transactions/on-chain.ts"
export { MAX_REFUND_ATTEMPTS } from "./transactions/refunds.ts"
export { type TransactionById, Transactions, type TransactionsError } from "./transactions/service.ts"
export { MAX_POLL_ATTEMPTS, type ProcessDueReport, RETURN_WATCH_SECONDS } from "./transactions/settlement.ts"
export { MAX_SUBMIT_ATTEMPTS, SUBMIT_GRACE_SECONDS } from "./transactions/submission.ts"
export { signWithDelegatedKey } from "./wallet-auth/delegated-keys.ts"
export { WALLET_UNAUTHORIZED_CODES, type WalletAuthError } from "./wallet-auth/errors.ts"
export * from "./wallet-auth/machine.ts"
export * from "./wallet-auth/model.ts"
export { WalletAuth } from "./wallet-auth/service.ts"
export type { Signed } from "./wallet-auth/signed-retry.ts"
export { type DispatcherOptions, type DispatchSummary, isRetried, type TestDelivery } from "./webhooks/dispatch.ts"
export { emit } from "./webhooks/emit.ts"
export type { FollowOptions } from "./webhooks/follow.ts"
export { outboxLagSeconds, webhookAttemptSeconds, webhookAttempts } from "./webhooks/metrics.ts"
export * from "./webhooks/model.ts"
export { MAX_SECRET_OVERLAP_SECONDS, type NewWebhookSecret } from "./webhooks/secrets.ts"
export {
  makeWebhookDispatcher,
  WebhookDispatcher,
  type WebhookDispatcherService,
  WebhookSecrets,
  type WebhookSecretsService,
  WebhookSigner
} from "./webhooks/service.ts"
export { verifyStandardWebhook, verifyWebhookSignature, type WebhookKeys } from "./webhooks/signing.ts"
