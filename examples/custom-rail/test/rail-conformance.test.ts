/**
 * The Quill rail against paycore's Rail conformance kit, as a third party runs it: the adapter's layer (a new
 * instance per check, all talking to one simulated scheme), its rail and currency, and the IBANs that drive the
 * simulated scheme to each outcome.
 */
import type { AccountInfo } from "@paycore/core"
import { type RailDestination, railConformance } from "@paycore/testkit/rail-conformance"
import { QUILL_CURRENCY, QUILL_RAIL, QUILL_TIMEOUT_SECONDS, QuillRail } from "../src/rail.ts"
import { simulatedQuill } from "../src/scheme.ts"

/** A payout to an IBAN; the simulated scheme reads its last two digits. */
const iban = (lastTwo: string): RailDestination => ({
  kind: "ACCOUNT",
  accountInfo: {
    accountType: "IBAN",
    iban: `DE893704004405320130${lastTwo}`,
    swiftCode: "COBADEFFXXX",
    beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Emmy Noether", countryOfResidence: "DE" }
  } satisfies AccountInfo
})

const scheme = simulatedQuill()

railConformance("QuillRail", {
  layer: () => QuillRail({ api: scheme, perPaymentLimitCents: 1_000_000 }),
  rails: [{ rail: QUILL_RAIL, currencies: [QUILL_CURRENCY] }],
  outcomes: {
    settles: iban("00"),
    fails: [
      { destination: iban("04"), reason: "ACCOUNT_CANNOT_RECEIVE", refundSucceeds: true },
      { destination: iban("22"), reason: "COMPLIANCE_REJECTED", refundSucceeds: true },
      { destination: iban("98"), reason: "LIMIT_EXCEEDED", refundSucceeds: true },
      { destination: iban("05"), reason: "QUOTE_EXECUTION_FAILED", refundSucceeds: false }
    ],
    returns: { destination: iban("06"), reason: "PAYOUT_RETURNED" },
    refused: [
      { destination: iban("00"), amount: 1_000_001, reason: "LIMIT_EXCEEDED" },
      { destination: { kind: "UMA", umaAddress: "$ada@example.com" }, reason: "ACCOUNT_INVALID" }
    ],
    timesOut: { destination: iban("99"), afterSeconds: QUILL_TIMEOUT_SECONDS }
  },
  // The scheme keeps the transfers by end-to-end id (the transaction id): a new process finds them.
  survivesRestart: { references: true, submissions: true }
})
