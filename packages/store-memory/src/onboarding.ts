import type { ContactChallenge, Repositories } from "@paycore/core"
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
    beneficialOwners: collection({
      matches: (o, f) => f.customerId === undefined || o.customerId === f.customerId
    }),
    verifications: collection({
      matches: (v, f) =>
        (f.customerId === undefined || v.customerId === f.customerId) &&
        (f.verificationStatus === undefined || v.verificationStatus === f.verificationStatus)
    }),
    documents: collection({
      matches: (d, f) =>
        (f.includeDeleted || d.deletedAt === undefined) &&
        (f.documentHolder === undefined || d.document.documentHolder === f.documentHolder)
    }),
    bulkImportJobs: collection({
      matches: (j, f) => f.statuses === undefined || f.statuses.includes(j.job.status)
    }),
    contactChallenges: {
      get: (key) => Effect.sync(() => challenges.get(key)),
      put: (challenge) => Effect.sync(() => journal.write(challenges, challenge.key, challenge)),
      delete: (key) => Effect.sync(() => journal.write(challenges, key, undefined))
    }
  }
}
