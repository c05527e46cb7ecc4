import type { Repositories } from "@paycore/core"
import type { Collections } from "./collection.ts"

/** Internal and external accounts. */
export const accountRepositories = (
  collection: Collections
): Pick<Repositories, "internalAccounts" | "externalAccounts"> => ({
  internalAccounts: collection({
    matches: (a, f) =>
      (f.customerId === undefined || a.customerId === f.customerId) &&
      (f.currency === undefined || a.currency === f.currency) &&
      (f.type === undefined || a.type === f.type)
  }),
  externalAccounts: collection({
    matches: (a, f) =>
      a.status !== "INACTIVE" &&
      (f.customerId === undefined || a.customerId === f.customerId) &&
      (f.currency === undefined || a.currency === f.currency)
  })
})
