import { assert, describe, it } from "@effect/vitest"
import {
  type BeneficialOwner,
  type BusinessCustomer,
  type Customer,
  type IndividualCustomer,
  KycProvider,
  type KycStatus,
  type VerificationPacket
} from "@paycore/core"
import { EEA_REGIONS, kycSuffix, SandboxKycProvider, sandboxReview } from "@paycore/sandbox"
import { Effect, Stream } from "effect"
import { TestClock } from "effect/testing"

const NOW = "2026-03-02T12:00:00.000Z"
const CUSTOMER = "Customer:0190a000-0000-7000-8000-000000000001" as IndividualCustomer["id"]

const person = (fullName: string, kycStatus: KycStatus = "UNVERIFIED"): IndividualCustomer => ({
  id: CUSTOMER,
  platformCustomerId: "p1",
  currencies: ["USD"],
  umaAddress: "$p1@sandbox.example",
  contactVerification: { email: "PENDING", phone: "PENDING" },
  isDeleted: false,
  createdAt: NOW,
  updatedAt: NOW,
  customerType: "INDIVIDUAL",
  kycStatus,
  fullName,
  birthDate: "1990-01-01",
  nationality: "US",
  address: { line1: "1 Main St", postalCode: "94105", country: "US" },
  idType: "SSN",
  identifier: "123-45-6789"
})

const company = (registrationNumber: string): BusinessCustomer => ({
  id: CUSTOMER,
  platformCustomerId: "b1",
  currencies: ["USD"],
  umaAddress: "$b1@sandbox.example",
  contactVerification: { email: "PENDING", phone: "PENDING" },
  isDeleted: false,
  createdAt: NOW,
  updatedAt: NOW,
  customerType: "BUSINESS",
  kybStatus: "UNVERIFIED",
  kycStatus: "UNVERIFIED",
  address: { line1: "1 Main St", postalCode: "94105", country: "US" },
  businessInfo: {
    legalName: "Acme",
    country: "US",
    registrationNumber,
    incorporatedOn: "2020-01-01",
    entityType: "LLC",
    taxId: "12-3",
    countriesOfOperation: ["US"]
  }
})

let n = 0
const owner = (lastName: string, kycStatus: KycStatus = "UNVERIFIED"): BeneficialOwner => ({
  id: `BeneficialOwner:0190a000-0000-7000-8000-${String(++n).padStart(12, "0")}` as BeneficialOwner["id"],
  customerId: CUSTOMER,
  roles: ["UBO", "CONTROL_PERSON"],
  ownershipPercentage: 50,
  personalInfo: {
    firstName: "Grace",
    lastName,
    birthDate: "1980-01-01",
    nationality: "US",
    address: { line1: "1 Main St", postalCode: "94105", country: "US" },
    idType: "SSN",
    identifier: "1"
  },
  kycStatus,
  createdAt: NOW,
  updatedAt: NOW
})

const packet = (
  customer: Customer,
  options: { owners?: ReadonlyArray<BeneficialOwner>; skip?: boolean; regulated?: boolean; documents?: boolean } = {}
): VerificationPacket => {
  const owners = options.owners ?? []
  const documents =
    options.documents === true
      ? [
          { id: "Document:1", documentHolder: customer.id, documentType: "PASSPORT" as const },
          { id: "Document:2", documentHolder: customer.id, documentType: "CERTIFICATE_OF_INCORPORATION" as const },
          { id: "Document:3", documentHolder: customer.id, documentType: "SHAREHOLDER_REGISTER" as const },
          { id: "Document:4", documentHolder: customer.id, documentType: "BANK_STATEMENT" as const },
          ...owners.map((o, i) => ({
            id: `Document:o${i}`,
            documentHolder: o.id,
            documentType: "NATIONAL_ID" as const
          }))
        ]
      : []
  return {
    customer,
    beneficialOwners: owners,
    documents,
    settings: {
      isRegulatedFinancialInstitution: options.regulated ?? false,
      skipVerificationPaperwork: options.skip ?? false
    }
  }
}

interface Summary {
  readonly status: string
  readonly errors: ReadonlyArray<string>
  readonly decisions: Record<string, string>
}

const summary = (p: VerificationPacket): Summary => {
  const r = sandboxReview(p)
  return {
    status: r.verificationStatus,
    errors: r.errors.map((e) => e.type),
    decisions: Object.fromEntries(
      r.decisions.map((d) => [d.subjectId === CUSTOMER ? "customer" : d.subjectId, d.decision])
    )
  }
}

describe("sandbox KYC review (K-10..K-13)", () => {
  it("kycSuffix is the last 3 characters", () => {
    assert.strictEqual(kycSuffix("Ada Lovelace 002 "), "002")
    assert.strictEqual(kycSuffix("ab"), "ab")
    assert.isUndefined(kycSuffix(undefined))
  })

  it("individuals: 001 manual review, 002 rejected, 003 poor document, other approved (complete packets)", () => {
    const cases: Array<[string, string, string, ReadonlyArray<string>]> = [
      ["Ada001", "PENDING_MANUAL_REVIEW", "IN_REVIEW", []],
      ["Ada002", "REJECTED", "REJECTED", ["APPLICANT_REJECTED"]],
      ["Ada003", "RESOLVE_ERRORS", "HOLD", ["POOR_QUALITY_DOCUMENT"]],
      ["Ada009", "APPROVED", "APPROVED", []],
      ["Ada", "APPROVED", "APPROVED", []]
    ]
    for (const [name, status, decision, errors] of cases) {
      assert.deepStrictEqual(
        summary(packet(person(name), { documents: true })),
        { status, errors, decisions: { customer: decision } },
        name
      )
    }
  })

  it("documents are needed unless Skip verification paperwork is on; 001 and 003 need them anyway", () => {
    assert.deepStrictEqual(summary(packet(person("Ada"))).errors, ["MISSING_IDENTITY_DOCUMENT"])
    assert.strictEqual(summary(packet(person("Ada"), { skip: true })).status, "APPROVED")
    assert.strictEqual(summary(packet(person("Ada002"), { skip: true })).status, "REJECTED")
    assert.deepStrictEqual(summary(packet(person("Ada001"), { skip: true })).errors, ["MISSING_IDENTITY_DOCUMENT"])
    assert.deepStrictEqual(summary(packet(person("Ada003"), { skip: true })).errors, [
      "MISSING_IDENTITY_DOCUMENT",
      "POOR_QUALITY_DOCUMENT"
    ])
    const { birthDate: _birthDate, ...bare } = person("Ada")
    assert.deepStrictEqual(summary(packet(bare as IndividualCustomer, { skip: true })).errors, ["MISSING_FIELD"])
  })

  it("regulated platforms: no suffix rule", () => {
    for (const name of ["Ada001", "Ada002", "Ada003"]) {
      assert.strictEqual(summary(packet(person(name), { regulated: true, skip: true })).status, "APPROVED", name)
    }
  })

  it("businesses: registration number 001/003 manual review, 002 rejected, other approved; owners by last name", () => {
    const ok = owner("Hopper")
    assert.deepStrictEqual(summary(packet(company("R-9"), { owners: [ok], documents: true })), {
      status: "APPROVED",
      errors: [],
      decisions: { [ok.id]: "APPROVED", customer: "APPROVED" }
    })
    for (const suffix of ["001", "003"]) {
      assert.strictEqual(
        summary(packet(company(`R-${suffix}`), { owners: [ok], documents: true })).status,
        "PENDING_MANUAL_REVIEW"
      )
      // Normal validation: documents are needed even with the switch on.
      assert.strictEqual(summary(packet(company(`R-${suffix}`), { owners: [ok], skip: true })).status, "RESOLVE_ERRORS")
    }
    assert.deepStrictEqual(summary(packet(company("R-002"), { owners: [ok], skip: true })).errors, [
      "APPLICANT_REJECTED"
    ])
    const review = owner("Hopper001")
    const bad = owner("Moriarty002")
    const three = owner("Byron003")
    assert.deepStrictEqual(summary(packet(company("R-9"), { owners: [review, three], skip: true })), {
      status: "PENDING_MANUAL_REVIEW",
      errors: [],
      decisions: { [review.id]: "IN_REVIEW", [three.id]: "APPROVED", customer: "IN_REVIEW" }
    })
    assert.deepStrictEqual(summary(packet(company("R-9"), { owners: [ok, bad], skip: true })), {
      status: "REJECTED",
      errors: ["APPLICANT_REJECTED"],
      decisions: { [ok.id]: "APPROVED", [bad.id]: "REJECTED", customer: "REJECTED" }
    })
    // An owner rejected before still rejects the business; one approved before stays approved whatever its name.
    assert.strictEqual(
      summary(packet(company("R-9"), { owners: [owner("Hopper", "REJECTED")], skip: true })).status,
      "REJECTED"
    )
    assert.strictEqual(
      summary(packet(company("R-9"), { owners: [owner("Hopper002", "APPROVED")], skip: true })).status,
      "APPROVED"
    )
    // An incomplete packet decides nothing about the owners.
    assert.deepStrictEqual(summary(packet(company("R-9"), { owners: [bad] })).decisions, { customer: "HOLD" })
  })
})

describe("SandboxKycProvider", () => {
  it.effect("hosted links: fresh single-use URLs that expire after the lifetime", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse(NOW))
      const kyc = yield* KycProvider
      const a = yield* kyc.createLink({ customer: person("Ada"), redirectUri: "https://app.example/done?x=1" })
      const b = yield* kyc.createLink({ customer: company("R-1"), redirectUri: "https://app.example/done" })
      assert.match(a.kycUrl, /^https:\/\/kyc\.sandbox\.paycore\.dev\/kyc\/[0-9a-f]{32}\?redirectUri=https%3A%2F%2F/)
      assert.match(b.kycUrl, /\/kyb\//)
      assert.notStrictEqual(a.kycUrl.split("?")[0], b.kycUrl.split("?")[0])
      assert.strictEqual(a.expiresAt, "2026-03-02T13:00:00.000Z")
      assert.strictEqual(a.provider, "SANDBOX")
      assert.strictEqual(
        (yield* kyc.screenDocument({
          documentType: "PASSPORT",
          contentType: "image/png",
          size: 1,
          body: Stream.make(new Uint8Array(1))
        }))._tag,
        "Accepted"
      )
    }).pipe(Effect.provide(SandboxKycProvider({ kycLinkLifetimeSeconds: 3600 })))
  )

  it.effect(
    "suffix 004: the provider is unreachable for that customer, on every platform: a retryable KycProviderError",
    () =>
      Effect.gen(function* () {
        const kyc = yield* KycProvider
        const outage = { _tag: "KycProviderError", retryable: true } as const
        const redirectUri = "https://app.example/done"
        for (const customer of [person("Ada004"), company("R-004")]) {
          assert.deepInclude(yield* Effect.flip(kyc.createLink({ customer, redirectUri })), outage)
          for (const regulated of [false, true])
            assert.deepInclude(yield* Effect.flip(kyc.review(packet(customer, { regulated, documents: true }))), outage)
        }
        // An owner's last name is no customer's: 004 there is a name like any other.
        const review = yield* kyc.review(packet(company("R-9"), { owners: [owner("Hopper004")], documents: true }))
        assert.strictEqual(review.verificationStatus, "APPROVED")
      }).pipe(Effect.provide(SandboxKycProvider()))
  )

  it.effect("contact verification is required in the EEA by default, and where configured", () =>
    Effect.gen(function* () {
      const kyc = yield* KycProvider
      assert.deepStrictEqual(kyc.contactVerification({ ...person("Ada"), region: "DE" }), { email: true, phone: true })
      assert.deepStrictEqual(kyc.contactVerification({ ...person("Ada"), region: "US" }), {
        email: false,
        phone: false
      })
      assert.deepStrictEqual(kyc.contactVerification(person("Ada")), { email: false, phone: false })
      assert.include(EEA_REGIONS, "FR")
      const none = yield* Effect.provide(
        Effect.service(KycProvider),
        SandboxKycProvider({ contactVerificationRegions: [] })
      )
      assert.deepStrictEqual(none.contactVerification({ ...person("Ada"), region: "DE" }), {
        email: false,
        phone: false
      })
    }).pipe(Effect.provide(SandboxKycProvider()))
  )
})
