import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** Stablecoin provider account links, registered stablecoins and their operations. */
export const stablecoinRepositories = (
  collection: Collections
): Pick<Repositories, "stablecoinProviderAccounts" | "stablecoins" | "stablecoinOperations"> => ({
  stablecoinProviderAccounts: collection({ table: tables.stablecoinProviderAccounts }),
  stablecoins: collection({ table: tables.stablecoins }),
  stablecoinOperations: collection({ table: tables.stablecoinOperations })
})
