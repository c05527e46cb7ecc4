import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import * as codecs from "./codecs.ts"
import { makeCollection } from "./collection.ts"
import type { Executor } from "./statements.ts"

const challengeColumns = codecs.contactChallenges.columns
const putChallengeSql =
  `INSERT INTO contact_challenges (${challengeColumns.join(", ")}) ` +
  `VALUES (${challengeColumns.map((_, i) => `$${i + 1}`).join(", ")}) ON CONFLICT (key) DO UPDATE SET ` +
  challengeColumns
    .filter((c) => c !== "key")
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(", ")

/** Beneficial owners, verifications, contact challenges, documents' metadata and bulk import jobs. */
export const onboardingRepositories = (
  x: Executor
): Pick<Repositories, "beneficialOwners" | "verifications" | "contactChallenges" | "documents" | "bulkImportJobs"> => ({
  beneficialOwners: makeCollection(x, tables.beneficialOwners),
  verifications: makeCollection(x, tables.verifications),
  documents: makeCollection(x, tables.documents),
  bulkImportJobs: makeCollection(x, tables.bulkImportJobs),
  contactChallenges: {
    get: (key) =>
      Effect.map(x.query(`SELECT * FROM contact_challenges WHERE key = $1`, [key]), (rows) =>
        rows.length === 0 ? undefined : codecs.contactChallenges.decode(rows[0] as any)
      ),
    put: (challenge) => x.run(putChallengeSql, codecs.contactChallenges.encode(challenge)),
    delete: (key) => x.run(`DELETE FROM contact_challenges WHERE key = $1`, [key])
  }
})
