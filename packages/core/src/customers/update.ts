/**
 * `PATCH /customers/{customerId}`: PATCH semantics, checked against the customer as it is and again under lock. A
 * change of the contact that embedded-wallet OTP credentials are tied to is a signed retry (CU-14 … CU-18).
 */
import { Effect } from "effect"
import { provisionInternalAccounts } from "../accounts/internal-accounts.ts"
import { supportedCodes } from "../platform/currencies.ts"
import type { EndUserTerms, PlatformConfig } from "../platform/model.ts"
import { Ids } from "../ports/ids.ts"
import { Store } from "../ports/store.ts"
import { EngineConfig } from "../shared/engine-config.ts"
import type { FieldError } from "../shared/errors.ts"
import { nowIso } from "../shared/time.ts"
import { invalidInput } from "../shared/validation.ts"
import { bootstrapCredential } from "../wallet-auth/credentials.ts"
import type { SignedRetryInput } from "../wallet-auth/model.ts"
import { refuseSpentRequest, signedRetry } from "../wallet-auth/signed-retry.ts"
import {
  bootstrapWalletCredentials,
  contactChange,
  refuseTakenContact,
  syncTiedCredentials,
  tiedCredentials
} from "./contact.ts"
import { customerDeleted, customerNotFound, platformCustomerIdTaken, tiedCredentialsChanged } from "./errors.ts"
import type { Customer, UpdateCustomerRequest } from "./model.ts"
import type { CustomersPorts } from "./ports.ts"
import { viewOf } from "./reads.ts"
import { currencyErrors, dedupe, holderName, uniqueConflict } from "./rules.ts"
import { termsError } from "./terms.ts"

/** `effect` with the ports' `Store` and `Ids` in its context (the contact steps and the signed retry take them so). */
const withPorts = <A, E>(ports: CustomersPorts, effect: Effect.Effect<A, E, Store | Ids>) =>
  effect.pipe(Effect.provideService(Store, ports.store), Effect.provideService(Ids, ports.ids))

/** The customer's missing internal accounts; a new embedded wallet with its first credential (W-04). */
const provision = ({ store, ids }: CustomersPorts, customer: Customer, currencies: ReadonlyArray<string>) =>
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

/** The checks of a PATCH against the customer as it is (404, 410, 400, the terms, a taken platformCustomerId). */
const checkUpdate = Effect.fnUntraced(function* (
  store: CustomersPorts["store"],
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
  errors.push(...currencyErrors(req.currencies ?? [], supportedCodes(platform)))
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
  ports: CustomersPorts,
  id: string,
  req: UpdateCustomerRequest,
  platform: PlatformConfig,
  terms: EndUserTerms,
  signed: boolean
) =>
  withPorts(
    ports,
    Effect.gen(function* () {
      const { store } = ports
      const current = yield* checkUpdate(store, yield* store.customers.getForUpdate(id), id, req, platform, terms)
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
      // The statuses a body may carry are ignored: KYC/KYB sets them.
      if (current.customerType === "INDIVIDUAL" && req.customerType === "INDIVIDUAL") {
        next = { ...current, ...req, kycStatus: current.kycStatus, ...changes }
      } else if (current.customerType === "BUSINESS" && req.customerType === "BUSINESS") {
        const businessInfo = { ...current.businessInfo, ...req.businessInfo }
        next = { ...current, ...req, businessInfo, kybStatus: current.kybStatus, ...changes }
      } else {
        return yield* Effect.die(new Error("unreachable: customerType mismatch passed validation"))
      }
      yield* store.customers.update(next).pipe(Effect.catchTag("UniqueViolation", uniqueConflict(next)))
      if (change !== undefined && tied.length > 0) yield* syncTiedCredentials(tied, change, now)
      // New currencies get their internal accounts; accounts of dropped currencies stay.
      yield* provision(ports, next, next.currencies)
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
export const updateCustomer = Effect.fnUntraced(function* (
  ports: CustomersPorts,
  id: string,
  req: UpdateCustomerRequest,
  input: SignedRetryInput = { rawBody: "" }
) {
  const { store } = ports
  // W-38: a spent requestId is 401 before the update is checked (a replayed change finds its requestId used).
  yield* withPorts(ports, refuseSpentRequest({ operation: "UPDATE_CUSTOMER_CONTACT", subjectId: id }, input))
  const platform = yield* ports.config.get()
  const terms = (yield* Effect.service(EngineConfig)).endUserTerms
  const current = yield* checkUpdate(store, yield* store.customers.get(id), id, req, platform, terms)
  const change = contactChange(current, req)
  const tied = change === undefined ? [] : yield* withPorts(ports, tiedCredentials(current, change))
  if (change === undefined || tied.length === 0) {
    return yield* viewOf(store, yield* store.transaction(writeUpdate(ports, id, req, platform, terms, false)))
  }
  yield* withPorts(ports, refuseTakenContact(change, tied))
  const result = yield* withPorts(
    ports,
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
        apply: () => writeUpdate(ports, id, req, platform, terms, true)
      },
      input
    )
  )
  // Nothing here waits on a port: a customer update is never PROCESSING.
  if ("status" in result) return yield* Effect.die(new Error("a customer update cannot be pending"))
  return "payloadToSign" in result ? result : yield* viewOf(store, result)
})
