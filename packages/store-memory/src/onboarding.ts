import type { ContactChallenge, Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import type { Collections } from "./collection.ts"
import type { UndoJournal } from "./transaction.ts"

/** Beneficial owners, verifications, contact challenges, documents' metadata and bulk import jobs. */
export const onboardingRepositories = (
  collection: Collections,
  journal: UndoJournal
): Pick<Repositories, "beneficialOwners" | "verifications" | "contactChallenges" | "documents" | "bulkImportJobs"> => {
  const challenges = new Map<string, ContactChallenge>()
  return {
    beneficialOwners: collection({ table: tables.beneficialOwners }),
    verifications: collection({ table: tables.verifications }),
    documents: collection({ table: tables.documents }),
    bulkImportJobs: collection({ table: tables.bulkImportJobs }),
    contactChallenges: {
      get: (key) => Effect.sync(() => challenges.get(key)),
      put: (challenge) => Effect.sync(() => journal.write(challenges, challenge.key, challenge)),
      delete: (key) => Effect.sync(() => journal.write(challenges, key, undefined))
    }
  }
}
