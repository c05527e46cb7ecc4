/**
 * The end-user terms: a create or update may carry the customer's consent to the platform's current version, and
 * quotes ask whether it is on file (END_USER_TERMS_NOT_ACCEPTED otherwise).
 */
import { Effect } from "effect"
import type { Refused } from "../shared/errors.ts"
import { customerNotFound, termsVersionNotFound } from "./errors.ts"
import type { EndUserTermsConsent } from "./model.ts"
import type { CustomersPorts } from "./ports.ts"

/** A consent given to another version than the current one is refused. */
export const termsError = (consent: EndUserTermsConsent | undefined, currentVersion: string): Refused | undefined =>
  consent === undefined || consent.termsVersion === currentVersion
    ? undefined
    : termsVersionNotFound(consent.termsVersion, currentVersion)

/** Whether the customer's end-user terms consent is on file; 404 `USER_NOT_FOUND`. */
export const hasAcceptedTerms = Effect.fnUntraced(function* (ports: CustomersPorts, id: string) {
  const customer = yield* ports.store.customers.get(id)
  if (customer === undefined) return yield* customerNotFound(id)
  return customer.endUserTermsConsent !== undefined
})
