/**
 * The customers' rules shared by their use cases and by other contexts, pure or a plain Effect over given data: the
 * currencies a customer may ask for, the name on its accounts, its default `platformCustomerId`, and whether a
 * customer a request names can be acted on.
 */
import { Effect } from "effect"
import type { UniqueViolation } from "../ports/store.ts"
import type { FieldError, NotFound, Refused } from "../shared/errors.ts"
import type { CustomerId } from "../shared/ids.ts"
import { customerDeleted, customerNotFound, platformCustomerIdTaken, umaAddressTaken } from "./errors.ts"
import type { Customer } from "./model.ts"

/** Every currency a customer asks for must be one the platform supports: one error per offending entry. */
export const currencyErrors = (
  currencies: ReadonlyArray<string>,
  supported: ReadonlyArray<string>
): Array<FieldError> =>
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

/** The name on the customer's funding instructions. */
export const holderName = (c: Customer): string =>
  (c.customerType === "INDIVIDUAL" ? c.fullName : c.businessInfo.legalName) ?? c.platformCustomerId

export const dedupe = (values: ReadonlyArray<string>): Array<string> => [...new Set(values)]

/** The `platformCustomerId` of a customer created without one: its id's uuid. */
export const defaultPlatformCustomerId = (id: CustomerId): string => id.slice("Customer:".length)

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

export const uniqueConflict = (customer: Customer) => (violation: UniqueViolation) =>
  Effect.fail(
    violation.index === "umaAddress"
      ? umaAddressTaken(customer.umaAddress)
      : platformCustomerIdTaken(customer.platformCustomerId)
  )

/**
 * C-49: a customer whose KYC was rejected or is on hold can neither send nor receive (403 `USER_NOT_READY`); one not
 * yet verified can, as the sandbox lets every new customer pay.
 */
export const isNotReady = (customer: { readonly kycStatus: string }): boolean =>
  customer.kycStatus === "REJECTED" || customer.kycStatus === "HOLD"
