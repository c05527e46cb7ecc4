import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** SCA challenges, login sessions, each customer's failed-proof count and lock, enrolled factors and their resets. */
export const scaRepositories = (
  collection: Collections
): Pick<Repositories, "scaChallenges" | "scaSessions" | "scaSecurity" | "scaFactors" | "scaFactorResets"> => ({
  scaChallenges: collection({ table: tables.scaChallenges }),
  scaSessions: collection({ table: tables.scaSessions }),
  scaSecurity: collection({ table: tables.scaSecurity }),
  scaFactors: collection({ table: tables.scaFactors }),
  scaFactorResets: collection({ table: tables.scaFactorResets })
})
