/**
 * The sandbox KYC provider passes the KycProvider conformance kit, driven by its magic suffixes (packages/sandbox/
 * README.md, "Magic values (KYC / KYB)"); the kit catches a provider whose review changes when asked again, and
 * providers that answer an outage with a defect or a wait without end instead of a retryable `KycProviderError`.
 */
import { assert, describe, it } from "@effect/vitest"
import { KycProvider, type KycReview } from "@paycore/core"
import { SandboxKycProvider } from "@paycore/sandbox"
import {
  failingChecks,
  type KycOutcomes,
  kycProviderChecks,
  kycProviderConformance
} from "@paycore/testkit/kyc-conformance"
import { Effect, Layer, Schedule } from "effect"

const outcomes: KycOutcomes = {
  individuals: {
    APPROVED: (customer) => ({ ...customer, fullName: "Ada Lovelace" }),
    REJECTED: (customer) => ({ ...customer, fullName: "Ada Lovelace 002" }),
    PENDING_MANUAL_REVIEW: (customer) => ({ ...customer, fullName: "Ada Lovelace 001" })
  },
  businesses: {
    APPROVED: (packet) => packet,
    REJECTED: ({ customer, owners }) => ({
      customer: { ...customer, businessInfo: { ...customer.businessInfo, registrationNumber: "R-002" } },
      owners
    }),
    PENDING_MANUAL_REVIEW: ({ customer, owners }) => ({
      customer: { ...customer, businessInfo: { ...customer.businessInfo, registrationNumber: "R-001" } },
      owners
    }),
    ownerRejected: ({ customer, owners }) => ({
      customer,
      owners: owners.map((o) => ({ ...o, personalInfo: { ...o.personalInfo, lastName: "Moriarty002" } }))
    })
  },
  // The default regions: the EEA verifies email and phone first, elsewhere nothing.
  contactVerification: [
    { region: "DE", requires: { email: true, phone: true } },
    { region: "FR", requires: { email: true, phone: true } },
    { region: "US", requires: { email: false, phone: false } },
    { region: undefined, requires: { email: false, phone: false } }
  ],
  documents: {
    rejected: {
      documentType: "OTHER",
      contentType: "image/jpeg",
      bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3])
    }
  },
  // Suffix 004: the provider cannot be reached for this customer.
  unreachable: {
    individual: (customer) => ({ ...customer, fullName: "Ada Lovelace 004" }),
    business: ({ customer, owners }) => ({
      customer: { ...customer, businessInfo: { ...customer.businessInfo, registrationNumber: "R-004" } },
      owners
    })
  }
}

/** The option tests use to see a refusal: this sandbox rejects `OTHER` documents for glare. */
const sandbox = SandboxKycProvider({
  screenDocument: ({ documentType }) =>
    documentType === "OTHER" ? { _tag: "Rejected", reason: "GLARE" } : { _tag: "Accepted" }
})

kycProviderConformance("sandbox", sandbox, outcomes)

/** The sandbox with `change` applied to its service. */
const changed = (change: (inner: KycProvider["Service"]) => KycProvider["Service"]) =>
  Layer.effect(KycProvider, Effect.map(Effect.service(KycProvider), change)).pipe(Layer.provide(sandbox))

/** The planted fault: a packet reviewed a second time is sent to manual review instead of its first verdict. */
const secondThoughts = changed((inner) => {
  const reviewed = new Set<string>()
  const doubt = (review: KycReview): KycReview =>
    review.verificationStatus === "APPROVED"
      ? {
          verificationStatus: "PENDING_MANUAL_REVIEW",
          errors: [],
          decisions: review.decisions.map((d) => ({ ...d, decision: "IN_REVIEW" }))
        }
      : review
  return KycProvider.of({
    ...inner,
    review: (packet) =>
      Effect.map(inner.review(packet), (review) => {
        const again = reviewed.has(packet.customer.id)
        reviewed.add(packet.customer.id)
        return again ? doubt(review) : review
      })
  })
})

const UNREACHABLE_LINK =
  "CU-28: createLink while the provider is unreachable: a retryable KycProviderError, never a defect or a wait without end"
const UNREACHABLE_REVIEW =
  "K-02: review while the provider is unreachable: a retryable KycProviderError, never a defect or a wait without end"

describe("KycProvider conformance: a planted fault", () => {
  it.effect("a review that changes its decision when asked again is caught by the consistency check", () =>
    Effect.gen(function* () {
      const failed = yield* failingChecks(kycProviderChecks(outcomes)).pipe(Effect.provide(secondThoughts))
      assert.deepStrictEqual(
        failed.map((f) => f.name),
        ["answers are consistent: the same packet reviewed twice gets the same verdict, errors and decisions"],
        JSON.stringify(failed, null, 2)
      )
      assert.match(failed[0]!.message, /an individual APPROVED: .*APPROVED.*then.*PENDING_MANUAL_REVIEW/)
    })
  )

  it.effect("a hosted link that dies when the provider is down is caught by the unreachable createLink check", () =>
    Effect.gen(function* () {
      const dies = changed((inner) => ({ ...inner, createLink: (request) => Effect.orDie(inner.createLink(request)) }))
      const failed = yield* failingChecks(kycProviderChecks(outcomes)).pipe(Effect.provide(dies))
      assert.deepStrictEqual(
        failed.map((f) => f.name),
        [UNREACHABLE_LINK],
        JSON.stringify(failed, null, 2)
      )
      assert.match(failed[0]!.message, /defect/)
    })
  )

  it.effect("a review that retries the outage without end is caught by the unreachable review check", () =>
    Effect.gen(function* () {
      const hangs = changed((inner) => ({
        ...inner,
        review: (packet) => inner.review(packet).pipe(Effect.retry(Schedule.spaced("1 second")))
      }))
      const failed = yield* failingChecks(kycProviderChecks(outcomes)).pipe(Effect.provide(hangs))
      assert.deepStrictEqual(
        failed.map((f) => f.name),
        [UNREACHABLE_REVIEW],
        JSON.stringify(failed, null, 2)
      )
      assert.match(failed[0]!.message, /still waiting 30 s/)
    })
  )

  it.effect("an outage answered as final (not retryable) is caught by both unreachable checks", () =>
    Effect.gen(function* () {
      const final = changed((inner) => ({
        ...inner,
        createLink: (request) => Effect.mapError(inner.createLink(request), (e) => ({ ...e, retryable: false })),
        review: (packet) => Effect.mapError(inner.review(packet), (e) => ({ ...e, retryable: false }))
      }))
      const failed = yield* failingChecks(kycProviderChecks(outcomes)).pipe(Effect.provide(final))
      assert.deepStrictEqual(
        failed.map((f) => f.name),
        [UNREACHABLE_LINK, UNREACHABLE_REVIEW],
        JSON.stringify(failed, null, 2)
      )
    })
  )
})
