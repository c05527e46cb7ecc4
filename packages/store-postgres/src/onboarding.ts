import type {
  BeneficialOwnerFilter,
  BulkImportJobFilter,
  DocumentFilter,
  Repositories,
  VerificationFilter
} from "@paycore/core"
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
  beneficialOwners: makeCollection(x, codecs.beneficialOwners, (f: BeneficialOwnerFilter, w) => {
    w.eq("customer_id", f.customerId)
  }),
  verifications: makeCollection(x, codecs.verifications, (f: VerificationFilter, w) => {
    w.eq("customer_id", f.customerId)
    w.eq("verification_status", f.verificationStatus)
  }),
  documents: makeCollection(x, codecs.documents, (f: DocumentFilter, w) => {
    if (!f.includeDeleted) w.where("deleted_at IS NULL")
    w.eq("document_holder", f.documentHolder)
  }),
  bulkImportJobs: makeCollection(x, codecs.bulkImportJobs, (f: BulkImportJobFilter, w) => {
    if (f.statuses !== undefined) w.where(`status = ANY(${w.param(f.statuses)}::text[])`)
  }),
  contactChallenges: {
    get: (key) =>
      Effect.map(x.query(`SELECT * FROM contact_challenges WHERE key = $1`, [key]), (rows) =>
        rows.length === 0 ? undefined : codecs.contactChallenges.decode(rows[0] as any)
      ),
    put: (challenge) => x.run(putChallengeSql, codecs.contactChallenges.encode(challenge)),
    delete: (key) => x.run(`DELETE FROM contact_challenges WHERE key = $1`, [key])
  }
})
