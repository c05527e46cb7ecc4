import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

export const customerRepositories = (x: Executor): Pick<Repositories, "customers"> => ({
  customers: makeCollection(x, tables.customers)
})
