/**
 * `POST /customers` and the bulk import's rows: a customer and its internal accounts (one per currency, an embedded
 * wallet with its first credential), written in one transaction.
 */
import { Effect, Exit, Result } from "effect"
import { EMBEDDED_WALLET_CURRENCY, newInternalAccounts } from "../accounts/internal-accounts.ts"
import { supportedCodes } from "../platform/currencies.ts"
import type { EndUserTerms, PlatformConfig } from "../platform/model.ts"
import { Ids } from "../ports/ids.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { Conflict, InvalidInput, Refused, StoreError } from "../shared/errors.ts"
import type { CustomerId } from "../shared/ids.ts"
import { nowIso } from "../shared/time.ts"
import { invalidInput } from "../shared/validation.ts"
import { bootstrapCredential } from "../wallet-auth/credentials.ts"
import type { BulkCreateCustomerRequest, CreateCustomerRequest, Customer } from "./model.ts"
import type { CustomersPorts } from "./ports.ts"
import { currencyErrors, dedupe, defaultPlatformCustomerId, holderName, uniqueConflict } from "./rules.ts"
import { termsError } from "./terms.ts"
import { customerView } from "./views.ts"

/** What a new customer of `req` checks before anything is written: its currencies, or why it is refused. */
const admit = (
  req: CreateCustomerRequest | BulkCreateCustomerRequest,
  platform: PlatformConfig,
  terms: EndUserTerms
): Result.Result<ReadonlyArray<string>, InvalidInput | Refused> => {
  const supported = supportedCodes(platform)
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

/** The records of an admitted customer: the customer and its internal accounts, one per currency. */
const build = Effect.fnUntraced(function* (
  ids: CustomersPorts["ids"],
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
  { store, ids }: CustomersPorts,
  req: CreateCustomerRequest | BulkCreateCustomerRequest,
  currencies: ReadonlyArray<string>,
  platform: PlatformConfig
) =>
  store.transaction(
    Effect.gen(function* () {
      const { customer, accounts, credentials } = yield* build(ids, req, currencies, platform)
      // The insert checks the unique keys (platformCustomerId first, then umaAddress): no lookups before it.
      yield* store.customers.insert(customer).pipe(Effect.catchTag("UniqueViolation", uniqueConflict(customer)))
      // Fresh ids: no key to be taken.
      yield* Effect.orDie(store.internalAccounts.insertMany(accounts))
      if (credentials.length > 0) yield* Effect.orDie(store.walletCredentials.insertMany(credentials))
      return customer
    })
  )

/** `POST /customers` (201): also creates one internal account per currency, in the same transaction. */
export const createCustomer = Effect.fnUntraced(function* (
  ports: CustomersPorts,
  req: CreateCustomerRequest | BulkCreateCustomerRequest
) {
  const platform = yield* ports.config.get()
  const currencies = admit(req, platform, (yield* Effect.service(EngineConfig)).endUserTerms)
  if (Result.isFailure(currencies)) return yield* currencies.failure
  // A new business has no beneficial owners yet (they are added to it): no read.
  return customerView(yield* write(ports, req, currencies.success, platform), [])
})

/**
 * The rows of a bulk import: the customers that pass their checks written together in one transaction, or each
 * alone when that transaction fails; each one's exit in order.
 */
export const createManyCustomers = Effect.fnUntraced(function* (
  ports: CustomersPorts,
  reqs: ReadonlyArray<CreateCustomerRequest | BulkCreateCustomerRequest>
) {
  const { store } = ports
  const platform = yield* ports.config.get()
  const terms = (yield* Effect.service(EngineConfig)).endUserTerms
  const admitted = reqs.map((req) => admit(req, platform, terms))
  const passed = reqs.flatMap((req, at) => {
    const currencies = admitted[at]!
    return Result.isSuccess(currencies) ? [{ req, currencies: currencies.success }] : []
  })
  const together = yield* Effect.exit(
    store.transaction(
      Effect.gen(function* () {
        const built = yield* Effect.forEach(passed, ({ req, currencies }) =>
          build(ports.ids, req, currencies, platform)
        )
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
    : yield* Effect.forEach(passed, ({ req, currencies }) => Effect.exit(write(ports, req, currencies, platform)))
  let next = 0
  return admitted.map(
    (currencies): Exit.Exit<Customer, InvalidInput | Refused | Conflict | StoreError> =>
      Result.isSuccess(currencies) ? written[next++]! : Exit.fail(currencies.failure)
  )
})
