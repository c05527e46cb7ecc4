import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js"
import { Clock, Context, Effect, Layer, Redacted } from "effect"
import { customerDeleted, customerNotFound } from "../customers/errors.ts"
import type { Customer } from "../customers/model.ts"
import { invalidCursor } from "../platform/errors.ts"
import { PlatformConfigService, scanAll } from "../platform/service.ts"
import { Ids } from "../ports/ids.ts"
import { type ContactRequirement, KycProvider, type KycProviderError } from "../ports/kyc.ts"
import { Notifier } from "../ports/notifier.ts"
import { Store } from "../ports/store.ts"
import { constantTimeEqual } from "../shared/constant-time.ts"
import type { Conflict, InvalidInput, LimitExceeded, NotFound, Refused, StoreError } from "../shared/errors.ts"
import type { Page } from "../shared/paging.ts"
import { pageRequest } from "../shared/paging.ts"
import { isoAfter, isoOf, nowIso } from "../shared/time.ts"
import { emitSteps } from "../webhooks/service.ts"
import {
  beneficialOwnerNotFound,
  changedDuringReview,
  codeExpired,
  contactAlreadyVerified,
  contactMissing,
  contactVerificationIncomplete,
  contactVerificationNotRequired,
  noOpenCode,
  notABusiness,
  providerUnavailable,
  resendTooSoon,
  verificationDecided,
  verificationNotFound,
  wrongCode
} from "./errors.ts"
import { beneficialOwnerKycMachine, customerKybMachine, customerKycMachine, decideKyc } from "./machine.ts"
import {
  type BeneficialOwner,
  CONTACT_CHANNELS,
  type ContactChallenge,
  type ContactChannel,
  type CreateBeneficialOwnerRequest,
  type CreateVerificationRequest,
  contactChallengeKey,
  type KycLink,
  type KycLinkRequest,
  type ListBeneficialOwnersQuery,
  type ListVerificationsQuery,
  type UpdateBeneficialOwnerRequest,
  type Verification
} from "./model.ts"

// The `Onboarding` service: a customer's KYC / KYB (hosted links, packet reviews, beneficial owners) and the
// verification of its contact channels.

// ---- contact verification codes ----

/** How long a contact-verification code can be confirmed. */
export const CONTACT_CODE_TTL_SECONDS = 600
/** Wrong codes accepted before the code is void. */
export const CONTACT_CODE_MAX_ATTEMPTS = 5
/** The shortest wait between two codes sent to the same address (429 `RATE_LIMITED` with `Retry-After`). */
export const CONTACT_CODE_RESEND_SECONDS = 60

/** SHA-256 of the code bound to its customer and channel: the store never sees a code. */
const hashCode = (key: string, code: string): Uint8Array => sha256(utf8ToBytes(`${key}:${code}`))

const contactOf = (customer: Customer, channel: ContactChannel): string | undefined =>
  customer[CONTACT_CHANNELS[channel].field]

const isRequired = (requirement: ContactRequirement, channel: ContactChannel): boolean =>
  requirement[CONTACT_CHANNELS[channel].key]

/** The required channels that are not `VERIFIED` yet (KYC cannot begin until this is empty). */
export const pendingContactVerification = (
  customer: Customer,
  requirement: ContactRequirement
): Array<"email" | "phone"> => {
  const pending: Array<"email" | "phone"> = []
  if (requirement.email && customer.contactVerification.email !== "VERIFIED") pending.push("email")
  if (requirement.phone && customer.contactVerification.phone !== "VERIFIED") pending.push("phone")
  return pending
}

// ---- the service ----

/** A call to the KYC provider, its failure answered as `providerUnavailable` (other errors pass through). */
export const fromProvider = <A, E extends { readonly _tag: string }, R>(
  effect: Effect.Effect<A, E | KycProviderError, R>
) =>
  Effect.catchIf(
    effect,
    (e): e is KycProviderError => e._tag === "KycProviderError",
    (e) => Effect.fail(providerUnavailable(e.message))
  )

const dedupe = <A>(values: ReadonlyArray<A>): Array<A> => [...new Set(values)]

type Outcome<A, E> = { readonly ok: A } | { readonly error: E }

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
      const store = yield* Store
      const ids = yield* Ids
      const config = yield* PlatformConfigService
      const kyc = yield* KycProvider
      const notifier = yield* Notifier

      /** A live customer: 404 unknown, 410 deleted. */
      const liveCustomer = (customer: Customer | undefined, id: string) => {
        if (customer === undefined) return Effect.fail(customerNotFound(id))
        if (customer.isDeleted) return Effect.fail(customerDeleted(id))
        return Effect.succeed(customer)
      }

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

      // ---- hosted links ----

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
        if (customer.kycStatus === "APPROVED" || customer.kycStatus === "REJECTED") {
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
              if (document === undefined || document.deletedAt !== undefined)
                return yield* changedDuringReview(customerId)
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
            yield* emitSteps(
              store,
              ids,
              [`VERIFICATION.${verification.verificationStatus}`],
              customerId,
              verification,
              now
            )

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

      // ---- beneficial owners ----

      const createBeneficialOwner = Effect.fn("Onboarding.createBeneficialOwner")(function* (
        req: CreateBeneficialOwnerRequest
      ) {
        const customer = yield* liveCustomer(yield* store.customers.get(req.customerId), req.customerId)
        if (customer.customerType !== "BUSINESS") return yield* notABusiness(customer.id)
        return yield* store.transaction(
          Effect.gen(function* () {
            const now = yield* nowIso
            const owner: BeneficialOwner = {
              id: yield* ids.make("BeneficialOwner"),
              customerId: customer.id,
              roles: dedupe(req.roles),
              ownershipPercentage: req.ownershipPercentage,
              personalInfo: req.personalInfo,
              kycStatus: "UNVERIFIED",
              createdAt: now,
              updatedAt: now
            }
            yield* Effect.orDie(store.beneficialOwners.insert(owner))
            return owner
          })
        )
      })

      const listBeneficialOwners = Effect.fn("Onboarding.listBeneficialOwners")(function* (
        query: ListBeneficialOwnersQuery
      ) {
        const page = pageRequest(query)
        if (page === undefined) return yield* invalidCursor()
        return yield* store.beneficialOwners.list({ customerId: query.customerId }, page)
      })

      const getBeneficialOwner = Effect.fn("Onboarding.getBeneficialOwner")(function* (id: string) {
        const owner = yield* store.beneficialOwners.get(id)
        if (owner === undefined) return yield* beneficialOwnerNotFound(id)
        return owner
      })

      const updateBeneficialOwner = Effect.fn("Onboarding.updateBeneficialOwner")(function* (
        id: string,
        req: UpdateBeneficialOwnerRequest
      ) {
        return yield* store.transaction(
          Effect.gen(function* () {
            const current = yield* store.beneficialOwners.getForUpdate(id)
            if (current === undefined) return yield* beneficialOwnerNotFound(id)
            const business = yield* store.customers.get(current.customerId)
            if (business?.isDeleted === true) return yield* customerDeleted(current.customerId)
            const now = yield* nowIso
            // A rename never moves kycStatus: only a provider's decision does.
            const next: BeneficialOwner = {
              ...current,
              ...(req.roles === undefined ? {} : { roles: dedupe(req.roles) }),
              ...(req.ownershipPercentage === undefined ? {} : { ownershipPercentage: req.ownershipPercentage }),
              personalInfo: { ...current.personalInfo, ...req.personalInfo },
              updatedAt: now
            }
            yield* Effect.orDie(store.beneficialOwners.update(next))
            return next
          })
        )
      })

      // ---- contact verification ----

      /** The customer, locked, when this channel can be verified now. */
      const lockForContact = Effect.fnUntraced(function* (customerId: string, channel: ContactChannel) {
        const customer = yield* liveCustomer(yield* store.customers.getForUpdate(customerId), customerId)
        if (!isRequired(kyc.contactVerification(customer), channel)) {
          return yield* contactVerificationNotRequired(customerId, channel)
        }
        if (customer.contactVerification[CONTACT_CHANNELS[channel].key] === "VERIFIED") {
          return yield* contactAlreadyVerified(customerId, channel)
        }
        return customer
      })

      const newCode = Effect.map(ids.randomHex(4), (hex) =>
        String(Number.parseInt(hex, 16) % 1_000_000).padStart(6, "0")
      )

      const sendContactCode = Effect.fn("Onboarding.sendContactCode")(function* (
        customerId: string,
        channel: ContactChannel
      ) {
        const sent = yield* store.transaction(
          Effect.gen(function* () {
            const customer = yield* lockForContact(customerId, channel)
            const to = contactOf(customer, channel)
            if (to === undefined) return yield* contactMissing(customerId, channel)
            const key = contactChallengeKey(customerId, channel)
            const nowMs = yield* Clock.currentTimeMillis
            const open = yield* store.contactChallenges.get(key)
            if (open !== undefined && open.sentTo === to) {
              const waitMs = Date.parse(open.sentAt) + CONTACT_CODE_RESEND_SECONDS * 1000 - nowMs
              if (waitMs > 0) return yield* resendTooSoon(Math.ceil(waitMs / 1000))
            }
            const code = notifier.fixedCode ?? (yield* newCode)
            const challenge: ContactChallenge = {
              key,
              customerId,
              channel,
              codeHash: bytesToHex(hashCode(key, code)),
              sentTo: to,
              sentAt: isoOf(nowMs),
              expiresAt: isoAfter(nowMs, CONTACT_CODE_TTL_SECONDS),
              attempts: 0
            }
            yield* store.contactChallenges.put(challenge)
            return { to, code: Redacted.make(code) }
          })
        )
        // Sent once the code is stored (a store transaction may run again; a message must go once).
        yield* notifier.send(CONTACT_CHANNELS[channel].medium, sent.to, sent.code)
      })

      const confirmContactCode = Effect.fn("Onboarding.confirmContactCode")(function* (
        customerId: string,
        channel: ContactChannel,
        code: string
      ) {
        // A wrong code is a failure the caller sees, but its attempt must be counted: the transaction commits
        // the count and answers the failure as a value.
        const outcome: Outcome<Customer, InvalidInput> = yield* store.transaction(
          Effect.gen(function* () {
            const customer = yield* lockForContact(customerId, channel)
            const key = contactChallengeKey(customerId, channel)
            const open = yield* store.contactChallenges.get(key)
            if (open === undefined || open.sentTo !== contactOf(customer, channel)) return { error: noOpenCode() }
            const nowMs = yield* Clock.currentTimeMillis
            if (nowMs >= Date.parse(open.expiresAt)) {
              yield* store.contactChallenges.delete(key)
              return { error: codeExpired() }
            }
            if (!constantTimeEqual(hashCode(key, code), hexToBytes(open.codeHash))) {
              const attempts = open.attempts + 1
              const left = Math.max(0, CONTACT_CODE_MAX_ATTEMPTS - attempts)
              if (left === 0) yield* store.contactChallenges.delete(key)
              else yield* store.contactChallenges.put({ ...open, attempts })
              return { error: wrongCode(left) }
            }
            yield* store.contactChallenges.delete(key)
            const next: Customer = {
              ...customer,
              contactVerification: { ...customer.contactVerification, [CONTACT_CHANNELS[channel].key]: "VERIFIED" },
              updatedAt: isoOf(nowMs)
            }
            yield* Effect.orDie(store.customers.update(next))
            return { ok: next }
          })
        )
        if ("error" in outcome) return yield* outcome.error
        return outcome.ok
      })

      return Onboarding.of({
        createKycLink,
        submitVerification,
        listVerifications,
        getVerification,
        createBeneficialOwner,
        listBeneficialOwners,
        getBeneficialOwner,
        updateBeneficialOwner,
        sendContactCode,
        confirmContactCode
      })
    })
  )
}
