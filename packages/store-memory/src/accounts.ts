import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** Internal and external accounts, and the ownership challenges of self-custody wallets. */
export const accountRepositories = (
  collection: Collections
): Pick<Repositories, "internalAccounts" | "externalAccounts" | "ownershipChallenges"> => ({
  internalAccounts: collection({ table: tables.internalAccounts }),
  externalAccounts: collection({ table: tables.externalAccounts }),
  ownershipChallenges: collection({ table: tables.ownershipChallenges })
})
