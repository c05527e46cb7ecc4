import type { Repositories } from "@paycore/core"
import { type Collections, inRange } from "./collection.ts"

export const customerRepositories = (collection: Collections): Pick<Repositories, "customers"> => ({
  customers: collection({
    matches: (c, f) =>
      (f.includeDeleted || !c.isDeleted) &&
      (f.platformCustomerId === undefined || c.platformCustomerId === f.platformCustomerId) &&
      (f.customerType === undefined || c.customerType === f.customerType) &&
      (f.region === undefined || c.region === f.region) &&
      (f.currency === undefined || c.currencies.includes(f.currency)) &&
      (f.umaAddress === undefined || c.umaAddress === f.umaAddress) &&
      inRange(c.createdAt, f.createdAfter, f.createdBefore) &&
      inRange(c.updatedAt, f.updatedAfter, f.updatedBefore),
    // A deleted customer frees its platform id and UMA address.
    unique: {
      platformCustomerId: (c) => (c.isDeleted ? undefined : c.platformCustomerId),
      umaAddress: (c) => (c.isDeleted ? undefined : c.umaAddress)
    }
  })
})
