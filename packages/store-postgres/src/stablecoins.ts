import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** Stablecoin provider account links, registered stablecoins and their operations. */
export const stablecoinRepositories = (
  x: Executor
): Pick<Repositories, "stablecoinProviderAccounts" | "stablecoins" | "stablecoinOperations"> => ({
  stablecoinProviderAccounts: makeCollection(x, tables.stablecoinProviderAccounts),
  stablecoins: makeCollection(x, tables.stablecoins),
  stablecoinOperations: makeCollection(x, tables.stablecoinOperations)
})
