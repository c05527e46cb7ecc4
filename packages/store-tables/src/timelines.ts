import type { TransitionFilter, TransitionRecord } from "@paycore/core"
import { eq, instant, key, optional, table, text } from "./describe.ts"

/**
 * The moves of payments' and card transactions' machines (issue 18: `GET /transactions/{transactionId}/timeline`).
 * One table for both: `transaction_id`'s prefix (`Transaction:` or `CardTransaction:`) says which machine, so no
 * subject column. A timeline lists one transaction's rows in id order.
 */
export const transitions = table<TransitionRecord, TransitionFilter>()({
  name: "transaction_transitions",
  columns: {
    id: key("id"),
    transactionId: key("transaction_id"),
    from: optional(text("from_state")),
    state: text("state"),
    event: optional(text("event")),
    at: instant("at")
  },
  primaryKey: ["id"],
  filters: { transactionId: eq("transactionId") }
})
