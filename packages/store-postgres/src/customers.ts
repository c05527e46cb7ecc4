import type { CustomerFilter, Repositories } from "@paycore/core"
import * as codecs from "./codecs.ts"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

const notDeleted = (alias: string) => `NOT ${alias}.is_deleted`

export const customerRepositories = (x: Executor): Pick<Repositories, "customers"> => ({
  customers: makeCollection(
    x,
    codecs.customers,
    (f: CustomerFilter, w) => {
      if (!f.includeDeleted) w.where("NOT is_deleted")
      w.eq("platform_customer_id", f.platformCustomerId)
      w.eq("customer_type", f.customerType)
      w.eq("region", f.region)
      if (f.currency !== undefined) w.where(`currencies @> ARRAY[${w.param(f.currency)}]::text[]`)
      w.eq("uma_address", f.umaAddress)
      w.between("created_at", f.createdAfter, f.createdBefore)
      w.between("updated_at", f.updatedAfter, f.updatedBefore)
    },
    // A deleted customer frees its platform id and UMA address.
    [
      {
        index: "platformCustomerId",
        column: "platform_customer_id",
        constraint: "customers_platform_customer_id_key",
        value: (c) => (c.isDeleted ? undefined : c.platformCustomerId),
        holds: notDeleted
      },
      {
        index: "umaAddress",
        column: "uma_address",
        constraint: "customers_uma_address_key",
        value: (c) => (c.isDeleted ? undefined : c.umaAddress),
        holds: notDeleted
      }
    ]
  )
})
