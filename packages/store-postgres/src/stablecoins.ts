import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { makeCollection, makeQueue } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** Stablecoin provider account links, registered stablecoins and their operations. */
export const stablecoinRepositories = (
  x: Executor
): Pick<Repositories, "stablecoinProviderAccounts" | "stablecoins" | "stablecoinOperations"> => ({
  stablecoinProviderAccounts: makeCollection(x, tables.stablecoinProviderAccounts),
  stablecoins: makeCollection(x, tables.stablecoins),
  stablecoinOperations: makeQueue(x, tables.stablecoinOperations)
})
