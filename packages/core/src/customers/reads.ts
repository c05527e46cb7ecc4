/** The customers' reads: the filtered list and one customer (a deleted one is still readable). */
import { Effect } from "effect"
import { invalidCursor } from "../platform/errors.ts"
import { pageRequest } from "../shared/paging.ts"
import { customerNotFound } from "./errors.ts"
import type { ListCustomersQuery } from "./model.ts"
import type { CustomersPorts } from "./ports.ts"

/** `GET /customers`: every filter of `ListCustomersQuery`; deleted customers only with `isIncludingDeleted=true`. */
export const listCustomers = Effect.fnUntraced(function* (ports: CustomersPorts, query: ListCustomersQuery) {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  return yield* ports.store.customers.list(
    {
      platformCustomerId: query.platformCustomerId,
      customerType: query.customerType,
      region: query.region,
      currency: query.currency,
      umaAddress: query.umaAddress,
      createdAfter: query.createdAfter,
      createdBefore: query.createdBefore,
      updatedAfter: query.updatedAfter,
      updatedBefore: query.updatedBefore,
      includeDeleted: query.isIncludingDeleted === "true"
    },
    page
  )
})

/** `GET /customers/{customerId}`: 404 `USER_NOT_FOUND`. */
export const getCustomer = Effect.fnUntraced(function* (ports: CustomersPorts, id: string) {
  const customer = yield* ports.store.customers.get(id)
  if (customer === undefined) return yield* customerNotFound(id)
  return customer
})
