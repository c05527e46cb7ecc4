import { Context, Effect, Exit, Layer, Result } from "effect"
import {
  EMBEDDED_WALLET_CURRENCY,
  newInternalAccounts,
  provisionInternalAccounts
} from "../accounts/internal-accounts.ts"
import { invalidCursor } from "../platform/errors.ts"
import type { EndUserTerms, PlatformConfig } from "../platform/model.ts"
import { PlatformConfigService } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import { Store, type UniqueViolation } from "../ports/store.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { Conflict, FieldError, InvalidInput, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { CustomerId } from "../shared/ids.ts"
import type { Page } from "../shared/paging.ts"
import { pageRequest } from "../shared/paging.ts"
import { nowIso } from "../shared/time.ts"
import { invalidInput } from "../shared/validation.ts"
import { bootstrapCredential } from "../wallet-auth/credentials.ts"
import type { SignedRetryChallenge, SignedRetryInput } from "../wallet-auth/model.ts"
import { signedRetry } from "../wallet-auth/signed-retry.ts"
import {
  bootstrapWalletCredentials,
  contactChange,
  refuseTakenContact,
  syncTiedCredentials,
  tiedCredentials
} from "./contact.ts"
import {
  customerDeleted,
  customerNotFound,
  platformCustomerIdTaken,
  termsVersionNotFound,
  tiedCredentialsChanged,
  umaAddressTaken
} from "./errors.ts"
import type {
  BulkCreateCustomerRequest,
  CreateCustomerRequest,
  Customer,
  EndUserTermsConsent,
  ListCustomersQuery,
  UpdateCustomerRequest
} from "./model.ts"

/** Every currency a customer asks for must be one the platform supports: one error per offending entry. */
const currencyErrors = (currencies: ReadonlyArray<string>, supported: ReadonlyArray<string>): Array<FieldError> =>
  currencies.flatMap((code, i) =>
    supported.includes(code)
      ? []
      : [
          {
            field: `currencies.${i}`,
            constraint: { enum: supported },
            message: `${code} is not a currency this platform supports`
          }
        ]
  )

const termsError = (consent: EndUserTermsConsent | undefined, currentVersion: string): Refused | undefined =>
  consent === undefined || consent.termsVersion === currentVersion
    ? undefined
    : termsVersionNotFound(consent.termsVersion, currentVersion)

/** The name on the customer's funding instructions. */
const holderName = (c: Customer): string =>
  (c.customerType === "INDIVIDUAL" ? c.fullName : c.businessInfo.legalName) ?? c.platformCustomerId

const dedupe = (values: ReadonlyArray<string>): Array<string> => [...new Set(values)]

/** The `platformCustomerId` of a customer created without one: its id's uuid. */
const defaultPlatformCustomerId = (id: CustomerId): string => id.slice("Customer:".length)

/**
 * The customer's `platformCustomerId` when the platform set it (at create or by a PATCH), `undefined` when it is the
 * default made from the random id: what an adapter may steer by (the sandbox card issuer, CD-44).
 */
export const platformSetCustomerId = (customer: Pick<Customer, "id" | "platformCustomerId">): string | undefined =>
  customer.platformCustomerId === defaultPlatformCustomerId(customer.id) ? undefined : customer.platformCustomerId

/** The customer a request names, when it can be acted on: 404 `USER_NOT_FOUND` when unknown, 410 when deleted. */
export const liveCustomer = (
  customer: Customer | undefined,
  id: string
): Effect.Effect<Customer, NotFound | Refused> => {
  if (customer === undefined) return Effect.fail(customerNotFound(id))
  if (customer.isDeleted) return Effect.fail(customerDeleted(id))
  return Effect.succeed(customer)
}

const uniqueConflict = (customer: Customer) => (violation: UniqueViolation) =>
  Effect.fail(
    violation.index === "umaAddress"
      ? umaAddressTaken(customer.umaAddress)
      : platformCustomerIdTaken(customer.platformCustomerId)
  )

/** What a new customer of `req` checks before anything is written: its currencies, or why it is refused. */
const admit = (
  req: CreateCustomerRequest | BulkCreateCustomerRequest,
  platform: PlatformConfig,
  terms: EndUserTerms
): Result.Result<ReadonlyArray<string>, InvalidInput | Refused> => {
  const supported = platform.supportedCurrencies
  const errors = currencyErrors(req.currencies ?? [], supported)
  if (errors.length > 0) return Result.fail(invalidInput(errors))
  const refused = termsError(req.endUserTermsConsent, terms.version)
  if (refused !== undefined) return Result.fail(refused)
  // Without currencies: USD, and the embedded wallet when the platform supports its currency (upstream provisions
  // one for every customer of such a platform).
  return Result.succeed(
    req.currencies === undefined
      ? ["USD", EMBEDDED_WALLET_CURRENCY].filter((c) => supported.includes(c))
      : dedupe(req.currencies)
  )
}

export class Customers extends Context.Service<
  Customers,
  {
    /**
     * `POST /customers` (201): also creates one internal account per currency, in the same transaction. A row of
     * a bulk CSV import comes in as a `BulkCreateCustomerRequest` (a business without incorporation date or tax id).
     */
    readonly create: (
      req: CreateCustomerRequest | BulkCreateCustomerRequest
    ) => Effect.Effect<Customer, InvalidInput | Refused | Conflict | StoreError>
    /**
     * `create` of each request (the rows of a bulk import), answering each one's exit in order: the platform
     * config read once, and the customers that pass its checks written together, in one transaction (a few
     * statements on PostgreSQL). When that transaction fails (a unique key taken), each is created alone, so each
     * gets its own error and a bad one never stops the others. Requests must not repeat a key among themselves.
     */
    readonly createMany: (
      reqs: ReadonlyArray<CreateCustomerRequest | BulkCreateCustomerRequest>
    ) => Effect.Effect<Array<Exit.Exit<Customer, InvalidInput | Refused | Conflict | StoreError>>, StoreError>
    /** `GET /customers`: every filter of `ListCustomersQuery`; deleted customers only with `isIncludingDeleted=true`. */
    readonly list: (query: ListCustomersQuery) => Effect.Effect<Page<Customer>, InvalidInput | StoreError>
    /** `GET /customers/{customerId}`: 404 `USER_NOT_FOUND`; a deleted customer is still readable (`isDeleted: true`). */
    readonly get: (id: string) => Effect.Effect<Customer, NotFound | StoreError>
    /**
     * `PATCH /customers/{customerId}` (200): PATCH semantics; 410 `CUSTOMER_DELETED` once deleted. Changing an
     * email or phone number that embedded-wallet OTP credentials are tied to is a signed retry (CU-14 … CU-18):
     * 202 `SignedRetryChallenge` first, then 200 with `input`'s stamp and `Request-Id`.
     */
    readonly update: (
      id: string,
      req: UpdateCustomerRequest,
      input?: SignedRetryInput
    ) => Effect.Effect<Customer | SignedRetryChallenge, InvalidInput | NotFound | Refused | Conflict | StoreError>
    /** `DELETE /customers/{customerId}` (200 with the customer): soft delete; again → 410 `CUSTOMER_DELETED`. */
    readonly delete: (id: string) => Effect.Effect<Customer, NotFound | Refused | StoreError>
    /** Whether the customer's end-user terms consent is on file (quotes refuse with END_USER_TERMS_NOT_ACCEPTED). */
    readonly hasAcceptedTerms: (id: string) => Effect.Effect<boolean, NotFound | StoreError>
  }
>()("paycore/customers/Customers") {
  static readonly layer = Layer.effect(
    Customers,
    Effect.gen(function* () {
      const store = yield* Store
      const ids = yield* Ids
      const config = yield* PlatformConfigService

      const withPorts = <A, E>(effect: Effect.Effect<A, E, Store | Ids>) =>
        effect.pipe(Effect.provideService(Store, store), Effect.provideService(Ids, ids))

      /** The customer's missing internal accounts; a new embedded wallet with its first credential (W-04). */
      const provision = (customer: Customer, currencies: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const created = yield* provisionInternalAccounts(
            { customerId: customer.id, holderName: holderName(customer) },
            currencies
          )
          for (const account of created) {
            const credential = yield* bootstrapCredential(account, customer)
            if (credential !== undefined) yield* Effect.orDie(store.walletCredentials.insert(credential))
          }
        }).pipe(Effect.provideService(Store, store), Effect.provideService(Ids, ids))

      const list = Effect.fn("Customers.list")(function* (query: ListCustomersQuery) {
        const page = pageRequest(query)
        if (page === undefined) return yield* invalidCursor()
        return yield* store.customers.list(
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

      const get = Effect.fn("Customers.get")(function* (id: string) {
        const customer = yield* store.customers.get(id)
        if (customer === undefined) return yield* customerNotFound(id)
        return customer
      })

      /** The checks of a PATCH against the customer as it is (404, 410, 400, the terms, a taken platformCustomerId). */
      const checkUpdate = Effect.fnUntraced(function* (
        current: Customer | undefined,
        id: string,
        req: UpdateCustomerRequest,
        platform: PlatformConfig,
        terms: EndUserTerms
      ) {
        if (current === undefined) return yield* customerNotFound(id)
        if (current.isDeleted) return yield* customerDeleted(id)
        const errors: Array<FieldError> = []
        if (req.customerType !== current.customerType) {
          errors.push({
            field: "customerType",
            constraint: { enum: [current.customerType] },
            message: `This customer is ${current.customerType}; customerType cannot change`
          })
        }
        if (req.email !== undefined && req.phoneNumber !== undefined) {
          const message = "Update email and phoneNumber in separate requests"
          const constraint = { mutuallyExclusive: ["email", "phoneNumber"] }
          errors.push({ field: "email", constraint, message }, { field: "phoneNumber", constraint, message })
        }
        errors.push(...currencyErrors(req.currencies ?? [], platform.supportedCurrencies))
        if (errors.length > 0) return yield* invalidInput(errors)
        const refused = termsError(req.endUserTermsConsent, terms.version)
        if (refused !== undefined) return yield* refused
        if (req.platformCustomerId !== undefined && req.platformCustomerId !== current.platformCustomerId) {
          const owner = yield* store.customers.findUnique("platformCustomerId", req.platformCustomerId)
          if (owner !== undefined && owner.id !== current.id) {
            return yield* platformCustomerIdTaken(req.platformCustomerId)
          }
        }
        return current
      })

      /**
       * The PATCH written, in the caller's store transaction: the customer re-read under lock and checked again,
       * its credentials tied to a changing contact changed with it (CU-17; only `signed`: an update that did not
       * ask for the wallet's signature refuses to move them), new currencies' accounts, and the first credential
       * of a wallet that had none once an email arrives (W-04).
       */
      const writeUpdate = (
        id: string,
        req: UpdateCustomerRequest,
        platform: PlatformConfig,
        terms: EndUserTerms,
        signed: boolean
      ) =>
        withPorts(
          Effect.gen(function* () {
            const current = yield* checkUpdate(yield* store.customers.getForUpdate(id), id, req, platform, terms)
            const change = contactChange(current, req)
            const tied = change === undefined ? [] : yield* tiedCredentials(current, change)
            if (tied.length > 0 && !signed) return yield* tiedCredentialsChanged()
            if (change !== undefined && tied.length > 0) yield* refuseTakenContact(change, tied)

            const now = yield* nowIso
            const changes = {
              currencies: req.currencies === undefined ? current.currencies : dedupe(req.currencies),
              contactVerification: {
                email: change?.field === "email" ? "PENDING" : current.contactVerification.email,
                phone: change?.field === "phoneNumber" ? "PENDING" : current.contactVerification.phone
              },
              updatedAt: now
            } as const
            let next: Customer
            if (current.customerType === "INDIVIDUAL" && req.customerType === "INDIVIDUAL") {
              next = { ...current, ...req, ...changes }
            } else if (current.customerType === "BUSINESS" && req.customerType === "BUSINESS") {
              next = { ...current, ...req, businessInfo: { ...current.businessInfo, ...req.businessInfo }, ...changes }
            } else {
              return yield* Effect.die(new Error("unreachable: customerType mismatch passed validation"))
            }
            yield* store.customers.update(next).pipe(Effect.catchTag("UniqueViolation", uniqueConflict(next)))
            if (change !== undefined && tied.length > 0) yield* syncTiedCredentials(tied, change, now)
            // New currencies get their internal accounts; accounts of dropped currencies stay.
            yield* provision(next, next.currencies)
            if (change?.field === "email") yield* bootstrapWalletCredentials(next, change)
            return next
          })
        )

      /**
       * PATCH semantics. A change of the email (phone number) that OTP credentials of the customer's embedded
       * wallet are tied to goes through the wallet's signed retry (CU-14 … CU-18): the first call answers 202 and
       * binds the exact body and the tied credentials; the retry stamped by a session of the wallet writes the
       * customer and the credentials together.
       */
      const update = Effect.fn("Customers.update")(function* (
        id: string,
        req: UpdateCustomerRequest,
        input: SignedRetryInput = { rawBody: "" }
      ) {
        const platform = yield* config.get()
        const terms = (yield* Effect.service(EngineConfig)).endUserTerms
        const current = yield* checkUpdate(yield* store.customers.get(id), id, req, platform, terms)
        const change = contactChange(current, req)
        const tied = change === undefined ? [] : yield* withPorts(tiedCredentials(current, change))
        if (change === undefined || tied.length === 0) {
          return yield* store.transaction(writeUpdate(id, req, platform, terms, false))
        }
        yield* withPorts(refuseTakenContact(change, tied))
        const result = yield* withPorts(
          signedRetry(
            {
              operation: "UPDATE_CUSTOMER_CONTACT",
              // A customer has one embedded wallet (the USDB account): its sessions sign.
              accountId: tied[0]!.accountId,
              subjectId: id,
              begin: Effect.succeed({
                signer: { kind: "ANY_SESSION" } as const,
                parameters: { customerId: id, [change.field]: change.to }
              }),
              // Re-read at the retry with the customer locked, in the transaction that writes the update.
              credentialSet: Effect.gen(function* () {
                const locked = yield* store.customers.getForUpdate(id)
                if (locked === undefined) return []
                return (yield* tiedCredentials(locked, change)).map((c) => c.id)
              }),
              setChanged: tiedCredentialsChanged(),
              apply: () => writeUpdate(id, req, platform, terms, true)
            },
            input
          )
        )
        // Nothing here waits on a port: a customer update is never PROCESSING.
        if ("status" in result) return yield* Effect.die(new Error("a customer update cannot be pending"))
        return result
      })

      const remove = Effect.fn("Customers.delete")(function* (id: string) {
        return yield* store.transaction(
          Effect.gen(function* () {
            const current = yield* store.customers.getForUpdate(id)
            if (current === undefined) return yield* customerNotFound(id)
            if (current.isDeleted) return yield* customerDeleted(id)
            const now = yield* nowIso
            const deleted: Customer = { ...current, isDeleted: true, updatedAt: now }
            yield* Effect.orDie(store.customers.update(deleted))
            return deleted
          })
        )
      })

      const hasAcceptedTerms = Effect.fn("Customers.hasAcceptedTerms")(function* (id: string) {
        const customer = yield* store.customers.get(id)
        if (customer === undefined) return yield* customerNotFound(id)
        return customer.endUserTermsConsent !== undefined
      })

      return Customers.of({ ...(yield* makeCreation()), list, get, update, delete: remove, hasAcceptedTerms })
    })
  )
}

/** `create` and `createMany`: a customer and its internal accounts, written in one transaction. */
const makeCreation = Effect.fnUntraced(function* () {
  const store = yield* Store
  const ids = yield* Ids
  const config = yield* PlatformConfigService

  /** The records of an admitted customer: the customer and its internal accounts, one per currency. */
  const build = Effect.fnUntraced(function* (
    req: CreateCustomerRequest | BulkCreateCustomerRequest,
    currencies: ReadonlyArray<string>,
    platform: PlatformConfig
  ) {
    const id: CustomerId = yield* ids.make("Customer")
    const uuid = id.slice("Customer:".length)
    const platformCustomerId = req.platformCustomerId ?? defaultPlatformCustomerId(id)
    const umaAddress = req.umaAddress ?? `$u${uuid.replaceAll("-", "")}@${platform.umaDomain}`
    const now = yield* nowIso
    const common = {
      id,
      platformCustomerId,
      currencies,
      umaAddress,
      contactVerification: { email: "PENDING", phone: "PENDING" } as const,
      isDeleted: false,
      createdAt: now,
      updatedAt: now
    }
    const customer: Customer =
      req.customerType === "INDIVIDUAL"
        ? { ...req, ...common, kycStatus: "UNVERIFIED" }
        : { ...req, ...common, kybStatus: "UNVERIFIED", kycStatus: "UNVERIFIED" }
    const accounts = yield* newInternalAccounts({ customerId: id, holderName: holderName(customer) }, currencies).pipe(
      Effect.provideService(Ids, ids)
    )
    // W-04: an embedded wallet starts with an EMAIL_OTP credential tied to the customer's email.
    const credentials = (yield* Effect.forEach(accounts, (account) => bootstrapCredential(account, customer)).pipe(
      Effect.provideService(Ids, ids)
    )).filter((c) => c !== undefined)
    return { customer, accounts, credentials }
  })

  /** An admitted customer, written in its own transaction. */
  const write = (
    req: CreateCustomerRequest | BulkCreateCustomerRequest,
    currencies: ReadonlyArray<string>,
    platform: PlatformConfig
  ) =>
    store.transaction(
      Effect.gen(function* () {
        const { customer, accounts, credentials } = yield* build(req, currencies, platform)
        // The insert checks the unique keys (platformCustomerId first, then umaAddress): no lookups before it.
        yield* store.customers.insert(customer).pipe(Effect.catchTag("UniqueViolation", uniqueConflict(customer)))
        // Fresh ids: no key to be taken.
        yield* Effect.orDie(store.internalAccounts.insertMany(accounts))
        if (credentials.length > 0) yield* Effect.orDie(store.walletCredentials.insertMany(credentials))
        return customer
      })
    )

  const create = Effect.fn("Customers.create")(function* (req: CreateCustomerRequest | BulkCreateCustomerRequest) {
    const platform = yield* config.get()
    const currencies = admit(req, platform, (yield* Effect.service(EngineConfig)).endUserTerms)
    if (Result.isFailure(currencies)) return yield* currencies.failure
    return yield* write(req, currencies.success, platform)
  })

  const createMany = Effect.fn("Customers.createMany")(function* (
    reqs: ReadonlyArray<CreateCustomerRequest | BulkCreateCustomerRequest>
  ) {
    const platform = yield* config.get()
    const terms = (yield* Effect.service(EngineConfig)).endUserTerms
    const admitted = reqs.map((req) => admit(req, platform, terms))
    const passed = reqs.flatMap((req, at) => {
      const currencies = admitted[at]!
      return Result.isSuccess(currencies) ? [{ req, currencies: currencies.success }] : []
    })
    const together = yield* Effect.exit(
      store.transaction(
        Effect.gen(function* () {
          const built = yield* Effect.forEach(passed, ({ req, currencies }) => build(req, currencies, platform))
          yield* store.customers.insertMany(built.map((b) => b.customer))
          yield* Effect.orDie(store.internalAccounts.insertMany(built.flatMap((b) => b.accounts)))
          const credentials = built.flatMap((b) => b.credentials)
          if (credentials.length > 0) yield* Effect.orDie(store.walletCredentials.insertMany(credentials))
          return built.map((b) => b.customer)
        })
      )
    )
    const written = Exit.isSuccess(together)
      ? together.value.map((customer) => Exit.succeed(customer))
      : yield* Effect.forEach(passed, ({ req, currencies }) => Effect.exit(write(req, currencies, platform)))
    let next = 0
    return admitted.map(
      (currencies): Exit.Exit<Customer, InvalidInput | Refused | Conflict | StoreError> =>
        Result.isSuccess(currencies) ? written[next++]! : Exit.fail(currencies.failure)
    )
  })

  return { create, createMany }
})
