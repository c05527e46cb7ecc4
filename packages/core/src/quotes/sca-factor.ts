import { LINKABLE_FACTORS } from "../sca/challenges.ts"
import type { ScaFactor } from "../sca/model.ts"
import type { InvalidInput } from "../shared/errors.ts"
import { scaFactorNotLinkable } from "./errors.ts"

/**
 * S-08: the factor a request asks a payment's SCA challenge in (`scaFactor` of `POST /quotes` and of execute) must
 * carry dynamic linking: TOTP is 400, whoever the customer is, before anything is read.
 */
export const refuseUnlinkable = (factor: ScaFactor | undefined): InvalidInput | undefined =>
  factor === undefined || LINKABLE_FACTORS.includes(factor) ? undefined : scaFactorNotLinkable()
