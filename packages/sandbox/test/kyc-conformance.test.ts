/**
 * The sandbox KYC provider passes the KycProvider conformance kit, driven by its magic suffixes (packages/sandbox/
 * README.md, "Magic values (KYC / KYB)"); the kit catches a provider whose review changes when asked again.
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
import { Effect, Layer } from "effect"

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
  }
}

/** The option tests use to see a refusal: this sandbox rejects `OTHER` documents for glare. */
const sandbox = SandboxKycProvider({
  screenDocument: ({ documentType }) =>
    documentType === "OTHER" ? { _tag: "Rejected", reason: "GLARE" } : { _tag: "Accepted" }
})

kycProviderConformance("sandbox", sandbox, outcomes)

/** The planted fault: a packet reviewed a second time is sent to manual review instead of its first verdict. */
const secondThoughts = Layer.effect(
  KycProvider,
  Effect.gen(function* () {
    const inner = yield* KycProvider
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
).pipe(Layer.provide(sandbox))

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
})
