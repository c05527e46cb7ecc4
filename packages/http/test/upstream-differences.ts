/**
 * The deliberate differences between our responses and the upstream OpenAPI document
 * (`test/upstream/openapi.yaml`): each is a place where the spec (the payments API specification this project implements) names
 * or shapes something otherwise, or says what the upstream leaves out, and the spec wins. Every response the HTTP
 * tests see is checked against the upstream (`conformance.ts`); a difference not listed here fails the test that saw
 * it. Each entry is exercised by `conformance.http.test.ts`, which fails when an entry no longer happens (remove it).
 *
 * Not listed because they are ours alone (counted as extensions, not checked): `/webhooks/public-key`,
 * `/webhooks/deliveries`, `/webhooks/deliveries/{webhookId}/replay`, `/webhooks/stream`, `/request-log`, the
 * timelines of issue 18 (`/transactions/{transactionId}/timeline`, `/agents/me/transactions/{transactionId}/timeline`)
 * and account postings (`/customers/internal-accounts/{accountId}/postings`,
 * `/platform/internal-accounts/{accountId}/postings`), and unknown paths. `GET /tokens/me` is ours too, but the
 * upstream's `/tokens/{tokenId}` matches its path: its answer, the same Token, is checked as that operation's.
 */

import { CryptoNetwork } from "@paycore/core"

export interface Difference {
  readonly id: string
  /**
   * `METHOD /upstream/template` of each operation it concerns, `WEBHOOK <component schema>` for a webhook's body
   * (`checkSchema`, status 200), or `*` for every operation.
   */
  readonly operations: "*" | ReadonlyArray<string>
  readonly statuses: ReadonlyArray<number>
  /**
   * Where: `status` (the upstream lists no such status for the operation; the error body is still checked against
   * the upstream's `Error<status>`), or JSON pointers into the body, array indices written `*`.
   */
  readonly at: ReadonlyArray<"status" | `/${string}`>
  /** The values of ours allowed there (for `status`: the error `code`s); without it, any value. */
  readonly values?: ReadonlyArray<string>
  /** Our value → the upstream's name for the same thing; the body is checked with the upstream's name in its place. */
  readonly renames?: Readonly<Record<string, string>>
  /** Our property name → the upstream's, for the objects at `at`; checked with the upstream's names. */
  readonly renamedKeys?: Readonly<Record<string, string>>
  /** Why ours differs, citing the spec. */
  readonly why: string
}

/** An operation the spec names at another path than the upstream: its responses are checked as the upstream's. */
export interface OperationAlias {
  readonly id: string
  /** `METHOD /our/template` */
  readonly ours: string
  /** `METHOD /upstream/template` */
  readonly upstream: string
  readonly why: string
}

/** Our rails the upstream's bank-rail enum has not: internal transfers and the crypto networks. */
const NON_BANK_RAILS = ["INTERNAL", ...CryptoNetwork.literals]
const QUOTE_OPERATIONS = [
  "POST /quotes",
  "GET /quotes/{quoteId}",
  "POST /quotes/{quoteId}/execute",
  "POST /quotes/{quoteId}/authorize",
  // An agent's quote is the platform's quote (AG-31, AG-32).
  "POST /agents/me/quotes",
  "GET /agents/me/quotes/{quoteId}"
]
/** The agent operations whose answer is an AgentAction (its `quote` is a Quote), or a page of them. */
const AGENT_ACTION_OPERATIONS = [
  "POST /agents/me/quotes/{quoteId}/execute",
  "POST /agents/{agentId}/actions/{actionId}/approve",
  "POST /agents/{agentId}/actions/{actionId}/reject",
  "GET /agents/approvals",
  "GET /agents/me/actions",
  "GET /agents/me/actions/{actionId}"
]

const stablecoinServiceInternalWhy =
  "An internal account as a mint's funding or a burn's source is SERVICE_INTERNAL_ACCOUNT: names carrying the " +
  "upstream's vendor brand take the spec's substitution Service (FEATURES naming rule), so the branded name is not " +
  "read (answered 400 with the accepted values)."

/** Every stablecoin operation (P-08 … P-18). */
const STABLECOIN_OPERATIONS = [
  "POST /stablecoin-provider-accounts",
  "GET /stablecoin-provider-accounts",
  "GET /stablecoin-provider-accounts/{stablecoinProviderAccountId}",
  "POST /stablecoins",
  "GET /stablecoins",
  "GET /stablecoins/{stablecoinId}",
  "POST /stablecoins/{stablecoinId}/mints",
  "POST /stablecoins/{stablecoinId}/burns",
  "GET /stablecoins/{stablecoinId}/operations",
  "GET /stablecoin-operations/{stablecoinOperationId}"
]

export const differences: ReadonlyArray<Difference> = [
  // ---- names and shapes ----
  {
    id: "funding-instructions-account-type",
    operations: [
      "GET /customers/internal-accounts",
      "GET /agents/me/internal-accounts",
      "GET /platform/internal-accounts",
      "POST /sandbox/internal-accounts/{accountId}/fund",
      // The account in INTERNAL_ACCOUNT.* events (WH-22).
      "WEBHOOK InternalAccountStatusWebhook",
      ...QUOTE_OPERATIONS
    ],
    statuses: [200, 201],
    at: [
      "/data/*/fundingPaymentInstructions/*/accountOrWalletInfo/accountType",
      "/data/fundingPaymentInstructions/*/accountOrWalletInfo/accountType",
      "/fundingPaymentInstructions/*/accountOrWalletInfo/accountType",
      "/paymentInstructions/*/accountOrWalletInfo/accountType",
      "/quote/paymentInstructions/*/accountOrWalletInfo/accountType",
      "/data/*/quote/paymentInstructions/*/accountOrWalletInfo/accountType"
    ],
    renames: { US_ACCOUNT: "USD_ACCOUNT", CLABE: "MXN_ACCOUNT", IBAN: "EUR_ACCOUNT" },
    why:
      "Funding instructions name a US bank account US_ACCOUNT (Resources › Internal account: accountOrWalletInfo " +
      "shapes seen), where the upstream says USD_ACCOUNT; the Mexican account is CLABE (Resources › External " +
      "account). Every other currency's deposit account has the upstream's name (FEATURES, Names where the spec is " +
      "silent); euro instructions stored before they were named EUR_ACCOUNT still answer IBAN. Checked as the " +
      "upstream's USD_ACCOUNT, MXN_ACCOUNT and EUR_ACCOUNT variants."
  },
  {
    id: "external-account-type-as-created",
    operations: [
      "POST /customers/external-accounts",
      "GET /customers/external-accounts",
      "GET /customers/external-accounts/{externalAccountId}",
      "POST /agents/me/external-accounts",
      "GET /agents/me/external-accounts",
      "GET /agents/me/external-accounts/{externalAccountId}",
      "POST /platform/external-accounts",
      "GET /platform/external-accounts",
      "GET /platform/external-accounts/{externalAccountId}",
      "POST /platform/external-accounts/{externalAccountId}/verify"
    ],
    statuses: [200, 201],
    at: ["/accountInfo/accountType", "/data/*/accountInfo/accountType"],
    renames: { US_ACCOUNT: "USD_ACCOUNT", CLABE: "MXN_ACCOUNT", IBAN: "EUR_ACCOUNT", PIX: "BRL_ACCOUNT" },
    why:
      "An external account answers the accountType it was created with. The spec's names are CLABE (Resources › " +
      "External account) and US_ACCOUNT (Resources › Internal account), IBAN and PIX by the same rule; an account " +
      "created with the upstream's USD_ACCOUNT, MXN_ACCOUNT, EUR_ACCOUNT or BRL_ACCOUNT answers that name. " +
      "Checked as the upstream's variant of the same name."
  },
  {
    id: "rails-beyond-bank-rails",
    operations: [
      "GET /exchange-rates",
      "GET /transactions",
      "GET /transactions/{transactionId}",
      "POST /transfer-out",
      "GET /agents/me/transactions",
      "GET /agents/me/transactions/{transactionId}",
      ...AGENT_ACTION_OPERATIONS,
      ...QUOTE_OPERATIONS
    ],
    statuses: [200, 201, 202],
    at: [
      "/data/*/destinationPaymentRail",
      "/data/*/paymentRail",
      "/paymentRail",
      "/destination/paymentRail",
      "/quote/destination/paymentRail",
      "/data/*/quote/destination/paymentRail",
      "/transaction/paymentRail",
      "/data/*/transaction/paymentRail"
    ],
    values: NON_BANK_RAILS,
    why:
      "The spec counts internal transfers, Lightning and the crypto networks among the rails a payment settles " +
      "on, each with its own timing (Limits: instant for internal transfers, Lightning/Spark, crypto on Solana, " +
      "Base, Polygon, Plasma, Tron; Ethereum 15 minutes; Bitcoin L1). The upstream's PaymentRail lists bank rails " +
      "only (and answers null for such transfers)."
  },
  {
    id: "rate-details-service-names",
    operations: [...QUOTE_OPERATIONS, ...AGENT_ACTION_OPERATIONS],
    statuses: [200, 201, 202],
    at: ["/rateDetails", "/quote/rateDetails", "/data/*/quote/rateDetails"],
    renamedKeys: {
      serviceApiMultiplier: "gridApiMultiplier",
      serviceApiFixedFee: "gridApiFixedFee",
      serviceApiVariableFeeRate: "gridApiVariableFeeRate",
      serviceApiVariableFeeAmount: "gridApiVariableFeeAmount"
    },
    why:
      "Names carrying the upstream's vendor brand take the spec's substitution Service (Authentication: " +
      "Service-Wallet-Signature; Errors: SERVICE_SWITCH_ERROR). Checked under the upstream's names."
  },
  {
    id: "kyc-provider-named-by-port",
    operations: ["POST /customers/{customerId}/kyc-link"],
    statuses: [201],
    at: ["/provider"],
    values: ["SANDBOX"],
    why:
      "The upstream's provider enum is its vendor (SUMSUB). The spec returns a provider without naming values " +
      "(Endpoints › Customers and onboarding: kyc-link); ours is the KYC port's own name, SANDBOX here."
  },
  {
    id: "wallet-operation-processing",
    operations: ["POST /internal-accounts/{id}/export"],
    statuses: [200],
    at: ["/id", "/encryptedWalletCredentials"],
    why:
      "A signed retry may answer 200 {status: PROCESSING, message} while the operation settles, and for export a " +
      "200 is also the success, told apart by the body's status (Authentication › Signed-retry pattern, 4; " +
      "Resources: WalletOperationProcessing). The upstream documents only the credentials under 200, so the " +
      "PROCESSING body lacks their id and encryptedWalletCredentials."
  },

  // ---- error codes outside the upstream's catalogue for the operation ----
  {
    id: "idempotency-key-reused",
    operations: "*",
    statuses: [409],
    at: ["status", "/code"],
    values: ["IDEMPOTENCY_KEY_REUSED"],
    why:
      "A request reusing an Idempotency-Key with another body is a conflict. The spec requires the key on kyc-link " +
      "and card issue ('retries carry the same key', Endpoints › Customers and onboarding, Cards) and names no " +
      "code; neither does the upstream."
  },
  {
    id: "quote-state-conflicts",
    operations: ["POST /quotes/{quoteId}/execute", "POST /sandbox/send", "POST /agents/me/quotes/{quoteId}/execute"],
    statuses: [409],
    at: ["status", "/code"],
    values: ["QUOTE_ALREADY_EXECUTED", "QUOTE_EXPIRED", "QUOTE_NOT_EXECUTABLE"],
    why:
      "Only a PENDING quote before expiresAt executes (States and transitions › Quote status, Payment transaction: " +
      "'Once executed, a quote cannot be cancelled'); the code says which state refused it. Neither document names one."
  },
  {
    id: "insufficient-funds-code",
    operations: [
      "POST /quotes",
      "POST /quotes/{quoteId}/execute",
      "POST /transfer-out",
      "POST /agents/me/quotes/{quoteId}/execute",
      "POST /agents/me/transfer-out",
      // A mint or burn holds the money it moves as every payment does (design section 5, Q16).
      "POST /stablecoins/{stablecoinId}/mints",
      "POST /stablecoins/{stablecoinId}/burns"
    ],
    statuses: [400],
    at: ["/code"],
    values: ["INSUFFICIENT_FUNDS"],
    why:
      "A payment larger than the available balance is refused 400 INSUFFICIENT_FUNDS; the spec's 400 codes (Errors) " +
      "and the upstream's have none for it."
  },

  // ---- statuses the upstream does not list for the operation ----
  {
    id: "forbidden-by-token-scope",
    operations: "*",
    statuses: [403],
    at: ["status"],
    values: ["FORBIDDEN"],
    why:
      "Tokens are scoped to production or sandbox, and VIEW alone cannot write (Authentication 1 and 2: 'VIEW " +
      "alone is not sufficient'): every write answers 403 to a VIEW token, every sandbox helper to a production one."
  },
  {
    id: "invalid-input-everywhere",
    operations: "*",
    statuses: [400],
    at: ["status"],
    values: ["INVALID_INPUT"],
    why:
      "Every endpoint validates what it reads and answers 400 INVALID_INPUT listing all invalid fields (Errors: " +
      "validation errors in details.errors[]), ids not of the form <TypeName>:<uuid> (Conventions) and bad query " +
      "filters included, also where the upstream lists no 400."
  },
  {
    id: "customer-deleted",
    operations: "*",
    statuses: [410],
    at: ["status"],
    values: ["CUSTOMER_DELETED"],
    why:
      "A request for a deleted customer answers 410 CUSTOMER_DELETED, the upstream's own answer on DELETE " +
      "/customers/{customerId}, on every endpoint that names the customer; the spec does not show deletion's result " +
      "(Endpoints › Customers and onboarding)."
  },
  {
    id: "unsupported-media-type",
    operations: "*",
    statuses: [415],
    at: ["status"],
    values: ["UNSUPPORTED_MEDIA_TYPE"],
    why:
      "Bodies are JSON unless the endpoint says multipart/form-data (Conventions); a body of another media type is " +
      "refused 415. The upstream lists no 415 and has no Error415."
  },
  {
    id: "document-rejected",
    operations: ["POST /documents", "PUT /documents/{documentId}"],
    statuses: [422],
    at: ["status"],
    values: ["DOCUMENT_REJECTED"],
    why:
      "The spec answers a file failing screening 422 DOCUMENT_REJECTED (Endpoints › Verification, beneficial " +
      "owners, documents; Errors: 422); the upstream lists no 422 there."
  },
  {
    id: "contact-code-rate-limit",
    operations: ["POST /customers/{customerId}/verify-email", "POST /customers/{customerId}/verify-phone"],
    statuses: [429],
    at: ["status"],
    values: ["RATE_LIMITED"],
    why:
      "Re-sending a one-time code is rate limited with 429 and Retry-After (Errors: 429, challenge re-issue rate " +
      "limit); the upstream lists no 429 on these."
  },
  {
    id: "sca-login-code-rate-limit",
    operations: ["POST /sca/login/start"],
    statuses: [429],
    at: ["status"],
    values: ["RATE_LIMITED"],
    why:
      "A second SCA login code within 60 s is refused 429 RATE_LIMITED with Retry-After (Errors: 429, challenge " +
      "re-issue rate limit; FEATURES L-14); the upstream lists no 429 on the login start."
  },
  {
    id: "sca-login-start-locked",
    operations: ["POST /sca/login/start"],
    statuses: [423],
    at: ["status"],
    values: ["ACCOUNT_LOCKED"],
    why:
      "A customer locked after too many failed SCA proofs gets 423 ACCOUNT_LOCKED on the login start too (Errors: " +
      "423; FEATURES C-41), so a locked customer is sent no new code; the upstream lists 423 on the complete call " +
      "only."
  },
  {
    id: "sca-factor-enrolment-locked",
    operations: ["POST /sca/factors", "POST /sca/factors/confirm"],
    statuses: [423],
    at: ["status"],
    values: ["ACCOUNT_LOCKED"],
    why:
      "A customer locked after too many failed SCA proofs gets 423 ACCOUNT_LOCKED when it starts or confirms a " +
      "factor enrolment (Errors: 423; FEATURES C-41): the confirm takes a proof, and a locked customer may not " +
      "swap its factors; the upstream lists 423 on the login complete only."
  },
  {
    id: "sca-trust-rate-limits",
    operations: [
      "POST /customers/external-accounts/{externalAccountId}/trust",
      "POST /customers/external-accounts/{externalAccountId}/untrust",
      "POST /customers/external-accounts/{externalAccountId}/trust/confirm",
      "POST /customers/external-accounts/{externalAccountId}/untrust/confirm"
    ],
    statuses: [429],
    at: ["status"],
    values: ["RATE_LIMITED"],
    why:
      "A second trust or untrust code within 60 s, and a proof within 1 s of a failed one, are refused 429 " +
      "RATE_LIMITED with Retry-After (Errors: 429, challenge re-issue rate limit; FEATURES L-14), as on the SCA " +
      "login; the upstream lists no 429 on the trust routes."
  },
  {
    id: "sca-trust-locked",
    operations: [
      "POST /customers/external-accounts/{externalAccountId}/trust",
      "POST /customers/external-accounts/{externalAccountId}/untrust",
      "POST /customers/external-accounts/{externalAccountId}/trust/confirm",
      "POST /customers/external-accounts/{externalAccountId}/untrust/confirm"
    ],
    statuses: [423],
    at: ["status"],
    values: ["ACCOUNT_LOCKED"],
    why:
      "A customer locked after too many failed SCA proofs gets 423 ACCOUNT_LOCKED on the trust routes (Errors: " +
      "423; FEATURES C-41): the confirms take a proof, and a locked customer is sent no new code; the upstream " +
      "lists 423 on the SCA login complete only."
  },
  {
    id: "sca-session-required-to-pay",
    operations: ["POST /quotes", "POST /transfer-out"],
    statuses: [409],
    at: ["status"],
    values: ["SCA_SESSION_REQUIRED"],
    why:
      "A customer subject to SCA needs a live SCA session for every payment it starts (FEATURES S-09, C-38; the " +
      "spec: money movement is refused after sessionExpiresAt): a quote executed at once or funded by payment " +
      "instructions is challenged at creation (S-06), so POST /quotes and transfer-out answer 409 " +
      "SCA_SESSION_REQUIRED too; the upstream lists it on execute and authorize only."
  },
  {
    id: "sca-locked-to-pay",
    operations: [
      "POST /quotes",
      "POST /quotes/{quoteId}/execute",
      "POST /quotes/{quoteId}/authorize/resend",
      "POST /transfer-out"
    ],
    statuses: [423],
    at: ["status"],
    values: ["ACCOUNT_LOCKED"],
    why:
      "A customer locked after too many failed SCA proofs gets 423 ACCOUNT_LOCKED when it starts a payment that " +
      "would issue a challenge or asks for a new code (Errors: 423; FEATURES C-41), so a locked customer is sent no " +
      "new code; the upstream lists 423 on authorize only."
  },
  {
    id: "contact-code-needs-the-contact",
    operations: ["POST /customers/{customerId}/verify-email", "POST /customers/{customerId}/verify-phone"],
    statuses: [400],
    at: ["status"],
    values: ["MISSING_MANDATORY_USER_INFO"],
    why:
      "A customer without a phone number (email) cannot be sent a code (Endpoints › Customers and onboarding: " +
      "verify-phone sends an SMS code); the code is the upstream's own, which lists no 400 on these."
  },
  {
    id: "verification-waits-for-contact-verification",
    operations: ["POST /verifications"],
    statuses: [409],
    at: ["status"],
    values: ["CONFLICT"],
    why:
      "Email and phone must be VERIFIED before the customer can begin KYC (States and transitions › Other stateful " +
      "resources); a review asked for earlier is a 409 with the upstream's generic CONFLICT, which lists no 409 here."
  },
  {
    id: "kyc-provider-unavailable",
    operations: ["POST /customers/{customerId}/kyc-link", "POST /verifications"],
    statuses: [503],
    at: ["status"],
    values: ["SERVICE_UNAVAILABLE"],
    why:
      "A hosted link and a review ask the KYC provider; when it cannot be reached (a retryable KycProviderError: the " +
      "sandbox's suffix 004) nothing changes and the answer is 503 SERVICE_UNAVAILABLE, which the upstream lists " +
      "for neither, as for a stablecoin provider that cannot be reached."
  },
  {
    id: "reference-in-body-not-found",
    operations: ["POST /quotes", "POST /customers/external-accounts"],
    statuses: [404],
    at: ["status"],
    values: ["USER_NOT_FOUND", "UMA_NOT_FOUND", "LOOKUP_REQUEST_NOT_FOUND", "REFERENCE_NOT_FOUND"],
    why:
      "An id or UMA address in the body that names nothing is 404 as in a path: USER_NOT_FOUND for a customer, " +
      "UMA_NOT_FOUND for a well-formed UMA address without a receiver (Errors: 404), LOOKUP_REQUEST_NOT_FOUND for " +
      "a lookupId unknown or expired (C-23), REFERENCE_NOT_FOUND for an account (C-26)."
  },
  {
    id: "platform-payment-has-no-customer",
    operations: ["GET /transactions/{transactionId}", "GET /transactions"],
    statuses: [200],
    at: ["/customerId", "/platformCustomerId", "/data/*/customerId", "/data/*/platformCustomerId"],
    why:
      "A payment from one of the platform's own accounts (GET /platform/internal-accounts; FEATURES AC-01: an " +
      "empty customerId is platform-owned) has no customer, so it carries neither customerId nor " +
      "platformCustomerId; the upstream requires both on every transaction."
  },
  // ---- card transactions (issue 15, slice C) ----
  {
    id: "card-transaction-declined-status",
    operations: ["GET /transactions", "GET /transactions/{transactionId}"],
    statuses: [200],
    at: ["/data/*/status", "/status"],
    values: ["DECLINED"],
    why:
      "A card transaction whose authorization was refused, or whose funding pull failed after the network settled, " +
      "is DECLINED (CD-37, V-04: EXCEPTION renamed DECLINED, no alias; States › Card transaction); the upstream " +
      "still lists EXCEPTION and REFUNDED (V-05: removed) and has no DECLINED."
  },

  // ---- cards (issue 15, slice A) ----
  {
    id: "card-funding-source-ineligible",
    operations: ["POST /cards", "PATCH /cards/{id}"],
    statuses: [400],
    at: ["/code"],
    values: ["FUNDING_SOURCE_INELIGIBLE"],
    why:
      "A funding source that is not the cardholder's, not in one card-eligible currency, or refused by the issuer is " +
      "400 FUNDING_SOURCE_INELIGIBLE (FEATURES CD-15, CD-44; Cards, update rule 1). The upstream's descriptions of " +
      "both operations name that code, but its Error400 code enum leaves it out."
  },
  {
    id: "card-limit-reached",
    operations: ["POST /cards"],
    statuses: [400],
    at: ["/code"],
    values: ["CARD_LIMIT_REACHED"],
    why:
      "A platform at its live-card limit cannot issue another card: 400 CARD_LIMIT_REACHED (Cards, issue rule 5; " +
      "Errors; Limits: live cards; FEATURES CD-14, C-45). The upstream has no live-card limit and no such code."
  },
  {
    id: "card-cardholder-not-found",
    operations: ["POST /cards"],
    statuses: [404],
    at: ["status"],
    values: ["USER_NOT_FOUND"],
    why:
      "A cardholderId that names no customer is 404 USER_NOT_FOUND, as every customer id in a body is (Errors: " +
      "404); the upstream lists no 404 on POST /cards."
  },
  {
    id: "card-platform-card-id-taken",
    operations: ["POST /cards"],
    statuses: [409],
    at: ["status"],
    values: ["CONFLICT"],
    why:
      "platformCardId mirrors platformCustomerId (upstream Card): one card per value, so reusing it is 409 CONFLICT " +
      "as a taken platformCustomerId is (docs/design/cards.md Q21); the upstream lists no 409 on POST /cards."
  },
  {
    id: "card-reveal-conflicts",
    operations: ["POST /cards/{id}/reveal"],
    statuses: [409],
    at: ["status"],
    values: ["CONFLICT", "SCA_SESSION_REQUIRED"],
    why:
      "Reveal and 3DS password retrieval are SCA-protected (Authentication 5): a cardholder subject to SCA needs a " +
      "live session, else 409 SCA_SESSION_REQUIRED as for payments (S-09); and only a card with details that is not " +
      "closed (ACTIVE or FROZEN) can be revealed, else 409 CONFLICT (docs/design/cards.md Q20). The upstream lists " +
      "no 409 on reveal."
  },
  {
    id: "payment-refusals-403",
    operations: [
      "GET /receiver/uma/{receiverUmaAddress}",
      "POST /quotes",
      "POST /quotes/{quoteId}/execute",
      "POST /sandbox/uma/receive"
    ],
    statuses: [403],
    at: ["status"],
    values: ["COUNTERPARTY_NOT_ALLOWED", "USER_NOT_READY", "VELOCITY_LIMIT_EXCEEDED"],
    why:
      "The catalogue's 403 codes (Errors: 403 FORBIDDEN, USER_NOT_READY, COUNTERPARTY_NOT_ALLOWED, " +
      "VELOCITY_LIMIT_EXCEEDED) are answered where they arise: a receiver at a provider off the allow list, a " +
      "customer whose KYC was rejected or is on hold, a payment screening refuses (C-49). The upstream lists no 403 " +
      "on these operations."
  },
  // ---- agents (issue 16) ----
  {
    id: "agent-foreign-id-not-found",
    operations: ["POST /agents/me/quotes", "POST /agents/me/external-accounts"],
    statuses: [404],
    at: ["status"],
    values: ["USER_NOT_FOUND", "REFERENCE_NOT_FOUND"],
    why:
      "Agent endpoints answer 404, not 403, for resources of another customer (Errors; C-48), in the body too: an " +
      "account of another customer in a quote, or another customerId, is the 404 an unknown one gets " +
      "(docs/design/agents.md Q1; AG-31's 403 is for the customer's own account outside allowedAccountIds). The " +
      "upstream lists no 404 on these."
  },
  {
    id: "agent-beneficiary-trusted",
    operations: ["DELETE /agents/me/external-accounts/{externalAccountId}"],
    statuses: [409],
    at: ["status"],
    values: ["BENEFICIARY_TRUSTED"],
    why:
      "An agent's delete is the platform's (AG-29): a trusted beneficiary is not deleted until it is untrusted, " +
      "409 BENEFICIARY_TRUSTED (AC-22, AC-23); the upstream lists no 409 on the agent's delete."
  },
  {
    id: "agent-customer-not-found",
    operations: ["POST /agents"],
    statuses: [404],
    at: ["status"],
    values: ["USER_NOT_FOUND"],
    why:
      "A customerId that names no customer is 404 USER_NOT_FOUND, as every customer id in a body is (Errors: 404; " +
      "docs/design/agents.md section 1, row 1); the upstream lists no 404 on POST /agents."
  },
  {
    id: "agent-redeem-rate-limited",
    operations: ["POST /agents/device-codes/{code}/redeem"],
    statuses: [429],
    at: ["status"],
    values: ["RATE_LIMITED"],
    why:
      "The redeem route is public, so unknown codes are budgeted platform-wide per minute; past the budget every " +
      "redemption is 429 RATE_LIMITED with Retry-After until the next minute (RFC 8628 section 5.1 in spirit; " +
      "docs/design/agents.md section 2 Numbers, Q13). The upstream lists no 429 on redeem."
  },
  {
    id: "invitation-rate-limited",
    operations: [
      "POST /invitations",
      "GET /invitations/{invitationCode}",
      "POST /invitations/{invitationCode}/claim",
      "POST /invitations/{invitationCode}/cancel"
    ],
    statuses: [429],
    at: ["status"],
    values: ["RATE_LIMITED"],
    why:
      "The spec names a rate limit among the invitation errors (Errors, invitation; FEATURES IN-11): an inviter's " +
      "creates per hour, and unknown codes per minute platform-wide (8-hex codes must not be guessed at speed), each " +
      "429 RATE_LIMITED with Retry-After (docs/design/invitations-stablecoins.md Q3). The upstream lists no 429 here."
  },
  {
    id: "invitation-expired-code",
    operations: ["POST /invitations/{invitationCode}/claim", "POST /invitations/{invitationCode}/cancel"],
    statuses: [400],
    at: ["/code"],
    values: ["INVITATION_EXPIRED"],
    why:
      "The spec's invitation errors name invitation_expired with details.expirationTime (Errors, invitation; FEATURES " +
      "IN-09), uppercase as every code here (IN-12); the upstream's Error400 enum has no expiry code."
  },
  // ---- stablecoins (issue 17 slice B; docs/stablecoins.md) ----
  {
    id: "stablecoin-service-operations-status",
    operations: STABLECOIN_OPERATIONS,
    statuses: [200, 201],
    at: ["/gridOperationsStatus", "/data/*/gridOperationsStatus"],
    why:
      "A stablecoin's enablement is serviceOperationsStatus: names carrying the upstream's vendor brand take the " +
      "spec's substitution Service (FEATURES naming rule); the upstream's required gridOperationsStatus is absent."
  },
  {
    id: "stablecoin-service-internal-account",
    operations: STABLECOIN_OPERATIONS,
    statuses: [200, 201],
    at: ["/source/type", "/data/*/source/type"],
    renames: { SERVICE_INTERNAL_ACCOUNT: "GRID_INTERNAL_ACCOUNT" },
    why:
      "An operation funded by (or burning from) an internal account names its source SERVICE_INTERNAL_ACCOUNT, the " +
      "upstream's GRID_INTERNAL_ACCOUNT under the spec's substitution Service. Checked as the upstream's variant."
  },
  {
    id: "stablecoin-provider-unavailable",
    operations: ["POST /stablecoin-provider-accounts", "POST /stablecoins"],
    statuses: [503],
    at: ["status"],
    values: ["SERVICE_UNAVAILABLE"],
    why:
      "Linking and registering ask the provider first (verify, token) and store nothing when it cannot be reached: " +
      "503 SERVICE_UNAVAILABLE, as the upstream answers on mint and burn (P-15)."
  },
  {
    id: "stablecoins-not-implemented",
    operations: STABLECOIN_OPERATIONS,
    statuses: [501],
    at: ["status"],
    values: ["NOT_IMPLEMENTED"],
    why:
      "Where no stablecoin provider is configured every stablecoin route answers 501 NOT_IMPLEMENTED (upstream " +
      "Error501), as the card routes do without an issuer (CD-42)."
  }
]

export const operationAliases: ReadonlyArray<OperationAlias> = [
  {
    id: "internal-account-path",
    ours: "GET /internal-account",
    upstream: "GET /customers/internal-accounts",
    why:
      "The spec lists internal accounts at GET /internal-account, with the same list under " +
      "/customers/internal-accounts (Endpoints › Internal and external accounts); the upstream has the latter only."
  }
]

/**
 * Upstream request values we refuse (400) at fields we read. None is another name for a variant we have (every
 * upstream payee account type is accepted, USD_ACCOUNT, MXN_ACCOUNT, EUR_ACCOUNT, BRL_ACCOUNT beside the spec's
 * US_ACCOUNT, CLABE, IBAN, PIX); each is a name or state we do not have. `conformance.http.test.ts` compares our OpenAPI with the upstream's, so a new
 * endpoint or field that refuses an upstream value fails until it accepts it or is listed here.
 */
export interface RefusedRequestValues {
  readonly operation: string
  /** `/body/pointer` (array items `*`) or `?queryParameter`. */
  readonly at: string
  readonly values: ReadonlyArray<string>
  readonly why: string
}

const unknownPaymentStatusesWhy =
  "Payment transactions are PENDING, PENDING_AUTHORIZATION (SCA, S-03), PROCESSING, COMPLETED, FAILED or " +
  "EXPIRED (Resources › Transaction); a filter on a status no transaction has is refused rather than answered " +
  "empty."

export const refusedRequestValues: ReadonlyArray<RefusedRequestValues> = [
  {
    operation: "GET /transactions",
    at: "?status",
    values: ["CREATED", "REJECTED", "REFUNDED"],
    why: unknownPaymentStatusesWhy
  },
  {
    operation: "GET /agents/me/transactions",
    at: "?status",
    values: ["CREATED", "REJECTED", "REFUNDED"],
    why: unknownPaymentStatusesWhy
  },
  {
    operation: "POST /stablecoins/{stablecoinId}/mints",
    at: "/fundingSource/type",
    values: ["GRID_INTERNAL_ACCOUNT"],
    why: stablecoinServiceInternalWhy
  },
  {
    operation: "POST /stablecoins/{stablecoinId}/burns",
    at: "/source/type",
    values: ["GRID_INTERNAL_ACCOUNT"],
    why: stablecoinServiceInternalWhy
  },
  {
    operation: "GET /cards",
    at: "?state",
    values: ["PENDING_KYC"],
    why:
      "A card is PROCESSING, ACTIVE, FROZEN or CLOSED (CD-04, Resources › Card); KYC is checked before a card is " +
      "issued (CARDHOLDER_KYC_NOT_APPROVED), so no card waits on it and a filter on that state is refused."
  }
]
