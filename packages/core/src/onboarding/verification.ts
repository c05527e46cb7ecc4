import { Effect } from "effect"
import type { BeneficialOwner, Customer } from "../customers/model.ts"
import { liveCustomer } from "../customers/rules.ts"
import { customerView } from "../customers/views.ts"
import { invalidCursor } from "../platform/errors.ts"
import { scanAll } from "../platform/paging.ts"
import type { KycProviderError } from "../ports/kyc.ts"
import { pageRequest } from "../shared/paging.ts"
import { nowIso } from "../shared/time.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { pendingContactVerification } from "./contact-verification.ts"
import {
  changedDuringReview,
  contactVerificationIncomplete,
  providerUnavailable,
  verificationDecided,
  verificationNotFound
} from "./errors.ts"
import { beneficialOwnerKycMachine, customerKybMachine, customerKycMachine, decideKyc } from "./machine.ts"
import type {
  CreateVerificationRequest,
  KycLink,
  KycLinkRequest,
  ListVerificationsQuery,
  Verification
} from "./model.ts"
import type { OnboardingPorts } from "./ports.ts"

// A customer's KYC / KYB (`Onboarding`), one use case per file: hosted links and packet reviews (here), beneficial
// owners (beneficial-owners.ts), contact verification (contact-verification.ts).

/** A call to the KYC provider, its failure answered as `providerUnavailable` (other errors pass through). */
export const fromProvider = <A, E extends { readonly _tag: string }, R>(
  effect: Effect.Effect<A, E | KycProviderError, R>
) =>
  Effect.catchIf(
    effect,
    (e): e is KycProviderError => e._tag === "KycProviderError",
    (e) => Effect.fail(providerUnavailable(e.message))
  )

const requireContactVerified = (ports: OnboardingPorts, customer: Customer) => {
  const pending = pendingContactVerification(customer, ports.kyc.contactVerification(customer))
  return pending.length === 0 ? Effect.void : Effect.fail(contactVerificationIncomplete(customer.id, pending))
}

const ownersOf = (ports: OnboardingPorts, customerId: string) =>
  scanAll((page) => ports.store.beneficialOwners.list({ customerId }, page))

/** The documents on file for these holders, as the packet review sees them. */
const documentsOf = (ports: OnboardingPorts, holders: ReadonlyArray<string>) =>
  Effect.map(
    Effect.forEach(holders, (documentHolder) =>
      scanAll((page) => ports.store.documents.list({ documentHolder, includeDeleted: false }, page))
    ),
    (lists) => lists.flat()
  )

/** `POST /customers/{customerId}/kyc-link`: a fresh single-use hosted link from the KYC provider. */
export const createKycLink = Effect.fnUntraced(function* (
  ports: OnboardingPorts,
  customerId: string,
  req: KycLinkRequest
) {
  const { store, kyc } = ports
  const customer = yield* liveCustomer(yield* store.customers.get(customerId), customerId)
  yield* requireContactVerified(ports, customer)
  const grant = yield* fromProvider(kyc.createLink({ customer, redirectUri: req.redirectUri }))
  const link: KycLink = {
    kycUrl: grant.kycUrl,
    expiresAt: grant.expiresAt,
    provider: grant.provider,
    ...(grant.token === undefined ? {} : { token: grant.token })
  }
  return link
})

// ---- verifications ----

/** `POST /verifications`: the provider reviews the customer's packet; its verdict is a new Verification. */
export const submitVerification = Effect.fnUntraced(function* (ports: OnboardingPorts, req: CreateVerificationRequest) {
  const { store, ids, config, kyc } = ports
  const customerId = req.customerId
  const platform = yield* config.get()
  const customer = yield* liveCustomer(yield* store.customers.get(customerId), customerId)
  if (customerKycMachine.terminal.includes(customer.kycStatus)) {
    return yield* verificationDecided(customerId, customer.kycStatus)
  }
  yield* requireContactVerified(ports, customer)
  const owners = customer.customerType === "BUSINESS" ? yield* ownersOf(ports, customerId) : []
  const documents = yield* documentsOf(ports, [customerId, ...owners.map((o) => o.id)])
  // The provider reviews outside the store transaction (a real one is a remote call); the verdict is
  // applied only to the customer and owners it saw.
  const review = yield* fromProvider(
    kyc.review({
      customer,
      beneficialOwners: owners,
      documents: documents.map(({ document: d }) => ({
        id: d.id,
        documentHolder: d.documentHolder,
        documentType: d.documentType
      })),
      settings: {
        isRegulatedFinancialInstitution: platform.isRegulatedFinancialInstitution,
        skipVerificationPaperwork: platform.skipVerificationPaperwork
      }
    })
  )
  const decisionOf = new Map(review.decisions.map((d) => [d.subjectId, d.decision]))

  return yield* store.transaction(
    Effect.gen(function* () {
      const current = yield* store.customers.getForUpdate(customerId)
      if (current === undefined || current.updatedAt !== customer.updatedAt) {
        return yield* changedDuringReview(customerId)
      }
      const lockedOwners: Array<BeneficialOwner> = []
      for (const owner of owners) {
        const locked = yield* store.beneficialOwners.getForUpdate(owner.id)
        if (locked === undefined || locked.updatedAt !== owner.updatedAt) {
          return yield* changedDuringReview(customerId)
        }
        lockedOwners.push(locked)
      }
      // An owner added meanwhile: the page's count says so, without reading the owners again.
      const ownersNow = yield* store.beneficialOwners.list({ customerId }, { limit: 1, sortOrder: "asc" })
      if (ownersNow.totalCount !== owners.length) return yield* changedDuringReview(customerId)

      const now = yield* nowIso
      // The documents the provider saw are submitted: from now on they can be replaced, not deleted.
      for (const seen of documents) {
        const document = yield* store.documents.getForUpdate(seen.id)
        if (document === undefined || document.deletedAt !== undefined) return yield* changedDuringReview(customerId)
        if (document.submittedAt === undefined) {
          yield* Effect.orDie(store.documents.update({ ...document, submittedAt: now }))
        }
      }
      const verification: Verification = {
        id: yield* ids.make("Verification"),
        customerId: current.id,
        verificationStatus: review.verificationStatus,
        errors: review.errors,
        createdAt: now,
        updatedAt: now
      }
      yield* Effect.orDie(store.verifications.insert(verification))
      yield* emitSteps(store, ids, [`VERIFICATION.${verification.verificationStatus}`], customerId, verification, now)

      const ownersAfter: Array<BeneficialOwner> = []
      for (const owner of lockedOwners) {
        const move = decideKyc(beneficialOwnerKycMachine, owner.kycStatus, decisionOf.get(owner.id))
        const after = move === undefined ? owner : { ...owner, kycStatus: move.to, updatedAt: now }
        if (move !== undefined) yield* Effect.orDie(store.beneficialOwners.update(after))
        ownersAfter.push(after)
      }

      const machine = current.customerType === "INDIVIDUAL" ? customerKycMachine : customerKybMachine
      const move = decideKyc(machine, current.kycStatus, decisionOf.get(current.id))
      if (move !== undefined) {
        const next: Customer =
          current.customerType === "INDIVIDUAL"
            ? { ...current, kycStatus: move.to, updatedAt: now }
            : { ...current, kybStatus: move.to, kycStatus: move.to, updatedAt: now }
        yield* Effect.orDie(store.customers.update(next))
        // The customer as the customer routes answer it: a business with its owners (CU-06).
        yield* emitSteps(store, ids, move.emits, customerId, customerView(next, ownersAfter), now)
      }
      return verification
    })
  )
})

/** `GET /verifications`: filters `customerId`, `verificationStatus`; paged. */
export const listVerifications = Effect.fnUntraced(function* (ports: OnboardingPorts, query: ListVerificationsQuery) {
  const page = pageRequest(query)
  if (page === undefined) return yield* invalidCursor()
  return yield* ports.store.verifications.list(
    { customerId: query.customerId, verificationStatus: query.verificationStatus },
    page
  )
})

/** `GET /verifications/{verificationId}`: 404 `REFERENCE_NOT_FOUND`. */
export const getVerification = Effect.fnUntraced(function* (ports: OnboardingPorts, id: string) {
  const verification = yield* ports.store.verifications.get(id)
  if (verification === undefined) return yield* verificationNotFound(id)
  return verification
})
