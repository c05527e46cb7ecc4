import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

export const customerRepositories = (collection: Collections): Pick<Repositories, "customers"> => ({
  customers: collection({ table: tables.customers })
})
