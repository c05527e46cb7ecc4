import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import type { Collections } from "./collection.ts"

/** SCA challenges, login sessions, each customer's failed-proof count and lock, enrolled factors and their resets, trusted
 * beneficiaries. */
export const scaRepositories = (
  collection: Collections
): Pick<
  Repositories,
  "scaChallenges" | "scaSessions" | "scaSecurity" | "scaFactors" | "trustedBeneficiaries" | "scaFactorResets"
> => ({
  scaChallenges: collection({ table: tables.scaChallenges }),
  scaSessions: collection({ table: tables.scaSessions }),
  scaSecurity: collection({ table: tables.scaSecurity }),
  scaFactors: collection({ table: tables.scaFactors }),
  trustedBeneficiaries: collection({ table: tables.trustedBeneficiaries }),
  scaFactorResets: collection({ table: tables.scaFactorResets })
})
