import type { TransactionFilter, TransactionRecord } from "@paycore/core"
import {
  after,
  alsoAt,
  atOrBefore,
  before,
  bigint,
  double,
  eq,
  eqAny,
  generated,
  instant,
  integer,
  json,
  key,
  oneOf,
  optional,
  table,
  text
} from "./describe.ts"

/** `TransactionRecord`: the public transaction's fields, then the bookkeeping ones; the record's id is its transaction's. */
export const transactions = table<TransactionRecord, TransactionFilter>()({
  name: "transactions",
  columns: {
    id: alsoAt(key("id"), "transaction.id"),
    "transaction.status": text("status"),
    "transaction.type": text("type"),
    "transaction.direction": text("direction"),
    "transaction.source": json("source"),
    "transaction.destination": json("destination"),
    // `source.accountId` and `destination.accountId`, for the `accountIdentifier` filter.
    "transaction.source.accountId": generated(optional(text("source_account_id"))),
    "transaction.destination.accountId": generated(optional(text("destination_account_id"))),
    "transaction.sentAmount.amount": bigint("sent_amount"),
    "transaction.sentAmount.currency": json("sent_currency"),
    "transaction.receivedAmount.amount": bigint("received_amount"),
    "transaction.receivedAmount.currency": json("received_currency"),
    "transaction.createdAt": instant("created_at"),
    "transaction.updatedAt": instant("updated_at"),
    "transaction.customerId": optional(text("customer_id")),
    "transaction.platformCustomerId": optional(text("platform_customer_id")),
    "transaction.agentId": optional(text("agent_id")),
    "transaction.exchangeRate": optional(double("exchange_rate")),
    "transaction.quoteId": optional(text("quote_id")),
    "transaction.description": optional(text("description")),
    "transaction.failureReason": optional(text("failure_reason")),
    "transaction.pendingReason": optional(text("pending_reason")),
    "transaction.refund": optional(json("refund")),
    "transaction.counterpartyInformation": optional(json("counterparty_information")),
    "transaction.fees": optional(bigint("fees")),
    "transaction.platformFees": optional(bigint("platform_fees")),
    "transaction.paymentRail": optional(text("payment_rail")),
    "transaction.railSelectionMode": optional(text("rail_selection_mode")),
    "transaction.expectedSettlementAt": optional(instant("expected_settlement_at")),
    "transaction.settlementTimelineSeconds": optional(bigint("settlement_timeline_seconds")),
    "transaction.remittanceInformation": optional(text("remittance_information")),
    "transaction.reconciliationInstructions.reference": optional(text("reconciliation_reference")),
    "transaction.reconciliationInstructions.transactionHash": optional(text("reconciliation_transaction_hash")),
    "transaction.settledAt": optional(instant("settled_at")),
    "transaction.receiptDeliveryConfirmedAt": optional(instant("receipt_delivery_confirmed_at")),
    state: text("state"),
    accountId: optional(text("account_id")),
    railReference: optional(text("rail_reference")),
    dueAt: optional(instant("due_at")),
    attempts: optional(integer("attempts")),
    stalledAt: optional(instant("stalled_at")),
    decisionReason: optional(text("decision_reason")),
    transfer: optional(text("transfer"))
  },
  primaryKey: ["id"],
  queue: "dueAt",
  // A payment's status and due instant change at each step; indexed on the row, every step would write each of its
  // indexes again (no heap-only update).
  lookups: { name: "transaction_lookups", columns: ["transaction.status", "dueAt"] },
  filters: {
    customerId: eq("transaction.customerId"),
    platformCustomerId: eq("transaction.platformCustomerId"),
    accountIdentifier: eqAny("transaction.source.accountId", "transaction.destination.accountId"),
    status: eq("transaction.status"),
    type: eq("transaction.type"),
    reference: eq("transaction.reconciliationInstructions.reference"),
    createdAfter: after("transaction.createdAt"),
    createdBefore: before("transaction.createdAt"),
    states: oneOf("state"),
    dueBy: atOrBefore("dueAt")
  }
})

/** A transaction's looked-up columns (`transactions.lookups`): written by the store, no record of the port. */
export interface TransactionLookup {
  readonly id: string
  readonly status: string
  readonly dueAt?: string | undefined
}

/** The narrow table of `transactions.lookups`: the same columns, under the same names, indexed. */
export const transactionLookups = table<TransactionLookup>()({
  name: "transaction_lookups",
  columns: {
    id: key("id"),
    status: text("status"),
    dueAt: optional(instant("due_at"))
  },
  primaryKey: ["id"]
})
