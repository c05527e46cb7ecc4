import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { externalAccountMachine } from "../src/accounts/machine.ts"
import { agentActionMachine, agentDeviceCodeMachine } from "../src/agents/machine.ts"
import { AgentActionStatus } from "../src/agents/model.ts"
import { cardEventOf, cardMachine, cardTransactionMachine, closedReasonOf } from "../src/cards/machine.ts"
import { cardTransactionStatesOf, cardTransactionStatus } from "../src/cards/views.ts"
import { invitationMachine } from "../src/invitations/machine.ts"
import { InvitationStatus } from "../src/invitations/model.ts"
import { expirableQuoteStates } from "../src/quotes/expiry.ts"
import { quoteMachine } from "../src/quotes/machine.ts"
import {
  scaChallengeMachine,
  scaFactorMachine,
  scaFactorResetMachine,
  scaSessionMachine,
  trustedBeneficiaryMachine
} from "../src/sca/machine.ts"
import {
  allows,
  IllegalTransition,
  type Machine,
  statesAllowing,
  toMermaid,
  transition
} from "../src/shared/machine.ts"
import { providerAccountMachine, stablecoinOperationMachine } from "../src/stablecoins/machine.ts"
import { ProviderAccountStatus, StablecoinOperationStatus } from "../src/stablecoins/model.ts"
import {
  incomingPaymentMachine,
  incomingStatus,
  outgoingPaymentMachine,
  outgoingStatus
} from "../src/transactions/machine.ts"
import { FailureReason, TransactionFailureReason } from "../src/transactions/model.ts"
import {
  credentialMachine,
  delegatedKeyMachine,
  sessionMachine,
  signedRequestMachine
} from "../src/wallet-auth/machine.ts"

/** `state event -> next [emits...]`, written by hand from the spec; every pair not listed is illegal. */
type Expected = Readonly<Record<string, readonly [string, ReadonlyArray<string>]>>

// S-03, S-05, S-06, S-11, Q-35: a payment under SCA waits in PENDING_AUTHORIZATION (the event again for each
// challenge), then executes, or (real-time-funded) awaits its deposit, or fails with nothing to refund.
const outgoingExpected: Expected = {
  "PENDING EXECUTE": ["PROCESSING", ["OUTGOING_PAYMENT.PROCESSING"]],
  "PENDING EXECUTE_SCA": ["PENDING_AUTHORIZATION", ["OUTGOING_PAYMENT.PENDING_AUTHORIZATION"]],
  "PENDING EXPIRE": ["EXPIRED", ["OUTGOING_PAYMENT.EXPIRED"]],
  "PENDING_AUTHORIZATION NEXT_CHALLENGE": ["PENDING_AUTHORIZATION", ["OUTGOING_PAYMENT.PENDING_AUTHORIZATION"]],
  "PENDING_AUTHORIZATION AUTHORIZE": ["PROCESSING", ["OUTGOING_PAYMENT.PROCESSING"]],
  "PENDING_AUTHORIZATION AUTHORIZE_FUNDING": ["PENDING", ["OUTGOING_PAYMENT.PENDING"]],
  "PENDING_AUTHORIZATION SCA_EXPIRE": ["SCA_FAILED", ["OUTGOING_PAYMENT.FAILED"]],
  // a payout screening holds waits in COMPLIANCE_REVIEW (public PROCESSING, the event says so by its
  // pendingReason), then is released to its rail or rejected and refunded as a failed one.
  "PENDING HOLD": ["COMPLIANCE_REVIEW", ["OUTGOING_PAYMENT.PROCESSING"]],
  "PENDING_AUTHORIZATION HOLD": ["COMPLIANCE_REVIEW", ["OUTGOING_PAYMENT.PROCESSING"]],
  "COMPLIANCE_REVIEW RELEASE": ["PROCESSING", ["OUTGOING_PAYMENT.PROCESSING"]],
  "COMPLIANCE_REVIEW REJECT": ["REFUND_PENDING", ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"]],
  "PROCESSING SETTLE": ["COMPLETED", ["OUTGOING_PAYMENT.COMPLETED"]],
  "PROCESSING FAIL": ["REFUND_PENDING", ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"]],
  // WH-07: a cancelled payout fails like a failed one (its refund settles in the same move, cancel.ts).
  "PROCESSING CANCEL": ["REFUND_PENDING", ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"]],
  "COMPLETED RETURN": ["REFUND_PENDING", ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"]],
  "REFUND_PENDING REFUND_SETTLE": ["REFUND_COMPLETED", ["OUTGOING_PAYMENT.REFUND_COMPLETED"]],
  "REFUND_PENDING REFUND_FAIL": ["REFUND_FAILED", ["OUTGOING_PAYMENT.REFUND_FAILED"]]
}

const incomingExpected: Expected = {
  "PENDING SETTLE": ["COMPLETED", ["INCOMING_PAYMENT.COMPLETED"]],
  "PENDING FAIL": ["FAILED", ["INCOMING_PAYMENT.FAILED"]],
  // WH-21: an UMA payment awaiting the platform's approval (public PENDING) is credited, rejected or failed once.
  "PENDING AWAIT_APPROVAL": ["AWAITING_APPROVAL", ["INCOMING_PAYMENT.PENDING"]],
  "AWAITING_APPROVAL APPROVE": ["COMPLETED", ["INCOMING_PAYMENT.COMPLETED"]],
  "AWAITING_APPROVAL REJECT": ["FAILED", ["INCOMING_PAYMENT.FAILED"]],
  "AWAITING_APPROVAL APPROVAL_FAIL": ["FAILED", ["INCOMING_PAYMENT.FAILED"]],
  "COMPLETED RETURN": ["REFUND_PENDING", ["INCOMING_PAYMENT.REFUND_PENDING"]],
  "REFUND_PENDING REFUND_SETTLE": ["REFUND_COMPLETED", ["INCOMING_PAYMENT.REFUND_COMPLETED"]],
  "REFUND_PENDING REFUND_FAIL": ["REFUND_FAILED", ["INCOMING_PAYMENT.REFUND_FAILED"]]
}

// Q-19, S-04, S-06, S-11: a quote waiting for authorization is authorized (or, real-time-funded, awaits its
// deposit again) or fails when its challenge expires; its own expiresAt no longer applies (design Q3).
const quoteExpected: Expected = {
  "PENDING EXECUTE": ["PROCESSING", []],
  "PENDING EXECUTE_SCA": ["PENDING_AUTHORIZATION", []],
  "PENDING EXPIRE": ["EXPIRED", []],
  "PENDING_AUTHORIZATION AUTHORIZE": ["PROCESSING", []],
  "PENDING_AUTHORIZATION AUTHORIZE_FUNDING": ["PENDING", []],
  "PENDING_AUTHORIZATION FAIL": ["FAILED", []],
  "PROCESSING COMPLETE": ["COMPLETED", []],
  "PROCESSING FAIL": ["FAILED", []]
}

// W-27: a credential is revoked once.
const credentialExpected: Expected = { "ACTIVE REVOKE": ["REVOKED", []] }

// W-31, W-32: a session ends revoked, refreshed (replaced) or expired.
const sessionExpected: Expected = {
  "ACTIVE REVOKE": ["REVOKED", []],
  "ACTIVE REFRESH": ["REFRESHED", []],
  "ACTIVE EXPIRE": ["EXPIRED", []]
}

// W-38, W-39: a requestId is consumed once, possibly after PROCESSING; it expires unused.
const signedRequestExpected: Expected = {
  "PENDING ACCEPT": ["CONSUMED", []],
  "PENDING ACCEPT_PENDING": ["PROCESSING", []],
  "PENDING EXPIRE": ["EXPIRED", []],
  "PROCESSING SETTLE": ["CONSUMED", []],
  "PROCESSING REFUSE": ["FAILED", []],
  "PROCESSING EXPIRE": ["EXPIRED", []]
}

// W-44, W-46: PENDING until the third leg; only an ACTIVE key is revoked.
const delegatedKeyExpected: Expected = {
  "PENDING ACTIVATE": ["ACTIVE", []],
  "ACTIVE REVOKE": ["REVOKED", []]
}

// AC-25, AC-29, AC-30: a challenge keeps a pending account pending and brings an UNVERIFIED one back (with its
// event); the outcome makes it ACTIVE or UNVERIFIED (with its event); any live account can be deleted.
const externalAccountExpected: Expected = {
  "ACTIVE DELETE": ["INACTIVE", []],
  "PENDING_OWNERSHIP_VERIFICATION CHALLENGE": ["PENDING_OWNERSHIP_VERIFICATION", []],
  "PENDING_OWNERSHIP_VERIFICATION VERIFICATION_PASSED": ["ACTIVE", ["EXTERNAL_ACCOUNT.STATUS_UPDATED"]],
  "PENDING_OWNERSHIP_VERIFICATION VERIFICATION_FAILED": ["UNVERIFIED", ["EXTERNAL_ACCOUNT.STATUS_UPDATED"]],
  "PENDING_OWNERSHIP_VERIFICATION DELETE": ["INACTIVE", []],
  "UNVERIFIED CHALLENGE": ["PENDING_OWNERSHIP_VERIFICATION", ["EXTERNAL_ACCOUNT.STATUS_UPDATED"]],
  "UNVERIFIED DELETE": ["INACTIVE", []]
}

// S-02, S-11, S-14: a challenge is passed once, or expires, is superseded by a new start, or cancelled with its quote.
const scaChallengeExpected: Expected = {
  "OPEN PASS": ["PASSED", []],
  "OPEN EXPIRE": ["EXPIRED", []],
  "OPEN SUPERSEDE": ["SUPERSEDED", []],
  "OPEN CANCEL": ["CANCELLED", []]
}

// S-13, L-09: an SCA session lapses after 180 days or is revoked by a password reset.
const scaSessionExpected: Expected = {
  "ACTIVE EXPIRE": ["EXPIRED", []],
  "ACTIVE REVOKE": ["REVOKED", []]
}

// S-02: an enrolment is confirmed, lapses after 600 s or is replaced by a new start; an active factor is deleted or
// replaced by a newly confirmed one of its kind.
const scaFactorExpected: Expected = {
  "PENDING CONFIRM": ["ACTIVE", []],
  "PENDING EXPIRE": ["REMOVED", []],
  "PENDING RESTART": ["REMOVED", []],
  "ACTIVE DELETE": ["REMOVED", []],
  "ACTIVE REPLACE": ["REMOVED", []],
  "ACTIVE RESET": ["REMOVED", []]
}

const scaFactorResetExpected: Expected = {
  "INITIATED SUBMIT": ["PENDING_REVIEW", []],
  "INITIATED PASS": ["LIVENESS_PASSED", []],
  "INITIATED REJECT": ["REJECTED", []],
  "INITIATED EXPIRE": ["EXPIRED", []],
  "PENDING_REVIEW PASS": ["LIVENESS_PASSED", []],
  "PENDING_REVIEW REJECT": ["REJECTED", []],
  "PENDING_REVIEW EXPIRE": ["EXPIRED", []],
  "LIVENESS_PASSED COMPLETE": ["COMPLETED", []],
  "LIVENESS_PASSED EXPIRE": ["EXPIRED", []]
}

// AC-31 … AC-34: a confirmed trust makes the account TRUSTED, a confirmed untrust UNTRUSTED again; both repeat.
const trustedBeneficiaryExpected: Expected = {
  "UNTRUSTED TRUST": ["TRUSTED", []],
  "TRUSTED UNTRUST": ["UNTRUSTED", []]
}

// CD-19 … CD-25: the issuer activates or rejects a PROCESSING card; PATCH freezes, unfreezes, closes; the service may
// close too; CLOSED is terminal. Every move emits the spec's card.state_change.
const cardExpected: Expected = {
  "PROCESSING ACTIVATE": ["ACTIVE", ["card.state_change"]],
  "PROCESSING REJECT": ["CLOSED", ["card.state_change"]],
  "ACTIVE FREEZE": ["FROZEN", ["card.state_change"]],
  "ACTIVE CLOSE": ["CLOSED", ["card.state_change"]],
  "ACTIVE CLOSE_BY_SERVICE": ["CLOSED", ["card.state_change"]],
  "FROZEN UNFREEZE": ["ACTIVE", ["card.state_change"]],
  "FROZEN CLOSE": ["CLOSED", ["card.state_change"]],
  "FROZEN CLOSE_BY_SERVICE": ["CLOSED", ["card.state_change"]]
}

// CD-34 … CD-40, V-04, V-05 (design section 2): a new row is APPROVEd, DECLINEd or POSTed; advices re-size, clearings
// post in parts or whole, a zero clearing or a close expires, a failed pull declines; returns and reversals re-fire the
// state's event; a late pull confirmation moves nothing. No EXCEPTION or REFUNDED anywhere.
const cardTransactionExpected: Expected = {
  "REQUESTED APPROVE": ["AUTHORIZED", ["CARD_TRANSACTION.AUTHORIZED"]],
  "REQUESTED DECLINE": ["DECLINED", ["CARD_TRANSACTION.DECLINED"]],
  "REQUESTED POST": ["SETTLED", ["CARD_TRANSACTION.SETTLED"]],
  "AUTHORIZED RESIZE": ["AUTHORIZED", ["CARD_TRANSACTION.AUTHORIZED"]],
  "AUTHORIZED CLEAR_PART": ["PARTIALLY_SETTLED", ["CARD_TRANSACTION.PARTIALLY_SETTLED"]],
  "AUTHORIZED CLEAR_ALL": ["SETTLED", ["CARD_TRANSACTION.SETTLED"]],
  "AUTHORIZED CLEAR_UNFUNDED": ["PULL_FAILED", ["CARD_TRANSACTION.DECLINED"]],
  "AUTHORIZED EXPIRE": ["EXPIRED", ["CARD_TRANSACTION.SETTLED"]],
  "AUTHORIZED PULL_FAIL": ["PULL_FAILED", ["CARD_TRANSACTION.DECLINED"]],
  "AUTHORIZED PULL_CONFIRM": ["AUTHORIZED", []],
  "PARTIALLY_SETTLED RESIZE": ["PARTIALLY_SETTLED", ["CARD_TRANSACTION.PARTIALLY_SETTLED"]],
  "PARTIALLY_SETTLED CLEAR_PART": ["PARTIALLY_SETTLED", ["CARD_TRANSACTION.PARTIALLY_SETTLED"]],
  "PARTIALLY_SETTLED CLEAR_ALL": ["SETTLED", ["CARD_TRANSACTION.SETTLED"]],
  "PARTIALLY_SETTLED CLEAR_UNFUNDED": ["PULL_FAILED", ["CARD_TRANSACTION.DECLINED"]],
  "PARTIALLY_SETTLED EXPIRE": ["EXPIRED", ["CARD_TRANSACTION.SETTLED"]],
  "PARTIALLY_SETTLED PULL_FAIL": ["PULL_FAILED", ["CARD_TRANSACTION.DECLINED"]],
  "PARTIALLY_SETTLED PULL_CONFIRM": ["PARTIALLY_SETTLED", []],
  "PARTIALLY_SETTLED RETURN": ["PARTIALLY_SETTLED", ["CARD_TRANSACTION.PARTIALLY_SETTLED"]],
  "PARTIALLY_SETTLED RETURN_REVERSAL": ["PARTIALLY_SETTLED", ["CARD_TRANSACTION.PARTIALLY_SETTLED"]],
  "SETTLED PULL_FAIL": ["PULL_FAILED", ["CARD_TRANSACTION.DECLINED"]],
  "SETTLED PULL_CONFIRM": ["SETTLED", []],
  "SETTLED RETURN": ["SETTLED", ["CARD_TRANSACTION.SETTLED"]],
  "SETTLED RETURN_REVERSAL": ["SETTLED", ["CARD_TRANSACTION.SETTLED"]],
  "EXPIRED CLEAR_UNFUNDED": ["PULL_FAILED", ["CARD_TRANSACTION.DECLINED"]],
  "EXPIRED CLEAR_LATE": ["SETTLED", ["CARD_TRANSACTION.SETTLED"]],
  "EXPIRED PULL_FAIL": ["PULL_FAILED", ["CARD_TRANSACTION.DECLINED"]],
  "EXPIRED PULL_CONFIRM": ["EXPIRED", []],
  "EXPIRED RETURN": ["EXPIRED", ["CARD_TRANSACTION.SETTLED"]],
  "EXPIRED RETURN_REVERSAL": ["EXPIRED", ["CARD_TRANSACTION.SETTLED"]],
  "PULL_FAILED CLEAR_UNFUNDED": ["PULL_FAILED", ["CARD_TRANSACTION.DECLINED"]]
}

// AG-17 … AG-23, WH-22 (docs/design/agents.md, section 2): a submission is held (the platform is told) or run at once;
// the platform approves or rejects a held action, or it fails (a re-check, the execution, the agent's delete).
const agentActionExpected: Expected = {
  "SUBMITTED HOLD": ["PENDING_APPROVAL", ["AGENT_ACTION.PENDING_APPROVAL"]],
  "SUBMITTED RUN": ["APPROVED", []],
  "PENDING_APPROVAL APPROVE": ["APPROVED", []],
  "PENDING_APPROVAL FAIL": ["FAILED", []],
  "PENDING_APPROVAL REJECT": ["REJECTED", []]
}

// AG-13 … AG-15: an issued code is redeemed once, or invalidated by a newer code or the agent's delete.
const agentDeviceCodeExpected: Expected = {
  "ISSUED REDEEM": ["REDEEMED", []],
  "ISSUED INVALIDATE": ["INVALIDATED", []]
}

// IN-04 … IN-10, WH-11: a pending invitation is claimed once (the platform is told), cancelled, or expires.
const invitationExpected: Expected = {
  "PENDING CLAIM": ["CLAIMED", ["INVITATION.CLAIMED"]],
  "PENDING CANCEL": ["CANCELLED", []],
  "PENDING EXPIRE": ["EXPIRED", []]
}

// P-17 (design section 2): outside funds wait in PENDING_FUNDING, service-held ones are handed over by the worker;
// the provider processes, completes or fails; a link is invalidated or revoked, and re-linked.
const stablecoinOperationExpected: Expected = {
  "CREATED AWAIT_FUNDS": ["PENDING_FUNDING", []],
  "CREATED FUND": ["PENDING_PROVIDER", []],
  "CREATED REFUSE": ["FAILED", []],
  "PENDING_FUNDING FUNDS_RECEIVED": ["PENDING_PROVIDER", []],
  "PENDING_FUNDING EXPIRE": ["EXPIRED", []],
  "PENDING_FUNDING FAIL": ["FAILED", []],
  "PENDING_PROVIDER START": ["PROCESSING", []],
  "PENDING_PROVIDER COMPLETE": ["COMPLETED", []],
  "PENDING_PROVIDER FAIL": ["FAILED", []],
  "PROCESSING COMPLETE": ["COMPLETED", []],
  "PROCESSING FAIL": ["FAILED", []]
}
const providerAccountExpected: Expected = {
  "ACTIVE INVALIDATE": ["INVALID", []],
  "ACTIVE REVOKE": ["REVOKED", []],
  "INVALID RELINK": ["ACTIVE", []],
  "REVOKED RELINK": ["ACTIVE", []]
}

const cases: ReadonlyArray<{
  readonly machine: Machine<string, string, string>
  readonly states: ReadonlyArray<string>
  readonly events: ReadonlyArray<string>
  readonly expected: Expected
}> = [
  {
    machine: stablecoinOperationMachine,
    states: StablecoinOperationStatus.literals,
    events: ["AWAIT_FUNDS", "FUND", "REFUSE", "FUNDS_RECEIVED", "EXPIRE", "FAIL", "START", "COMPLETE"],
    expected: stablecoinOperationExpected
  },
  {
    machine: providerAccountMachine,
    states: ProviderAccountStatus.literals,
    events: ["INVALIDATE", "REVOKE", "RELINK"],
    expected: providerAccountExpected
  },
  // the payment statuses PENDING, PROCESSING, COMPLETED, FAILED, EXPIRED are the public ones of these states.
  {
    machine: outgoingPaymentMachine,
    states: [
      "PENDING",
      "PENDING_AUTHORIZATION",
      "COMPLIANCE_REVIEW",
      "PROCESSING",
      "COMPLETED",
      "REFUND_PENDING",
      "REFUND_COMPLETED",
      "REFUND_FAILED",
      "EXPIRED",
      "SCA_FAILED"
    ],
    events: [
      "EXECUTE",
      "EXECUTE_SCA",
      "NEXT_CHALLENGE",
      "AUTHORIZE",
      "AUTHORIZE_FUNDING",
      "SCA_EXPIRE",
      "SETTLE",
      "FAIL",
      "RETURN",
      "REFUND_SETTLE",
      "REFUND_FAIL",
      "EXPIRE",
      "CANCEL",
      "HOLD",
      "RELEASE",
      "REJECT"
    ],
    expected: outgoingExpected
  },
  {
    machine: incomingPaymentMachine,
    states: [
      "PENDING",
      "AWAITING_APPROVAL",
      "COMPLETED",
      "FAILED",
      "REFUND_PENDING",
      "REFUND_COMPLETED",
      "REFUND_FAILED"
    ],
    events: [
      "SETTLE",
      "FAIL",
      "AWAIT_APPROVAL",
      "APPROVE",
      "REJECT",
      "APPROVAL_FAIL",
      "RETURN",
      "REFUND_SETTLE",
      "REFUND_FAIL"
    ],
    expected: incomingExpected
  },
  // every quote status; Q-21: no event cancels a quote (an executed one moves only by its payment).
  {
    machine: quoteMachine,
    states: ["PENDING", "PENDING_AUTHORIZATION", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"],
    events: ["EXECUTE", "EXECUTE_SCA", "AUTHORIZE", "AUTHORIZE_FUNDING", "COMPLETE", "FAIL", "EXPIRE"],
    expected: quoteExpected
  },
  { machine: credentialMachine, states: ["ACTIVE", "REVOKED"], events: ["REVOKE"], expected: credentialExpected },
  {
    machine: sessionMachine,
    states: ["ACTIVE", "REVOKED", "REFRESHED", "EXPIRED"],
    events: ["REVOKE", "REFRESH", "EXPIRE"],
    expected: sessionExpected
  },
  {
    machine: signedRequestMachine,
    states: ["PENDING", "PROCESSING", "CONSUMED", "FAILED", "EXPIRED"],
    events: ["ACCEPT", "ACCEPT_PENDING", "SETTLE", "REFUSE", "EXPIRE"],
    expected: signedRequestExpected
  },
  {
    machine: delegatedKeyMachine,
    states: ["PENDING", "ACTIVE", "REVOKED"],
    events: ["ACTIVATE", "REVOKE"],
    expected: delegatedKeyExpected
  },
  {
    machine: externalAccountMachine,
    states: ["ACTIVE", "PENDING_OWNERSHIP_VERIFICATION", "UNVERIFIED", "INACTIVE"],
    events: ["CHALLENGE", "VERIFICATION_PASSED", "VERIFICATION_FAILED", "DELETE"],
    expected: externalAccountExpected
  },
  {
    machine: scaChallengeMachine,
    states: ["OPEN", "PASSED", "EXPIRED", "SUPERSEDED", "CANCELLED"],
    events: ["PASS", "EXPIRE", "SUPERSEDE", "CANCEL"],
    expected: scaChallengeExpected
  },
  {
    machine: scaSessionMachine,
    states: ["ACTIVE", "EXPIRED", "REVOKED"],
    events: ["EXPIRE", "REVOKE"],
    expected: scaSessionExpected
  },
  {
    machine: scaFactorMachine,
    states: ["PENDING", "ACTIVE", "REMOVED"],
    events: ["CONFIRM", "EXPIRE", "RESTART", "DELETE", "REPLACE", "RESET"],
    expected: scaFactorExpected
  },
  {
    machine: trustedBeneficiaryMachine,
    states: ["UNTRUSTED", "TRUSTED"],
    events: ["TRUST", "UNTRUST"],
    expected: trustedBeneficiaryExpected
  },
  {
    machine: scaFactorResetMachine,
    states: ["INITIATED", "PENDING_REVIEW", "LIVENESS_PASSED", "COMPLETED", "REJECTED", "EXPIRED"],
    events: ["SUBMIT", "PASS", "REJECT", "COMPLETE", "EXPIRE"],
    expected: scaFactorResetExpected
  },
  {
    machine: cardMachine,
    states: ["PROCESSING", "ACTIVE", "FROZEN", "CLOSED"],
    events: ["ACTIVATE", "REJECT", "FREEZE", "UNFREEZE", "CLOSE", "CLOSE_BY_SERVICE"],
    expected: cardExpected
  },
  {
    machine: cardTransactionMachine,
    states: ["REQUESTED", "AUTHORIZED", "PARTIALLY_SETTLED", "SETTLED", "DECLINED", "EXPIRED", "PULL_FAILED"],
    events: [
      "APPROVE",
      "DECLINE",
      "POST",
      "RESIZE",
      "CLEAR_PART",
      "CLEAR_ALL",
      "CLEAR_UNFUNDED",
      "EXPIRE",
      "CLEAR_LATE",
      "PULL_FAIL",
      "PULL_CONFIRM",
      "RETURN",
      "RETURN_REVERSAL"
    ],
    expected: cardTransactionExpected
  },
  {
    machine: agentActionMachine,
    states: ["SUBMITTED", "PENDING_APPROVAL", "APPROVED", "REJECTED", "FAILED"],
    events: ["HOLD", "RUN", "APPROVE", "FAIL", "REJECT"],
    expected: agentActionExpected
  },
  {
    machine: agentDeviceCodeMachine,
    states: ["ISSUED", "REDEEMED", "INVALIDATED"],
    events: ["REDEEM", "INVALIDATE"],
    expected: agentDeviceCodeExpected
  },
  {
    machine: invitationMachine,
    states: ["PENDING", "CLAIMED", "CANCELLED", "EXPIRED"],
    events: ["CLAIM", "CANCEL", "EXPIRE"],
    expected: invitationExpected
  }
]

describe("state machines", () => {
  for (const { machine, states, events, expected } of cases) {
    describe(machine.name, () => {
      it("has exactly the states and events of the spec", () => {
        expect([...machine.states].sort()).toEqual([...states].sort())
        expect([...machine.events].sort()).toEqual([...events].sort())
        expect(machine.initial).toBe(states[0])
      })

      for (const state of states) {
        for (const event of events) {
          const key = `${state} ${event}`
          const want = expected[key]
          it(`${key} → ${want === undefined ? "illegal" : want[0]}`, () => {
            const result = transition(machine, state, event)
            if (want === undefined) {
              expect(Result.isFailure(result)).toBe(true)
              if (Result.isFailure(result)) {
                expect(result.failure).toBeInstanceOf(IllegalTransition)
                expect(result.failure._tag).toBe("IllegalTransition")
                expect(result.failure).toMatchObject({ machine: machine.name, from: state, event })
              }
            } else {
              expect(Result.isSuccess(result)).toBe(true)
              if (Result.isSuccess(result)) {
                expect(result.success.to).toBe(want[0])
                expect([...result.success.emits]).toEqual([...want[1]])
              }
            }
          })
        }
      }

      it("every expected move exists (the list names only real states and events)", () => {
        for (const key of Object.keys(expected)) {
          const [state, event] = key.split(" ") as [string, string]
          expect(states).toContain(state)
          expect(events).toContain(event)
        }
      })

      it("terminal states have no way out", () => {
        for (const s of machine.terminal) {
          for (const e of events) expect(Result.isFailure(transition(machine, s, e))).toBe(true)
        }
      })

      it("renders as a Mermaid diagram with one line per legal move", () => {
        const mermaid = toMermaid(machine)
        expect(mermaid.startsWith("stateDiagram-v2")).toBe(true)
        for (const [key, [to]] of Object.entries(expected)) {
          const [from, event] = key.split(" ")
          expect(mermaid).toContain(`${from} --> ${to}: ${event}`)
        }
      })
    })
  }

  it("public statuses: refund states and SCA_FAILED of an outgoing payment read FAILED (S-11); of an incoming one COMPLETED", () => {
    expect(outgoingStatus).toEqual({
      PENDING: "PENDING",
      PENDING_AUTHORIZATION: "PENDING_AUTHORIZATION",
      COMPLIANCE_REVIEW: "PROCESSING",
      PROCESSING: "PROCESSING",
      COMPLETED: "COMPLETED",
      REFUND_PENDING: "FAILED",
      REFUND_COMPLETED: "FAILED",
      REFUND_FAILED: "FAILED",
      EXPIRED: "EXPIRED",
      SCA_FAILED: "FAILED"
    })
    expect(incomingStatus).toEqual({
      PENDING: "PENDING",
      AWAITING_APPROVAL: "PENDING",
      COMPLETED: "COMPLETED",
      FAILED: "FAILED",
      REFUND_PENDING: "COMPLETED",
      REFUND_COMPLETED: "COMPLETED",
      REFUND_FAILED: "COMPLETED"
    })
  })

  it("rules read off the tables: the states a quote expires from, where a refund is due, unknown names allow nothing", () => {
    // Design Q3: a quote waiting for authorization fails by its challenge's expiry, not its own.
    expect(expirableQuoteStates).toEqual(["PENDING"])
    expect(statesAllowing(outgoingPaymentMachine, "SCA_EXPIRE")).toEqual(["PENDING_AUTHORIZATION"])
    expect(statesAllowing(outgoingPaymentMachine, "SETTLE", "RETURN")).toEqual(["PROCESSING", "COMPLETED"])
    expect(statesAllowing(incomingPaymentMachine, "REFUND_SETTLE")).toEqual(["REFUND_PENDING"])
    expect(statesAllowing(quoteMachine)).toEqual([])
    expect(allows(quoteMachine, "PENDING", "EXECUTE")).toBe(true)
    expect(allows(quoteMachine, "PENDING_AUTHORIZATION", "EXECUTE")).toBe(false)
    expect(allows(quoteMachine, "NO_SUCH_STATE", "EXPIRE")).toBe(false)
    expect(allows(incomingPaymentMachine, "PENDING", "EXPIRE")).toBe(false)
  })

  it("CD-25, CD-05: PATCH maps its target to an event, so ACTIVE → ACTIVE and any move from PROCESSING or CLOSED is illegal; each closing event has its stateReason", () => {
    expect(cardEventOf).toEqual({ ACTIVE: "UNFREEZE", FROZEN: "FREEZE", CLOSED: "CLOSE" })
    const legal = (from: string, to: "ACTIVE" | "FROZEN" | "CLOSED") => allows(cardMachine, from, cardEventOf[to])
    expect(legal("ACTIVE", "FROZEN") && legal("FROZEN", "ACTIVE") && legal("ACTIVE", "CLOSED")).toBe(true)
    expect(legal("FROZEN", "CLOSED")).toBe(true)
    for (const to of ["ACTIVE", "FROZEN", "CLOSED"] as const) {
      expect(legal("PROCESSING", to)).toBe(false)
      expect(legal("CLOSED", to)).toBe(false)
    }
    expect(legal("ACTIVE", "ACTIVE")).toBe(false)
    expect(legal("FROZEN", "FROZEN")).toBe(false)
    expect(closedReasonOf).toEqual({
      REJECT: "ISSUER_REJECTED",
      CLOSE: "CLOSED_BY_PLATFORM",
      CLOSE_BY_SERVICE: "CLOSED_BY_SERVICE"
    })
    for (const event of Object.keys(closedReasonOf) as Array<keyof typeof closedReasonOf>) {
      for (const from of statesAllowing(cardMachine, event)) {
        expect(cardMachine.transitions[from][event]?.to).toBe("CLOSED")
      }
    }
  })

  it("CD-34, CD-37, CD-38, V-04, V-05: card transaction statuses are read off the state; EXCEPTION and REFUNDED nowhere", () => {
    expect(cardTransactionStatus).toEqual({
      AUTHORIZED: "AUTHORIZED",
      PARTIALLY_SETTLED: "PARTIALLY_SETTLED",
      SETTLED: "SETTLED",
      EXPIRED: "SETTLED",
      DECLINED: "DECLINED",
      PULL_FAILED: "DECLINED",
      EXCEPTION: "DECLINED"
    })
    // Every stored state of the machine (all but REQUESTED) has a public status.
    for (const state of cardTransactionMachine.states.filter((s) => s !== "REQUESTED")) {
      expect(Object.keys(cardTransactionStatus)).toContain(state)
    }
    expect(cardTransactionStatesOf("DECLINED")).toEqual(["DECLINED", "PULL_FAILED", "EXCEPTION"])
    expect(cardTransactionStatesOf("SETTLED")).toEqual(["SETTLED", "EXPIRED"])
    expect(cardTransactionStatesOf("AUTHORIZED")).toEqual(["AUTHORIZED"])
    const emitted = Object.values(cardTransactionMachine.transitions).flatMap((moves) =>
      Object.values(moves).flatMap((move) => move?.emits ?? [])
    )
    expect(new Set(emitted)).toEqual(
      new Set([
        "CARD_TRANSACTION.AUTHORIZED",
        "CARD_TRANSACTION.PARTIALLY_SETTLED",
        "CARD_TRANSACTION.SETTLED",
        "CARD_TRANSACTION.DECLINED"
      ])
    )
    expect(cardTransactionMachine.states).not.toContain("EXCEPTION")
    expect(cardTransactionMachine.states).not.toContain("REFUNDED")
    // A legacy EXCEPTION row takes no move.
    expect(allows(cardTransactionMachine, "EXCEPTION", "RETURN")).toBe(false)
  })

  it("AG-18: an action's stored statuses are its machine's states but SUBMITTED, which is never stored", () => {
    expect(agentActionMachine.states.filter((state) => state !== agentActionMachine.initial)).toEqual([
      ...AgentActionStatus.literals
    ])
    expect(statesAllowing(agentActionMachine, "APPROVE", "REJECT", "FAIL")).toEqual(["PENDING_APPROVAL"])
  })
  it("IN-02, IN-10: an invitation's statuses are its machine's states; only PENDING moves", () => {
    expect([...invitationMachine.states].sort()).toEqual([...InvitationStatus.literals].sort())
    expect(statesAllowing(invitationMachine, "CLAIM", "CANCEL", "EXPIRE")).toEqual(["PENDING"])
  })
})

describe("retired failure reasons (V-06)", () => {
  it("V-06: EXECUTION_FAILED_POST_DEBIT, SETTLEMENT_FAILED, TIMEOUT and MANUAL_REFUND are in no failure catalogue", () => {
    const catalogue: ReadonlyArray<string> = [...FailureReason.literals, ...TransactionFailureReason.literals]
    for (const retired of ["EXECUTION_FAILED_POST_DEBIT", "SETTLEMENT_FAILED", "TIMEOUT", "MANUAL_REFUND"]) {
      expect(catalogue).not.toContain(retired)
    }
  })
})
