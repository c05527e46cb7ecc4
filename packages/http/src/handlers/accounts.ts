import { Accounts, OwnershipVerification, Sca } from "@paycore/core"
import { Effect } from "effect"
import type { GroupHandlers } from "./shared.ts"

/** The `accounts` group: internal and external accounts, their postings, ownership and beneficiary trust. */
export const accountsHandlers = Effect.fnUntraced(function* () {
  const accounts = yield* Accounts
  const ownership = yield* OwnershipVerification
  const sca = yield* Sca
  const handlers: GroupHandlers<"accounts"> = {
    listInternal: ({ query }) => accounts.listInternal(query),
    listCustomerInternal: ({ query }) => accounts.listInternal(query),
    listCustomerInternalPostings: ({ params, query }) => accounts.listPostings("CUSTOMER", params.accountId, query),
    createExternal: ({ payload }) => accounts.createExternal(payload),
    listExternal: ({ query }) => accounts.listExternal(query),
    getExternal: ({ params }) => accounts.getExternal(params.externalAccountId),
    deleteExternal: ({ params }) => accounts.deleteExternal(params.externalAccountId),
    challengeOwnership: ({ params, payload }) => ownership.challenge(params.externalAccountId, payload),
    verifyOwnership: ({ params, payload }) => ownership.verify(params.externalAccountId, payload),
    listPlatformInternal: ({ query }) => accounts.listPlatformInternal(query),
    listPlatformInternalPostings: ({ params, query }) => accounts.listPostings("PLATFORM", params.accountId, query),
    listPlatformExternal: ({ query }) => accounts.listPlatformExternal(query),
    createPlatformExternal: ({ payload }) => accounts.createPlatformExternal(payload),
    getPlatformExternal: ({ params }) => accounts.getPlatformExternal(params.externalAccountId),
    deletePlatformExternal: ({ params }) => accounts.deletePlatformExternal(params.externalAccountId),
    challengePlatformOwnership: ({ params, payload }) =>
      ownership.challenge(params.externalAccountId, payload, "PLATFORM"),
    verifyPlatformOwnership: ({ params, payload }) => ownership.verify(params.externalAccountId, payload, "PLATFORM"),
    startBeneficiaryTrust: ({ params }) => sca.startBeneficiaryTrust(params.externalAccountId),
    confirmBeneficiaryTrust: ({ params, payload }) => sca.confirmBeneficiaryTrust(params.externalAccountId, payload),
    startBeneficiaryUntrust: ({ params }) => sca.startBeneficiaryUntrust(params.externalAccountId),
    confirmBeneficiaryUntrust: ({ params, payload }) => sca.confirmBeneficiaryUntrust(params.externalAccountId, payload)
  }
  return handlers
})
