import type { Repositories } from "@paycore/core"
import * as tables from "@paycore/store-tables"
import { Effect } from "effect"
import { rowCodecOf } from "./codec.ts"
import { makeCollection } from "./collection.ts"
import { upsertSql } from "./queries.ts"
import type { Executor } from "./statements.ts"

const challengeCodec = rowCodecOf(tables.contactChallenges)
const putChallengeSql = upsertSql(challengeCodec, ["key"])

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
        rows.length === 0 ? undefined : challengeCodec.decode(rows[0]!)
      ),
    put: (challenge) => x.run(putChallengeSql, challengeCodec.params(challenge)),
    delete: (key) => x.run(`DELETE FROM contact_challenges WHERE key = $1`, [key])
  }
})
