import type { Customer, CustomerFilter, Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import type { Collections, MemoryCollection } from "./collection.ts"

/**
 * Internal and external accounts, and the ownership challenges of self-custody wallets; `customerRows` for the read
 * of an account with its customer.
 */
export const accountRepositories = (
  collection: Collections,
  customerRows: MemoryCollection<Customer, CustomerFilter>
): Pick<Repositories, "internalAccounts" | "externalAccounts" | "ownershipChallenges"> => {
  const internalAccountRows = collection({ table: tables.internalAccounts })
  return {
    internalAccounts: {
      ...internalAccountRows,
      getWithCustomer: (id) =>
        Effect.sync(() => {
          const account = internalAccountRows.getNow(id)
          if (account === undefined) return undefined
          const customerId = account.customerId
          return { account, customer: customerId === undefined ? undefined : customerRows.getNow(customerId) }
        })
    },
    externalAccounts: collection({ table: tables.externalAccounts }),
    ownershipChallenges: collection({ table: tables.ownershipChallenges })
  }
}
