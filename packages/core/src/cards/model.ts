import { Schema } from "effect"
import type { InternalAccountType } from "../accounts/model.ts"
import { CurrencyCode } from "../shared/currency.ts"
import {
  type CardFundingSourceId,
  CardId,
  type CardNetworkEventId,
  type CardRevealId,
  CardTransactionId,
  CustomerId,
  InternalAccountId
} from "../shared/ids.ts"
import { Amount, MinorUnits, PositiveMinorUnits } from "../shared/money.ts"
import { PageQueryFields } from "../shared/paging.ts"
import { boundedString, CountryCode, DateTimeString } from "../shared/schemas.ts"

// Cards (issue 15, docs/design/cards.md): the Schemas of the `/cards` and `/sandbox/cards/*` routes with the
// upstream's names and shapes where the spec agrees (the spec wins where it does not: V-10), the stored records, and
// the network events the issuer side delivers. Upstream names: Card, CardState, CardStateReason, CardBrand, CardForm,
// CardCreateRequest, CardUpdateRequest, CardRevealResponse, CardListResponse, CardTransaction, CardTransactionStatus,
// CardMerchant, CardPullSummary, CardSettlementSummary, CardRefundSummary, SandboxCard*Request,
// SandboxCardSimulationResponse.

// ---- vocabulary ----

/** CD-04: the spec's four states; upstream's `PENDING_KYC` is not one (KYC is checked at issue, design Q7). */
export const CardState = Schema.Literals(["PROCESSING", "ACTIVE", "FROZEN", "CLOSED"])
export type CardState = typeof CardState.Type

/** CD-05: why a card is `CLOSED` (null otherwise); upstream's `CLOSED_BY_GRID` is the service's own close here. */
export const CardStateReason = Schema.Literals(["ISSUER_REJECTED", "CLOSED_BY_PLATFORM", "CLOSED_BY_SERVICE"])
export type CardStateReason = typeof CardStateReason.Type

/** Set by the issuer when it provisions the card (read-only). */
export const CardBrand = Schema.Literals(["VISA", "MASTERCARD"])
export type CardBrand = typeof CardBrand.Type

/** Only virtual cards in v1. */
export const CardForm = Schema.Literals(["VIRTUAL"])
export type CardForm = typeof CardForm.Type

/**
 * CD-07 (spec only): what the card can do. `supportsPanReveal` comes from the issuer's program; the two limit
 * capabilities hold when the service makes the authorization decisions and every funding account supports them.
 */
export const CardProgramCapabilities = Schema.Struct({
  supportsPanReveal: Schema.Boolean,
  supportsSpendLimits: Schema.Boolean,
  supportsTransactionCountLimit: Schema.Boolean
})
export type CardProgramCapabilities = typeof CardProgramCapabilities.Type

/** CD-06, C-05: a spend limit in the smallest unit of the card's currency (equal to it is allowed). */
export const CardSpendLimit = PositiveMinorUnits
/** CD-06: at most this many approved authorizations per UTC day. */
export const CardCountLimit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000 }))

/** CD-15 and design section 2: 1 … 10 distinct internal accounts, in priority order. */
export const FundingSourceIds = Schema.Array(InternalAccountId).check(
  Schema.isMinLength(1),
  Schema.isMaxLength(10),
  Schema.isUnique({ expected: "distinct internal account ids" })
)

// ---- the card ----

/**
 * A card (CD-03, upstream `Card` plus the spec's daily limits and `cardCapabilities`). The three limits are always
 * present (null: no limit). Never a reveal URL (CD-08).
 */
export const Card = Schema.Struct({
  id: CardId,
  cardholderId: CustomerId,
  platformCardId: Schema.String,
  state: CardState,
  stateReason: Schema.NullOr(CardStateReason),
  brand: Schema.optionalKey(CardBrand),
  form: CardForm,
  last4: Schema.optionalKey(Schema.String),
  expMonth: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 12 }))),
  expYear: Schema.optionalKey(Schema.Int),
  fundingSources: Schema.Array(InternalAccountId),
  currency: Schema.String,
  maxSpendPerTransaction: Schema.NullOr(Schema.Int),
  maxSpendPerDay: Schema.NullOr(Schema.Int),
  maxTransactionsPerDay: Schema.NullOr(Schema.Int),
  cardCapabilities: CardProgramCapabilities,
  processorRef: Schema.optionalKey(Schema.String),
  issuerRef: Schema.optionalKey(Schema.String),
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type Card = typeof Card.Type

/**
 * `POST /cards` (CD-01, upstream `CardCreateRequest` plus the spec's daily limits). The `Idempotency-Key` header is
 * required (CD-02). `threeDSecurePassword` is forwarded to the issuer and never shown again (design Q19).
 */
export const CardCreateRequest = Schema.Struct({
  cardholderId: CustomerId,
  fundingSources: FundingSourceIds,
  form: CardForm,
  platformCardId: Schema.optionalKey(boundedString(255)),
  threeDSecurePassword: Schema.optionalKey(boundedString(128)),
  maxSpendPerTransaction: Schema.optionalKey(CardSpendLimit),
  maxSpendPerDay: Schema.optionalKey(CardSpendLimit),
  maxTransactionsPerDay: Schema.optionalKey(CardCountLimit)
})
export type CardCreateRequest = typeof CardCreateRequest.Type

/** The states `PATCH /cards/{id}` may ask for (CD-22 … CD-25). */
export const CardTargetState = Schema.Literals(["ACTIVE", "FROZEN", "CLOSED"])
export type CardTargetState = typeof CardTargetState.Type

/**
 * `PATCH /cards/{id}` (CD-18, upstream `CardUpdateRequest` plus the daily limits): a limit's `null` clears it. "At
 * least one field" and the combination rules (CD-26 … CD-30) are the service's, with a 400 naming the field.
 */
export const CardUpdateRequest = Schema.Struct({
  state: Schema.optionalKey(CardTargetState),
  fundingSources: Schema.optionalKey(FundingSourceIds),
  maxSpendPerTransaction: Schema.optionalKey(Schema.NullOr(CardSpendLimit)),
  maxSpendPerDay: Schema.optionalKey(Schema.NullOr(CardSpendLimit)),
  maxTransactionsPerDay: Schema.optionalKey(Schema.NullOr(CardCountLimit))
})
export type CardUpdateRequest = typeof CardUpdateRequest.Type

/** `POST /cards/{id}/reveal` (CD-32): a short-lived URL, answered once, stored nowhere (CD-33). */
export const CardRevealResponse = Schema.Struct({
  panEmbedUrl: Schema.String,
  expiresAt: DateTimeString
})
export type CardRevealResponse = typeof CardRevealResponse.Type

/** `GET /cards` (CD-16): `accountId` finds the cards whose `fundingSources` hold that account. */
export const ListCardsQuery = Schema.Struct({
  cardholderId: Schema.optionalKey(CustomerId),
  accountId: Schema.optionalKey(InternalAccountId),
  platformCardId: Schema.optionalKey(boundedString(255)),
  state: Schema.optionalKey(CardState),
  ...PageQueryFields
})
export type ListCardsQuery = typeof ListCardsQuery.Type

// ---- card transactions ----

/** CD-34, V-04, V-05: the public status; `EXCEPTION` and `REFUNDED` are in no Schema (a stored `EXCEPTION` reads `DECLINED`). */
export const CardTransactionStatus = Schema.Literals(["AUTHORIZED", "PARTIALLY_SETTLED", "SETTLED", "DECLINED"])
export type CardTransactionStatus = typeof CardTransactionStatus.Type

/** A card transaction debits (a purchase) or credits (a merchant refund, a push credit) the funding account. */
export const CardDirection = Schema.Literals(["DEBIT", "CREDIT"])
export type CardDirection = typeof CardDirection.Type

/** Why an authorization was declined, or why a settled transaction reads `DECLINED` (`PULL_FAILED`). */
export const DeclineReason = Schema.Literals([
  "CARD_PAUSED",
  "CARD_NOT_ACTIVE",
  "CARD_CLOSED",
  "INSUFFICIENT_FUNDS",
  "TRANSACTION_LIMIT_EXCEEDED",
  "DAILY_SPEND_LIMIT_EXCEEDED",
  "DAILY_TRANSACTION_COUNT_EXCEEDED",
  "NO_USABLE_FUNDING_SOURCE",
  "PULL_FAILED"
])
export type DeclineReason = typeof DeclineReason.Type

/** Upstream `CardMerchant`: the descriptor's last three characters drive the sandbox network (CD-46). */
export const CardMerchant = Schema.Struct({
  descriptor: boundedString(255),
  mcc: Schema.optionalKey(Schema.String.check(Schema.isPattern(/^\d{4}$/, { expected: "a four-digit MCC" }))),
  country: Schema.optionalKey(CountryCode)
})
export type CardMerchant = typeof CardMerchant.Type

/** Upstream `CardPullSummary`: pulls from the funding source (`count` > 1: post-hoc pulls). */
export const CardPullSummary = Schema.Struct({
  count: Schema.Int,
  totalAmount: Schema.Int,
  pendingCount: Schema.Int
})
export type CardPullSummary = typeof CardPullSummary.Type

/** Upstream `CardSettlementSummary` (clearings) and `CardRefundSummary` (returns): the same two numbers. */
export const CardEventSummary = Schema.Struct({ count: Schema.Int, totalAmount: Schema.Int })
export type CardEventSummary = typeof CardEventSummary.Type

/**
 * A card transaction (CD-41, upstream `CardTransaction` with the spec's status enum): listed by `GET /transactions`
 * beside payments (`type: CARD`). `settledAmount` and `refundedAmount` are always given (0 when nothing); a
 * standalone merchant refund is `CREDIT`, `SETTLED`, its value in `settledAmount` (CD-39). `declineReason` is an
 * extension (design Q1).
 */
export const CardTransaction = Schema.Struct({
  type: Schema.Literal("CARD"),
  id: CardTransactionId,
  cardId: CardId,
  customerId: CustomerId,
  platformCustomerId: Schema.String,
  issuerTransactionToken: Schema.String,
  status: CardTransactionStatus,
  direction: CardDirection,
  merchant: CardMerchant,
  authorizedAmount: Amount,
  settledAmount: Schema.optionalKey(Amount),
  refundedAmount: Schema.optionalKey(Amount),
  accountId: InternalAccountId,
  declineReason: Schema.optionalKey(DeclineReason),
  pullSummary: CardPullSummary,
  settlementSummary: CardEventSummary,
  refundSummary: CardEventSummary,
  authorizedAt: DateTimeString,
  lastEventAt: Schema.optionalKey(DateTimeString),
  createdAt: DateTimeString,
  updatedAt: DateTimeString
})
export type CardTransaction = typeof CardTransaction.Type

// ---- the sandbox network simulator (CD-45 … CD-52) ----

/** A currency as a request names it (upstream `Currency`): only `code` is read. */
export const CurrencyRef = Schema.Struct({
  code: CurrencyCode,
  name: Schema.optionalKey(Schema.String),
  symbol: Schema.optionalKey(Schema.String),
  decimals: Schema.optionalKey(Schema.Int)
})

/** Upstream `SandboxCardAuthorizationRequest`: the five authorization-family simulations (CD-46, CD-47). */
export const SandboxCardAuthorizationRequest = Schema.Struct({
  amount: PositiveMinorUnits,
  currency: CurrencyRef,
  merchant: CardMerchant
})
export type SandboxCardAuthorizationRequest = typeof SandboxCardAuthorizationRequest.Type

/** Upstream `SandboxCardBalanceInquiryRequest` (CD-47): a zero-amount authorization. */
export const SandboxCardBalanceInquiryRequest = Schema.Struct({ merchant: CardMerchant })
export type SandboxCardBalanceInquiryRequest = typeof SandboxCardBalanceInquiryRequest.Type

/** Upstream `SandboxCardClearingRequest` (CD-48): `0` expires the authorization, more than held pulls post hoc. */
export const SandboxCardClearingRequest = Schema.Struct({
  cardTransactionId: CardTransactionId,
  amount: MinorUnits
})
export type SandboxCardClearingRequest = typeof SandboxCardClearingRequest.Type

/** Upstream `SandboxCardReturnRequest` (CD-49): at most the net settled amount. */
export const SandboxCardReturnRequest = Schema.Struct({
  cardTransactionId: CardTransactionId,
  amount: PositiveMinorUnits
})
export type SandboxCardReturnRequest = typeof SandboxCardReturnRequest.Type

/** Upstream `SandboxCardAuthorizationAdviceRequest` (CD-50): `amount` is the new total. */
export const SandboxCardAuthorizationAdviceRequest = Schema.Struct({
  cardTransactionId: CardTransactionId,
  amount: PositiveMinorUnits
})
export type SandboxCardAuthorizationAdviceRequest = typeof SandboxCardAuthorizationAdviceRequest.Type

/** Upstream `SandboxCardTransactionRefRequest` (CD-51): the return reversal. */
export const SandboxCardTransactionRefRequest = Schema.Struct({ cardTransactionId: CardTransactionId })
export type SandboxCardTransactionRefRequest = typeof SandboxCardTransactionRefRequest.Type

/** Upstream `SandboxCardSimulationResponse` (202): the token `GET /transactions?reference=` finds. */
export const SandboxCardSimulationResponse = Schema.Struct({ issuerTransactionToken: Schema.String })
export type SandboxCardSimulationResponse = typeof SandboxCardSimulationResponse.Type

/** The ten simulations, one per `POST /sandbox/cards/{id}/simulate/<path>` (the path in lower case). */
export const simulationKinds = [
  "AUTHORIZATION",
  "CLEARING",
  "RETURN",
  "BALANCE_INQUIRY",
  "CREDIT_AUTHORIZATION",
  "FINANCIAL_AUTHORIZATION",
  "FINANCIAL_CREDIT_AUTHORIZATION",
  "AUTHORIZATION_ADVICE",
  "CREDIT_AUTHORIZATION_ADVICE",
  "RETURN_REVERSAL"
] as const
export type SimulationKind = (typeof simulationKinds)[number]

/** The body of each simulation, by kind (what `CardSimulations.simulate` and the simulator port take). */
export interface SimulationBodies {
  readonly AUTHORIZATION: SandboxCardAuthorizationRequest
  readonly CREDIT_AUTHORIZATION: SandboxCardAuthorizationRequest
  readonly FINANCIAL_AUTHORIZATION: SandboxCardAuthorizationRequest
  readonly FINANCIAL_CREDIT_AUTHORIZATION: SandboxCardAuthorizationRequest
  readonly CREDIT_AUTHORIZATION_ADVICE: SandboxCardAuthorizationRequest
  readonly BALANCE_INQUIRY: SandboxCardBalanceInquiryRequest
  readonly CLEARING: SandboxCardClearingRequest
  readonly RETURN: SandboxCardReturnRequest
  readonly AUTHORIZATION_ADVICE: SandboxCardAuthorizationAdviceRequest
  readonly RETURN_REVERSAL: SandboxCardTransactionRefRequest
}
export type SimulationBody = SimulationBodies[SimulationKind]

// ---- the network side: what an issuer processor (or the simulator) delivers ----

/** What a stored card transaction is: the authorization family it came from (design section 2). */
export const cardTransactionKinds = [
  "AUTHORIZATION",
  "FINANCIAL",
  "CREDIT",
  "FINANCIAL_CREDIT",
  "CREDIT_ADVICE"
] as const
export type CardTransactionKind = (typeof cardTransactionKinds)[number]

/** A real-time authorization: a stored kind, or a balance inquiry (decided, never stored: design Q14). */
export type AuthorizationKind = CardTransactionKind | "BALANCE_INQUIRY"

/**
 * What `CardNetwork.authorize` decides, in real time and one store transaction. A retry of the same
 * `issuerTransactionToken` answers the first decision. `forcedDecline` is a network-side decline the processor
 * already made (the sandbox's descriptor suffixes `002`, `003`): recorded as such, nothing reserved.
 */
export interface AuthorizationRequest {
  readonly cardId: string
  readonly issuerTransactionToken: string
  readonly kind: AuthorizationKind
  /** In the smallest unit of `currency`; 0 for a balance inquiry. */
  readonly amount: number
  readonly currency: string
  readonly merchant: CardMerchant
  readonly forcedDecline?: DeclineReason | undefined
  /**
   * The funding pull's outcome comes later, as a `PullResult` event (`pullSummary.pendingCount` is 1 until then: the
   * sandbox's `005` and `006`); otherwise the pull is confirmed with the approval.
   */
  readonly awaitPullResult?: boolean | undefined
}

/** `CardNetwork.authorize`'s answer; `cardTransactionId` is absent for a balance inquiry (no row). */
export type AuthorizationDecision =
  | { readonly _tag: "Approved"; readonly cardTransactionId?: string | undefined }
  | { readonly _tag: "Declined"; readonly cardTransactionId?: string | undefined; readonly reason: DeclineReason }

/**
 * A later network event about one card transaction (named by its `issuerTransactionToken`), as an issuer processor's
 * webhook delivers it: at least once, so `issuerEventId` makes it apply once (`card_network_events`).
 * `CardNetwork.reconcile` applies it now, or at `dueAt` (`CardsWorker` pass).
 */
export type NetworkEvent =
  /** An `AUTHORIZATION_ADVICE`: the open authorization re-sized to the new total `amount` (CD-50). */
  | (NetworkEventBase & { readonly _tag: "Advice"; readonly amount: number })
  /**
   * A clearing of `amount` (CD-48): 0 expires the authorization, more than held pulls the rest post hoc.
   * `pullRefused`: the post-hoc pull fails whatever the balance (sandbox scripts only; design Q15).
   */
  | (NetworkEventBase & { readonly _tag: "Clearing"; readonly amount: number; readonly pullRefused?: boolean })
  /** A merchant `RETURN` of `amount` (CD-49). */
  | (NetworkEventBase & { readonly _tag: "Return"; readonly amount: number })
  /** A `RETURN_REVERSAL` of the latest unreversed return (CD-51, design Q16). */
  | (NetworkEventBase & { readonly _tag: "ReturnReversal" })
  /** The outcome of the funding pull of the authorization (`005` confirms late, `006` fails: CD-46). */
  | (NetworkEventBase & { readonly _tag: "PullResult"; readonly outcome: "CONFIRMED" | "FAILED" })

export interface NetworkEventBase {
  /** The processor's id of this event: unique, the inbox's dedupe key. */
  readonly issuerEventId: string
  readonly cardId: string
  /** The card transaction the event is about (its authorization's token). */
  readonly issuerTransactionToken: string
}
export type NetworkEventKind = NetworkEvent["_tag"]

/** What `CardNetwork.reconcile` did with an event. */
export type ReconcileOutcome =
  /** Stored and applied now. */
  | { readonly _tag: "Applied" }
  /** Stored, applied by a worker pass at `dueAt`. */
  | { readonly _tag: "Deferred"; readonly dueAt: string }
  /** Its `issuerEventId` was seen before: nothing done. */
  | { readonly _tag: "Duplicate" }
  /** Stored with the refusal as its outcome (a state the machine does not allow, an amount over the rule). */
  | { readonly _tag: "Refused"; readonly reason: string }

/** One step of a simulator's script: an authorization now, or a network event `afterSeconds` from now. */
export type ScriptedEvent =
  | { readonly _tag: "Authorize"; readonly request: AuthorizationRequest }
  | { readonly _tag: "Deliver"; readonly afterSeconds: number; readonly event: NetworkEvent }

// ---- records ----

/** One funding source bound to a card, in priority order; its id is what a delegated key names (W-42 … W-47). */
export interface CardFundingBinding {
  readonly id: CardFundingSourceId
  readonly accountId: InternalAccountId
  readonly accountType: InternalAccountType
}

/** A change the issuer has not acknowledged yet (`CardIssuer.update` by the worker). */
export interface CardIssuerSync {
  readonly state?: CardTargetState | undefined
  readonly fundingAccountIds?: ReadonlyArray<string> | undefined
}

/**
 * A card as stored. `fundingSources` is `bindings`' account ids in order (kept for the `accountId` filter); a
 * `CLOSED` card keeps its last `fundingSources` for audit while `bindings` is empty (detached, CD-24). An absent
 * limit is null on the resource. `dueAt` / `attempts` / `stalledAt`: the worker's provisioning and issuer sync.
 */
export interface CardRecord {
  readonly id: CardId
  readonly cardholderId: CustomerId
  readonly platformCardId: string
  /** Whether the platform gave `platformCardId` (the sandbox issuer reads its suffix only then, CD-43). */
  readonly platformCardIdGiven: boolean
  readonly state: CardState
  readonly stateReason?: CardStateReason | undefined
  readonly brand?: CardBrand | undefined
  readonly form: CardForm
  readonly last4?: string | undefined
  readonly expMonth?: number | undefined
  readonly expYear?: number | undefined
  readonly fundingSources: ReadonlyArray<InternalAccountId>
  readonly bindings: ReadonlyArray<CardFundingBinding>
  readonly currency: string
  readonly maxSpendPerTransaction?: number | undefined
  readonly maxSpendPerDay?: number | undefined
  readonly maxTransactionsPerDay?: number | undefined
  readonly cardCapabilities: CardProgramCapabilities
  readonly processorRef?: string | undefined
  readonly issuerRef?: string | undefined
  /** The 3-D Secure password sealed by the KeyVault (context `card-3ds:<cardId>`) until the issuer has it (Q19). */
  readonly threeDSecurePasswordSealed?: string | undefined
  readonly issuerSync?: CardIssuerSync | undefined
  readonly dueAt?: string | undefined
  readonly attempts?: number | undefined
  readonly stalledAt?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

export interface CardFilter {
  readonly cardholderId?: string | undefined
  /** Cards whose `fundingSources` hold this internal account. */
  readonly accountId?: string | undefined
  readonly platformCardId?: string | undefined
  readonly state?: string | undefined
  /** The worker: cards in one of these states due at or before `dueBy`. */
  readonly states?: ReadonlyArray<string> | undefined
  readonly dueBy?: string | undefined
}

/** A return of a card transaction, kept so a return reversal knows what to reverse (design Q16). */
export interface CardReturn {
  readonly amount: number
  readonly at: string
  readonly reversedAt?: string | undefined
}

/**
 * A card transaction as stored: `state` is the `CardTransaction` machine's (never `REQUESTED`), or a legacy
 * `EXCEPTION` (read `DECLINED`, CD-37); the public status is derived (views.ts). Amounts in the smallest unit of
 * `currency`; `heldAmount` is what the pending ledger transfers hold now. `accountId` is the funding account that
 * paid, or for a decline the card's first funding source. `day` is the UTC date of the authorization (its limits).
 */
export interface CardTransactionRecord {
  readonly id: CardTransactionId
  readonly cardId: CardId
  readonly customerId: CustomerId
  readonly platformCustomerId: string
  readonly issuerTransactionToken: string
  readonly kind: CardTransactionKind
  readonly direction: CardDirection
  readonly state: StoredCardTransactionState
  readonly declineReason?: DeclineReason | undefined
  readonly merchant: CardMerchant
  readonly currency: string
  readonly authorizedAmount: number
  readonly settledAmount: number
  readonly refundedAmount: number
  readonly heldAmount: number
  readonly accountId: InternalAccountId
  readonly fundingSourceId?: CardFundingSourceId | undefined
  readonly pullSummary: CardPullSummary
  readonly settlementSummary: CardEventSummary
  readonly refundSummary: CardEventSummary
  readonly returns: ReadonlyArray<CardReturn>
  /** For an embedded-wallet source: the delegated key's signature over the pull (design section 3, step 7). */
  readonly pullSignature?: string | undefined
  readonly day: string
  readonly authorizedAt: string
  readonly lastEventAt?: string | undefined
  readonly dueAt?: string | undefined
  readonly createdAt: string
  readonly updatedAt: string
}

/** The machine's stored states, and `EXCEPTION`: a legacy value that reads `DECLINED` and takes no move (CD-37). */
export type StoredCardTransactionState =
  | "AUTHORIZED"
  | "PARTIALLY_SETTLED"
  | "SETTLED"
  | "DECLINED"
  | "EXPIRED"
  | "PULL_FAILED"
  | "EXCEPTION"

export interface CardTransactionFilter {
  readonly cardId?: string | undefined
  readonly customerId?: string | undefined
  readonly platformCustomerId?: string | undefined
  /** The funding account (`accountId`). */
  readonly accountIdentifier?: string | undefined
  /** Stored states (a public status maps to its states: views.ts `cardTransactionStatesOf`). */
  readonly states?: ReadonlyArray<string> | undefined
  /** The `issuerTransactionToken` (how a sandbox client finds a simulated transaction, design Q23). */
  readonly reference?: string | undefined
  readonly createdAfter?: string | undefined
  readonly createdBefore?: string | undefined
  readonly dueBy?: string | undefined
}

/**
 * A network event in the inbox (`card_network_events`): `issuerEventId` unique, so an at-least-once delivery applies
 * once; `dueAt` when it waits for a worker pass; `appliedAt` and `outcome` once handled.
 */
export interface CardNetworkEventRecord {
  readonly id: CardNetworkEventId
  readonly issuerEventId: string
  readonly cardId: CardId
  readonly cardTransactionId?: CardTransactionId | undefined
  readonly kind: NetworkEventKind
  readonly event: NetworkEvent
  readonly dueAt?: string | undefined
  readonly appliedAt?: string | undefined
  readonly outcome?: ReconcileOutcome | undefined
  readonly createdAt: string
}

export interface CardNetworkEventFilter {
  readonly cardId?: string | undefined
  /** Applied events too unless false: `false` lists the pending ones only. */
  readonly includeApplied: boolean
  readonly dueBy?: string | undefined
}

/** The audit row of one reveal (CD-33): who asked, when, until when. Never the URL. */
export interface CardRevealRecord {
  readonly id: CardRevealId
  readonly cardId: CardId
  /** The API token that asked (`Principal.tokenId`). */
  readonly actor: string
  readonly requestedAt: string
  readonly expiresAt: string
}

export interface CardRevealFilter {
  readonly cardId?: string | undefined
}

/** Counter keys of the cards context (the store's `counters`). */
export const cardCounters = {
  /** Approved debit amount of a card on a UTC day (`YYYY-MM-DD`): only ever added to (CD-29). */
  spend: (cardId: string, day: string): string => `card-spend:${cardId}:${day}`,
  /** Approved debit authorizations of a card on a UTC day. */
  count: (cardId: string, day: string): string => `card-count:${cardId}:${day}`,
  /** Cards not `CLOSED` (L-12): +1 on issue, −1 on any move to `CLOSED`. */
  live: "live-cards"
} as const
