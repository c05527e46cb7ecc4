export { duplicateExternalAccount, externalAccountNotFound, internalAccountNotFound } from "./accounts/errors.ts"
export { fundingInstructionsFor, provisionInternalAccounts } from "./accounts/internal-accounts.ts"
export * from "./accounts/machine.ts"
export * from "./accounts/model.ts"
export { initialExternalStatus, ownershipMessage, ownershipRefusal } from "./accounts/ownership-rules.ts"
export { Accounts, OwnershipVerification } from "./accounts/service.ts"
export { accountIdentity, variantCurrencies, variantRails } from "./accounts/variants.ts"
export { bitcoinMessageDigest, verifyWalletSignature } from "./accounts/wallet-signatures.ts"
export * from "./agents/codes.ts"
export * from "./agents/errors.ts"
export * from "./agents/machine.ts"
export * from "./agents/model.ts"
export * from "./agents/policy.ts"
export { AgentActions, AgentScope, Agents, type AgentsError } from "./agents/service.ts"
export * from "./agents/usage.ts"
export * from "./agents/views.ts"
export * from "./cards/errors.ts"
export * from "./cards/machine.ts"
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
export * from "./cards/views.ts"
export type { CardsWorkerReport } from "./cards/worker.ts"
export {
  customerDeleted,
  platformCustomerIdTaken,
  termsVersionNotFound,
  umaAddressTaken
} from "./customers/errors.ts"
export * from "./customers/model.ts"
export { Customers } from "./customers/service.ts"
export * from "./engine.ts"
export * from "./idempotency/errors.ts"
export * from "./idempotency/model.ts"
export * from "./idempotency/run.ts"
export * from "./idempotency/service.ts"
export * from "./invitations/codes.ts"
export * from "./invitations/errors.ts"
export * from "./invitations/machine.ts"
export * from "./invitations/model.ts"
export { Invitations, type InvitationsError } from "./invitations/service.ts"
export * from "./invitations/views.ts"
export { insufficientFunds, type LedgerError } from "./ledger/errors.ts"
export * from "./ledger/model.ts"
export { type AccountBalance, balanceOf, transfersOf } from "./ledger/reads.ts"
export { Ledger } from "./ledger/service.ts"
export {
  isSystemAccount,
  type Leg,
  record as recordTransfers,
  resolve as resolveTransfers,
  reversed as reversedLegs
} from "./ledger/transfers.ts"
export {
  BULK_IMPORT_ABANDONED_SECONDS,
  BULK_IMPORT_BATCH_ROWS,
  BULK_IMPORT_CONCURRENCY,
  BULK_IMPORT_REPORT_ROWS,
  MAX_BULK_IMPORT_BYTES,
  MAX_BULK_IMPORT_ERRORS
} from "./onboarding/bulk-import.ts"
export {
  CONTACT_CODE_MAX_ATTEMPTS,
  CONTACT_CODE_RESEND_SECONDS,
  CONTACT_CODE_TTL_SECONDS,
  pendingContactVerification
} from "./onboarding/contact-verification.ts"
export * from "./onboarding/customer-csv.ts"
export * from "./onboarding/errors.ts"
export * from "./onboarding/machine.ts"
export * from "./onboarding/model.ts"
export {
  ACCEPTED_DOCUMENT_TYPES,
  businessPacketErrors,
  identityDocumentOf,
  individualPacketErrors,
  NON_US_ENTITY_TYPES,
  type PacketOptions,
  packetErrors,
  UBO_THRESHOLD_PERCENT
} from "./onboarding/packet.ts"
export * from "./onboarding/service.ts"
export { baseFileName, type IncomingFile, type ReceivedFile } from "./onboarding/uploads.ts"
export { DEFAULT_SUPPORTED_CURRENCIES, DEFAULT_UMA_DOMAIN } from "./platform/config.ts"
export { tokenNotFound } from "./platform/errors.ts"
export * from "./platform/model.ts"
export { Discoveries, PlatformConfigService, Tokens } from "./platform/service.ts"
export { CREDENTIAL_CACHE_TTL_MS, type GivenCredentials } from "./platform/tokens.ts"
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
export * from "./ports/stablecoin-provider.ts"
export * from "./ports/stamp-verifier.ts"
export * from "./ports/store.ts"
export * from "./ports/wallet-vault.ts"
export * from "./ports/webhook-transport.ts"
export type { CreateOptions } from "./quotes/create.ts"
export {
  type QuoteError,
  quoteAlreadyExecuted,
  quoteExpired,
  quoteNotExecutable,
  quoteNotFound,
  quoteRequestFailed,
  umaNotFound
} from "./quotes/errors.ts"
export { expirableQuoteStates, isQuoteDueToExpire, quoteExpiresAt } from "./quotes/expiry.ts"
export {
  DEFAULT_RAIL,
  defaultRail,
  fundingInstructions,
  paymentReference,
  REALTIME_FUNDING_CURRENCIES,
  UMA_RAIL
} from "./quotes/funding.ts"
export { type QuoteEvent, type QuoteState, quoteMachine } from "./quotes/machine.ts"
export * from "./quotes/model.ts"
export { type PaymentTerms, QuotePayments } from "./quotes/ports.ts"
export {
  decimalString,
  type FeeSchedule,
  feeScheduleFor,
  minimumSendingAmount,
  minorUnitRate,
  noFees,
  type Pricing,
  type PricingInput,
  parseRate,
  platformFeeFor,
  priceQuote
} from "./quotes/pricing.ts"
export { Quotes, type QuotesError } from "./quotes/service.ts"
export {
  challengesInContext,
  LINKABLE_FACTORS,
  SCA_CHALLENGE_SECONDS,
  SCA_CODE_RESEND_SECONDS,
  smsNumberOf
} from "./sca/challenges.ts"
export * from "./sca/errors.ts"
export * from "./sca/machine.ts"
export * from "./sca/model.ts"
export * from "./sca/passkey-factor.ts"
export { isScaSubject } from "./sca/regions.ts"
export { FACTOR_RESET_SECONDS, FACTOR_RESETS_PER_DAY } from "./sca/resets.ts"
export * from "./sca/security.ts"
export { Sca } from "./sca/service.ts"
export { requireScaSession, SCA_SESSION_SECONDS, subjectCustomer } from "./sca/sessions.ts"
export * from "./sca/totp.ts"
export { isTrustedBeneficiary } from "./sca/trust.ts"
export * from "./shared/constant-time.ts"
export * from "./shared/csv.ts"
export * from "./shared/currency.ts"
export * from "./shared/engine-config.ts"
export * from "./shared/errors.ts"
export * from "./shared/ids.ts"
export { Lru } from "./shared/lru.ts"
export * from "./shared/machine.ts"
export * from "./shared/money.ts"
export * from "./shared/paging.ts"
export * from "./shared/regions.ts"
export * from "./shared/schemas.ts"
export { sparkAddressOf, sparkIdentityKey } from "./shared/spark-address.ts"
export * from "./shared/time.ts"
export * from "./shared/validation.ts"
export * from "./stablecoins/amounts.ts"
export * from "./stablecoins/errors.ts"
export { completionLegs, holdLegs, reserveAccount, supplyAccount } from "./stablecoins/legs.ts"
export * from "./stablecoins/machine.ts"
export * from "./stablecoins/model.ts"
export { providerSecretContext } from "./stablecoins/provider-accounts.ts"
export {
  Stablecoins,
  type StablecoinsError,
  StablecoinsWorker,
  type StablecoinsWorkerReport
} from "./stablecoins/service.ts"
export * from "./stablecoins/views.ts"
export { MAX_PROVIDER_ATTEMPTS, walkTo } from "./stablecoins/worker.ts"
export * from "./timelines/model.ts"
export { recordTransitionSteps, toTimelineEntry } from "./timelines/transitions.ts"
export { SANDBOX_FUND_MAX, transactionNotFound } from "./transactions/errors.ts"
export { quotePaymentsLayer } from "./transactions/execute.ts"
export { paymentLegs, refundReference } from "./transactions/legs.ts"
export { dailyVolumeKey } from "./transactions/limits.ts"
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
export * from "./transactions/model.ts"
export { isOnChainNetwork, sandboxTransactionHash } from "./transactions/on-chain.ts"
export { MAX_REFUND_ATTEMPTS } from "./transactions/refunds.ts"
export { Transactions, type TransactionsError } from "./transactions/service.ts"
export { MAX_POLL_ATTEMPTS, type ProcessDueReport, RETURN_WATCH_SECONDS } from "./transactions/settlement.ts"
export { MAX_SUBMIT_ATTEMPTS, SUBMIT_GRACE_SECONDS } from "./transactions/submission.ts"
export { signWithDelegatedKey, toDelegatedKey } from "./wallet-auth/delegated-keys.ts"
export { WALLET_UNAUTHORIZED_CODES, type WalletAuthError } from "./wallet-auth/errors.ts"
export * from "./wallet-auth/machine.ts"
export * from "./wallet-auth/model.ts"
export { OTP_MAX_ATTEMPTS, OTP_RESEND_SECONDS } from "./wallet-auth/otp.ts"
export { WalletAuth } from "./wallet-auth/service.ts"
export { SIGNED_RETRY_SECONDS, type Signed } from "./wallet-auth/signed-retry.ts"
export {
  backoffSeconds,
  type DispatcherOptions,
  type DispatchSummary,
  isDelivered,
  isRetried,
  RESPONSE_BODY_MAX_BYTES,
  type TestDelivery,
  utf8Prefix
} from "./webhooks/dispatch.ts"
export { emit, emitSteps, newEvent } from "./webhooks/emit.ts"
export * from "./webhooks/errors.ts"
export * from "./webhooks/follow.ts"
export * from "./webhooks/model.ts"
export {
  activeSecrets,
  DEFAULT_SECRET_OVERLAP_SECONDS,
  MAX_SECRET_OVERLAP_SECONDS,
  type NewWebhookSecret
} from "./webhooks/secrets.ts"
export * from "./webhooks/service.ts"
export {
  generateWebhookKeys,
  makeWebhookKeys,
  publicKeyFromPem,
  publicKeyToPem,
  SIGNATURE_HEADER,
  signedHeaders,
  standardSignature,
  verifyStandardWebhook,
  verifyWebhookSignature,
  type WebhookKeys,
  webhookKeysFromHex
} from "./webhooks/signing.ts"
