/** Reading transactions: one by id, and the filtered, paged list. */
import { Effect } from "effect"
import { type Page, pageRequest } from "../shared/paging.ts"
import { invalidCursor, transactionNotFound } from "./errors.ts"
import type { ListTransactionsQuery, Transaction } from "./model.ts"
import type { PaymentPorts } from "./moves.ts"

/** `GET /transactions/{transactionId}` (404 `TRANSACTION_NOT_FOUND`). */
export const getTransaction = Effect.fnUntraced(function* ({ store }: PaymentPorts, id: string) {
  const record = yield* store.transactions.get(id)
  if (record === undefined) return yield* Effect.fail(transactionNotFound(id))
  return record.transaction
})

/** `GET /transactions`: filters of `ListTransactionsQuery`, newest first by default; a foreign cursor is 400. */
export const listTransactions = Effect.fnUntraced(function* ({ store }: PaymentPorts, query: ListTransactionsQuery) {
  const page = pageRequest(query)
  if (page === undefined) return yield* Effect.fail(invalidCursor())
  const result = yield* store.transactions.list(
    {
      customerId: query.customerId,
      platformCustomerId: query.platformCustomerId,
      accountIdentifier: query.accountIdentifier,
      status: query.status,
      type: query.type,
      reference: query.reference,
      createdAfter: query.startDate,
      createdBefore: query.endDate
    },
    page
  )
  const data = result.data.map((r) => r.transaction)
  return (
    result.nextCursor === undefined
      ? { data, hasMore: result.hasMore, totalCount: result.totalCount }
      : { data, hasMore: result.hasMore, totalCount: result.totalCount, nextCursor: result.nextCursor }
  ) satisfies Page<Transaction>
})
