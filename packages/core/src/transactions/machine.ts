import { defineMachine } from "../shared/machine.ts"
import type { TransactionStatus } from "./model.ts"

/**
 * An outgoing payment (created with its quote). Refunds are sub-states: REFUND_PENDING,
 * REFUND_COMPLETED and REFUND_FAILED all read `FAILED` publicly, with `refund.status`
 * PENDING / COMPLETED / FAILED. A failure emits FAILED then REFUND_PENDING in one move; the
 * refund itself is a later step (`REFUND_SETTLE` or `REFUND_FAIL`). A payout the receiving
 * bank returns after it settled (`RETURN`) fails the same way with `PAYOUT_RETURNED`.
 * COMPLETED is not terminal: a return can still arrive.
 *
 * Under Strong Customer Authentication (S-03 … S-06, S-11) a payment waits in PENDING_AUTHORIZATION with no money
 * held: each challenge of its quote emits PENDING_AUTHORIZATION again (`NEXT_CHALLENGE`, S-05), the last one
 * executes it (`AUTHORIZE`) or, for a real-time-funded quote, brings it back to PENDING to await the deposit
 * (`AUTHORIZE_FUNDING`). An expired challenge fails it as SCA_FAILED (public `FAILED`, `SCA_NOT_COMPLETED`): nothing
 * moved, so there is nothing to refund.
 *
 * `CANCEL` (WH-07): the platform cancelled a submitted ACH or WIRE payout the rail had not settled
 * (`POST /transactions/{id}/cancel`); it fails like `FAIL`, and its refund is the holds voided.
 *
 * Compliance holds: a payout the `Screening` port holds as it is executed moves `HOLD` instead of `EXECUTE` /
 * `AUTHORIZE`, to COMPLIANCE_REVIEW (public `PROCESSING` with `pendingReason: COMPLIANCE_REVIEW`, its money held,
 * nothing sent to the rail), announced by `OUTGOING_PAYMENT.PROCESSING`. A decision moves it on: `RELEASE` to
 * PROCESSING (`OUTGOING_PAYMENT.PROCESSING` again, then submitted to its rail), or `REJECT` to a refund
 * (`COMPLIANCE_REJECTED`; its refund is the holds voided, as a cancellation's).
 */
export const outgoingPaymentMachine = defineMachine({
  name: "OutgoingPayment",
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
  initial: "PENDING",
  terminal: ["REFUND_COMPLETED", "REFUND_FAILED", "EXPIRED", "SCA_FAILED"],
  transitions: {
    PENDING: {
      EXECUTE: { to: "PROCESSING", emits: ["OUTGOING_PAYMENT.PROCESSING"] },
      EXECUTE_SCA: { to: "PENDING_AUTHORIZATION", emits: ["OUTGOING_PAYMENT.PENDING_AUTHORIZATION"] },
      HOLD: { to: "COMPLIANCE_REVIEW", emits: ["OUTGOING_PAYMENT.PROCESSING"] },
      EXPIRE: { to: "EXPIRED", emits: ["OUTGOING_PAYMENT.EXPIRED"] }
    },
    PENDING_AUTHORIZATION: {
      NEXT_CHALLENGE: { to: "PENDING_AUTHORIZATION", emits: ["OUTGOING_PAYMENT.PENDING_AUTHORIZATION"] },
      AUTHORIZE: { to: "PROCESSING", emits: ["OUTGOING_PAYMENT.PROCESSING"] },
      AUTHORIZE_FUNDING: { to: "PENDING", emits: ["OUTGOING_PAYMENT.PENDING"] },
      HOLD: { to: "COMPLIANCE_REVIEW", emits: ["OUTGOING_PAYMENT.PROCESSING"] },
      SCA_EXPIRE: { to: "SCA_FAILED", emits: ["OUTGOING_PAYMENT.FAILED"] }
    },
    COMPLIANCE_REVIEW: {
      RELEASE: { to: "PROCESSING", emits: ["OUTGOING_PAYMENT.PROCESSING"] },
      REJECT: { to: "REFUND_PENDING", emits: ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"] }
    },
    PROCESSING: {
      SETTLE: { to: "COMPLETED", emits: ["OUTGOING_PAYMENT.COMPLETED"] },
      FAIL: { to: "REFUND_PENDING", emits: ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"] },
      CANCEL: { to: "REFUND_PENDING", emits: ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"] }
    },
    COMPLETED: {
      RETURN: { to: "REFUND_PENDING", emits: ["OUTGOING_PAYMENT.FAILED", "OUTGOING_PAYMENT.REFUND_PENDING"] }
    },
    REFUND_PENDING: {
      REFUND_SETTLE: { to: "REFUND_COMPLETED", emits: ["OUTGOING_PAYMENT.REFUND_COMPLETED"] },
      REFUND_FAIL: { to: "REFUND_FAILED", emits: ["OUTGOING_PAYMENT.REFUND_FAILED"] }
    },
    REFUND_COMPLETED: {},
    REFUND_FAILED: {},
    EXPIRED: {},
    SCA_FAILED: {}
  }
})
export type OutgoingState = (typeof outgoingPaymentMachine.states)[number]
export type OutgoingEvent = (typeof outgoingPaymentMachine.events)[number]

/**
 * An incoming payment (a deposit, a sandbox funding, a transfer-in pull, an UMA payment received).
 * A deposit returned after it completed is refunded: REFUND_* read `COMPLETED` publicly (the
 * deposit did arrive), with `refund.status` telling how the return went.
 *
 * Under incoming approvals (`EngineSettings.incomingApproval`, WH-21) an UMA payment waits in AWAITING_APPROVAL
 * (public `PENDING`, no money moved) for the platform's decision: its webhook reply or the approve / reject
 * routes (`APPROVE` credits it, `REJECT` fails it `COMPLIANCE_REJECTED`); a reply the service cannot use or no
 * decision by the deadline fails it (`APPROVAL_FAIL`).
 */
export const incomingPaymentMachine = defineMachine({
  name: "IncomingPayment",
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
  initial: "PENDING",
  terminal: ["FAILED", "REFUND_COMPLETED", "REFUND_FAILED"],
  transitions: {
    PENDING: {
      SETTLE: { to: "COMPLETED", emits: ["INCOMING_PAYMENT.COMPLETED"] },
      FAIL: { to: "FAILED", emits: ["INCOMING_PAYMENT.FAILED"] },
      AWAIT_APPROVAL: { to: "AWAITING_APPROVAL", emits: ["INCOMING_PAYMENT.PENDING"] }
    },
    AWAITING_APPROVAL: {
      APPROVE: { to: "COMPLETED", emits: ["INCOMING_PAYMENT.COMPLETED"] },
      REJECT: { to: "FAILED", emits: ["INCOMING_PAYMENT.FAILED"] },
      APPROVAL_FAIL: { to: "FAILED", emits: ["INCOMING_PAYMENT.FAILED"] }
    },
    COMPLETED: {
      RETURN: { to: "REFUND_PENDING", emits: ["INCOMING_PAYMENT.REFUND_PENDING"] }
    },
    FAILED: {},
    REFUND_PENDING: {
      REFUND_SETTLE: { to: "REFUND_COMPLETED", emits: ["INCOMING_PAYMENT.REFUND_COMPLETED"] },
      REFUND_FAIL: { to: "REFUND_FAILED", emits: ["INCOMING_PAYMENT.REFUND_FAILED"] }
    },
    REFUND_COMPLETED: {},
    REFUND_FAILED: {}
  }
})
export type IncomingState = (typeof incomingPaymentMachine.states)[number]
export type IncomingEvent = (typeof incomingPaymentMachine.events)[number]

/** The public `status` of an outgoing payment in a machine state. */
export const outgoingStatus: { readonly [K in OutgoingState]: TransactionStatus } = {
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
}

/** The public `status` of an incoming payment in a machine state. */
export const incomingStatus: { readonly [K in IncomingState]: TransactionStatus } = {
  PENDING: "PENDING",
  AWAITING_APPROVAL: "PENDING",
  COMPLETED: "COMPLETED",
  FAILED: "FAILED",
  REFUND_PENDING: "COMPLETED",
  REFUND_COMPLETED: "COMPLETED",
  REFUND_FAILED: "COMPLETED"
}
