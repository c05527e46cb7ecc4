import { Context, Effect, Layer } from "effect"
import type { Customer } from "../customers/model.ts"
import { liveCustomer } from "../customers/service.ts"
import { invalidCursor } from "../platform/errors.ts"
import { scanAll } from "../platform/paging.ts"
import { PlatformConfigService } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import { KycProvider, type KycProviderError } from "../ports/kyc.ts"
import { Store } from "../ports/store.ts"
import type { Conflict, InvalidInput, LimitExceeded, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { pageRequest } from "../shared/paging.ts"
import { nowIso } from "../shared/time.ts"
import { emitSteps } from "../webhooks/emit.ts"
import { makeBeneficialOwners } from "./beneficial-owners.ts"
import { makeContactVerification, pendingContactVerification } from "./contact-verification.ts"
import {
  changedDuringReview,
  contactVerificationIncomplete,
  providerUnavailable,
  verificationDecided,
  verificationNotFound
} from "./errors.ts"
import { beneficialOwnerKycMachine, customerKybMachine, customerKycMachine, decideKyc } from "./machine.ts"
import type {
  BeneficialOwner,
  ContactChannel,
  CreateBeneficialOwnerRequest,
  CreateVerificationRequest,
  KycLink,
  KycLinkRequest,
  ListBeneficialOwnersQuery,
  ListVerificationsQuery,
  UpdateBeneficialOwnerRequest,
  Verification
} from "./model.ts"

// The `Onboarding` service: a customer's KYC / KYB, one use case per file: hosted links and packet reviews (here),
// beneficial owners (beneficial-owners.ts), contact verification (contact-verification.ts).

/** A call to the KYC provider, its failure answered as `providerUnavailable` (other errors pass through). */
export const fromProvider = <A, E extends { readonly _tag: string }, R>(
  effect: Effect.Effect<A, E | KycProviderError, R>
) =>
  Effect.catchIf(
    effect,
    (e): e is KycProviderError => e._tag === "KycProviderError",
    (e) => Effect.fail(providerUnavailable(e.message))
  )

export class Onboarding extends Context.Service<
  Onboarding,
  {
    /**
     * `POST /customers/{customerId}/kyc-link` (201): a fresh single-use hosted link from the KYC provider; the
     * status does not change. 404 `USER_NOT_FOUND`, 410 `CUSTOMER_DELETED`, 409 while required contact
     * verification is incomplete.
     */
    readonly createKycLink: (
      customerId: string,
      req: KycLinkRequest
    ) => Effect.Effect<KycLink, NotFound | Refused | Conflict | StoreError>
    /**
     * `POST /verifications` (200): the provider reviews the customer's packet (customer data, beneficial owners,
     * documents); the verdict is a new Verification, and the provider's decisions move the customer's and owners'
     * statuses through their machines, with `VERIFICATION.<STATUS>` and `CUSTOMER.KYC_*` / `CUSTOMER.KYB_*`
     * webhooks in the same store transaction. An APPROVED or REJECTED customer is refused (400).
     */
    readonly submitVerification: (
      req: CreateVerificationRequest
    ) => Effect.Effect<Verification, InvalidInput | NotFound | Refused | Conflict | StoreError>
    /** `GET /verifications`: filters `customerId`, `verificationStatus`; paged. */
    readonly listVerifications: (
      query: ListVerificationsQuery
    ) => Effect.Effect<Page<Verification>, InvalidInput | StoreError>
    /** `GET /verifications/{verificationId}`: 404 `REFERENCE_NOT_FOUND`. */
    readonly getVerification: (id: string) => Effect.Effect<Verification, NotFound | StoreError>
    /** `POST /beneficial-owners` (201): for BUSINESS customers only; `kycStatus` starts `UNVERIFIED`. */
    readonly createBeneficialOwner: (
      req: CreateBeneficialOwnerRequest
    ) => Effect.Effect<BeneficialOwner, InvalidInput | NotFound | Refused | StoreError>
    /** `GET /beneficial-owners?customerId=`: paged. */
    readonly listBeneficialOwners: (
      query: ListBeneficialOwnersQuery
    ) => Effect.Effect<Page<BeneficialOwner>, InvalidInput | StoreError>
    /** `GET /beneficial-owners/{beneficialOwnerId}`: 404 `REFERENCE_NOT_FOUND`. */
    readonly getBeneficialOwner: (id: string) => Effect.Effect<BeneficialOwner, NotFound | StoreError>
    /** `PATCH /beneficial-owners/{beneficialOwnerId}` (200): supplied fields only; never changes `kycStatus`. */
    readonly updateBeneficialOwner: (
      id: string,
      req: UpdateBeneficialOwnerRequest
    ) => Effect.Effect<BeneficialOwner, NotFound | Refused | StoreError>
    /**
     * `POST /customers/{customerId}/verify-email` / `verify-phone` (204): sends (or re-sends) a one-time code
     * through the Notifier. 409 when the provider does not require the channel or it is VERIFIED already; 429
     * `RATE_LIMITED` (with `retryAfterSeconds`) within `CONTACT_CODE_RESEND_SECONDS` of the last code.
     */
    readonly sendContactCode: (
      customerId: string,
      channel: ContactChannel
    ) => Effect.Effect<void, NotFound | Refused | Conflict | LimitExceeded | StoreError>
    /**
     * `POST .../verify-email/confirm` / `verify-phone/confirm` (200 with the customer): the channel becomes
     * `VERIFIED`. A wrong, expired or void code is 400 `INVALID_INPUT` on `code`; the code is void after
     * `CONTACT_CODE_MAX_ATTEMPTS` wrong tries.
     */
    readonly confirmContactCode: (
      customerId: string,
      channel: ContactChannel,
      code: string
    ) => Effect.Effect<Customer, InvalidInput | NotFound | Refused | Conflict | StoreError>
  }
>()("paycore/onboarding/Onboarding") {
  static readonly layer = Layer.effect(
    Onboarding,
    Effect.gen(function* () {
      return Onboarding.of({
        ...(yield* makeVerifications()),
        ...(yield* makeBeneficialOwners()),
        ...(yield* makeContactVerification())
      })
    })
  )
}

/** Hosted KYC links and packet reviews (verifications), over the ports of the layer that builds them. */
const makeVerifications = Effect.fnUntraced(function* () {
  const store = yield* Store
  const ids = yield* Ids
  const config = yield* PlatformConfigService
  const kyc = yield* KycProvider

  const requireContactVerified = (customer: Customer) => {
    const pending = pendingContactVerification(customer, kyc.contactVerification(customer))
    return pending.length === 0 ? Effect.void : Effect.fail(contactVerificationIncomplete(customer.id, pending))
  }

  const ownersOf = (customerId: string) => scanAll((page) => store.beneficialOwners.list({ customerId }, page))

  /** The documents on file for these holders, as the packet review sees them. */
  const documentsOf = (holders: ReadonlyArray<string>) =>
    Effect.map(
      Effect.forEach(holders, (documentHolder) =>
        scanAll((page) => store.documents.list({ documentHolder, includeDeleted: false }, page))
      ),
      (lists) => lists.flat()
    )

  const createKycLink = Effect.fn("Onboarding.createKycLink")(function* (customerId: string, req: KycLinkRequest) {
    const customer = yield* liveCustomer(yield* store.customers.get(customerId), customerId)
    yield* requireContactVerified(customer)
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

  const submitVerification = Effect.fn("Onboarding.submitVerification")(function* (req: CreateVerificationRequest) {
    const customerId = req.customerId
    const platform = yield* config.get()
    const customer = yield* liveCustomer(yield* store.customers.get(customerId), customerId)
    if (customerKycMachine.terminal.includes(customer.kycStatus)) {
      return yield* verificationDecided(customerId, customer.kycStatus)
    }
    yield* requireContactVerified(customer)
    const owners = customer.customerType === "BUSINESS" ? yield* ownersOf(customerId) : []
    const documents = yield* documentsOf([customerId, ...owners.map((o) => o.id)])
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

        for (const owner of lockedOwners) {
          const move = decideKyc(beneficialOwnerKycMachine, owner.kycStatus, decisionOf.get(owner.id))
          if (move === undefined) continue
          yield* Effect.orDie(store.beneficialOwners.update({ ...owner, kycStatus: move.to, updatedAt: now }))
        }

        const machine = current.customerType === "INDIVIDUAL" ? customerKycMachine : customerKybMachine
        const move = decideKyc(machine, current.kycStatus, decisionOf.get(current.id))
        if (move !== undefined) {
          const next: Customer =
            current.customerType === "INDIVIDUAL"
              ? { ...current, kycStatus: move.to, updatedAt: now }
              : { ...current, kybStatus: move.to, kycStatus: move.to, updatedAt: now }
          yield* Effect.orDie(store.customers.update(next))
          yield* emitSteps(store, ids, move.emits, customerId, next, now)
        }
        return verification
      })
    )
  })

  const listVerifications = Effect.fn("Onboarding.listVerifications")(function* (query: ListVerificationsQuery) {
    const page = pageRequest(query)
    if (page === undefined) return yield* invalidCursor()
    return yield* store.verifications.list(
      { customerId: query.customerId, verificationStatus: query.verificationStatus },
      page
    )
  })

  const getVerification = Effect.fn("Onboarding.getVerification")(function* (id: string) {
    const verification = yield* store.verifications.get(id)
    if (verification === undefined) return yield* verificationNotFound(id)
    return verification
  })

  return { createKycLink, submitVerification, listVerifications, getVerification }
})
