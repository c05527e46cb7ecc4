import { assert } from "@effect/vitest"
import {
  type BeneficialOwner,
  type BeneficialOwnerFilter,
  type BulkImportJobFilter,
  type BulkImportJobRecord,
  type DocumentFilter,
  type DocumentRecord,
  Store,
  type Verification,
  type VerificationFilter
} from "@paycore/core"
import { Effect } from "effect"
import { expectFiltered, expectList } from "./assertions.ts"
import { type It, type ListFn, makeScope } from "./ids.ts"
import {
  bulkImportJobFull,
  bulkImportJobMinimal,
  contactChallenge,
  documentFull,
  documentMinimal,
  ownerFull,
  ownerMinimal,
  verificationFull,
  verificationMinimal
} from "./records.ts"

export const beneficialOwnerTests = (it: It) => {
  it.effect("list filters: customerId, customerIds (CU-06: a page of customers' owners in one list)", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<BeneficialOwner, BeneficialOwnerFilter> = store.beneficialOwners.list
      const s = makeScope()
      const other = makeScope()
      const o1 = ownerFull(s)
      const o2 = ownerMinimal(s)
      const p1 = ownerFull(other)
      for (const o of [o1, o2, p1]) yield* store.beneficialOwners.insert(o)

      yield* expectList(list, { customerId: s.customerId }, [o1, o2])
      yield* expectList(list, { customerId: other.customerId }, [p1])
      yield* expectList(list, { customerId: makeScope().customerId }, [])
      yield* expectList(list, { customerIds: [s.customerId, other.customerId] }, [o1, o2, p1])
      yield* expectList(list, { customerIds: [other.customerId, makeScope().customerId] }, [p1])
      yield* expectList(list, { customerIds: [] }, [])
      yield* expectFiltered(list, {}, () => true, { included: [o1, o2, p1], excluded: [] })
    })
  )
}

export const verificationTests = (it: It) => {
  it.effect("list filters: customerId, verificationStatus", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<Verification, VerificationFilter> = store.verifications.list
      const s = makeScope()
      const other = makeScope()
      const v1 = verificationFull(s)
      const v2 = verificationMinimal(s)
      const v3: Verification = { ...verificationMinimal(s), verificationStatus: "PENDING_MANUAL_REVIEW" }
      const w1 = verificationFull(other)
      for (const v of [v1, v2, v3, w1]) yield* store.verifications.insert(v)

      yield* expectList(list, { customerId: s.customerId }, [v1, v2, v3])
      yield* expectList(list, { customerId: s.customerId, verificationStatus: "RESOLVE_ERRORS" }, [v1])
      yield* expectList(list, { customerId: s.customerId, verificationStatus: "APPROVED" }, [v2])
      yield* expectList(list, { customerId: other.customerId, verificationStatus: "APPROVED" }, [])
      yield* expectFiltered(
        list,
        { verificationStatus: "PENDING_MANUAL_REVIEW" },
        (v) => v.verificationStatus === "PENDING_MANUAL_REVIEW",
        { included: [v3], excluded: [v1, v2, w1] }
      )
    })
  )
}

export const documentTests = (it: It) => {
  it.effect("list filters: documentHolder; deleted documents only with includeDeleted", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<DocumentRecord, DocumentFilter> = store.documents.list
      const s = makeScope()
      const other = makeScope()
      const d1 = documentMinimal(s)
      const deleted = documentFull(s)
      const d2: DocumentRecord = { ...documentMinimal(s), submittedAt: s.next() }
      const e1 = documentMinimal(other)
      for (const d of [d1, deleted, d2, e1]) yield* store.documents.insert(d)

      yield* expectList(list, { documentHolder: s.customerId, includeDeleted: false }, [d1, d2])
      yield* expectList(list, { documentHolder: s.customerId, includeDeleted: true }, [d1, deleted, d2])
      yield* expectList(list, { documentHolder: other.customerId, includeDeleted: false }, [e1])
      yield* expectList(list, { documentHolder: makeScope().customerId, includeDeleted: true }, [])
      yield* expectFiltered(list, { includeDeleted: false }, (d) => d.deletedAt === undefined, {
        included: [d1, d2, e1],
        excluded: [deleted]
      })
    })
  )
}

export const bulkImportJobTests = (it: It) => {
  it.effect("list filters: statuses (any of them); an update moves a job between statuses", () =>
    Effect.gen(function* () {
      const store = yield* Store
      const list: ListFn<BulkImportJobRecord, BulkImportJobFilter> = store.bulkImportJobs.list
      const s = makeScope()
      const pending = bulkImportJobMinimal(s)
      const done = bulkImportJobFull(s)
      const running: BulkImportJobRecord = { ...bulkImportJobMinimal(s), job: { ...pending.job, status: "PROCESSING" } }
      for (const j of [pending, done, running]) yield* store.bulkImportJobs.insert(j)

      const isRunning = (j: BulkImportJobRecord) => j.job.status === "PENDING" || j.job.status === "PROCESSING"
      yield* expectFiltered(list, { statuses: ["PENDING", "PROCESSING"] }, isRunning, {
        included: [pending, running],
        excluded: [done]
      })
      yield* expectFiltered(list, { statuses: [] }, () => false, { included: [], excluded: [pending, done, running] })
      const finished: BulkImportJobRecord = {
        ...running,
        job: { ...running.job, status: "FAILED", completedAt: s.next() },
        updatedAt: s.next()
      }
      yield* store.bulkImportJobs.update(finished)
      assert.deepStrictEqual(yield* store.bulkImportJobs.get(running.id), finished)
      yield* expectFiltered(list, { statuses: ["FAILED"] }, (j) => j.job.status === "FAILED", {
        included: [finished],
        excluded: [pending, done]
      })
    })
  )
}

export const contactChallengeTests = (it: It) => {
  it.effect(
    "contact challenges: get of an unknown key is undefined; put, replace, delete; a rollback undoes them",
    () =>
      Effect.gen(function* () {
        const store = yield* Store
        const s = makeScope()
        const email = contactChallenge(s, "EMAIL")
        const phone = contactChallenge(s, "PHONE")
        assert.isUndefined(yield* store.contactChallenges.get(email.key))
        yield* store.contactChallenges.put(email)
        yield* store.transaction(store.contactChallenges.put(phone))
        assert.deepStrictEqual(yield* store.contactChallenges.get(email.key), email)
        assert.deepStrictEqual(yield* store.contactChallenges.get(phone.key), phone)

        const tried = { ...email, attempts: 3 }
        yield* store.contactChallenges.put(tried)
        assert.deepStrictEqual(yield* store.contactChallenges.get(email.key), tried, "put replaces")
        const resent = { ...contactChallenge(s, "EMAIL"), sentTo: "new@example.com" }
        yield* store.contactChallenges.put(resent)
        assert.deepStrictEqual(yield* store.contactChallenges.get(email.key), resent)

        const failed = yield* store
          .transaction(
            Effect.gen(function* () {
              yield* store.contactChallenges.delete(email.key)
              yield* store.contactChallenges.put({ ...phone, attempts: 5 })
              assert.isUndefined(yield* store.contactChallenges.get(email.key), "the transaction reads its own delete")
              return yield* Effect.fail("abort" as const)
            })
          )
          .pipe(Effect.flip)
        assert.strictEqual(failed, "abort")
        assert.deepStrictEqual(yield* store.contactChallenges.get(email.key), resent, "the delete is undone")
        assert.deepStrictEqual(yield* store.contactChallenges.get(phone.key), phone, "the put is undone")

        yield* store.transaction(store.contactChallenges.delete(email.key))
        assert.isUndefined(yield* store.contactChallenges.get(email.key))
        yield* store.contactChallenges.delete(email.key)
        yield* store.contactChallenges.delete(`${makeScope().customerId}/EMAIL`)
        assert.deepStrictEqual(yield* store.contactChallenges.get(phone.key), phone)
      })
  )
}
