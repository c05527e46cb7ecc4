/** Reading transactions: one by id, and the filtered, paged list. */
import { Effect } from "effect"
import type { InvalidInput, StoreError } from "../shared/errors.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { invalidCursor, transactionNotFound } from "./errors.ts"
import type { ListTransactionsQuery, Transaction } from "./model.ts"
import type { PaymentPorts } from "./moves.ts"

/** `GET /transactions/{transactionId}` (404 `TRANSACTION_NOT_FOUND`). */
export const getTransaction = ({ store }: PaymentPorts, id: string) =>
  Effect.flatMap(store.transactions.get(id), (record) =>
    record === undefined ? Effect.fail(transactionNotFound(id)) : Effect.succeed(record.transaction)
  )

/** `GET /transactions`: filters of `ListTransactionsQuery`, newest first by default; a foreign cursor is 400. */
export const listTransactions = (
  { store }: PaymentPorts,
  query: ListTransactionsQuery
): Effect.Effect<Page<Transaction>, InvalidInput | StoreError> => {
  const page = pageRequest(query)
  if (page === undefined) return Effect.fail(invalidCursor())
  return Effect.map(
    store.transactions.list(
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
    ),
    (result): Page<Transaction> => {
      const data = result.data.map((r) => r.transaction)
      return result.nextCursor === undefined
        ? { data, hasMore: result.hasMore, totalCount: result.totalCount }
        : { data, hasMore: result.hasMore, totalCount: result.totalCount, nextCursor: result.nextCursor }
    }
  )
}
