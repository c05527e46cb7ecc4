import type { ExternalAccountFilter, InternalAccountFilter, Repositories } from "@paycore/core"
import * as codecs from "./codecs.ts"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** Internal and external accounts. */
export const accountRepositories = (x: Executor): Pick<Repositories, "internalAccounts" | "externalAccounts"> => ({
  internalAccounts: makeCollection(x, codecs.internalAccounts, (f: InternalAccountFilter, w) => {
    w.eq("customer_id", f.customerId)
    w.eq("currency", f.currency)
    w.eq("type", f.type)
  }),
  externalAccounts: makeCollection(x, codecs.externalAccounts, (f: ExternalAccountFilter, w) => {
    w.where("status <> 'INACTIVE'")
    w.eq("customer_id", f.customerId)
    w.eq("currency", f.currency)
  })
})
