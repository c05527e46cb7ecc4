/**
 * The spec's endpoint list as data (issue 17 plan, `docs/design/invitations-stablecoins.md`, S0), checked against the
 * route table by `spec-endpoints.test.ts`:
 *
 * - `ENDPOINTS`: every row of the spec's Endpoints tables (`payments-api.md` › Endpoints, every table; source
 *   `spec`), the FEATURES.md rows for endpoints the spec describes without showing their path (beneficial-owner
 *   create/list/update, external-account list/get, `GET /transactions/{id}`, wallet privacy, exchange rates,
 *   stablecoin provider accounts, card simulations; source `features`), and the FEATURES.md "Upstream-only
 *   endpoints" list (source `upstream-only`). Paths are written as their source writes them (the spec's
 *   `/internal-account` included); the test compares templates with parameter names erased.
 * - `OURS`: what we serve that is in none of those (extensions), each with why.
 *
 * Every entry is served (issue 17 built the last ones): an entry with no route fails the test. A new route that is in
 * none of the lists fails until it is added to `OURS` with a reason (or is found to be a spec endpoint under another
 * path: then record both, as `/internal-account` is).
 *
 * No entry is served under a path other than the one its source writes: the one alias, the spec's
 * `GET /internal-account` beside the upstream's `GET /customers/internal-accounts`, is served under both
 * (`operationAliases` in `upstream-differences.ts`).
 */

export type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE"

export interface SpecEndpoint {
  readonly method: Method
  /** As the source writes it: `/customers/{customerId}`. */
  readonly path: string
  /** `spec`: an Endpoints table row; `features`: a FEATURES row names a path the spec omits; `upstream-only`: the list. */
  readonly source: "spec" | "features" | "upstream-only"
  /** The FEATURES.md rows about this endpoint. */
  readonly rows?: ReadonlyArray<string>
}

export interface OurEndpoint {
  readonly method: Method
  readonly path: string
  /** Why we serve it although no source lists it. */
  readonly why: string
  /** Served by `serve.ts` beside the Api (not in `routeTable()`). */
  readonly outsideApi?: true
}

/** `METHOD /path/{}/…`: the template with parameter names erased (`{name}` and `:name` alike). */
export const templateKey = (method: string, path: string): string =>
  `${method} ${path.replace(/\{[^}/]*\}|:[^/]+/g, "{}")}`

/** Entries of one source: `spec("GET", "/customers", "CU-10")`. */
const entriesOf =
  (source: SpecEndpoint["source"]) =>
  (method: Method, path: string, ...rows: ReadonlyArray<string>): SpecEndpoint => ({ method, path, source, rows })
const spec = entriesOf("spec")
const features = entriesOf("features")
const upstreamOnly = entriesOf("upstream-only")

/** The ten card simulations of CD-45 (`POST /sandbox/cards/{id}/simulate/<event>`). */
const CARD_SIMULATIONS = [
  "authorization",
  "clearing",
  "return",
  "balance_inquiry",
  "credit_authorization",
  "financial_authorization",
  "financial_credit_authorization",
  "authorization_advice",
  "credit_authorization_advice",
  "return_reversal"
] as const

export const ENDPOINTS: ReadonlyArray<SpecEndpoint> = [
  // Spec › Endpoints › Customers and onboarding
  spec("POST", "/customers", "CU-01"),
  spec("GET", "/customers", "CU-10"),
  spec("GET", "/customers/{customerId}", "CU-11"),
  spec("PATCH", "/customers/{customerId}", "CU-12"),
  spec("DELETE", "/customers/{customerId}", "CU-19"),
  spec("POST", "/customers/bulk/csv", "CU-20"),
  spec("GET", "/customers/bulk/jobs/{jobId}", "CU-24"),
  spec("GET", "/customers/end-user-terms", "CU-26"),
  spec("POST", "/customers/{customerId}/kyc-link", "CU-28"),
  spec("POST", "/customers/{customerId}/verify-email", "CU-31"),
  spec("POST", "/customers/{customerId}/verify-email/confirm", "CU-33"),
  spec("POST", "/customers/{customerId}/verify-phone", "CU-34"),
  spec("POST", "/customers/{customerId}/verify-phone/confirm", "CU-35"),
  // Spec › Endpoints › Verification, beneficial owners, documents
  spec("POST", "/verifications", "K-02"),
  spec("GET", "/beneficial-owners/{beneficialOwnerId}", "K-21"),
  spec("POST", "/documents", "K-25"),
  spec("GET", "/documents", "K-31"),
  spec("GET", "/documents/{documentId}", "K-32"),
  spec("PUT", "/documents/{documentId}", "K-33"),
  spec("DELETE", "/documents/{documentId}", "K-35"),
  // Spec › Endpoints › Internal and external accounts
  spec("GET", "/internal-account", "AC-10"),
  spec("POST", "/customers/external-accounts", "AC-14"),
  spec("DELETE", "/customers/external-accounts/{externalAccountId}", "AC-22"),
  spec("POST", "/customers/external-accounts/{externalAccountId}/trust", "AC-31"),
  spec("POST", "/customers/external-accounts/{externalAccountId}/trust/confirm", "AC-32"),
  spec("POST", "/customers/external-accounts/{externalAccountId}/untrust", "AC-33"),
  spec("POST", "/customers/external-accounts/{externalAccountId}/untrust/confirm", "AC-34"),
  spec("POST", "/customers/external-accounts/{id}/challenge", "AC-26"),
  spec("POST", "/customers/external-accounts/{id}/verify", "AC-27"),
  spec("GET", "/discoveries", "AC-40"),
  spec("GET", "/uma-providers", "AC-41"),
  // Spec › Endpoints › Quotes, receivers, transactions
  spec("POST", "/quotes", "Q-01"),
  spec("GET", "/quotes/{quoteId}", "Q-25"),
  spec("POST", "/quotes/{quoteId}/execute", "Q-23"),
  spec("POST", "/crypto/estimate-withdrawal-fee", "Q-45"),
  spec("GET", "/receiver/external-account/{accountId}", "Q-46"),
  spec("GET", "/receiver/uma/{receiverUmaAddress}", "Q-47"),
  spec("GET", "/transactions", "Q-43"),
  spec("POST", "/transfer-in", "Q-49", "V-02"),
  spec("POST", "/transfer-out", "Q-50", "V-02"),
  // Spec › Endpoints › Invitations
  spec("POST", "/invitations", "IN-01"),
  spec("GET", "/invitations/{invitationCode}", "IN-03"),
  spec("POST", "/invitations/{invitationCode}/claim", "IN-04"),
  spec("POST", "/invitations/{invitationCode}/cancel", "IN-05"),
  // Spec › Endpoints › Agents (platform credentials)
  spec("POST", "/agents", "AG-01"),
  spec("GET", "/agents", "AG-07"),
  spec("GET", "/agents/{agentId}", "AG-08"),
  spec("PATCH", "/agents/{agentId}", "AG-09"),
  spec("DELETE", "/agents/{agentId}", "AG-11"),
  spec("PATCH", "/agents/{agentId}/policy", "AG-12"),
  spec("POST", "/agents/{agentId}/device-codes", "AG-13"),
  spec("GET", "/agents/device-codes/{code}/status", "AG-14"),
  spec("POST", "/agents/device-codes/{code}/redeem", "AG-15", "A-08"),
  spec("GET", "/agents/approvals", "AG-16"),
  spec("POST", "/agents/{agentId}/actions/{actionId}/approve", "AG-20"),
  spec("POST", "/agents/{agentId}/actions/{actionId}/reject", "AG-22"),
  // Spec › Endpoints › Agent operations
  spec("GET", "/agents/me", "AG-24"),
  spec("GET", "/agents/me/internal-accounts", "AG-25"),
  spec("POST", "/agents/me/external-accounts", "AG-26"),
  spec("GET", "/agents/me/external-accounts", "AG-27"),
  spec("GET", "/agents/me/external-accounts/{externalAccountId}", "AG-28"),
  spec("DELETE", "/agents/me/external-accounts/{externalAccountId}", "AG-29"),
  spec("POST", "/agents/me/quotes", "AG-31"),
  spec("GET", "/agents/me/quotes/{quoteId}", "AG-32"),
  spec("POST", "/agents/me/quotes/{quoteId}/execute", "AG-33"),
  spec("GET", "/agents/me/transactions", "AG-34"),
  spec("GET", "/agents/me/transactions/{transactionId}", "AG-35"),
  spec("GET", "/agents/me/actions", "AG-36"),
  spec("GET", "/agents/me/actions/{actionId}", "AG-37"),
  // Spec › Endpoints › Cards
  spec("POST", "/cards", "CD-01"),
  spec("GET", "/cards", "CD-16"),
  spec("GET", "/cards/{id}", "CD-17"),
  spec("PATCH", "/cards/{id}", "CD-18"),
  spec("POST", "/cards/{id}/reveal", "CD-32"),
  // Spec › Endpoints › Embedded wallet authentication
  spec("POST", "/auth/credentials", "W-05"),
  spec("GET", "/auth/credentials", "W-11"),
  spec("POST", "/auth/credentials/{id}/challenge", "W-12"),
  spec("POST", "/auth/credentials/{id}/verify", "W-17", "W-19", "W-22"),
  spec("DELETE", "/auth/credentials/{id}", "W-27"),
  spec("GET", "/auth/sessions", "W-30"),
  spec("POST", "/auth/sessions/{id}/refresh", "W-31"),
  spec("DELETE", "/auth/sessions/{id}", "W-32"),
  spec("POST", "/internal-accounts/{id}/export", "W-33"),
  spec("POST", "/auth/delegated-keys", "W-42"),
  spec("DELETE", "/auth/delegated-keys/{id}", "W-46"),
  spec("POST", "/sca/login/complete", "S-12"),
  // Spec › Endpoints › Sandbox, configuration, tokens, stablecoins, other
  spec("POST", "/sandbox/internal-accounts/{accountId}/fund", "SB-01"),
  spec("PATCH", "/config", "P-01"),
  spec("POST", "/tokens", "A-12"),
  spec("GET", "/tokens", "A-14"),
  spec("GET", "/tokens/{tokenId}", "A-15"),
  spec("DELETE", "/tokens/{tokenId}", "A-16"),
  spec("POST", "/stablecoins", "P-10"),
  spec("POST", "/stablecoins/{stablecoinId}/mints", "P-13"),
  spec("POST", "/stablecoins/{stablecoinId}/burns", "P-14"),
  spec("GET", "/stablecoins/{stablecoinId}/operations", "P-16"),

  // FEATURES rows: endpoints the spec describes without showing their path
  features("POST", "/beneficial-owners", "K-22"),
  features("GET", "/beneficial-owners", "K-23"),
  features("PATCH", "/beneficial-owners/{id}", "K-24"),
  // The spec names this path only in a note of the `/internal-account` row.
  features("GET", "/customers/internal-accounts", "AC-11"),
  features("GET", "/customers/external-accounts", "AC-20"),
  features("GET", "/customers/external-accounts/{externalAccountId}", "AC-21"),
  features("GET", "/transactions/{transactionId}", "Q-44"),
  features("PATCH", "/internal-accounts/{id}", "W-34"),
  features("GET", "/exchange-rates", "P-06", "P-07"),
  features("POST", "/stablecoin-provider-accounts", "P-08"),
  features("GET", "/stablecoin-provider-accounts", "P-09"),
  features("GET", "/stablecoin-provider-accounts/{id}", "P-09"),
  ...CARD_SIMULATIONS.map((event) => features("POST", `/sandbox/cards/{id}/simulate/${event}`, "CD-45")),

  // FEATURES › Upstream-only endpoints (optional extensions)
  upstreamOnly("GET", "/config", "P-05"),
  upstreamOnly("GET", "/sca/factors"),
  upstreamOnly("POST", "/sca/factors"),
  upstreamOnly("POST", "/sca/factors/confirm"),
  upstreamOnly("DELETE", "/sca/factors/{credentialId}"),
  upstreamOnly("POST", "/sca/login/start", "S-14"),
  upstreamOnly("POST", "/sca/record-event"),
  upstreamOnly("POST", "/sca/factors/reset"),
  upstreamOnly("GET", "/sca/factors/reset/{resetId}"),
  upstreamOnly("POST", "/sca/factors/reset/{resetId}/complete"),
  upstreamOnly("POST", "/quotes/{quoteId}/authorize", "S-04"),
  upstreamOnly("POST", "/quotes/{quoteId}/authorize/resend", "S-07"),
  upstreamOnly("GET", "/platform/internal-accounts", "AC-01"),
  upstreamOnly("GET", "/platform/external-accounts"),
  upstreamOnly("POST", "/platform/external-accounts"),
  upstreamOnly("GET", "/platform/external-accounts/{externalAccountId}"),
  upstreamOnly("DELETE", "/platform/external-accounts/{externalAccountId}"),
  upstreamOnly("POST", "/platform/external-accounts/{externalAccountId}/challenge", "AC-26"),
  upstreamOnly("POST", "/platform/external-accounts/{externalAccountId}/verify", "AC-27"),
  upstreamOnly("GET", "/verifications"),
  upstreamOnly("GET", "/verifications/{verificationId}"),
  upstreamOnly("POST", "/transactions/{transactionId}/approve", "WH-21"),
  upstreamOnly("POST", "/transactions/{transactionId}/reject", "WH-21"),
  upstreamOnly("POST", "/transactions/{transactionId}/confirm", "Q-32"),
  upstreamOnly("POST", "/transactions/{transactionId}/cancel", "WH-07"),
  upstreamOnly("POST", "/sandbox/webhooks/test", "WH-23"),
  upstreamOnly("POST", "/sandbox/send", "SB-03"),
  upstreamOnly("POST", "/sandbox/uma/receive", "SB-04"),
  upstreamOnly("GET", "/vasps"),
  upstreamOnly("GET", "/auth/delegated-keys"),
  upstreamOnly("GET", "/auth/delegated-keys/{id}"),
  upstreamOnly("POST", "/agents/me/transfer-in"),
  upstreamOnly("POST", "/agents/me/transfer-out"),
  upstreamOnly("GET", "/stablecoins", "P-12"),
  upstreamOnly("GET", "/stablecoins/{stablecoinId}", "P-12"),
  upstreamOnly("GET", "/stablecoin-operations/{stablecoinOperationId}", "P-17", "P-18")
]

/** Routes we serve that no source lists. */
export const OURS: ReadonlyArray<OurEndpoint> = [
  {
    method: "GET",
    path: "/webhooks/public-key",
    why: "The PEM key platforms verify webhook signatures with (WH-04: the spec says verify, not where the key is)."
  },
  {
    method: "GET",
    path: "/auth/bundle-signing-key",
    why:
      "The key production OTP target and export bundles are signed with (issue 31: clients verify " +
      "`dataSignature` against a key they pin; the upstream's is its enclave's, published in its client libraries)."
  },
  {
    method: "GET",
    path: "/webhooks/deliveries",
    why: "Delivery log, so a platform can see what was sent and how each attempt went."
  },
  {
    method: "POST",
    path: "/webhooks/deliveries/{webhookId}/replay",
    why: "Re-sends one delivery after the platform fixed its receiver."
  },
  {
    method: "GET",
    path: "/webhooks/signing-secrets",
    why: "Standard Webhooks signing secrets (the second signature scheme beside WH-04's)."
  },
  { method: "POST", path: "/webhooks/signing-secrets/rotate", why: "Rotates the Standard Webhooks signing secret." },
  {
    method: "GET",
    path: "/webhooks/stream",
    why: "The events as Server-Sent Events as they commit, for `paycore listen` (issue 18, dashboard-cli.md section 2)."
  },
  {
    method: "GET",
    path: "/tokens/me",
    why: "The calling token (environment, permissions), so the dashboard knows who signed in (issue 18, section 2)."
  },
  {
    method: "GET",
    path: "/request-log",
    why: "The calling token's last requests as answered, for the dashboard's request log (issue 18, section 2)."
  },
  {
    method: "POST",
    path: "/sandbox/external-accounts/{externalAccountId}/liveness",
    why: "Sandbox stand-in for the hosted liveness check of an ownership challenge (AC-26 LIVENESS)."
  },
  {
    method: "POST",
    path: "/sandbox/sca/factors/reset/{resetId}/liveness",
    why: "Sandbox stand-in for the liveness check gating an SCA factor reset."
  },
  {
    method: "POST",
    path: "/sandbox/transactions/{transactionId}/return",
    why: "Sandbox: returns a completed deposit, emitting the incoming refund events (WH-08; issue 17 plan, row 30)."
  },
  {
    method: "POST",
    path: "/sandbox/transactions/{transactionId}/compliance/release",
    why: "Sandbox stand-in for the compliance review releasing a payout the screening held (Q-38; issue 30): it goes to its rail."
  },
  {
    method: "POST",
    path: "/sandbox/transactions/{transactionId}/compliance/reject",
    why: "Sandbox stand-in for the compliance review rejecting a held payout (Q-38; issue 30): FAILED COMPLIANCE_REJECTED, refunded."
  },
  {
    method: "GET",
    path: "/transactions/{transactionId}/timeline",
    why: "Issue 18: the moves of a payment's or card transaction's machine (when, from, to, the webhook emitted), for the dashboard's timeline and support."
  },
  {
    method: "GET",
    path: "/agents/me/transactions/{transactionId}/timeline",
    why: "Issue 18: the same timeline for an agent, scoped to its customer as GET /agents/me/transactions/{transactionId}."
  },
  {
    method: "GET",
    path: "/customers/internal-accounts/{accountId}/postings",
    why: "Issue 18: a customer's internal account's ledger postings with a running balance and its posted, pending and available balances (the dashboard's account ledger)."
  },
  {
    method: "GET",
    path: "/platform/internal-accounts/{accountId}/postings",
    why: "Issue 18: the same for a platform-owned internal account (customer and platform routes 404 on each other's accounts)."
  },
  { method: "GET", path: "/openapi.json", why: "Our OpenAPI document.", outsideApi: true },
  { method: "GET", path: "/docs", why: "The reference page rendering /openapi.json.", outsideApi: true },
  { method: "GET", path: "/docs/renderer.js", why: "The reference page's renderer, served locally.", outsideApi: true }
]
