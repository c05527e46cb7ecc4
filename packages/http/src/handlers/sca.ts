import { Sca } from "@paycore/core"
import { Effect } from "effect"
import type { GroupHandlers } from "./shared.ts"

/** The `sca` group: a customer's factors, logins, security events and factor resets. */
export const scaHandlers = Effect.fnUntraced(function* () {
  const sca = yield* Sca
  const handlers: GroupHandlers<"sca"> = {
    listFactors: ({ query }) => sca.listFactors(query.customerId),
    startFactorEnrollment: ({ query, payload }) => sca.startFactorEnrollment(query.customerId, payload),
    confirmFactorEnrollment: ({ query, payload }) => sca.confirmFactorEnrollment(query.customerId, payload),
    deleteFactor: ({ params, query }) => sca.deleteFactor(query.customerId, params.credentialId),
    startLogin: ({ query, payload }) => sca.startLogin(query.customerId, payload),
    completeLogin: ({ query, payload }) => sca.completeLogin(query.customerId, payload),
    recordSecurityEvent: ({ query, payload }) => sca.recordSecurityEvent(query.customerId, payload),
    startFactorReset: ({ query, payload }) => sca.startFactorReset(query.customerId, payload),
    getFactorReset: ({ params, query }) => sca.getFactorReset(query.customerId, params.resetId),
    completeFactorReset: ({ params, query, payload }) =>
      sca.completeFactorReset(query.customerId, params.resetId, payload)
  }
  return handlers
})
