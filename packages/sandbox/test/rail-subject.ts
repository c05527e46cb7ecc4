/**
 * The sandbox rail as a subject of the Rail conformance kit: every rail of the spec's timing table, the suffix table's
 * outcomes (`000` settles, `002`-`009` fail, `005` is returned). References survive a restart (they carry the whole
 * submission); submissions do not (their idempotency lasts `SUBMIT_MEMORY_SECONDS`, in the process). Left out, so the
 * kit leaves their checks out: `refused` (the sandbox refuses no payout at submission) and `timesOut` (it always
 * answers at once).
 */
import type { AccountInfo, PaymentRail } from "@paycore/core"
import { SandboxRail, SETTLEMENT_SECONDS } from "@paycore/sandbox"
import type { RailDestination, RailSubject } from "@paycore/testkit/rail-conformance"

const account = (accountNumber: string): RailDestination => ({
  kind: "ACCOUNT",
  accountInfo: {
    accountType: "US_ACCOUNT",
    accountNumber,
    routingNumber: "021000021",
    beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Rail Kit" }
  } satisfies AccountInfo
})

const localCurrency: Partial<Record<PaymentRail, string>> = { SPEI: "MXN", SEPA_INSTANT: "EUR", PIX: "BRL", UPI: "INR" }

export const sandboxRailSubject: RailSubject = {
  layer: () => SandboxRail(),
  rails: (Object.keys(SETTLEMENT_SECONDS) as ReadonlyArray<PaymentRail>).map((rail) => ({
    rail,
    currencies: localCurrency[rail] === undefined ? ["USD"] : ["USD", localCurrency[rail]]
  })),
  outcomes: {
    settles: account("123456000"),
    fails: [
      { destination: account("123456002"), reason: "QUOTE_EXECUTION_FAILED", refundSucceeds: true },
      { destination: account("123456004"), reason: "ACCOUNT_CANNOT_RECEIVE", refundSucceeds: true },
      { destination: account("123456006"), reason: "ACCOUNT_INVALID", refundSucceeds: true },
      { destination: account("123456007"), reason: "QUOTE_EXECUTION_FAILED", refundSucceeds: false },
      { destination: account("123456008"), reason: "LIMIT_EXCEEDED", refundSucceeds: true },
      { destination: account("123456009"), reason: "COMPLIANCE_REJECTED", refundSucceeds: true }
    ],
    returns: { destination: account("123456005"), reason: "PAYOUT_RETURNED" }
  },
  survivesRestart: { references: true, submissions: false }
}
