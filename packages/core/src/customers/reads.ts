/** The customers' reads: the filtered list and one customer (a deleted one is still readable), with their owners. */
import { Effect } from "effect"
import { invalidCursor } from "../platform/errors.ts"
import { scanAll } from "../platform/paging.ts"
import { type Page, pageRequest } from "../shared/paging.ts"
import { customerNotFound } from "./errors.ts"
import type { BeneficialOwner, Customer, CustomerView, ListCustomersQuery } from "./model.ts"
import type { CustomersPorts } from "./ports.ts"
import { customerView } from "./views.ts"

/**
 * `customers` as answered (CU-06): the businesses among them with their beneficial owners, read together (one store
 * list per 100 owners, whatever the number of customers); individuals need no read.
 */
export const withOwners = Effect.fnUntraced(function* (
  store: CustomersPorts["store"],
  customers: ReadonlyArray<Customer>
) {
  const businesses = customers.filter((c) => c.customerType === "BUSINESS").map((c) => c.id)
  const owners =
    businesses.length === 0
      ? []
      : yield* scanAll((page) => store.beneficialOwners.list({ customerIds: businesses }, page))
  const byCustomer = new Map<string, Array<BeneficialOwner>>()
  for (const owner of owners) {
    const list = byCustomer.get(owner.customerId)
    if (list === undefined) byCustomer.set(owner.customerId, [owner])
    else list.push(owner)
  }
  return customers.map((customer) => customerView(customer, byCustomer.get(customer.id) ?? []))
})

/** One customer as answered: a business with its beneficial owners (CU-06). */
export const viewOf = Effect.fnUntraced(function* (store: CustomersPorts["store"], customer: Customer) {
  const owners =
    customer.customerType === "BUSINESS"
      ? yield* scanAll((page) => store.beneficialOwners.list({ customerId: customer.id }, page))
      : []
  return customerView(customer, owners)
})

/** `GET /customers`: every filter of `ListCustomersQuery`; deleted customers only with `isIncludingDeleted=true`. */
export const listCustomers = Effect.fnUntraced(function* (ports: CustomersPorts, query: ListCustomersQuery) {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  const rows = yield* ports.store.customers.list(
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
  const result: Page<CustomerView> = { ...rows, data: yield* withOwners(ports.store, rows.data) }
  return result
})

/** `GET /customers/{customerId}`: 404 `USER_NOT_FOUND`. */
export const getCustomer = Effect.fnUntraced(function* (ports: CustomersPorts, id: string) {
  const customer = yield* ports.store.customers.get(id)
  if (customer === undefined) return yield* customerNotFound(id)
  return yield* viewOf(ports.store, customer)
})
