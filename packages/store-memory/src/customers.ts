import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** Customers (their rows also read by the quotes' combined read, see quotes.ts). */
export const customerRepositories = (collection: Collections) => ({
  customers: collection({ table: tables.customers })
})
