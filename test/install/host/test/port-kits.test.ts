/**
 * testkit's KYC provider and card issuer kits, run by the host's vitest from the installed packages on the sandbox's
 * adapters, driven by its magic suffixes (as a user proves an adapter of their own).
 */
import { SandboxCardIssuer, SandboxKycProvider } from "@paycore/sandbox"
import { cardIssuerConformance } from "@paycore/testkit/card-issuer-conformance"
import { kycProviderConformance } from "@paycore/testkit/kyc-conformance"

kycProviderConformance("sandbox", SandboxKycProvider(), {
  individuals: {
    APPROVED: (customer) => customer,
    REJECTED: (customer) => ({ ...customer, fullName: "Ada Lovelace 002" }),
    PENDING_MANUAL_REVIEW: (customer) => ({ ...customer, fullName: "Ada Lovelace 001" })
  },
  businesses: {
    APPROVED: (packet) => packet,
    ownerRejected: ({ customer, owners }) => ({
      customer,
      owners: owners.map((o) => ({ ...o, personalInfo: { ...o.personalInfo, lastName: "Moriarty002" } }))
    })
  },
  contactVerification: [
    { region: "DE", requires: { email: true, phone: true } },
    { region: "US", requires: { email: false, phone: false } }
  ],
  unreachable: { individual: (customer) => ({ ...customer, fullName: "Ada Lovelace 004" }) }
})

cardIssuerConformance("sandbox", SandboxCardIssuer(), {
  active: (request) => request,
  rejected: (request) => ({ ...request, platformCardId: "emp-002", platformCardIdGiven: true }),
  pendingThenActive: (request) => ({ ...request, platformCardId: "emp-005", platformCardIdGiven: true }),
  ineligible: (_accounts, cardholder) => ({ ...cardholder, platformCustomerId: "emp-002" })
})
