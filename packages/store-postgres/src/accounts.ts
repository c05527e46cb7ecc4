import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import { rowCodecOf } from "./codec.ts"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

const customerOfInternalAccountSql = `SELECT * FROM customers WHERE id = (SELECT customer_id FROM internal_accounts WHERE id = $1)`
const customerCodec = rowCodecOf(tables.customers)

/** Internal and external accounts, and the ownership challenges of self-custody wallets. */
export const accountRepositories = (
  x: Executor
): Pick<Repositories, "internalAccounts" | "externalAccounts" | "ownershipChallenges"> => {
  const internalAccounts = makeCollection(x, tables.internalAccounts)
  return {
    internalAccounts: {
      ...internalAccounts,
      // Both statements go out together: the customer is found by the account's id, so neither waits for the other.
      getWithCustomer: (id) =>
        Effect.map(
          Effect.all([internalAccounts.get(id), x.query(customerOfInternalAccountSql, [id])], { concurrency: 2 }),
          ([account, customer]) =>
            account === undefined
              ? undefined
              : { account, customer: customer.length === 0 ? undefined : customerCodec.decode(customer[0]!) }
        )
    },
    externalAccounts: makeCollection(x, tables.externalAccounts),
    ownershipChallenges: makeCollection(x, tables.ownershipChallenges)
  }
}
