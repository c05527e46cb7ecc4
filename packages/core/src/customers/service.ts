import { Context, Effect, type Exit, Layer } from "effect"
import { PlatformConfigService } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import type { Conflict, InvalidInput, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { operation } from "../shared/tracing.ts"
import type { SignedRetryChallenge, SignedRetryInput } from "../wallet-auth/model.ts"
import { createCustomer, createManyCustomers } from "./create.ts"
import { deleteCustomer } from "./delete.ts"
import type {
  BulkCreateCustomerRequest,
  CreateCustomerRequest,
  Customer,
  CustomerView,
  ListCustomersQuery,
  UpdateCustomerRequest
} from "./model.ts"
import type { CustomersPorts } from "./ports.ts"
import { getCustomer, listCustomers } from "./reads.ts"
import { hasAcceptedTerms } from "./terms.ts"
import { updateCustomer } from "./update.ts"

// The customers context: create (create.ts, and the bulk import's rows), reads (reads.ts), update with its signed
// retry (update.ts, contact.ts), delete (delete.ts), end-user terms (terms.ts); the rules other contexts share
// (`liveCustomer`, `platformSetCustomerId`) in rules.ts.

export class Customers extends Context.Service<
  Customers,
  {
    /**
     * `POST /customers` (201): also creates one internal account per currency, in the same transaction. A row of
     * a bulk CSV import comes in as a `BulkCreateCustomerRequest` (a business without incorporation date or tax id).
     */
    readonly create: (
      req: CreateCustomerRequest | BulkCreateCustomerRequest
    ) => Effect.Effect<CustomerView, InvalidInput | Refused | Conflict | StoreError>
    /**
     * `create` of each request (the rows of a bulk import), answering each one's exit in order: the platform
     * config read once, and the customers that pass its checks written together, in one transaction (a few
     * statements on PostgreSQL). When that transaction fails (a unique key taken), each is created alone, so each
     * gets its own error and a bad one never stops the others. Requests must not repeat a key among themselves.
     */
    readonly createMany: (
      reqs: ReadonlyArray<CreateCustomerRequest | BulkCreateCustomerRequest>
    ) => Effect.Effect<Array<Exit.Exit<Customer, InvalidInput | Refused | Conflict | StoreError>>, StoreError>
    /**
     * `GET /customers`: every filter of `ListCustomersQuery`; deleted customers only with `isIncludingDeleted=true`.
     * Like every answer of a customer here (`create`, `get`, `update`, `delete`), a business carries its
     * `beneficialOwners` (CU-06): a page's owners are read together, one store list per 100 owners.
     */
    readonly list: (query: ListCustomersQuery) => Effect.Effect<Page<CustomerView>, InvalidInput | StoreError>
    /** `GET /customers/{customerId}`: 404 `USER_NOT_FOUND`; a deleted customer is still readable (`isDeleted: true`). */
    readonly get: (id: string) => Effect.Effect<CustomerView, NotFound | StoreError>
    /**
     * `PATCH /customers/{customerId}` (200): PATCH semantics; 410 `CUSTOMER_DELETED` once deleted. Changing an
     * email or phone number that embedded-wallet OTP credentials are tied to is a signed retry (CU-14 … CU-18):
     * 202 `SignedRetryChallenge` first, then 200 with `input`'s stamp and `Request-Id`.
     */
    readonly update: (
      id: string,
      req: UpdateCustomerRequest,
      input?: SignedRetryInput
    ) => Effect.Effect<CustomerView | SignedRetryChallenge, InvalidInput | NotFound | Refused | Conflict | StoreError>
    /** `DELETE /customers/{customerId}` (200 with the customer): soft delete; again → 410 `CUSTOMER_DELETED`. */
    readonly delete: (id: string) => Effect.Effect<CustomerView, NotFound | Refused | StoreError>
    /** Whether the customer's end-user terms consent is on file (quotes refuse with END_USER_TERMS_NOT_ACCEPTED). */
    readonly hasAcceptedTerms: (id: string) => Effect.Effect<boolean, NotFound | StoreError>
  }
>()("paycore/customers/Customers") {
  static readonly layer = Layer.effect(
    Customers,
    Effect.gen(function* () {
      const ports: CustomersPorts = {
        store: yield* Store,
        ids: yield* Ids,
        config: yield* PlatformConfigService
      }
      return Customers.of({
        create: operation("Customers.create")(function* (req: CreateCustomerRequest | BulkCreateCustomerRequest) {
          return yield* createCustomer(ports, req)
        }),
        createMany: operation("Customers.createMany")(function* (
          reqs: ReadonlyArray<CreateCustomerRequest | BulkCreateCustomerRequest>
        ) {
          return yield* createManyCustomers(ports, reqs)
        }),
        list: operation("Customers.list")(function* (query: ListCustomersQuery) {
          return yield* listCustomers(ports, query)
        }),
        get: operation("Customers.get")(function* (id: string) {
          return yield* getCustomer(ports, id)
        }),
        update: operation("Customers.update")(function* (
          id: string,
          req: UpdateCustomerRequest,
          input?: SignedRetryInput
        ) {
          return yield* updateCustomer(ports, id, req, input)
        }),
        delete: operation("Customers.delete")(function* (id: string) {
          return yield* deleteCustomer(ports, id)
        }),
        hasAcceptedTerms: operation("Customers.hasAcceptedTerms")(function* (id: string) {
          return yield* hasAcceptedTerms(ports, id)
        })
      })
    })
  )
}
