import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** Internal and external accounts. */
export const accountRepositories = (
  collection: Collections
): Pick<Repositories, "internalAccounts" | "externalAccounts"> => ({
  internalAccounts: collection({ table: tables.internalAccounts }),
  externalAccounts: collection({ table: tables.externalAccounts })
})
