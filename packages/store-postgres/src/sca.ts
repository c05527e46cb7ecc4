import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

/** SCA challenges, login sessions, each customer's failed-proof count and lock, enrolled factors and their resets, trusted
 * beneficiaries. */
export const scaRepositories = (
  x: Executor
): Pick<
  Repositories,
  "scaChallenges" | "scaSessions" | "scaSecurity" | "scaFactors" | "trustedBeneficiaries" | "scaFactorResets"
> => ({
  scaChallenges: makeCollection(x, tables.scaChallenges),
  scaSessions: makeCollection(x, tables.scaSessions),
  scaSecurity: makeCollection(x, tables.scaSecurity),
  scaFactors: makeCollection(x, tables.scaFactors),
  trustedBeneficiaries: makeCollection(x, tables.trustedBeneficiaries),
  scaFactorResets: makeCollection(x, tables.scaFactorResets)
})
