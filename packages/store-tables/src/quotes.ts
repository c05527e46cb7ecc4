import type { LookupFilter, LookupRecord, QuoteFilter, QuoteRecord } from "@paycore/core"
import { alsoAt, atOrBefore, bigint, double, eq, instant, json, key, optional, table, text } from "./describe.ts"

/** `QuoteRecord`: the quote's fields, then `pricing`'s; the record's id is its quote's. */
export const quotes = table<QuoteRecord, QuoteFilter, "transactionId">()({
  name: "quotes",
  columns: {
    id: alsoAt(key("id"), "quote.id"),
    "quote.status": text("status"),
    "quote.createdAt": instant("created_at"),
    "quote.expiresAt": instant("expires_at"),
    "quote.source": json("source"),
    "quote.destination": json("destination"),
    "quote.sendingCurrency": json("sending_currency"),
    "quote.receivingCurrency": json("receiving_currency"),
    "quote.totalSendingAmount": bigint("total_sending_amount"),
    "quote.totalReceivingAmount": bigint("total_receiving_amount"),
    "quote.exchangeRate": double("exchange_rate"),
    "quote.feesIncluded": bigint("fees_included"),
    "quote.platformFeesIncluded": bigint("platform_fees_included"),
    "quote.transactionId": text("transaction_id"),
    "quote.paymentInstructions": json("payment_instructions"),
    "quote.rateDetails": json("rate_details"),
    "quote.customerId": optional(text("customer_id")),
    "quote.description": optional(text("description")),
    "quote.remittanceInformation": optional(text("remittance_information")),
    "quote.purposeOfPayment": optional(text("purpose_of_payment")),
    "quote.scaChallenge": optional(json("sca_challenge")),
    "pricing.netSendingAmount": bigint("net_sending_amount"),
    "pricing.serviceFee": bigint("service_fee"),
    "pricing.platformFee": bigint("platform_fee"),
    "pricing.minorRate": text("minor_rate"),
    scaFactor: optional(text("sca_factor")),
    scaAuthorizedAt: optional(instant("sca_authorized_at")),
    agentId: optional(text("agent_id"))
  },
  primaryKey: ["id"],
  queue: "quote.expiresAt",
  unique: { transactionId: { column: "quote.transactionId" } },
  filters: {
    status: eq("quote.status"),
    expiresAtOrBefore: atOrBefore("quote.expiresAt")
  }
})

/**
 * Receiver lookups (Q-03, C-23, Q-48): a quote names one by its `lookupId` (the primary key) until `expiresAt`.
 * `receiver` is the UMA address or the external account id, by `destinationType`.
 */
export const lookups = table<LookupRecord, LookupFilter>()({
  name: "receiver_lookups",
  columns: {
    id: key("id"),
    destinationType: text("destination_type"),
    receiver: text("receiver"),
    requiredPayerDataFields: json("required_payer_data_fields"),
    customerId: optional(key("customer_id")),
    createdAt: instant("created_at"),
    expiresAt: instant("expires_at")
  },
  primaryKey: ["id"],
  filters: { customerId: eq("customerId") }
})
