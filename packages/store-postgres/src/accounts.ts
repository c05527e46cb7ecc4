import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** Internal and external accounts, and the ownership challenges of self-custody wallets. */
export const accountRepositories = (
  x: Executor
): Pick<Repositories, "internalAccounts" | "externalAccounts" | "ownershipChallenges"> => ({
  internalAccounts: makeCollection(x, tables.internalAccounts),
  externalAccounts: makeCollection(x, tables.externalAccounts),
  ownershipChallenges: makeCollection(x, tables.ownershipChallenges)
})
