import type {
  CardFilter,
  CardNetworkEventFilter,
  CardNetworkEventRecord,
  CardRecord,
  CardRevealFilter,
  CardRevealRecord,
  CardTransactionFilter,
  CardTransactionRecord
} from "@paycore/core"
import {
  after,
  atOrBefore,
  before,
  bigint,
  boolean,
  contains,
  eq,
  includesDeleted,
  instant,
  integer,
  json,
  key,
  oneOf,
  optional,
  table,
  text,
  textArray
} from "./describe.ts"

/**
 * Cards (CD-03; docs/design/cards.md, section 2). `funding_sources` (account ids in priority order) serves the
 * `accountId` filter; `bindings` holds the same accounts with their `CardFundingSource` ids. The 3-D Secure password
 * only sealed, and only until the issuer has it. `due_at` / `attempts` / `stalled_at`: the worker's provisioning and
 * issuer sync.
 */
export const cards = table<CardRecord, CardFilter, "platformCardId">()({
  name: "cards",
  columns: {
    id: key("id"),
    cardholderId: key("cardholder_id"),
    platformCardId: text("platform_card_id"),
    platformCardIdGiven: boolean("platform_card_id_given"),
    state: text("state"),
    stateReason: optional(text("state_reason")),
    brand: optional(text("brand")),
    form: text("form"),
    last4: optional(text("last4")),
    expMonth: optional(integer("exp_month")),
    expYear: optional(integer("exp_year")),
    fundingSources: textArray("funding_sources"),
    bindings: json("bindings"),
    currency: text("currency"),
    maxSpendPerTransaction: optional(bigint("max_spend_per_transaction")),
    maxSpendPerDay: optional(bigint("max_spend_per_day")),
    maxTransactionsPerDay: optional(bigint("max_transactions_per_day")),
    cardCapabilities: json("card_capabilities"),
    processorRef: optional(text("processor_ref")),
    issuerRef: optional(text("issuer_ref")),
    threeDSecurePasswordSealed: optional(text("three_ds_password_sealed")),
    issuerSync: optional(json("issuer_sync")),
    dueAt: optional(instant("due_at")),
    attempts: optional(integer("attempts")),
    stalledAt: optional(instant("stalled_at")),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  queue: "dueAt",
  unique: { platformCardId: { column: "platformCardId" } },
  filters: {
    cardholderId: eq("cardholderId"),
    accountId: contains("fundingSources"),
    platformCardId: eq("platformCardId"),
    state: eq("state"),
    states: oneOf("state"),
    dueBy: atOrBefore("dueAt")
  }
})

/**
 * Card transactions (CD-34 … CD-41): `state` is the machine's (the public status is derived on read);
 * `issuer_transaction_token` is unique, so a network retry of an authorization finds the first decision. Amounts in
 * the smallest unit of `currency`; `held_amount` is what the pending ledger transfers hold. `day`: the UTC date of
 * the authorization (its daily limits).
 */
export const cardTransactions = table<CardTransactionRecord, CardTransactionFilter, "issuerTransactionToken">()({
  name: "card_transactions",
  columns: {
    id: key("id"),
    cardId: key("card_id"),
    customerId: key("customer_id"),
    platformCustomerId: text("platform_customer_id"),
    issuerTransactionToken: text("issuer_transaction_token"),
    kind: text("kind"),
    direction: text("direction"),
    state: text("state"),
    declineReason: optional(text("decline_reason")),
    merchant: json("merchant"),
    currency: text("currency"),
    authorizedAmount: bigint("authorized_amount"),
    settledAmount: bigint("settled_amount"),
    refundedAmount: bigint("refunded_amount"),
    heldAmount: bigint("held_amount"),
    accountId: key("account_id"),
    fundingSourceId: optional(key("funding_source_id")),
    pullSummary: json("pull_summary"),
    settlementSummary: json("settlement_summary"),
    refundSummary: json("refund_summary"),
    returns: json("returns"),
    pullSignature: optional(text("pull_signature")),
    day: text("day"),
    authorizedAt: instant("authorized_at"),
    lastEventAt: optional(instant("last_event_at")),
    dueAt: optional(instant("due_at")),
    createdAt: instant("created_at"),
    updatedAt: instant("updated_at")
  },
  primaryKey: ["id"],
  unique: { issuerTransactionToken: { column: "issuerTransactionToken" } },
  filters: {
    cardId: eq("cardId"),
    customerId: eq("customerId"),
    platformCustomerId: eq("platformCustomerId"),
    accountIdentifier: eq("accountId"),
    states: oneOf("state"),
    reference: eq("issuerTransactionToken"),
    createdAfter: after("createdAt"),
    createdBefore: before("createdAt"),
    dueBy: atOrBefore("dueAt")
  }
})

/**
 * The inbox of card network events: `issuer_event_id` is unique, so an issuer webhook delivered twice applies once;
 * `due_at` while it waits for its time, `applied_at` and `outcome` once handled.
 */
export const cardNetworkEvents = table<CardNetworkEventRecord, CardNetworkEventFilter, "issuerEventId">()({
  name: "card_network_events",
  columns: {
    id: key("id"),
    issuerEventId: text("issuer_event_id"),
    cardId: key("card_id"),
    cardTransactionId: optional(key("card_transaction_id")),
    kind: text("kind"),
    event: json("event"),
    dueAt: optional(instant("due_at")),
    appliedAt: optional(instant("applied_at")),
    outcome: optional(json("outcome")),
    createdAt: instant("created_at")
  },
  primaryKey: ["id"],
  queue: "dueAt",
  unique: { issuerEventId: { column: "issuerEventId" } },
  filters: {
    cardId: eq("cardId"),
    includeApplied: includesDeleted("appliedAt"),
    dueBy: atOrBefore("dueAt")
  }
})

/** The audit log of card reveals (CD-33): the card, the API token that asked, when, until when. Never the URL. */
export const cardReveals = table<CardRevealRecord, CardRevealFilter>()({
  name: "card_reveals",
  columns: {
    id: key("id"),
    cardId: key("card_id"),
    actor: text("actor"),
    requestedAt: instant("requested_at"),
    expiresAt: instant("expires_at")
  },
  primaryKey: ["id"],
  filters: { cardId: eq("cardId") }
})
